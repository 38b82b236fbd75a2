//! `/compute?n=N`: CPU only.

use axum::http::StatusCode;
use loco_rs::prelude::*;

pub fn routes() -> Routes {
    Routes::new().add("/compute", get(compute))
}

/// The first `n` counts, as in Go's `URL.Query().Get`.
pub async fn compute(Query(params): Query<Vec<(String, String)>>) -> Result<Response> {
    let n = params
        .iter()
        .find(|(key, _)| key == "n")
        .map(|(_, value)| value.as_str());
    match workload::parse_n(n) {
        Ok(n) => format::text(&workload::compute_body(n)),
        Err(message) => format::render()
            .status(StatusCode::BAD_REQUEST)
            .text(message),
    }
}
