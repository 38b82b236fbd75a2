//! The blog on axum 0.8 with the Rustango ORM, Rustango's page cache on Redis, and Tera:
//! the seven routes of docs/spec.md §3.
//!
//! Run it with `make up APP=rustango-axum` (services, data, release build), or by hand:
//!
//! ```text
//! make build && target/release/rustango-axum
//! curl 127.0.0.1:8080/
//! curl 127.0.0.1:8080/cached/posts/<slug>
//! curl '127.0.0.1:8080/compute?n=20000'
//! curl -d author_name=Ann -d body=Hello 127.0.0.1:8080/posts/<slug>/comments
//! ```
//!
//! Settings come from the environment (`workload::Config`): `DATABASE_URL`, `REDIS_URL`,
//! `BIND`, `WORKERS` (Tokio worker threads), `POOL_MAX`, `POOL_MIN`, `PING_ON_ACQUIRE`.

mod db;
mod routes;

use axum::body::Bytes;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use axum::{Router, middleware};
use mimalloc::MiMalloc;
use rustango::cache::{BoxedCache, CacheError};
use rustango::cache_page::CachePageLayer;
use rustango::sql::Pool;
use rustango_models::LazyRedisCache;
use sqlx::Connection;
use sqlx::postgres::PgPoolOptions;
use std::{process::ExitCode, sync::Arc, time::Duration};
use tera::Tera;
use workload::comment::FORM_LIMIT;
use workload::{Config, Outage};

#[global_allocator]
static GLOBAL: MiMalloc = MiMalloc;

/// How long `CachePageLayer` keeps a page. It always stores with a TTL (its default is 60 s);
/// a day outlasts any benchmark, as Go's pages, stored without expiry, do.
const PAGE_TTL: Duration = Duration::from_secs(24 * 60 * 60);

/// What every handler can reach.
#[derive(Clone)]
pub struct AppState {
    pub pool: Pool,
    /// The cached routes' layer: a comment purges its pages through it.
    pub page_cache: CachePageLayer,
    pub tera: Arc<Tera>,
    /// The 404 page, rendered once; `Bytes` so each 404 shares it instead of copying.
    pub not_found: Bytes,
    /// Seen by the purges (the layer itself treats a Redis error as a miss and logs
    /// nothing).
    redis_outage: Arc<Outage>,
}

impl AppState {
    /// Logs when Redis starts failing and when it answers again.
    pub fn note_redis(&self, error: Option<&CacheError>) {
        self.redis_outage.note_redis("rustango-axum", error);
    }
}

fn main() -> ExitCode {
    workload::run_on_tokio("rustango-axum", serve)
}

async fn serve(config: Config) -> Result<(), Box<dyn std::error::Error>> {
    // region: pool
    // Our own sqlx pool, handed to Rustango (`Pool::from`): Rustango's own constructors
    // install a `before_acquire` hook that pings connections idle for 30 s or more. Here a
    // checkout pings only as PING_ON_ACQUIRE says (by default a connection idle for more
    // than 1 s, pgxpool's rule); sqlx still pings every connection it takes back (no switch).
    // Lazy, so the app starts (and answers 503) while Postgres is down.
    let ping = config.ping_on_acquire;
    let pool = PgPoolOptions::new()
        .max_connections(config.pool_max)
        .min_connections(config.pool_min)
        .test_before_acquire(false)
        .before_acquire(move |conn, meta| {
            Box::pin(async move {
                // `Ok(false)` for a failed ping: the pool closes this connection and opens a
                // fresh one, so a connection left dead by a PostgreSQL restart fails no request.
                Ok(!ping.should_ping(meta.idle_for) || conn.ping().await.is_ok())
            })
        })
        .acquire_timeout(Duration::from_secs(3))
        .connect_lazy(&config.database_url)?;
    // endregion
    // region: cache
    // Rustango's Redis cache (one multiplexed connection), connected on first use.
    let cache: BoxedCache = Arc::new(LazyRedisCache::new(config.redis_url.as_str()));
    // The cached pages are the uncached handlers behind Rustango's whole-page cache. Its
    // keys start with `page:` (the prefix), so the harness's `page:*` sweep clears them. It
    // wraps the two cached routes only, so the comment route never goes through it.
    let page_cache = CachePageLayer::new(cache)
        .key_prefix("page:")
        .timeout(PAGE_TTL);
    // endregion
    let tera = templates::tera()?;
    // region: pool
    let state = AppState {
        pool: Pool::from(pool),
        page_cache: page_cache.clone(),
        not_found: Bytes::from(templates::not_found_page(&tera)?),
        tera: Arc::new(tera),
        redis_outage: Arc::default(),
    };
    // endregion

    // region: cache
    // The last layer runs first: a segment that is not a slug gets the 404 page before the
    // cache looks it up in Redis.
    let require_slug = middleware::from_fn_with_state(state.clone(), routes::require_slug);
    let cached_post = get(routes::post)
        .layer(page_cache.clone())
        .layer(require_slug);
    // endregion
    let app = Router::new()
        .route("/", get(routes::home))
        .route("/posts/{slug}", get(routes::post))
        .route("/tags/{slug}", get(routes::tag))
        .route("/cached/", get(routes::home).layer(page_cache))
        .route("/cached/posts/{slug}", cached_post)
        .route("/compute", get(routes::compute))
        .route(
            "/posts/{slug}/comments",
            post(routes::add_comment).layer(DefaultBodyLimit::max(FORM_LIMIT)),
        )
        .fallback(routes::not_found)
        .with_state(state);

    let listener = tokio::net::TcpListener::bind(&config.bind)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", config.bind))?;
    println!(
        "rustango-axum listening on http://{}/",
        listener.local_addr()?
    );
    axum::serve(listener, app)
        .with_graceful_shutdown(workload::shutdown_signal())
        .await?;
    Ok(())
}
