//! The handlers, in the order of docs/spec.md §3, and the filters that apply the `{slug}`,
//! query and comment form rules before them.

use crate::AppState;
use crate::errors::AppError;
use hyper::body::Bytes;
use percent_encoding::percent_decode_str;
use serde::Serialize;
use shared_sql::pages;
use sqlx::pool::PoolConnection;
use sqlx::{PgConnection, Postgres};
use std::convert::Infallible;
use std::str::FromStr;
use std::sync::Arc;
use templates::views::{HomePage, PostPage, TagPage};
use warp::http::header::HeaderValue;
use warp::http::{StatusCode, Uri};
use warp::{Filter, Rejection, Reply};
use workload::comment::{self, FormError, NewComment};

/// Every answer is a whole body, which hyper sends with its `Content-Length`, never chunked
/// (docs/spec.md §3.8).
pub type Response = warp::reply::Response;

/// A page, or why there is none: `warp::reject::not_found()` for an unknown slug, an
/// `AppError` for a failure; `errors::recover` answers both.
type Page = Result<Response, Rejection>;

type DbConn = PoolConnection<Postgres>;

pub async fn home(state: Arc<AppState>, mut conn: DbConn) -> Page {
    Ok(html(home_html(&state, &mut conn).await?))
}

// region: detail-page
pub async fn post(Slug(slug): Slug, state: Arc<AppState>, mut conn: DbConn) -> Page {
    match post_html(&state, &mut conn, &slug).await? {
        Some(page) => Ok(html(page)),
        None => Err(warp::reject::not_found()),
    }
}
// endregion

pub async fn tag(Slug(slug): Slug, state: Arc<AppState>, mut conn: DbConn) -> Page {
    match pages::tag(&mut conn, &slug).await.map_err(AppError::from)? {
        Some(rows) => Ok(html(render(&state, templates::TAG, &TagPage::from(rows))?)),
        None => Err(warp::reject::not_found()),
    }
}

pub async fn cached_home(state: Arc<AppState>) -> Page {
    cached(&state, page_cache::HOME_KEY.to_owned(), async |conn| {
        home_html(&state, conn).await.map(Some)
    })
    .await
}

// region: cache
pub async fn cached_post(Slug(slug): Slug, state: Arc<AppState>) -> Page {
    let key = page_cache::post_key(&slug);
    cached(&state, key, async |conn| {
        post_html(&state, conn, &slug).await
    })
    .await
}
// endregion

/// The raw query, read by the rule every app shares (Go's `workload.ParseN`).
pub fn compute(query: Option<String>) -> Response {
    match workload::parse_n_query(query.as_deref()) {
        Ok(n) => plain_text(StatusCode::OK, workload::compute_body(n)),
        Err(message) => plain_text(StatusCode::BAD_REQUEST, message),
    }
}

// region: comment
/// Stores a comment (docs/spec.md §3.9), then sends the reader to the post.
pub async fn comment(Slug(slug): Slug, comment: NewComment, state: Arc<AppState>) -> Page {
    // Spawned, so a client that goes away cannot cancel the write after `BEGIN`, nor leave
    // the pages a committed comment changes cached.
    tokio::spawn(async move {
        let mut conn = state.pool.acquire().await.map_err(AppError::from)?;
        let stored = pages::add_comment(&mut conn, &slug, &comment.author_name, &comment.body)
            .await
            .map_err(AppError::from)?;
        if !stored {
            return Err(warp::reject::not_found());
        }
        drop(conn);
        let stale = page_cache::keys_a_comment_changes(&slug);
        state.cache.invalidate(&stale).await;
        Ok(see_other(&format!("/posts/{slug}")))
    })
    .await
    .expect("the comment task does not panic")
}

