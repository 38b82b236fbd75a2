//! Each page's statements, in the order of docs/spec.md §3, on one connection: what the sqlx
//! 0.8 apps (axum-sqlx, actix-sqlx) send for a page. The apps differ only in how a request gets
//! its connection; `templates::views` turns these rows into the page's view.

use crate::{
    COMMENT_COUNTS, COMMENTS_OF_POST, Comment, CommentCount, HOME_POSTS, INSERT_COMMENT,
    POST_BY_SLUG, POST_ID_BY_SLUG, Post, PostSummary, PostTag, TAG_BY_SLUG, TAG_POST_COUNT,
    TAG_POSTS, TAGS_OF_POST, TAGS_OF_POSTS, Tag, TagName,
};
use sqlx::{Connection, PgConnection};

pub struct HomeRows {
    pub posts: Vec<PostSummary>,
    pub tags: Vec<PostTag>,
    pub counts: Vec<CommentCount>,
}

pub struct PostRows {
    pub post: Post,
    pub tags: Vec<TagName>,
    pub comments: Vec<Comment>,
}

pub struct TagRows {
    pub tag: Tag,
    pub post_count: i64,
    pub posts: Vec<PostSummary>,
    pub tags: Vec<PostTag>,
}

/// Home: 3 statements.
pub async fn home(conn: &mut PgConnection) -> sqlx::Result<HomeRows> {
    let posts: Vec<PostSummary> = sqlx::query_as(HOME_POSTS).fetch_all(&mut *conn).await?;
    let ids: Vec<i32> = posts.iter().map(|p| p.id).collect();
    let tags = sqlx::query_as(TAGS_OF_POSTS)
        .bind(&ids)
        .fetch_all(&mut *conn)
        .await?;
    let counts = sqlx::query_as(COMMENT_COUNTS)
        .bind(&ids)
        .fetch_all(&mut *conn)
        .await?;
    Ok(HomeRows {
        posts,
        tags,
        counts,
    })
}

/// Post page: 3 statements, or 1 when no post has `slug`.
pub async fn post(conn: &mut PgConnection, slug: &str) -> sqlx::Result<Option<PostRows>> {
    let Some(post): Option<Post> = sqlx::query_as(POST_BY_SLUG)
        .bind(slug)
        .fetch_optional(&mut *conn)
        .await?
    else {
        return Ok(None);
    };
    let tags = sqlx::query_as(TAGS_OF_POST)
        .bind(post.id)
        .fetch_all(&mut *conn)
        .await?;
    let comments = sqlx::query_as(COMMENTS_OF_POST)
        .bind(post.id)
        .fetch_all(&mut *conn)
        .await?;
    Ok(Some(PostRows {
        post,
        tags,
        comments,
    }))
}

/// Tag page: 4 statements, or 1 when no tag has `slug`.
pub async fn tag(conn: &mut PgConnection, slug: &str) -> sqlx::Result<Option<TagRows>> {
    let Some(tag): Option<Tag> = sqlx::query_as(TAG_BY_SLUG)
        .bind(slug)
        .fetch_optional(&mut *conn)
        .await?
    else {
        return Ok(None);
    };
    let posts: Vec<PostSummary> = sqlx::query_as(TAG_POSTS)
        .bind(tag.id)
        .fetch_all(&mut *conn)
        .await?;
    let ids: Vec<i32> = posts.iter().map(|p| p.id).collect();
    let tags = sqlx::query_as(TAGS_OF_POSTS)
        .bind(&ids)
        .fetch_all(&mut *conn)
        .await?;
    let post_count = sqlx::query_scalar(TAG_POST_COUNT)
        .bind(tag.id)
        .fetch_one(&mut *conn)
        .await?;
    Ok(Some(TagRows {
        tag,
        post_count,
        posts,
        tags,
    }))
}

/// A comment on the post `slug` (docs/spec.md §3.9): 4 statements in one transaction
/// (`BEGIN`, [`POST_ID_BY_SLUG`], [`INSERT_COMMENT`], `COMMIT`); `false`, after a rollback,
/// when no post has `slug`.
pub async fn add_comment(
    conn: &mut PgConnection,
    slug: &str,
    author_name: &str,
    body: &str,
) -> sqlx::Result<bool> {
    let mut tx = conn.begin().await?;
    let Some(post_id): Option<i32> = sqlx::query_scalar(POST_ID_BY_SLUG)
        .bind(slug)
        .fetch_optional(&mut *tx)
        .await?
    else {
        tx.rollback().await?;
        return Ok(false);
    };
    sqlx::query(INSERT_COMMENT)
        .bind(post_id)
        .bind(author_name)
        .bind(body)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(true)
}
