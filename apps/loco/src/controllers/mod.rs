//! The controllers (the seven routes of docs/spec.md §3), the `{slug}` extractor and the one
//! error → response mapping.

pub mod cached;
pub mod comments;
pub mod compute;
pub mod pages;

use axum::extract::FromRequestParts;
use axum::http::StatusCode;
use axum::http::request::Parts;
use loco_rs::prelude::*;
use workload::comment::FormError;

/// What a handler returns.
pub type Page = std::result::Result<Response, AppError>;

// region: errors
/// Why a request was not served. Loco's own `Error` answers with JSON; docs/spec.md §3.8
/// wants plain text: a refused comment's message, or the 503 every app sends while
/// PostgreSQL is unavailable.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error(transparent)]
    Form(#[from] FormError),
    #[error("database: {0}")]
    Database(#[from] DbErr),
    /// Rendering (Tera) or building the response: our bug.
    #[error("render: {0:?}")]
    Render(#[from] Error),
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let (status, body) = match &self {
            Self::Form(refused) => (
                StatusCode::from_u16(refused.status()).expect("a FormError status is valid"),
                refused.message(),
            ),
            Self::Database(_) => (
                StatusCode::SERVICE_UNAVAILABLE,
                workload::DB_UNAVAILABLE_MESSAGE,
            ),
            Self::Render(_) => (
                StatusCode::INTERNAL_SERVER_ERROR,
                workload::INTERNAL_ERROR_MESSAGE,
            ),
        };
        if status.is_server_error() {
            tracing::error!("{self}");
        }
        format::render()
            .status(status)
            .text(body)
            .unwrap_or_else(|_| status.into_response())
    }
}
// endregion

/// The 404 page, for unknown slugs and (as the router's fallback) unknown paths.
pub async fn not_found(ViewEngine(v): ViewEngine<TeraView>) -> Page {
    Ok(format::render()
        .status(StatusCode::NOT_FOUND)
        .view(&v, templates::NOT_FOUND, data!({}))?)
}

// region: detail-page
/// The `{slug}` segment, percent-decoded, when it is a slug (docs/spec.md §3.1). Anything
/// else, a segment `Path` cannot decode included (its rejection would be a 400), gets the 404
/// page before the handler runs: no query, no cache lookup.
pub struct Slug(pub String);

impl FromRequestParts<AppContext> for Slug {
    type Rejection = Response;

    async fn from_request_parts(
        parts: &mut Parts,
        ctx: &AppContext,
    ) -> std::result::Result<Self, Response> {
        match Path::<String>::from_request_parts(parts, ctx).await {
            Ok(Path(slug)) if workload::is_slug(&slug) => Ok(Slug(slug)),
            _ => {
                let view = ViewEngine::<TeraView>::from_request_parts(parts, ctx)
                    .await
                    .map_err(IntoResponse::into_response)?;
                Err(not_found(view).await.into_response())
            }
        }
    }
}
// endregion
