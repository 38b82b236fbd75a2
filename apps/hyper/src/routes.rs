//! The handlers, in the order of docs/spec.md §3, the `{slug}` and comment form rules they
//! apply first, and the error → response mapping.

use crate::AppState;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::StatusCode;
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderMap, HeaderValue};
use percent_encoding::percent_decode_str;
use serde::Serialize;
use shared_sql::pages;
use sqlx::PgConnection;
use std::borrow::Cow;
use std::sync::Arc;
use templates::views::{HomePage, PostPage, TagPage};
use workload::comment::{self, FormError, NewComment};

/// Every answer is a whole body, which hyper sends with its `Content-Length`, never chunked
/// (docs/spec.md §3.8).
pub type Response = hyper::Response<Full<Bytes>>;

type Page = Result<Response, AppError>;

pub async fn home(state: &AppState) -> Page {
    let mut conn = state.pool.acquire().await?;
    Ok(html(home_html(state, &mut conn).await?))
}

// region: detail-page
pub async fn post(state: &AppState, segment: &str) -> Page {
    let Some(slug) = slug(segment) else {
        return Ok(not_found(state));
    };
    let mut conn = state.pool.acquire().await?;
    Ok(match post_html(state, &mut conn, &slug).await? {
        Some(page) => html(page),
        None => not_found(state),
    })
}
// endregion

pub async fn tag(state: &AppState, segment: &str) -> Page {
    let Some(slug) = slug(segment) else {
        return Ok(not_found(state));
    };
    let mut conn = state.pool.acquire().await?;
    Ok(match pages::tag(&mut conn, &slug).await? {
        Some(rows) => html(render(state, templates::TAG, &TagPage::from(rows))?),
        None => not_found(state),
    })
}

pub async fn cached_home(state: &AppState) -> Page {
    cached(state, page_cache::HOME_KEY.to_owned(), async |conn| {
        home_html(state, conn).await.map(Some)
    })
    .await
}

// region: cache
pub async fn cached_post(state: &AppState, segment: &str) -> Page {
    let Some(slug) = slug(segment) else {
        return Ok(not_found(state));
    };
    let key = page_cache::post_key(&slug);
    cached(state, key, async |conn| post_html(state, conn, &slug).await).await
}
// endregion

/// The raw query, read by the rule every app shares (Go's `workload.ParseN`).
pub fn compute(query: Option<&str>) -> Response {
    match workload::parse_n_query(query) {
        Ok(n) => plain_text(StatusCode::OK, workload::compute_body(n)),
        Err(message) => plain_text(StatusCode::BAD_REQUEST, message),
    }
}

// region: comment
/// Stores a comment (docs/spec.md §3.9), then sends the reader to the post.
pub async fn comment(
    state: &Arc<AppState>,
    segment: &str,
    headers: &HeaderMap,
    body: Incoming,
) -> Page {
    let Some(slug) = slug(segment) else {
        return Ok(not_found(state));
    };
    let comment = comment_form(headers, body).await?;
    let (state, slug) = (Arc::clone(state), slug.into_owned());
    // Spawned, so a client that goes away cannot cancel the write after `BEGIN`, nor leave
    // the pages a committed comment changes cached.
    tokio::spawn(async move {
        let mut conn = state.pool.acquire().await?;
        if !pages::add_comment(&mut conn, &slug, &comment.author_name, &comment.body).await? {
            return Ok(not_found(&state));
        }
        drop(conn);
        let stale = page_cache::keys_a_comment_changes(&slug);
        state.cache.invalidate(&stale).await;
        Ok(see_other(&format!("/posts/{slug}")))
    })
    .await
    .expect("the comment task does not panic")
}
// endregion

pub fn not_found(state: &AppState) -> Response {
    response(
        StatusCode::NOT_FOUND,
        HTML,
        Full::new(state.not_found.clone()),
    )
}

