//! The seven routes, in the order of docs/spec.md §3, the `{slug}` and comment form
//! extractors, and the error → response mapping.

use crate::AppState;
use crate::db::DbConn;
use actix_web::body::MessageBody;
use actix_web::dev::Payload;
use actix_web::error::InternalError;
use actix_web::http::StatusCode;
use actix_web::http::header::{self, ContentType};
use actix_web::{FromRequest, HttpRequest, HttpResponse, ResponseError, web};
use rustango::cache::Cache as _;
use rustango::sql::{ExecError, PoolConn};
use rustango_models::pages;
use serde::Serialize;
use std::future::{Future, Ready, ready};
use std::pin::Pin;
use templates::views::{HomePage, PostPage, TagPage};
use workload::comment::{FormError, NewComment};

type Page = Result<HttpResponse, AppError>;

pub async fn home(state: web::Data<AppState>, DbConn(mut conn): DbConn) -> Page {
    Ok(html(home_html(&state, &mut conn).await?))
}

// region: detail-page
pub async fn post(state: web::Data<AppState>, Slug(slug): Slug, DbConn(mut conn): DbConn) -> Page {
    Ok(match post_html(&state, &mut conn, &slug).await? {
        Some(page) => html(page),
        None => not_found_response(&state),
    })
}
// endregion

pub async fn tag(state: web::Data<AppState>, Slug(slug): Slug, DbConn(mut conn): DbConn) -> Page {
    Ok(match pages::tag(&mut conn, &slug).await? {
        Some(rows) => html(render(&state, templates::TAG, &TagPage::from(rows))?),
        None => not_found_response(&state),
    })
}

pub async fn cached_home(state: web::Data<AppState>) -> Page {
    cached(&state, page_cache::HOME_KEY.to_owned(), async |conn| {
        home_html(&state, conn).await.map(Some)
    })
    .await
}

// region: cache
pub async fn cached_post(state: web::Data<AppState>, Slug(slug): Slug) -> Page {
    cached(&state, page_cache::post_key(&slug), async |conn| {
        post_html(&state, conn, &slug).await
    })
    .await
}
// endregion

/// The raw query, read by the rule every app shares (Go's `workload.ParseN`).
pub async fn compute(request: HttpRequest) -> HttpResponse {
    match workload::parse_n_query(Some(request.query_string())) {
        Ok(n) => plain_text(StatusCode::OK, workload::compute_body(n)),
        Err(message) => plain_text(StatusCode::BAD_REQUEST, message),
    }
}

// region: comment
/// Stores a comment (docs/spec.md §3.9) and sends the client back to the post. The write and
/// the purge run in a task of their own, so a client that goes away cannot cancel them after
/// `BEGIN`: a committed comment never leaves its pages cached.
pub async fn add_comment(
    state: web::Data<AppState>,
    Slug(slug): Slug,
    CommentForm(comment): CommentForm,
) -> Page {
    let task = actix_web::rt::spawn(store_comment(state.clone(), slug.clone(), comment));
    if !task.await.expect("the comment task does not panic")? {
        return Ok(not_found_response(&state));
    }
    Ok(HttpResponse::SeeOther()
        .insert_header((header::LOCATION, format!("/posts/{slug}")))
        .finish())
}
// endregion

pub async fn not_found(state: web::Data<AppState>) -> HttpResponse {
    not_found_response(&state)
}

// region: detail-page
/// The `{slug}` segment, percent-decoded, when it is a slug (docs/spec.md §3.1); anything
/// else gets the 404 page. actix-web polls a handler's extractors in order and stops at the
/// first error, so handlers take `Slug` before `DbConn`: a segment that is not a slug costs
/// no connection, query or Redis lookup.
pub struct Slug(pub String);

impl FromRequest for Slug {
    type Error = actix_web::Error;
    type Future = Ready<Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        // `web::Path` decodes lossily (bytes that are not UTF-8 become U+FFFD), so every
        // segment reaches `is_slug`.
        let segment = web::Path::<String>::from_request(req, payload).into_inner();
        ready(match segment {
            Ok(slug) if workload::is_slug(&slug) => Ok(Slug(slug.into_inner())),
            _ => {
                let state = req
                    .app_data::<web::Data<AppState>>()
                    .expect("main registers AppState");
                let page = not_found_response(state);
                Err(InternalError::from_response("not a slug", page).into())
            }
        })
    }
}
// endregion

// region: comment
/// A valid comment form (docs/spec.md §3.9), checked by the rule every app shares: the media
/// type before the body is read, then the body, which `web::Bytes` (its `PayloadConfig` set to
/// `FORM_LIMIT` on the resource) stops at the limit. Anything else is answered with its
/// `FormError`.
pub struct CommentForm(pub NewComment);

