//! The six routes, in the order of docs/spec.md §3, the `{slug}` extractor, their templates,
//! and the project's error page handler.

use crate::db::{self, Db};
use cot::cache::Cache;
use cot::error::NotFound;
use cot::error::handler::RequestError;
use cot::html::Html;
use cot::request::RequestHead;
use cot::request::extractors::{FromRequestHead, Path};
use cot::response::{IntoResponse, Response};
use cot::{StatusCode, Template};
use percent_encoding::percent_decode_str;
use std::ops::Deref;
use std::sync::atomic::{AtomicBool, Ordering};
use templates::views::{HomePage, PostPage, TagPage};

pub async fn home(db: Db) -> cot::Result<Html> {
    Ok(Html::new(home_html(db).await?))
}

pub async fn post(Slug(slug): Slug, db: Db) -> cot::Result<Html> {
    match post_html(db, &slug).await? {
        Some(page) => Ok(Html::new(page)),
        None => Err(NotFound::new().into()),
    }
}

pub async fn tag(Slug(slug): Slug, db: Db) -> cot::Result<Html> {
    match db.run(async |d| db::tag_page(d, &slug).await).await? {
        Some(view) => Ok(Html::new(TagHtml(view).render()?)),
        None => Err(NotFound::new().into()),
    }
}

pub async fn cached_home(db: Db, cache: Cache) -> cot::Result<Html> {
    cached(&cache, "page:/".to_owned(), async || {
        home_html(db).await.map(Some)
    })
    .await
}

pub async fn cached_post(Slug(slug): Slug, db: Db, cache: Cache) -> cot::Result<Html> {
    let key = format!("page:/posts/{slug}");
    cached(&cache, key, async || post_html(db, &slug).await).await
}

/// The raw query, read by the rule every app shares (Go's `parseN`): Cot's `UrlQuery` decodes
/// with other rules (it splits on `;`, for one).
pub async fn compute(head: RequestHead) -> cot::Result<Response> {
    match workload::parse_n_query(head.uri.query()) {
        Ok(n) => workload::compute_body(n).into_response(),
        Err(message) => message.with_status(StatusCode::BAD_REQUEST).into_response(),
    }
}

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
            _ => Err(NotFound::new().into()),
        }
    }
}

async fn home_html(db: Db) -> cot::Result<String> {
    let view = db.run(async |d| db::home_page(d).await).await?;
    Ok(HomeHtml(view).render()?)
}

async fn post_html(db: Db, slug: &str) -> cot::Result<Option<String>> {
    match db.run(async |d| db::post_page(d, slug).await).await? {
        Some(view) => Ok(Some(PostHtml(view).render()?)),
        None => Ok(None),
    }
}

/// Serves `key` from Cot's cache; on a miss renders with `render` (`None` = unknown slug:
/// 404, nothing stored) and stores the page. Cache errors (Redis down) are misses.
async fn cached(
    cache: &Cache,
    key: String,
    render: impl AsyncFnOnce() -> cot::Result<Option<String>>,
) -> cot::Result<Html> {
    match cache.get::<_, String>(&key).await {
        Ok(Some(page)) => {
            cache_ok();
            return Ok(Html::new(page));
        }
        Ok(None) => cache_ok(),
        Err(err) => cache_failed(&err),
    }
    let Some(page) = render().await? else {
        return Err(NotFound::new().into());
    };
    match cache.insert(key, &page).await {
        Ok(()) => cache_ok(),
        Err(err) => cache_failed(&err),
    }
    Ok(Html::new(page))
}

/// Whether the last cache call failed, so an outage is logged once, not per request.
static CACHE_FAILING: AtomicBool = AtomicBool::new(false);

fn cache_failed(err: &cot::cache::CacheError) {
    if !CACHE_FAILING.swap(true, Ordering::Relaxed) {
        eprintln!("cot: cache unavailable, serving misses: {err}");
    }
}

fn cache_ok() {
    if CACHE_FAILING.load(Ordering::Relaxed) && CACHE_FAILING.swap(false, Ordering::Relaxed) {
        eprintln!("cot: cache answering again");
    }
}

/// The project's error page handler: unknown paths and slugs get the shared 404 page, a
/// database failure `database unavailable` (docs/spec.md §3.8), anything else its status as
/// plain text.
pub async fn error_page(error: RequestError) -> cot::Result<Response> {
    match error.status_code() {
        StatusCode::NOT_FOUND => Html::new(NotFoundHtml.render()?)
            .with_status(StatusCode::NOT_FOUND)
            .into_response(),
        StatusCode::SERVICE_UNAVAILABLE => {
            eprintln!("cot: database: {error}");
            workload::DB_UNAVAILABLE_MESSAGE
                .with_status(StatusCode::SERVICE_UNAVAILABLE)
                .into_response()
        }
        status => {
            eprintln!("cot: {status}: {error}");
            format!("{status}\n").with_status(status).into_response()
        }
    }
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

#[derive(Template)]
#[template(path = "not_found.html")]
struct NotFoundHtml;

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
