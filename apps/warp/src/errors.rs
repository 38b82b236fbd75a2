//! Why a request gets no page, and the one rejection → response mapping (`recover`).

use crate::AppState;
use crate::routes::{self, Response};
use std::sync::Arc;
use warp::Rejection;
use warp::http::StatusCode;
use warp::reject::{MethodNotAllowed, PayloadTooLarge, Reject};
use workload::comment::FormError;

// region: errors
/// Why a request gets no page; handlers and filters reject with it (`warp::reject::custom`).
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
    // Debug shows the template error's whole chain.
    #[error("template: {0:?}")]
    Template(#[from] tera::Error),
    #[error("comment refused: {0}")]
    Form(#[from] FormError),
}

impl Reject for AppError {}

impl AppError {
    /// A database failure is a 503 the client can retry; a template failure is our bug; a
    /// refused comment is the client's, answered with the rule's message. Only our failures
    /// are logged.
    fn response(&self) -> Response {
        let (status, body) = match self {
            AppError::Database(_) => (
                StatusCode::SERVICE_UNAVAILABLE,
                workload::DB_UNAVAILABLE_MESSAGE,
            ),
            AppError::Template(_) => (
                StatusCode::INTERNAL_SERVER_ERROR,
                workload::INTERNAL_ERROR_MESSAGE,
            ),
            AppError::Form(refused) => (
                StatusCode::from_u16(refused.status()).expect("a 4xx status"),
                refused.message(),
            ),
        };
        if status.is_server_error() {
            eprintln!("warp: {self}");
        }
        routes::plain_text(status, body)
    }
}

/// Every rejection the routes leave, as the app answers it. A rejection is what every route
/// tried gave back (warp's `or` combines them), so `find` looks through all of them:
/// - an `AppError`: its answer;
/// - `content_length_limit`'s `PayloadTooLarge`: the comment rule's 413;
/// - no route's path matched, a route rejected an unknown slug, or only another method's route
///   did (`GET /posts/{slug}/comments`, a `HEAD`, which warp does not derive from `GET`): the
///   404 page, as Go answers (docs/spec.md §3.7);
/// - anything else is warp's own answer: only `content_length_limit`'s 411 for a comment sent
///   without a `Content-Length` (declared in bench.toml).
pub async fn recover(state: Arc<AppState>, rejection: Rejection) -> Result<Response, Rejection> {
    if let Some(error) = rejection.find::<AppError>() {
        Ok(error.response())
    } else if rejection.find::<PayloadTooLarge>().is_some() {
        Ok(AppError::Form(FormError::TooLarge).response())
    } else if rejection.is_not_found() || rejection.find::<MethodNotAllowed>().is_some() {
        Ok(routes::not_found(&state))
    } else {
        Err(rejection)
    }
}
// endregion
