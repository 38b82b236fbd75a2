//! The cached pages: Loco's cache (`ctx.cache`) on Redis, key `page:<uncached path>`
//! (`page_cache::HOME_KEY`, `page_cache::post_key`), value the raw HTML. The cache's
//! driver-level `get`/`insert` store the string as it is (its typed `get::<T>`/`insert` would
//! JSON-encode it). A Redis error is a miss. A comment deletes the pages it changes.

use super::{AppError, Page, Slug, not_found};
use crate::controllers::pages;
use loco_rs::cache::Cache;
use loco_rs::prelude::*;
use templates::views::PostPage;

/// `/cached/` itself is routed in `App::before_routes`: Loco's `Routes` strip a trailing
/// slash, and the path in docs/spec.md §3 has one.
pub fn routes() -> Routes {
    Routes::new()
        .prefix("/cached")
        .add("/posts/{slug}", get(post))
}

pub async fn home(ViewEngine(v): ViewEngine<TeraView>, State(ctx): State<AppContext>) -> Page {
    cached(&v, &ctx, page_cache::HOME_KEY, async {
        let page = pages::home_page(&ctx.db).await?;
        Ok::<_, AppError>(Some(v.render(templates::HOME, page)?))
    })
    .await
}

// region: cache
pub async fn post(
    ViewEngine(v): ViewEngine<TeraView>,
    State(ctx): State<AppContext>,
    Slug(slug): Slug,
) -> Page {
    let key = page_cache::post_key(&slug);
    cached(&v, &ctx, &key, async {
        let page: Option<PostPage> = pages::post_page(&ctx.db, &slug).await?;
        page.map(|page| v.render(templates::POST, page))
            .transpose()
            .map_err(AppError::from)
    })
    .await
}
// endregion

// region: cache
/// Serves `key` from the cache; on a miss renders the page (`None` = unknown slug: 404,
/// nothing stored) and stores it.
async fn cached(
    v: &TeraView,
    ctx: &AppContext,
    key: &str,
    render: impl Future<Output = Result<Option<String>, AppError>>,
) -> Page {
    match ctx.cache.driver.get(key).await {
        Ok(Some(page)) => return Ok(format::html(&page)?),
        Ok(None) => {}
        Err(err) => tracing::warn!(%err, key, "cache get"),
    }
    let Some(page) = render.await? else {
        return not_found(ViewEngine(v.clone())).await;
    };
    if let Err(err) = ctx.cache.driver.insert(key, &page).await {
        tracing::warn!(%err, key, "cache insert");
    }
    Ok(format::html(&page)?)
}
// endregion

// region: comment
/// Deletes the pages a committed comment on `slug` changes (`page_cache::
/// keys_a_comment_changes`: the post's, the home page). Loco's cache removes one key per call
/// (`CacheDriver::remove`), so these are two `DEL`s, sent together. A Redis error is logged,
/// not answered: the comment is stored.
pub async fn invalidate_after_comment(cache: &Cache, slug: &str) {
    let [post, home] = page_cache::keys_a_comment_changes(slug);
    let (post, home) = tokio::join!(cache.remove(&post), cache.remove(&home));
    if let Err(err) = post.and(home) {
        tracing::warn!(%err, slug, "cache remove");
    }
}
// endregion
