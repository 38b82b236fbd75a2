//! The database (`Connection<Db>`: one pool connection per request), the pool behind it, the
//! queries of each page and the comment's transaction (docs/spec.md §3: 3/3/4, and 4).

use crate::rows;
use rocket::figment::Figment;
use rocket_db_pools::sqlx::pool::PoolConnection;
use rocket_db_pools::sqlx::postgres::{PgConnectOptions, PgConnection, PgPoolOptions};
use rocket_db_pools::sqlx::{self, ConnectOptions, Connection, PgPool, Postgres};
use rocket_db_pools::{Database, Pool};
use shared_sql as sql;
use std::ops::Deref;
use std::time::Duration;
use templates::views::{self, HomePage, PostPage, TagPage};
use workload::comment::NewComment;

// region: pool
/// The blog's database, configured under `databases.blog`.
#[derive(Database)]
#[database("blog")]
pub struct Db(LazyPgPool);

/// rocket_db_pools' own sqlx pool (`Db(sqlx::PgPool)`) pings every connection it hands out,
/// with no setting to stop it, and refuses to launch while Postgres is down. This one is the
/// same pool built the same way, but connected lazily, so the app starts (and answers 503)
/// without Postgres, and pinging on checkout only as `PING_ON_ACQUIRE` says (by default a
/// connection idle for more than 1 s, pgxpool's rule). sqlx still pings every connection it
/// takes back (no switch).
pub struct LazyPgPool(PgPool);

#[rocket::async_trait]
impl Pool for LazyPgPool {
    type Connection = PoolConnection<Postgres>;
    type Error = rocket_db_pools::Error<sqlx::Error>;

    async fn init(figment: &Figment) -> Result<Self, Self::Error> {
        let config: rocket_db_pools::Config = figment.extract()?;
        let options = config
            .url
            .parse::<PgConnectOptions>()
            .map_err(rocket_db_pools::Error::Init)?
            .disable_statement_logging();
        // A pool is handed only its figment section, so the rule is read from the
        // environment again (`main` has already checked it).
        let ping = workload::Config::from_env()
            .map_err(|err| rocket::figment::Error::from(err.to_string()))?
            .ping_on_acquire;
        let pool = PgPoolOptions::new()
            .max_connections(config.max_connections as u32)
            .min_connections(config.min_connections.unwrap_or_default())
            .acquire_timeout(Duration::from_secs(config.connect_timeout))
            .idle_timeout(config.idle_timeout.map(Duration::from_secs))
            .test_before_acquire(false)
            .before_acquire(move |conn, meta| {
                Box::pin(async move {
                    // `Ok(false)` for a failed ping: the pool closes this connection and opens
                    // a fresh one, so a connection left dead by a PostgreSQL restart fails no
                    // request.
                    Ok(!ping.should_ping(meta.idle_for) || conn.ping().await.is_ok())
                })
            })
            .connect_lazy_with(options);
        Ok(LazyPgPool(pool))
    }

    async fn get(&self) -> Result<Self::Connection, Self::Error> {
        self.0.acquire().await.map_err(rocket_db_pools::Error::Get)
    }

    async fn close(&self) {
        self.0.close().await;
    }
}

/// `Db` reaches the `PgPool` as it would with rocket_db_pools' own pool.
impl Deref for LazyPgPool {
    type Target = PgPool;

    fn deref(&self) -> &PgPool {
        &self.0
    }
}
// endregion

pub async fn home_page(conn: &mut PgConnection) -> sqlx::Result<HomePage> {
    let posts = sqlx::query(sql::HOME_POSTS)
        .try_map(rows::post_summary)
        .fetch_all(&mut *conn)
        .await?;
    let ids: Vec<i32> = posts.iter().map(|p| p.id).collect();
    let tags = sqlx::query(sql::TAGS_OF_POSTS)
        .bind(&ids)
        .try_map(rows::post_tag)
        .fetch_all(&mut *conn)
        .await?;
    let counts = sqlx::query(sql::COMMENT_COUNTS)
        .bind(&ids)
        .try_map(rows::comment_count)
        .fetch_all(&mut *conn)
        .await?;
    Ok(views::home(posts, tags, counts))
}

// region: detail-page
pub async fn post_page(conn: &mut PgConnection, slug: &str) -> sqlx::Result<Option<PostPage>> {
    let Some(post) = sqlx::query(sql::POST_BY_SLUG)
        .bind(slug)
        .try_map(rows::post)
        .fetch_optional(&mut *conn)
        .await?
    else {
        return Ok(None);
    };
    let tags = sqlx::query(sql::TAGS_OF_POST)
        .bind(post.id)
        .try_map(rows::tag_name)
        .fetch_all(&mut *conn)
        .await?;
    let comments = sqlx::query(sql::COMMENTS_OF_POST)
        .bind(post.id)
        .try_map(rows::comment)
        .fetch_all(&mut *conn)
        .await?;
    Ok(Some(views::post(post, tags, comments)))
}
// endregion

pub async fn tag_page(conn: &mut PgConnection, slug: &str) -> sqlx::Result<Option<TagPage>> {
    let Some(tag) = sqlx::query(sql::TAG_BY_SLUG)
        .bind(slug)
        .try_map(rows::tag)
        .fetch_optional(&mut *conn)
        .await?
    else {
        return Ok(None);
    };
    let posts = sqlx::query(sql::TAG_POSTS)
        .bind(tag.id)
        .try_map(rows::post_summary)
        .fetch_all(&mut *conn)
        .await?;
    let ids: Vec<i32> = posts.iter().map(|p| p.id).collect();
    let tags = sqlx::query(sql::TAGS_OF_POSTS)
        .bind(&ids)
        .try_map(rows::post_tag)
        .fetch_all(&mut *conn)
        .await?;
    let count: i64 = sqlx::query_scalar(sql::TAG_POST_COUNT)
        .bind(tag.id)
        .fetch_one(&mut *conn)
        .await?;
    Ok(Some(views::tag(tag, count, posts, tags)))
}

// region: comment
/// A comment on the post `slug` (docs/spec.md §3.9): 4 statements in one transaction
/// (`BEGIN`, `POST_ID_BY_SLUG`, `INSERT_COMMENT`, `COMMIT`); `false`, after a rollback, when
/// no post has `slug`. `shared_sql::pages::add_comment`, in Rocket's sqlx 0.7.
pub async fn add_comment(
    conn: &mut PgConnection,
    slug: &str,
    comment: &NewComment,
) -> sqlx::Result<bool> {
    let mut tx = conn.begin().await?;
    let Some(post_id): Option<i32> = sqlx::query_scalar(sql::POST_ID_BY_SLUG)
        .bind(slug)
        .fetch_optional(&mut *tx)
        .await?
    else {
        tx.rollback().await?;
        return Ok(false);
    };
    sqlx::query(sql::INSERT_COMMENT)
        .bind(post_id)
        .bind(&comment.author_name)
        .bind(&comment.body)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(true)
}
// endregion
