//! One pool connection per request, and the queries of each page (SPEC §3: 3/3/4).

use crate::AppState;
use crate::routes::AppError;
use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, web};
use shared_sql as sql;
use sqlx::{PgConnection, Postgres, pool::PoolConnection};
use std::future::Future;
use std::pin::Pin;
use templates::views::{self, HomePage, PostPage, TagPage};

/// A connection held for the whole request, so a page costs its queries plus the one ping
/// sqlx sends when the connection goes back to the pool.
pub struct DbConn(pub PoolConnection<Postgres>);

impl FromRequest for DbConn {
    type Error = AppError;
    // An async extractor's future is boxed (as `FromRequest`'s documentation shows).
    type Future = Pin<Box<dyn Future<Output = Result<Self, AppError>>>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let state = req
            .app_data::<web::Data<AppState>>()
            .expect("main registers AppState");
        let acquire = state.pool.acquire();
        Box::pin(async move { Ok(DbConn(acquire.await?)) })
    }
}

pub async fn home_page(conn: &mut PgConnection) -> sqlx::Result<HomePage> {
    let posts: Vec<sql::PostSummary> = sqlx::query_as(sql::HOME_POSTS)
        .fetch_all(&mut *conn)
        .await?;
    let ids: Vec<i32> = posts.iter().map(|p| p.id).collect();
    let tags = sqlx::query_as(sql::TAGS_OF_POSTS)
        .bind(&ids)
        .fetch_all(&mut *conn)
        .await?;
    let counts = sqlx::query_as(sql::COMMENT_COUNTS)
        .bind(&ids)
        .fetch_all(&mut *conn)
        .await?;
    Ok(views::home(posts, tags, counts))
}

pub async fn post_page(conn: &mut PgConnection, slug: &str) -> sqlx::Result<Option<PostPage>> {
    let Some(post): Option<sql::Post> = sqlx::query_as(sql::POST_BY_SLUG)
        .bind(slug)
        .fetch_optional(&mut *conn)
        .await?
    else {
        return Ok(None);
    };
    let tags = sqlx::query_as(sql::TAGS_OF_POST)
        .bind(post.id)
        .fetch_all(&mut *conn)
        .await?;
    let comments = sqlx::query_as(sql::COMMENTS_OF_POST)
        .bind(post.id)
        .fetch_all(&mut *conn)
        .await?;
    Ok(Some(views::post(post, tags, comments)))
}

pub async fn tag_page(conn: &mut PgConnection, slug: &str) -> sqlx::Result<Option<TagPage>> {
    let Some(tag): Option<sql::Tag> = sqlx::query_as(sql::TAG_BY_SLUG)
        .bind(slug)
        .fetch_optional(&mut *conn)
        .await?
    else {
        return Ok(None);
    };
    let posts: Vec<sql::PostSummary> = sqlx::query_as(sql::TAG_POSTS)
        .bind(tag.id)
        .fetch_all(&mut *conn)
        .await?;
    let ids: Vec<i32> = posts.iter().map(|p| p.id).collect();
    let tags = sqlx::query_as(sql::TAGS_OF_POSTS)
        .bind(&ids)
        .fetch_all(&mut *conn)
        .await?;
    let count: i64 = sqlx::query_scalar(sql::TAG_POST_COUNT)
        .bind(tag.id)
        .fetch_one(&mut *conn)
        .await?;
    Ok(Some(views::tag(tag, count, posts, tags)))
}
