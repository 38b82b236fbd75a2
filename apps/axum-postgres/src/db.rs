//! The pool, the per-request client, and each page's statements: the text of `shared_sql`,
//! prepared once per connection, the rows mapped into `shared_sql`'s row types as
//! `shared_sql::pages` maps them for sqlx, so `templates::views` renders them alike.
//!
//! tokio-postgres pipelines the queries issued concurrently on one client: statements that
//! need only the same earlier answer are sent together (`tokio::try_join!`, `biased` so they
//! go out in the order of docs/spec.md §3.1) and answered in one round trip.

use crate::AppState;
use crate::routes::AppError;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use deadpool_postgres::{
    ClientWrapper, Hook, HookError, Manager, ManagerConfig, Pool, RecyclingMethod, Runtime,
};
use shared_sql::pages::{HomeRows, PostRows, TagRows};
use shared_sql::{
    COMMENT_COUNTS, COMMENTS_OF_POST, HOME_POSTS, INSERT_COMMENT, POST_BY_SLUG, POST_ID_BY_SLUG,
    TAG_BY_SLUG, TAG_POST_COUNT, TAG_POSTS, TAGS_OF_POST, TAGS_OF_POSTS,
};
use std::time::Duration;
use tokio_postgres::types::ToSql;
use tokio_postgres::{Error, NoTls, Row};
use workload::Config;

// region: pool
/// How long a request waits for a pool slot, and for a new connection or a ping
/// (docs/spec.md §1); deadpool times each step on its own.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(3);

/// At most `POOL_MAX` connections, each opened on first use so the app starts (and answers
/// 503) while PostgreSQL is down.
pub fn pool(config: &Config) -> Result<Pool, Box<dyn std::error::Error>> {
    let manager = Manager::from_config(
        config.database_url.parse()?,
        NoTls,
        // A checkout only tests `is_closed()`, no round trip; the ping is the hook's.
        ManagerConfig {
            recycling_method: RecyclingMethod::Fast,
        },
    );
    let ping = config.ping_on_acquire;
    let pool = Pool::builder(manager)
        .max_size(config.pool_max as usize)
        .runtime(Runtime::Tokio1)
        .wait_timeout(Some(ACQUIRE_TIMEOUT))
        .create_timeout(Some(ACQUIRE_TIMEOUT))
        // After the recycling check, before the checkout is recorded: `last_used` is the
        // time since the connection's previous checkout (deadpool keeps no return time).
        .post_recycle(Hook::async_fn(move |client, metrics| {
            let due = ping.should_ping(metrics.last_used());
            Box::pin(async move {
                if !due {
                    return Ok(());
                }
                // A failed ping drops this connection and the checkout takes another or
                // opens one, so a connection left dead by a PostgreSQL restart fails no
                // request.
                match tokio::time::timeout(ACQUIRE_TIMEOUT, client.check_connection()).await {
                    Ok(Ok(())) => Ok(()),
                    Ok(Err(err)) => Err(HookError::Backend(err)),
                    Err(_) => Err(HookError::message("ping timed out")),
                }
            })
        }))
        .build()?;
    Ok(pool)
}
// endregion

// region: detail-page
/// A client held for the whole request.
pub struct DbClient(pub deadpool_postgres::Client);

impl FromRequestParts<AppState> for DbClient {
    type Rejection = AppError;

    async fn from_request_parts(_: &mut Parts, state: &AppState) -> Result<Self, AppError> {
        Ok(DbClient(state.pool.get().await?))
    }
}
// endregion

/// Home: 3 statements in 2 round trips.
pub async fn home(client: &ClientWrapper) -> Result<HomeRows, Error> {
    let posts = query(client, HOME_POSTS, [], row::post_summary).await?;
    let ids: Vec<i32> = posts.iter().map(|p| p.id).collect();
    let (tags, counts) = tokio::try_join!(
        biased;
        query(client, TAGS_OF_POSTS, [&ids], row::post_tag),
        query(client, COMMENT_COUNTS, [&ids], row::comment_count),
    )?;
    Ok(HomeRows {
        posts,
        tags,
        counts,
    })
}

// region: detail-page
/// Post page: 3 statements in 2 round trips, or 1 when no post has `slug`.
pub async fn post(client: &ClientWrapper, slug: &str) -> Result<Option<PostRows>, Error> {
    let Some(post) = query_opt(client, POST_BY_SLUG, [&slug], row::post).await? else {
        return Ok(None);
    };
    let (tags, comments) = tokio::try_join!(
        biased;
        query(client, TAGS_OF_POST, [&post.id], row::tag_name),
        query(client, COMMENTS_OF_POST, [&post.id], row::comment),
    )?;
    Ok(Some(PostRows {
        post,
        tags,
        comments,
    }))
}
// endregion

