//! The routes, in the order of docs/spec.md §3, the `{slug}` and comment form extractors,
//! and the error → response mapping. The two cached routes have no handlers of their own:
//! `main.rs` serves them with `home` and `post` behind Rustango's `CachePageLayer`.

use crate::AppState;
use crate::db::DbConn;
use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Path, RawQuery, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Redirect, Response};
use rustango::cache_page::PageKey;
use rustango::sql::ExecError;
use rustango_models::pages;
use serde::Serialize;
use templates::views::{HomePage, PostPage, TagPage};
use workload::comment::{FormError, NewComment};

type Page = Result<Response, AppError>;

pub async fn home(State(state): State<AppState>, DbConn(mut conn): DbConn) -> Page {
    let rows = pages::home(&mut conn).await?;
    Ok(Html(render(&state, templates::HOME, &HomePage::from(rows))?).into_response())
}

// region: detail-page
pub async fn post(
    State(state): State<AppState>,
    Slug(slug): Slug,
    DbConn(mut conn): DbConn,
) -> Page {
    Ok(match pages::post(&mut conn, &slug).await? {
        Some(rows) => Html(render(&state, templates::POST, &PostPage::from(rows))?).into_response(),
        None => not_found_response(&state),
    })
}
// endregion

pub async fn tag(
    State(state): State<AppState>,
    Slug(slug): Slug,
    DbConn(mut conn): DbConn,
) -> Page {
    Ok(match pages::tag(&mut conn, &slug).await? {
        Some(rows) => Html(render(&state, templates::TAG, &TagPage::from(rows))?).into_response(),
        None => not_found_response(&state),
    })
}

/// The raw query, read by the rule every app shares (Go's `workload.ParseN`).
pub async fn compute(RawQuery(query): RawQuery) -> Response {
    match workload::parse_n_query(query.as_deref()) {
        Ok(n) => plain_text(StatusCode::OK, workload::compute_body(n)),
        Err(message) => plain_text(StatusCode::BAD_REQUEST, message.to_owned()),
    }
}

