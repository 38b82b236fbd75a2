//! The pages, rendered from the database on every request.

use super::{AppError, Page, Slug, not_found};
use crate::models::{comments, posts, tags};
use crate::views;
use loco_rs::prelude::*;
use templates::views::{HomePage, PostPage};

pub fn routes() -> Routes {
    Routes::new()
        .add("/", get(home))
        .add("/posts/{slug}", get(post))
        .add("/tags/{slug}", get(tag))
}

pub async fn home(ViewEngine(v): ViewEngine<TeraView>, State(ctx): State<AppContext>) -> Page {
    Ok(format::view(
        &v,
        templates::HOME,
        home_page(&ctx.db).await?,
    )?)
}

// region: detail-page
pub async fn post(
    ViewEngine(v): ViewEngine<TeraView>,
    State(ctx): State<AppContext>,
    Slug(slug): Slug,
) -> Page {
    match post_page(&ctx.db, &slug).await? {
        Some(page) => Ok(format::view(&v, templates::POST, page)?),
        None => not_found(ViewEngine(v)).await,
    }
}
// endregion

pub async fn tag(
    ViewEngine(v): ViewEngine<TeraView>,
    State(ctx): State<AppContext>,
    Slug(slug): Slug,
) -> Page {
    let Some(tag) = tags::Entity::find_by_slug(&ctx.db, &slug).await? else {
        return not_found(ViewEngine(v)).await;
    };
    let posts = posts::Entity::latest_tagged(&ctx.db, tag.id).await?;
    let ids: Vec<i32> = posts.iter().map(|p| p.id).collect();
    let links = tags::Entity::of_posts(&ctx.db, &ids).await?;
    let count = tags::Entity::post_count(&ctx.db, tag.id).await?;
    Ok(format::view(
        &v,
        templates::TAG,
        views::tag(tag, count, posts, links),
    )?)
}

/// Home: 3 statements.
pub async fn home_page(db: &DatabaseConnection) -> Result<HomePage, AppError> {
    let posts = posts::Entity::latest(db).await?;
    let ids: Vec<i32> = posts.iter().map(|p| p.id).collect();
    let links = tags::Entity::of_posts(db, &ids).await?;
    let counts = comments::Entity::counts(db, &ids).await?;
    Ok(views::home(posts, links, counts))
}

// region: detail-page
/// A post: 3 statements, or 1 for an unknown slug (`None`).
pub async fn post_page(db: &DatabaseConnection, slug: &str) -> Result<Option<PostPage>, AppError> {
    let Some(post) = posts::Entity::find_by_slug_with_author(db, slug).await? else {
        return Ok(None);
    };
    let tags = tags::Entity::of_post(db, post.0.id).await?;
    let comments = comments::Entity::of_post(db, post.0.id).await?;
    Ok(Some(views::post(post, tags, comments)))
}
// endregion
