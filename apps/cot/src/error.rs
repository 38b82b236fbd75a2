//! Every answer that is not a page (docs/spec.md §3.8), in one enum, and the project's error
//! page handler that sends it.

use cot::error::handler::RequestError;
use cot::html::Html;
use cot::response::{IntoResponse, Response};
use cot::{StatusCode, Template};
use workload::comment::FormError;

// region: errors
/// Why a request gets no page. Handlers and extractors return it; as a `cot::Error` it carries
/// its status to the project's error handler, [`error_page`], which answers it.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// An unknown slug, or a segment that is not one: the shared 404 page.
    #[error("not found")]
    NotFound,
    /// A comment form the shared rule refuses: 400, 413 or 415 with the rule's message.
    #[error(transparent)]
    Form(#[from] FormError),
    /// PostgreSQL failed: 503.
    #[error("database unavailable: {0}")]
    Database(#[from] cot::db::DatabaseError),
    /// PostgreSQL did not answer in time (`db::DEADLINE`): 503.
    #[error("database unavailable: {0}")]
    DatabaseTimeout(#[from] tokio::time::error::Elapsed),
    /// A template failed: 500.
    #[error("template failed: {0}")]
    Render(#[from] askama::Error),
}

impl AppError {
    fn status(&self) -> StatusCode {
        match self {
            AppError::NotFound => StatusCode::NOT_FOUND,
            AppError::Form(form) => {
                StatusCode::from_u16(form.status()).expect("the form rule answers 4xx statuses")
            }
            AppError::Database(_) | AppError::DatabaseTimeout(_) => StatusCode::SERVICE_UNAVAILABLE,
            AppError::Render(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn response(&self) -> cot::Result<Response> {
        let status = self.status();
        match self {
            AppError::NotFound => Html::new(NotFoundHtml.render()?)
                .with_status(status)
                .into_response(),
            AppError::Form(form) => form.message().with_status(status).into_response(),
            AppError::Database(_) | AppError::DatabaseTimeout(_) => {
                workload::DB_UNAVAILABLE_MESSAGE
                    .with_status(status)
                    .into_response()
            }
            AppError::Render(_) => workload::INTERNAL_ERROR_MESSAGE
                .with_status(status)
                .into_response(),
        }
    }
}

impl From<AppError> for cot::Error {
    fn from(error: AppError) -> Self {
        let status = error.status();
        cot::Error::with_status(error, status)
    }
}

/// The project's error page handler: an [`AppError`] gets its answer, a path no route
/// matches (Cot's own 404) the 404 page, anything else (a 405, say) its status as plain text.
pub async fn error_page(error: RequestError) -> cot::Result<Response> {
    if let Some(error) = error.downcast_ref::<AppError>() {
        if error.status().is_server_error() {
            eprintln!("cot: {error}");
        }
        return error.response();
    }
    match error.status_code() {
        StatusCode::NOT_FOUND => AppError::NotFound.response(),
        status => {
            eprintln!("cot: {status}: {error}");
            format!("{status}\n").with_status(status).into_response()
        }
    }
}
// endregion

#[derive(Template)]
#[template(path = "not_found.html")]
struct NotFoundHtml;