// region: detail-page
/// The `{slug}` segment, percent-decoded as axum's `Path` decodes it (Go's `r.PathValue` decodes
/// the same bytes), when it is a slug (docs/spec.md §3.1). Anything else, a segment that does
/// not decode to UTF-8 included, gets the 404 page; handlers call this first, so that costs no
/// connection, query, Redis lookup or body read.
fn slug(segment: &str) -> Option<Cow<'_, str>> {
    percent_decode_str(segment)
        .decode_utf8()
        .ok()
        .filter(|slug| workload::is_slug(slug))
}
// endregion

// region: comment
/// The comment in the body, when it passes `workload::comment`'s rule. The media type is checked
/// before the body is read, and `Limited` reads at most `FORM_LIMIT` bytes; each refusal is the
/// rule's status and message, before any connection, query or Redis command.
async fn comment_form(headers: &HeaderMap, body: Incoming) -> Result<NewComment, AppError> {
    let content_type = headers.get(header::CONTENT_TYPE);
    if !comment::is_form(content_type.map(HeaderValue::as_bytes)) {
        return Err(FormError::NotAForm.into());
    }
    let body = match Limited::new(body, comment::FORM_LIMIT).collect().await {
        Ok(body) => body.to_bytes(),
        Err(err) if err.is::<LengthLimitError>() => return Err(FormError::TooLarge.into()),
        // The client stopped sending: Go's answer too.
        Err(_) => return Err(FormError::Malformed.into()),
    };
    Ok(NewComment::from_form_body(&body)?)
}
// endregion

async fn home_html(state: &AppState, conn: &mut PgConnection) -> Result<String, AppError> {
    let rows = pages::home(conn).await?;
    Ok(render(state, templates::HOME, &HomePage::from(rows))?)
}

// region: detail-page
async fn post_html(
    state: &AppState,
    conn: &mut PgConnection,
    slug: &str,
) -> Result<Option<String>, AppError> {
    match pages::post(conn, slug).await? {
        Some(rows) => Ok(Some(render(state, templates::POST, &PostPage::from(rows))?)),
        None => Ok(None),
    }
}
// endregion

// region: cache
/// Serves `key` from Redis; on a miss takes a connection, renders with `render` (`None` =
/// unknown slug: 404, nothing stored) and stores the page.
async fn cached(
    state: &AppState,
    key: String,
    render: impl AsyncFnOnce(&mut PgConnection) -> Result<Option<String>, AppError>,
) -> Page {
    if let Some(page) = state.cache.get(&key).await {
        return Ok(html(page));
    }
    let mut conn = state.pool.acquire().await?;
    let Some(page) = render(&mut conn).await? else {
        return Ok(not_found(state));
    };
    drop(conn);
    state.cache.set(&key, &page).await;
    Ok(html(page))
}
// endregion

fn render(state: &AppState, template: &str, view: &impl Serialize) -> Result<String, tera::Error> {
    state
        .tera
        .render(template, &tera::Context::from_serialize(view)?)
}

const HTML: &str = "text/html; charset=utf-8";
const PLAIN_TEXT: &str = "text/plain; charset=utf-8";

fn html(page: impl Into<Bytes>) -> Response {
    response(StatusCode::OK, HTML, Full::new(page.into()))
}

fn plain_text(status: StatusCode, body: impl Into<Bytes>) -> Response {
    response(status, PLAIN_TEXT, Full::new(body.into()))
}

fn response(status: StatusCode, content_type: &'static str, body: Full<Bytes>) -> Response {
    let mut response = Response::new(body);
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

/// `303 See Other` to `location`: no `Content-Type`, and hyper sends `Content-Length: 0`.
fn see_other(location: &str) -> Response {
    let mut response = Response::new(Full::default());
    *response.status_mut() = StatusCode::SEE_OTHER;
    response.headers_mut().insert(
        header::LOCATION,
        HeaderValue::try_from(location).expect("a slug's path is a valid header value"),
    );
    response
}

// region: errors
/// Why a request gets no page.
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

impl AppError {
    /// A database failure is a 503 the client can retry; a template failure is our bug; a
    /// refused comment is the client's, answered with the rule's message. Only our failures
    /// are logged.
    pub fn into_response(self) -> Response {
        let (status, body) = match &self {
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
            eprintln!("hyper: {self}");
        }
        plain_text(status, body)
    }
}
// endregion
