//! The controllers (the six routes of docs/spec.md §3) and the one error → response mapping.

pub mod cached;
pub mod compute;
pub mod pages;

use axum::http::StatusCode;
use loco_rs::prelude::*;

/// What a page handler returns.
pub type Page = std::result::Result<Response, PageError>;

/// Why a page could not be served. Loco's own `Error` answers with JSON; docs/spec.md §3.8
/// wants the plain-text 503 every app sends while PostgreSQL is unavailable.
#[derive(Debug)]
pub enum PageError {
    Database(DbErr),
    /// Rendering (Tera) or building the response: our bug.
    Render(Error),
}

impl From<DbErr> for PageError {
    fn from(err: DbErr) -> Self {
        Self::Database(err)
    }
}

impl From<Error> for PageError {
    fn from(err: Error) -> Self {
        Self::Render(err)
    }
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let (status, body) = match self {
            Self::Database(err) => {
                tracing::error!(%err, "database");
                (
                    StatusCode::SERVICE_UNAVAILABLE,
                    workload::DB_UNAVAILABLE_MESSAGE,
                )
            }
            Self::Render(err) => {
                tracing::error!(?err, "render");
                (StatusCode::INTERNAL_SERVER_ERROR, "template error\n")
            }
        };
        format::render()
            .status(status)
            .text(body)
            .unwrap_or_else(|_| status.into_response())
    }
}

/// The 404 page, for unknown slugs and (as the router's fallback) unknown paths.
pub async fn not_found(ViewEngine(v): ViewEngine<TeraView>) -> Page {
    Ok(format::render()
        .status(StatusCode::NOT_FOUND)
        .view(&v, templates::NOT_FOUND, data!({}))?)
}
