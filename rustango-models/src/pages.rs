//! Each page's querysets, in the order of docs/spec.md §3, on one connection
//! (`_on(&mut conn)`), and the comment route's write: what both Rustango apps send. They return
//! the same rows as the sqlx apps' queries (`shared_sql::pages`), which `templates::views`
//! turns into the page's view.
//!
//! SQL differs from Go's text (Rustango writes its own): `LEFT JOIN` for `select_related`,
//! `ORDER BY id LIMIT 1` from `first_on`, `LIMIT 1` and `RETURNING "id"` in the comment's
//! statements, and every column of a model.

use crate::{Comment, Post, PostTag, Tag};
use rustango::core::{AggregateExpr, SqlValue};
use rustango::sql::{ExecError, PoolConn};
use shared_sql::CommentCount;
use shared_sql::pages::{HomeRows, PostRows, TagRows};

/// Post ids as an `__in` list (Rustango binds it as one array: `= ANY($1)`).
fn id_list(ids: &[i32]) -> SqlValue {
    SqlValue::List(ids.iter().map(|&id| SqlValue::I32(id)).collect())
}

/// Home: 3 statements.
pub async fn home(conn: &mut PoolConn) -> Result<HomeRows, ExecError> {
    let posts: Vec<_> = Post::objects()
        .select_related("author")
        .order_by(&[("published_at", true), ("id", true)])
        .limit(20)
        .fetch_on(&mut *conn)
        .await?
        .into_iter()
        .map(Post::into_summary)
        .collect();
    let ids: Vec<i32> = posts.iter().map(|p| p.id).collect();
    let tags = tags_of_posts(conn, &ids).await?;
    let counts = comment_counts(conn, &ids).await?;
    Ok(HomeRows {
        posts,
        tags,
        counts,
    })
}

/// Post page: 3 statements, or 1 when no post has `slug`.
pub async fn post(conn: &mut PoolConn, slug: &str) -> Result<Option<PostRows>, ExecError> {
    let Some(post) = Post::objects()
        .filter("slug", slug)
        .select_related("author")
        .first_on(&mut *conn)
        .await?
    else {
        return Ok(None);
    };
    let tags = PostTag::objects()
        .filter("post", post.id)
        .select_related("tag")
        .order_by(&[("tag__slug", false)])
        .fetch_on(&mut *conn)
        .await?
        .into_iter()
        .map(PostTag::into_tag_name)
        .collect();
    let comments = Comment::objects()
        .filter("post_id", post.id)
        .order_by(&[("created_at", false), ("id", false)])
        .fetch_on(&mut *conn)
        .await?
        .into_iter()
        .map(Comment::into_row)
        .collect();
    Ok(Some(PostRows {
        post: post.into_page_row(),
        tags,
        comments,
    }))
}

/// Tag page: 4 statements, or 1 when no tag has `slug`.
pub async fn tag(conn: &mut PoolConn, slug: &str) -> Result<Option<TagRows>, ExecError> {
    let Some(tag) = Tag::objects()
        .filter("slug", slug)
        .first_on(&mut *conn)
        .await?
    else {
        return Ok(None);
    };
    let posts: Vec<_> = PostTag::objects()
        .filter("tag", tag.id)
        .select_related("post__author")
        .order_by(&[("post__published_at", true), ("post__id", true)])
        .limit(20)
        .fetch_on(&mut *conn)
        .await?
        .into_iter()
        .map(PostTag::into_post_summary)
        .collect();
    let ids: Vec<i32> = posts.iter().map(|p| p.id).collect();
    let tags = tags_of_posts(conn, &ids).await?;
    let count = PostTag::objects()
        .filter("tag", tag.id)
        .count_on(&mut *conn)
        .await?;
    Ok(Some(TagRows {
        tag: tag.into_row(),
        post_count: count,
        posts,
        tags,
    }))
}

/// A comment on the post `slug` (docs/spec.md §3.9), in one transaction on `conn`: 4
/// statements (`BEGIN`, the post's id, the insert, `COMMIT`); `false`, after a rollback, when
/// no post has `slug`. `PoolConn::begin`, on the connection the caller holds, rather than
/// `rustango::sql::atomic`, which takes a connection of its own and sends a `SELECT 1` before
/// its `COMMIT` on PostgreSQL (`check_open` in rustango's `sql/executor/atomic.rs`).
pub async fn add_comment(
    conn: &mut PoolConn,
    slug: &str,
    author_name: String,
    body: String,
) -> Result<bool, ExecError> {
    let mut tx = conn.begin().await?;
    let Some(post_id) = Post::objects()
        .filter("slug", slug)
        .values_list_flat("id")
        .first_on::<i32>(&mut tx)
        .await?
    else {
        tx.rollback().await?;
        return Ok(false);
    };
    Comment::new(post_id, author_name, body)
        .insert_on(&mut tx)
        .await?;
    tx.commit().await?;
    Ok(true)
}

/// The tags of `ids`, by post then tag slug. An empty `__in` list does not compile in
/// Rustango, so no posts means no query.
async fn tags_of_posts(
    conn: &mut PoolConn,
    ids: &[i32],
) -> Result<Vec<shared_sql::PostTag>, ExecError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    Ok(PostTag::objects()
        .filter("post__in", id_list(ids))
        .select_related("tag")
        .order_by(&[("post", false), ("tag__slug", false)])
        .fetch_on(&mut *conn)
        .await?
        .into_iter()
        .map(PostTag::into_post_tag)
        .collect())
}

/// `SELECT post_id, COUNT(*) … GROUP BY post_id` over `ids`; posts without comments have no row.
async fn comment_counts(conn: &mut PoolConn, ids: &[i32]) -> Result<Vec<CommentCount>, ExecError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let rows = Comment::objects()
        .filter("post_id__in", id_list(ids))
        .values(&["post_id"])
        .annotate("comment_count", AggregateExpr::Count(None))
        .fetch_on(&mut *conn)
        .await?;
    Ok(rows
        .into_iter()
        .map(|row| CommentCount {
            post_id: int(row.get("post_id")) as i32,
            comment_count: int(row.get("comment_count")),
        })
        .collect())
}

/// An integer cell of an aggregate row.
fn int(value: Option<&SqlValue>) -> i64 {
    match value {
        Some(SqlValue::I64(n)) => *n,
        Some(SqlValue::I32(n)) => i64::from(*n),
        Some(SqlValue::I16(n)) => i64::from(*n),
        other => panic!("expected an integer aggregate cell, got {other:?}"),
    }
}