/// Tag page: 4 statements in 3 round trips, or 1 when no tag has `slug`. The count needs only
/// the tag, so it goes with the posts' tags, keeping the order of docs/spec.md §3.1.
pub async fn tag(client: &ClientWrapper, slug: &str) -> Result<Option<TagRows>, Error> {
    let Some(tag) = query_opt(client, TAG_BY_SLUG, [&slug], row::tag).await? else {
        return Ok(None);
    };
    let posts = query(client, TAG_POSTS, [&tag.id], row::post_summary).await?;
    let ids: Vec<i32> = posts.iter().map(|p| p.id).collect();
    let (tags, post_count) = tokio::try_join!(
        biased;
        query(client, TAGS_OF_POSTS, [&ids], row::post_tag),
        query_one(client, TAG_POST_COUNT, [&tag.id], row::count),
    )?;
    Ok(Some(TagRows {
        tag,
        post_count,
        posts,
        tags,
    }))
}

// region: comment
/// A comment on the post `slug` (docs/spec.md §3.9): 4 statements in one transaction
/// (`BEGIN`, [`POST_ID_BY_SLUG`], [`INSERT_COMMENT`], `COMMIT`), each waiting for the one
/// before; `false`, after a rollback, when no post has `slug`.
pub async fn add_comment(
    client: &mut ClientWrapper,
    slug: &str,
    author_name: &str,
    body: &str,
) -> Result<bool, Error> {
    let tx = client.transaction().await?;
    let id_by_slug = tx.prepare_cached(POST_ID_BY_SLUG).await?;
    let Some(post) = tx.query_opt(&id_by_slug, &[&slug]).await? else {
        tx.rollback().await?;
        return Ok(false);
    };
    let post_id: i32 = post.try_get("id")?;
    let insert = tx.prepare_cached(INSERT_COMMENT).await?;
    tx.execute(&insert, &[&post_id, &author_name, &body])
        .await?;
    tx.commit().await?;
    Ok(true)
}
// endregion

/// Parameters taken by value, so a future built inside `try_join!` owns them instead of
/// borrowing a temporary.
type Params<'a, const N: usize> = [&'a (dyn ToSql + Sync); N];

/// Runs `sql`, prepared on this connection the first time (deadpool's per-connection
/// statement cache); the query is sent on the future's first poll.
async fn query<T, const N: usize>(
    client: &ClientWrapper,
    sql: &str,
    params: Params<'_, N>,
    map: fn(&Row) -> Result<T, Error>,
) -> Result<Vec<T>, Error> {
    let statement = client.prepare_cached(sql).await?;
    client
        .query(&statement, &params)
        .await?
        .iter()
        .map(map)
        .collect()
}

async fn query_opt<T, const N: usize>(
    client: &ClientWrapper,
    sql: &str,
    params: Params<'_, N>,
    map: fn(&Row) -> Result<T, Error>,
) -> Result<Option<T>, Error> {
    let statement = client.prepare_cached(sql).await?;
    client
        .query_opt(&statement, &params)
        .await?
        .as_ref()
        .map(map)
        .transpose()
}

async fn query_one<T, const N: usize>(
    client: &ClientWrapper,
    sql: &str,
    params: Params<'_, N>,
    map: fn(&Row) -> Result<T, Error>,
) -> Result<T, Error> {
    let statement = client.prepare_cached(sql).await?;
    map(&client.query_one(&statement, &params).await?)
}

/// Rows into `shared_sql`'s row types, by column name as sqlx's `FromRow` reads them.
mod row {
    use shared_sql::{Comment, CommentCount, Post, PostSummary, PostTag, Tag, TagName};
    use tokio_postgres::{Error, Row};

    pub fn post_summary(row: &Row) -> Result<PostSummary, Error> {
        Ok(PostSummary {
            id: row.try_get("id")?,
            title: row.try_get("title")?,
            slug: row.try_get("slug")?,
            excerpt: row.try_get("excerpt")?,
            published_at: row.try_get("published_at")?,
            author_name: row.try_get("author_name")?,
        })
    }

    pub fn post_tag(row: &Row) -> Result<PostTag, Error> {
        Ok(PostTag {
            post_id: row.try_get("post_id")?,
            name: row.try_get("name")?,
            slug: row.try_get("slug")?,
        })
    }

    pub fn comment_count(row: &Row) -> Result<CommentCount, Error> {
        Ok(CommentCount {
            post_id: row.try_get("post_id")?,
            comment_count: row.try_get("comment_count")?,
        })
    }

    pub fn post(row: &Row) -> Result<Post, Error> {
        Ok(Post {
            id: row.try_get("id")?,
            title: row.try_get("title")?,
            slug: row.try_get("slug")?,
            body: row.try_get("body")?,
            published_at: row.try_get("published_at")?,
            author_name: row.try_get("author_name")?,
        })
    }

    pub fn tag_name(row: &Row) -> Result<TagName, Error> {
        Ok(TagName {
            name: row.try_get("name")?,
            slug: row.try_get("slug")?,
        })
    }

    pub fn comment(row: &Row) -> Result<Comment, Error> {
        Ok(Comment {
            author_name: row.try_get("author_name")?,
            body: row.try_get("body")?,
            created_at: row.try_get("created_at")?,
        })
    }

    pub fn tag(row: &Row) -> Result<Tag, Error> {
        Ok(Tag {
            id: row.try_get("id")?,
            name: row.try_get("name")?,
            slug: row.try_get("slug")?,
        })
    }

    /// `count(*)`, the only column.
    pub fn count(row: &Row) -> Result<i64, Error> {
        row.try_get(0)
    }
}
