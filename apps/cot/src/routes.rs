//! The seven routes, in the order of docs/spec.md §3, their extractors (`{slug}`, the comment
//! form) and their templates.

use crate::db::{self, Db};
use crate::error::AppError;
use cot::Body;
use cot::cache::Cache;
use cot::html::Html;
use cot::http::header::CONTENT_TYPE;
use cot::request::RequestHead;
use cot::request::extractors::{FromRequest, FromRequestHead, Path};
use cot::response::{IntoResponse, Redirect, Response};
use cot::{StatusCode, Template};
use http_body_util::LengthLimitError;
use percent_encoding::percent_decode_str;
use std::error::Error;
use std::ops::Deref;
use templates::views::{HomePage, PostPage, TagPage};
use workload::Outage;
use workload::comment::{FORM_LIMIT, FormError, NewComment};

pub async fn home(db: Db) -> Result<Html, AppError> {
    Ok(Html::new(home_html(db).await?))
}

// region: detail-page
pub async fn post(Slug(slug): Slug, db: Db) -> Result<Html, AppError> {
    match post_html(db, &slug).await? {
        Some(page) => Ok(Html::new(page)),
        None => Err(AppError::NotFound),
    }
}
// endregion

pub async fn tag(Slug(slug): Slug, db: Db) -> Result<Html, AppError> {
    match db.run(async |d| db::tag_page(d, &slug).await).await? {
        Some(view) => Ok(Html::new(TagHtml(view).render()?)),
        None => Err(AppError::NotFound),
    }
}

pub async fn cached_home(db: Db, cache: Cache) -> Result<Html, AppError> {
    cached(&cache, page_cache::HOME_KEY.to_owned(), async || {
        home_html(db).await.map(Some)
    })
    .await
}

// region: cache
pub async fn cached_post(Slug(slug): Slug, db: Db, cache: Cache) -> Result<Html, AppError> {
    let key = page_cache::post_key(&slug);
    cached(&cache, key, async || post_html(db, &slug).await).await
}
// endregion

/// The raw query, read by the rule every app shares (Go's `workload.ParseN`): Cot's `UrlQuery` decodes
/// with other rules (it splits on `;`, for one).
pub async fn compute(head: RequestHead) -> cot::Result<Response> {
    match workload::parse_n_query(head.uri.query()) {
        Ok(n) => workload::compute_body(n).into_response(),
        Err(message) => message.with_status(StatusCode::BAD_REQUEST).into_response(),
    }
}

// region: comment
/// Stores a comment (docs/spec.md §3.9) and answers `303 See Other` to its post. The
/// extractors have already refused a non-slug (404) and a bad form (415, 413, 400), in that
/// order, before any query or cache command.
pub async fn comment(
    Slug(slug): Slug,
    db: Db,
    cache: Cache,
    CommentForm(comment): CommentForm,
) -> Result<Redirect, AppError> {
    // The write and the invalidation run in their own task: a client that goes away drops
    // this handler, not the task, so a stored comment never leaves its pages cached.
    let write = tokio::spawn(async move {
        if !db::add_comment(db, &slug, comment).await? {
            return Err(AppError::NotFound);
        }
        invalidate(&cache, &slug).await;
        Ok(Redirect::new(format!("/posts/{slug}")))
    });
    write
        .await
        .unwrap_or_else(|panicked| std::panic::resume_unwind(panicked.into_panic()))
}
// endregion

// region: detail-page
/// The `{slug}` segment, percent-decoded, when it is a slug (docs/spec.md §3.1); anything else,
/// a segment that does not decode to UTF-8 included, is the 404 error before the handler runs:
/// no query, no cache lookup. Cot's `Path` hands a segment over as it is in the URI, still
/// percent-encoded (cot-0.7.0 src/router/path.rs, `capture`), so it is decoded here.
pub struct Slug(pub String);

impl FromRequestHead for Slug {
    async fn from_request_head(head: &RequestHead) -> cot::Result<Self> {
        let Path(segment) = Path::<String>::from_request_head(head).await?;
        match percent_decode_str(&segment).decode_utf8() {
            Ok(slug) if workload::is_slug(&slug) => Ok(Slug(slug.into_owned())),
            _ => Err(AppError::NotFound.into()),
        }
    }
}
// endregion