/// The comment in the body, when it passes `workload::comment`'s rule; each refusal is the
/// rule's status and message, before any connection, query or Redis command. The media type
/// is checked before the body is read; `content_length_limit` refuses a declared length over
/// `FORM_LIMIT` unread (its `PayloadTooLarge` is the 413) and `bytes` then reads the body.
pub fn comment_form() -> impl Filter<Extract = (NewComment,), Error = Rejection> + Clone {
    // `None` when there is none (`header::value` rejects that): the rule refuses it as a 415.
    let content_type = warp::header::value("content-type")
        .map(Some)
        .or(warp::any().map(|| None))
        .unify();
    content_type
        .and_then(|content_type: Option<HeaderValue>| async move {
            if comment::is_form(content_type.as_ref().map(HeaderValue::as_bytes)) {
                Ok(())
            } else {
                Err(Rejection::from(AppError::from(FormError::NotAForm)))
            }
        })
        .untuple_one()
        .and(warp::body::content_length_limit(comment::FORM_LIMIT as u64))
        .and(warp::body::bytes().or_else(|_| async {
            // The client stopped sending: Go's answer too.
            Err(Rejection::from(AppError::from(FormError::Malformed)))
        }))
        .and_then(|body: Bytes| async move {
            NewComment::from_form_body(&body)
                .map_err(|refused| Rejection::from(AppError::from(refused)))
        })
}
// endregion

/// The raw query string (`None` without one, which `warp::query::raw` rejects), for `/compute`:
/// warp's `query` filter decodes by serde_urlencoded's rule, not the shared one.
pub fn raw_query() -> impl Filter<Extract = (Option<String>,), Error = Infallible> + Clone {
    warp::query::raw()
        .map(Some)
        .or(warp::any().map(|| None))
        .unify()
}

// region: detail-page
/// A `{slug}` segment that is a slug (docs/spec.md §3.1), percent-decoded: warp's `path!` hands
/// a parameter's `FromStr` the raw segment, and Go's `r.PathValue` decodes it first. Anything
/// else (a NUL, upper case, a segment that does not decode to UTF-8) fails the parse, which
/// `path!` answers with its not-found rejection: the 404 page, before any connection, query,
/// Redis lookup or body read.
pub struct Slug(pub String);

impl FromStr for Slug {
    type Err = ();

    fn from_str(segment: &str) -> Result<Self, ()> {
        match percent_decode_str(segment).decode_utf8() {
            Ok(slug) if workload::is_slug(&slug) => Ok(Slug(slug.into_owned())),
            _ => Err(()),
        }
    }
}
// endregion

pub fn not_found(state: &AppState) -> Response {
    warp::reply::with_status(
        warp::reply::html(state.not_found.clone()),
        StatusCode::NOT_FOUND,
    )
    .into_response()
}

async fn home_html(state: &AppState, conn: &mut PgConnection) -> Result<String, AppError> {
    let rows = pages::home(conn).await?;
    render(state, templates::HOME, &HomePage::from(rows))
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
/// unknown slug: the not-found rejection, nothing stored) and stores the page.
async fn cached(
    state: &AppState,
    key: String,
    render: impl AsyncFnOnce(&mut PgConnection) -> Result<Option<String>, AppError>,
) -> Page {
    if let Some(page) = state.cache.get(&key).await {
        return Ok(html(page));
    }
    let mut conn = state.pool.acquire().await.map_err(AppError::from)?;
    let Some(page) = render(&mut conn).await? else {
        return Err(warp::reject::not_found());
    };
    drop(conn);
    state.cache.set(&key, &page).await;
    Ok(html(page))
}
// endregion

fn render(state: &AppState, template: &str, view: &impl Serialize) -> Result<String, AppError> {
    let context = tera::Context::from_serialize(view)?;
    Ok(state.tera.render(template, &context)?)
}

/// `text/html; charset=utf-8`, warp's `html` reply.
fn html(page: impl Into<Bytes>) -> Response {
    warp::reply::html(page.into()).into_response()
}

/// `text/plain; charset=utf-8`: warp's reply for a string.
pub fn plain_text(status: StatusCode, body: impl Reply) -> Response {
    warp::reply::with_status(body, status).into_response()
}

/// `303 See Other` to `location`: no `Content-Type`, and hyper sends `Content-Length: 0`.
fn see_other(location: &str) -> Response {
    let location = Uri::try_from(location).expect("a slug's path is a valid URI");
    warp::redirect::see_other(location).into_response()
}
