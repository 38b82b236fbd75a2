//! The routes, in the order of docs/spec.md §3, the `{slug}` and comment form extractors, and
//! the error → response mapping.

use crate::AppState;
use crate::db::DbConn;
use actix_web::body::MessageBody;
use actix_web::dev::Payload;
use actix_web::error::{InternalError, PayloadError};
use actix_web::http::StatusCode;
use actix_web::http::header::{self, ContentType, HeaderValue};
use actix_web::{FromRequest, HttpRequest, HttpResponse, ResponseError, web};
use serde::Serialize;
use shared_sql::pages;
use sqlx::PgConnection;
use std::future::{Future, Ready, ready};
use std::pin::Pin;
use templates::views::{HomePage, PostPage, TagPage};
use workload::comment::{self, FormError, NewComment};

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
    let key = page_cache::post_key(&slug);
    cached(&state, key, async |conn| {
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
/// Stores a comment (docs/spec.md §3.9), then sends the reader to the post.
pub async fn comment(
    state: web::Data<AppState>,
    Slug(slug): Slug,
    CommentForm(comment): CommentForm,
) -> Page {
    // Spawned, so a client that goes away cannot cancel the write after `BEGIN`, nor leave
    // the pages a committed comment changes cached. actix's `spawn` keeps the task on this
    // worker, whose runtime drives the worker's pool shard and Redis connection.
    actix_web::rt::spawn(async move {
        let mut conn = state.pool.acquire().await?;
        if !pages::add_comment(&mut conn, &slug, &comment.author_name, &comment.body).await? {
            return Ok(not_found_response(&state));
        }
        drop(conn);
        let stale = page_cache::keys_a_comment_changes(&slug);
        state.cache.invalidate(&stale).await;
        Ok(HttpResponse::SeeOther()
            .insert_header((header::LOCATION, format!("/posts/{slug}")))
            .finish())
    })
    .await
    .expect("the comment task does not panic")
}
// endregion

pub async fn not_found(state: web::Data<AppState>) -> HttpResponse {
    not_found_response(&state)
}

// region: detail-page
/// The `{slug}` segment, percent-decoded, when it is a slug (docs/spec.md §3.1); anything
/// else gets the 404 page. actix-web polls a handler's extractors in order and stops at the
/// first error, so handlers take `Slug` first: a segment that is not a slug costs no
/// connection, query, Redis lookup or body read.
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
/// A comment that passed `workload::comment`'s rule. The media type is checked before the body
/// is read, and `web::Bytes` reads at most the resource's `PayloadConfig` limit (`FORM_LIMIT`);
/// each refusal is the rule's status and message, before any connection, query or Redis
/// command.
pub struct CommentForm(pub NewComment);

impl FromRequest for CommentForm {
    type Error = AppError;
    // An async extractor's future is boxed (as `FromRequest`'s documentation shows).
    type Future = Pin<Box<dyn Future<Output = Result<Self, AppError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let content_type = req.headers().get(header::CONTENT_TYPE);
        if !comment::is_form(content_type.map(HeaderValue::as_bytes)) {
            return Box::pin(ready(Err(FormError::NotAForm.into())));
        }
        let body = web::Bytes::from_request(req, payload);
        Box::pin(async move {
            let body = match body.await {
                Ok(body) => body,
                Err(err) if matches!(err.as_error(), Some(PayloadError::Overflow)) => {
                    return Err(FormError::TooLarge.into());
                }
                // The client stopped sending: Go's answer too.
                Err(_) => return Err(FormError::Malformed.into()),
            };
            Ok(CommentForm(NewComment::from_form_body(&body)?))
        })
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
        return Ok(html(page));
    }
    let mut conn = state.pool.acquire().await?;
    let Some(page) = render(&mut conn).await? else {
        return Ok(not_found_response(state));
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
impl ResponseError for AppError {
    fn status_code(&self) -> StatusCode {
        match self {
            AppError::Database(_) => StatusCode::SERVICE_UNAVAILABLE,
            AppError::Template(_) => StatusCode::INTERNAL_SERVER_ERROR,
            AppError::Form(refused) => {
                StatusCode::from_u16(refused.status()).expect("a 4xx status")
            }
        }
    }

    fn error_response(&self) -> HttpResponse {
        let body = match self {
            AppError::Database(_) => workload::DB_UNAVAILABLE_MESSAGE,
            AppError::Template(_) => workload::INTERNAL_ERROR_MESSAGE,
            AppError::Form(refused) => refused.message(),
        };
        if self.status_code().is_server_error() {
            eprintln!("actix-sqlx: {self}");
        }
        plain_text(self.status_code(), body)
    }
}
// endregion
