//! One pool connection per request; the page queries themselves are `shared_sql::pages`.

use crate::AppState;
use crate::routes::AppError;
use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, web};
use sqlx::{Postgres, pool::PoolConnection};
use std::future::Future;
use std::pin::Pin;

// region: detail-page
/// A connection held for the whole request, so a page costs its queries plus the one ping
/// sqlx sends when the connection goes back to the pool.
pub struct DbConn(pub PoolConnection<Postgres>);

impl FromRequest for DbConn {
    type Error = AppError;
    // An async extractor's future is boxed (as `FromRequest`'s documentation shows).
    type Future = Pin<Box<dyn Future<Output = Result<Self, AppError>>>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let state = req
            .app_data::<web::Data<AppState>>()
            .expect("main registers AppState");
        let acquire = state.pool.acquire();
        Box::pin(async move { Ok(DbConn(acquire.await?)) })
    }
}
// endregion