// region: comment
/// A comment form, read by the rule every app shares (`workload::comment`), which answers
/// Go's bytes. Cot's `RequestForm` does not: it accepts only the bare media type (no
/// `; charset=…`), reads the body with no limit, decodes it with `form_urlencoded` (invalid
/// UTF-8 becomes U+FFFD, a bad `%` escape is kept) and refuses in its own words (cot-0.7.0
/// src/form.rs, `urlencoded_form_data`). The media type is checked before the body is read,
/// and the body is read with Cot's own limit, `Body::into_bytes_limited`.
pub struct CommentForm(pub NewComment);

impl FromRequest for CommentForm {
    async fn from_request(head: &RequestHead, body: Body) -> cot::Result<Self> {
        let content_type = head.headers.get(CONTENT_TYPE).map(|value| value.as_bytes());
        if !workload::comment::is_form(content_type) {
            return Err(AppError::Form(FormError::NotAForm).into());
        }
        let form = body
            .into_bytes_limited(FORM_LIMIT)
            .await
            .map_err(|err| AppError::Form(unread_form(&err)))?;
        let comment = NewComment::from_form_body(&form).map_err(AppError::Form)?;
        Ok(CommentForm(comment))
    }
}

/// Why Cot could not read a form body: over the limit is a 413; anything else is a client
/// that stopped sending, answered as Go answers it.
fn unread_form(err: &cot::Error) -> FormError {
    let mut chain = std::iter::successors(Some(err as &dyn Error), |&e| e.source());
    if chain.any(|e| e.is::<LengthLimitError>()) {
        FormError::TooLarge
    } else {
        FormError::Malformed
    }
}
// endregion

async fn home_html(db: Db) -> Result<String, AppError> {
    let view = db.run(async |d| db::home_page(d).await).await?;
    Ok(HomeHtml(view).render()?)
}

// region: detail-page
async fn post_html(db: Db, slug: &str) -> Result<Option<String>, AppError> {
    match db.run(async |d| db::post_page(d, slug).await).await? {
        Some(view) => Ok(Some(PostHtml(view).render()?)),
        None => Ok(None),
    }
}
// endregion

// region: cache
/// Serves `key` from Cot's cache; on a miss renders with `render` (`None` = unknown slug:
/// 404, nothing stored) and stores the page. Cache errors (Redis down) are misses.
async fn cached(
    cache: &Cache,
    key: String,
    render: impl AsyncFnOnce() -> Result<Option<String>, AppError>,
) -> Result<Html, AppError> {
    let hit = cache.get::<_, String>(&key).await;
    note_cache(hit.as_ref().err());
    if let Ok(Some(page)) = hit {
        return Ok(Html::new(page));
    }
    let Some(page) = render().await? else {
        return Err(AppError::NotFound);
    };
    let stored = cache.insert(key, &page).await;
    note_cache(stored.as_ref().err());
    Ok(Html::new(page))
}
// endregion

// region: comment
/// Deletes the cached pages a comment on `slug` changes (the post's and the home page).
/// Cot's `Cache::remove` takes one key, so that is one `DEL` per page. A Redis error is
/// logged, not answered: the comment is already stored.
async fn invalidate(cache: &Cache, slug: &str) {
    for key in page_cache::keys_a_comment_changes(slug) {
        let removed = cache.remove(key).await;
        note_cache(removed.as_ref().err());
    }
}
// endregion

static CACHE_OUTAGE: Outage = Outage::new();

/// Logs when the cache's Redis starts failing and when it answers again.
fn note_cache(error: Option<&cot::cache::CacheError>) {
    CACHE_OUTAGE.note_redis("cot", error);
}

// The templates (templates/askama/, found through askama.toml) render the shared view data;
// `Deref` lets `{{ title }}` (askama: `self.title`) reach the view's fields.

#[derive(Template)]
#[template(path = "home.html")]
struct HomeHtml(HomePage);

#[derive(Template)]
#[template(path = "post.html")]
struct PostHtml(PostPage);

#[derive(Template)]
#[template(path = "tag.html")]
struct TagHtml(TagPage);

macro_rules! deref_to_view {
    ($($template:ident => $view:ty),*) => {$(
        impl Deref for $template {
            type Target = $view;
            fn deref(&self) -> &$view {
                &self.0
            }
        }
    )*};
}

deref_to_view!(HomeHtml => HomePage, PostHtml => PostPage, TagHtml => TagPage);
