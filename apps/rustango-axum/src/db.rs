//! One pool connection per request; the page querysets themselves are
//! `rustango_models::pages`.

use crate::AppState;
use crate::routes::AppError;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use rustango::sql::PoolConn;

// region: detail-page
/// A connection held for the whole request: every queryset runs `_on` it, so a page costs
/// its queries plus the one ping sqlx sends when the connection goes back to the pool.
pub struct DbConn(pub PoolConn);

impl FromRequestParts<AppState> for DbConn {
    type Rejection = AppError;

    async fn from_request_parts(_: &mut Parts, state: &AppState) -> Result<Self, AppError> {
        Ok(DbConn(state.pool.acquire().await?))
    }
}
// endregion