impl FromRequest for CommentForm {
    type Error = AppError;
    // An async extractor's future is boxed (as `FromRequest`'s documentation shows).
    type Future = Pin<Box<dyn Future<Output = Result<Self, AppError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let content_type = req.headers().get(header::CONTENT_TYPE);
        if !workload::comment::is_form(content_type.map(|value| value.as_bytes())) {
            return Box::pin(ready(Err(FormError::NotAForm.into())));
        }
        let read = web::Bytes::from_request(req, payload);
        Box::pin(async move {
            let body = read
                .await
                .map_err(|err| match err.as_response_error().status_code() {
                    StatusCode::PAYLOAD_TOO_LARGE => FormError::TooLarge,
                    // The client stopped sending: a 400, as in Go.
                    _ => FormError::Malformed,
                })?;
            Ok(CommentForm(NewComment::from_form_body(&body)?))
        })
    }
}
// endregion

async fn home_html(state: &AppState, conn: &mut PoolConn) -> Result<String, AppError> {
    let rows = pages::home(conn).await?;
    Ok(render(state, templates::HOME, &HomePage::from(rows))?)
}

// region: detail-page
async fn post_html(
    state: &AppState,
    conn: &mut PoolConn,
    slug: &str,
) -> Result<Option<String>, AppError> {
    match pages::post(conn, slug).await? {
        Some(rows) => Ok(Some(render(state, templates::POST, &PostPage::from(rows))?)),
        None => Ok(None),
    }
}
// endregion

// region: cache
/// Serves `key` from this worker's Rustango cache (a GET); on a miss or a Redis error takes
/// a connection, renders with `render` (`None` = unknown slug: 404, nothing stored) and
/// stores the page as it is (a SET without expiry, as Go's).
async fn cached(
    state: &AppState,
    key: String,
    render: impl AsyncFnOnce(&mut PoolConn) -> Result<Option<String>, AppError>,
) -> Page {
    let hit = state.cache.get(&key).await;
    state.note_redis(hit.as_ref().err());
    if let Ok(Some(page)) = hit {
        return Ok(html(page));
    }
    let mut conn = state.pool.acquire().await?;
    let Some(page) = render(&mut conn).await? else {
        return Ok(not_found_response(state));
    };
    drop(conn);
    let stored = state.cache.set(&key, &page, None).await;
    state.note_redis(stored.as_ref().err());
    Ok(html(page))
}
// endregion

// region: comment
/// Stores `comment` on the post `slug`, then deletes the cached pages it changes; `false` when
/// no post has `slug`. A Redis error is logged, not returned: the comment is committed.
async fn store_comment(
    state: web::Data<AppState>,
    slug: String,
    comment: NewComment,
) -> Result<bool, ExecError> {
    let mut conn = state.pool.acquire().await?;
    if !pages::add_comment(&mut conn, &slug, comment.author_name, comment.body).await? {
        return Ok(false);
    }
    // Back to the pool before the Redis round trips.
    drop(conn);
    let keys = page_cache::keys_a_comment_changes(&slug);
    let deleted = state
        .cache
        .delete_many(&keys.each_ref().map(String::as_str))
        .await;
    state.note_redis(deleted.as_ref().err());
    Ok(true)
}
// endregion

fn render(state: &AppState, template: &str, view: &impl Serialize) -> Result<String, tera::Error> {
    state
        .tera
        .render(template, &tera::Context::from_serialize(view)?)
}

/// A whole body, so actix sends a `Content-Length` (no chunked responses, docs/spec.md §3.8).
fn html(page: impl MessageBody + 'static) -> HttpResponse {
    HttpResponse::Ok()
        .content_type(ContentType::html())
        .body(page)
}

fn not_found_response(state: &AppState) -> HttpResponse {
    HttpResponse::NotFound()
        .content_type(ContentType::html())
        .body(state.not_found.clone())
}

fn plain_text(status: StatusCode, body: impl MessageBody + 'static) -> HttpResponse {
    HttpResponse::build(status)
        .content_type(ContentType::plaintext())
        .body(body)
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

/// A database failure is a 503 the client can retry; a template failure is our bug; a
/// refused comment gets the rule's answer.
impl ResponseError for AppError {
    fn status_code(&self) -> StatusCode {
        match self {
            AppError::Database(_) => StatusCode::SERVICE_UNAVAILABLE,
            AppError::Template(_) => StatusCode::INTERNAL_SERVER_ERROR,
            AppError::Form(err) => StatusCode::from_u16(err.status()).expect("a 4xx status"),
        }
    }

    fn error_response(&self) -> HttpResponse {
        let body = match self {
            AppError::Database(_) => workload::DB_UNAVAILABLE_MESSAGE,
            AppError::Template(_) => workload::INTERNAL_ERROR_MESSAGE,
            AppError::Form(err) => err.message(),
        };
        // A refused comment is the client's mistake, not worth a log line.
        if !matches!(self, AppError::Form(_)) {
            eprintln!("rustango-actix: {self}");
        }
        plain_text(self.status_code(), body)
    }
}
// endregion
