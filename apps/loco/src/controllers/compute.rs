//! `/compute?n=N`: CPU only.

use axum::extract::RawQuery;
use axum::http::StatusCode;
use loco_rs::prelude::*;

pub fn routes() -> Routes {
    Routes::new().add("/compute", get(compute))
}

/// The raw query, read by the rule every app shares (Go's `parseN`): Loco's `Query` decodes
/// with other rules (it splits on `;`, for one).
pub async fn compute(RawQuery(query): RawQuery) -> Result<Response> {
    match workload::parse_n_query(query.as_deref()) {
        Ok(n) => format::text(&workload::compute_body(n)),
        Err(message) => format::render()
            .status(StatusCode::BAD_REQUEST)
            .text(message),
    }
}