// region: comment
/// Stores a comment (docs/spec.md §3.9) and sends the client back to the post. The write and
/// the purge run in a task of their own, so a client that goes away cannot cancel them after
/// `BEGIN`: a committed comment never leaves its pages cached.
pub async fn add_comment(
    State(state): State<AppState>,
    Slug(slug): Slug,
    headers: HeaderMap,
    CommentForm(comment): CommentForm,
) -> Page {
    // `CachePageLayer` keys a page by the request's `Host` as well as its path.
    let host = headers
        .get(header::HOST)
        .and_then(|host| host.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let task = tokio::spawn(store_comment(state.clone(), slug.clone(), host, comment));
    if !task.await.expect("the comment task does not panic")? {
        return Ok(not_found_response(&state));
    }
    Ok(Redirect::to(&format!("/posts/{slug}")).into_response())
}
// endregion

pub async fn not_found(State(state): State<AppState>) -> Response {
    not_found_response(&state)
}

// region: detail-page
/// The `{slug}` segment, percent-decoded, when it is a slug (docs/spec.md §3.1). Anything
/// else, a segment `Path` cannot decode included (its rejection would be a 400), gets the 404
/// page; handlers take `Slug` before `DbConn`, so that costs no connection or query.
pub struct Slug(pub String);

impl FromRequestParts<AppState> for Slug {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Response> {
        match Path::<String>::from_request_parts(parts, state).await {
            Ok(Path(slug)) if workload::is_slug(&slug) => Ok(Slug(slug)),
            _ => Err(not_found_response(state)),
        }
    }
}
// endregion

// region: comment
/// A valid comment form (docs/spec.md §3.9), checked by the rule every app shares: the media
/// type before the body is read, then the body, which `DefaultBodyLimit` (set to `FORM_LIMIT`
/// on the route) stops at the limit. Anything else is answered with its `FormError`.
pub struct CommentForm(pub NewComment);

impl FromRequest<AppState> for CommentForm {
    type Rejection = AppError;

    async fn from_request(request: Request, state: &AppState) -> Result<Self, AppError> {
        let content_type = request.headers().get(header::CONTENT_TYPE);
        if !workload::comment::is_form(content_type.map(|value| value.as_bytes())) {
            return Err(FormError::NotAForm.into());
        }
        let read = Bytes::from_request(request, state).await;
        let body = read.map_err(|rejection| match rejection.status() {
            StatusCode::PAYLOAD_TOO_LARGE => FormError::TooLarge,
            // The client stopped sending: a 400, as in Go.
            _ => FormError::Malformed,
        })?;
        Ok(CommentForm(NewComment::from_form_body(&body)?))
    }
}
// endregion

// region: cache
/// Middleware in front of the page cache on `/cached/posts/{slug}`: the `Slug` rejection
/// answers a segment that is not a slug before `CachePageLayer` reads Redis.
pub async fn require_slug(_: Slug, request: Request, next: Next) -> Response {
    next.run(request).await
}
// endregion

// region: comment
/// Stores `comment` on the post `slug`, then purges the cached pages it changes; `false` when
/// no post has `slug`. A Redis error is logged, not returned: the comment is committed.
async fn store_comment(
    state: AppState,
    slug: String,
    host: String,
    comment: NewComment,
) -> Result<bool, ExecError> {
    let mut conn = state.pool.acquire().await?;
    if !pages::add_comment(&mut conn, &slug, comment.author_name, comment.body).await? {
        return Ok(false);
    }
    // Back to the pool before the Redis round trips.
    drop(conn);
    let purged = state
        .page_cache
        .invalidate(&pages_a_comment_changes(&slug, &host))
        .await;
    state.note_redis(purged.as_ref().err());
    Ok(true)
}

/// The cached pages a comment on `slug` changes (`page_cache::keys_a_comment_changes`: the
/// post's and the home page), as `CachePageLayer` keys them: by the cached route's path and
/// the `Host` they were requested with.
fn pages_a_comment_changes(slug: &str, host: &str) -> [PageKey; 2] {
    [
        PageKey::new(format!("/cached/posts/{slug}"), host),
        PageKey::new("/cached/", host),
    ]
}
// endregion

fn render(state: &AppState, template: &str, view: &impl Serialize) -> Result<String, tera::Error> {
    state
        .tera
        .render(template, &tera::Context::from_serialize(view)?)
}

fn not_found_response(state: &AppState) -> Response {
    (StatusCode::NOT_FOUND, Html(state.not_found.clone())).into_response()
}

fn plain_text(status: StatusCode, body: String) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        body,
    )
        .into_response()
}

// region: errors
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error("database: {0}")]
    Database(#[from] ExecError),
    // Debug shows the template error's whole chain.
    #[error("template: {0:?}")]
    Template(#[from] tera::Error),
    #[error(transparent)]
    Form(#[from] FormError),
}

impl AppError {
    fn status(&self) -> StatusCode {
        match self {
            AppError::Database(_) => StatusCode::SERVICE_UNAVAILABLE,
            AppError::Template(_) => StatusCode::INTERNAL_SERVER_ERROR,
            AppError::Form(err) => StatusCode::from_u16(err.status()).expect("a 4xx status"),
        }
    }
}

/// A database failure is a 503 the client can retry (CachePageLayer stores only 200s, so it
/// is never cached); a template failure is our bug; a refused comment gets the rule's answer.
impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let body = match &self {
            AppError::Database(_) => workload::DB_UNAVAILABLE_MESSAGE,
            AppError::Template(_) => workload::INTERNAL_ERROR_MESSAGE,
            AppError::Form(err) => err.message(),
        };
        // A refused comment is the client's mistake, not worth a log line.
        if !matches!(self, AppError::Form(_)) {
            eprintln!("rustango-axum: {self}");
        }
        plain_text(self.status(), body.to_owned())
    }
}
// endregion
