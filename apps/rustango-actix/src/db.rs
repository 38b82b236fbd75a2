//! One pool connection per request, from the worker's own pool shard; the page querysets
//! themselves are `rustango_models::pages`.

use crate::AppState;
use crate::routes::AppError;
use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, web};
use rustango::sql::PoolConn;
use std::future::Future;
use std::pin::Pin;

// region: detail-page
/// A connection held for the whole request: every queryset runs `_on` it, so a page costs
/// its queries plus the one ping sqlx sends when the connection goes back to the pool.
pub struct DbConn(pub PoolConn);

impl FromRequest for DbConn {
    type Error = AppError;
    // An async extractor's future is boxed (as `FromRequest`'s documentation shows).
    type Future = Pin<Box<dyn Future<Output = Result<Self, AppError>>>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        // Rustango's `acquire` borrows the pool, so the future holds the worker's state.
        let state = req
            .app_data::<web::Data<AppState>>()
            .expect("main registers AppState")
            .clone();
        Box::pin(async move { Ok(DbConn(state.pool.acquire().await?)) })
    }
}
// endregion
