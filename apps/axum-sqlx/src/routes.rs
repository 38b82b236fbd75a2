//! The routes, in the order of docs/spec.md §3, the `{slug}` and comment form extractors, and
//! the error → response mapping.

use crate::AppState;
use crate::db::DbConn;
use axum::body::{Body, Bytes};
use axum::extract::rejection::{BytesRejection, FailedToBufferBody};
use axum::extract::{FromRequest, FromRequestParts, Path, RawQuery, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use serde::Serialize;
use shared_sql::pages;
use sqlx::PgConnection;
use templates::views::{HomePage, PostPage, TagPage};
use workload::comment::{self, FormError, NewComment};

type Page = Result<Response, AppError>;

pub async fn home(State(state): State<AppState>, DbConn(mut conn): DbConn) -> Page {
    Ok(Html(home_html(&state, &mut conn).await?).into_response())
}

// region: detail-page
pub async fn post(
    State(state): State<AppState>,
    Slug(slug): Slug,
    DbConn(mut conn): DbConn,
) -> Page {
    Ok(match post_html(&state, &mut conn, &slug).await? {
        Some(page) => Html(page).into_response(),
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

pub async fn cached_home(State(state): State<AppState>) -> Page {
    cached(&state, page_cache::HOME_KEY.to_owned(), async |conn| {
        home_html(&state, conn).await.map(Some)
    })
    .await
}

// region: cache
pub async fn cached_post(State(state): State<AppState>, Slug(slug): Slug) -> Page {
    let key = page_cache::post_key(&slug);
    cached(&state, key, async |conn| {
        post_html(&state, conn, &slug).await
    })
    .await
}
// endregion

/// The raw query, read by the rule every app shares (Go's `workload.ParseN`).
pub async fn compute(RawQuery(query): RawQuery) -> Response {
    match workload::parse_n_query(query.as_deref()) {
        Ok(n) => plain_text(StatusCode::OK, workload::compute_body(n)),
        Err(message) => plain_text(StatusCode::BAD_REQUEST, message),
    }
}

// region: comment
/// Stores a comment (docs/spec.md §3.9), then sends the reader to the post.
pub async fn comment(
    State(state): State<AppState>,
    Slug(slug): Slug,
    CommentForm(comment): CommentForm,
) -> Page {
    // Spawned, so a client that goes away cannot cancel the write after `BEGIN`, nor leave
    // the pages a committed comment changes cached.
    tokio::spawn(async move {
        let mut conn = state.pool.acquire().await?;
        if !pages::add_comment(&mut conn, &slug, &comment.author_name, &comment.body).await? {
            return Ok(not_found_response(&state));
        }
        drop(conn);
        let stale = page_cache::keys_a_comment_changes(&slug);
        state.cache.invalidate(&stale).await;
        Ok(Redirect::to(&format!("/posts/{slug}")).into_response())
    })
    .await
    .expect("the comment task does not panic")
}
// endregion

pub async fn not_found(State(state): State<AppState>) -> Response {
    not_found_response(&state)
}

// region: detail-page
/// The `{slug}` segment, percent-decoded, when it is a slug (docs/spec.md §3.1). Anything
/// else, a segment `Path` cannot decode included (its rejection would be a 400), gets the 404
/// page; handlers take `Slug` first, so that costs no connection, query, Redis lookup or
/// body read.
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
/// A comment that passed `workload::comment`'s rule. The media type is checked before the body
/// is read, and `Bytes` reads at most the route's `DefaultBodyLimit` (`FORM_LIMIT`); each
/// refusal is the rule's status and message, before any connection, query or Redis command.
pub struct CommentForm(pub NewComment);

impl FromRequest<AppState> for CommentForm {
    type Rejection = AppError;

    async fn from_request(request: Request, state: &AppState) -> Result<Self, AppError> {
        let content_type = request.headers().get(header::CONTENT_TYPE);
        if !comment::is_form(content_type.map(HeaderValue::as_bytes)) {
            return Err(FormError::NotAForm.into());
        }
        let body = match Bytes::from_request(request, state).await {
            Ok(body) => body,
            Err(BytesRejection::FailedToBufferBody(FailedToBufferBody::LengthLimitError(_))) => {
                return Err(FormError::TooLarge.into());
            }
            // The client stopped sending: Go's answer too.
            Err(_) => return Err(FormError::Malformed.into()),
        };
        Ok(CommentForm(NewComment::from_form_body(&body)?))
    }
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
        return Ok(Html(page).into_response());
    }
    let mut conn = state.pool.acquire().await?;
    let Some(page) = render(&mut conn).await? else {
        return Ok(not_found_response(state));
    };
    drop(conn);
    state.cache.set(&key, &page).await;
    Ok(Html(page).into_response())
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

fn plain_text(status: StatusCode, body: impl Into<Body>) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        body.into(),
    )
        .into_response()
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

/// A database failure is a 503 the client can retry; a template failure is our bug; a refused
/// comment is the client's, answered with the rule's message. Only our failures are logged.
impl IntoResponse for AppError {
    fn into_response(self) -> Response {
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
            eprintln!("{}: {self}", crate::name());
        }
        plain_text(status, body)
    }
}
// endregion
