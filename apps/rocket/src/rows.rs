//! The shared row types, read from sqlx 0.7 rows by column name. `shared-sql` derives
//! `FromRow` for sqlx 0.8, which Rocket's sqlx 0.7 does not see (and the orphan rule keeps
//! this crate from implementing 0.7's `FromRow` for them).

use rocket_db_pools::sqlx::postgres::PgRow;
use rocket_db_pools::sqlx::{Result, Row};
use shared_sql::{Comment, CommentCount, Post, PostSummary, PostTag, Tag, TagName};

pub fn post_summary(row: PgRow) -> Result<PostSummary> {
    Ok(PostSummary {
        id: row.try_get("id")?,
        title: row.try_get("title")?,
        slug: row.try_get("slug")?,
        excerpt: row.try_get("excerpt")?,
        published_at: row.try_get("published_at")?,
        author_name: row.try_get("author_name")?,
    })
}

pub fn post_tag(row: PgRow) -> Result<PostTag> {
    Ok(PostTag {
        post_id: row.try_get("post_id")?,
        name: row.try_get("name")?,
        slug: row.try_get("slug")?,
    })
}

pub fn comment_count(row: PgRow) -> Result<CommentCount> {
    Ok(CommentCount {
        post_id: row.try_get("post_id")?,
        comment_count: row.try_get("comment_count")?,
    })
}

pub fn post(row: PgRow) -> Result<Post> {
    Ok(Post {
        id: row.try_get("id")?,
        title: row.try_get("title")?,
        slug: row.try_get("slug")?,
        body: row.try_get("body")?,
        published_at: row.try_get("published_at")?,
        author_name: row.try_get("author_name")?,
    })
}

pub fn tag_name(row: PgRow) -> Result<TagName> {
    Ok(TagName {
        name: row.try_get("name")?,
        slug: row.try_get("slug")?,
    })
}

pub fn comment(row: PgRow) -> Result<Comment> {
    Ok(Comment {
        author_name: row.try_get("author_name")?,
        body: row.try_get("body")?,
        created_at: row.try_get("created_at")?,
    })
}

pub fn tag(row: PgRow) -> Result<Tag> {
    Ok(Tag {
        id: row.try_get("id")?,
        name: row.try_get("name")?,
        slug: row.try_get("slug")?,
    })
}
