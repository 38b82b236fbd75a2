//! The blog on axum 0.8, sqlx (PostgreSQL), Tera and redis: the routes of docs/spec.md §3.
//!
//! Run it with `make up APP=axum-sqlx` (services, data, release build), or by hand:
//!
//! ```text
//! cargo run --release -p axum-sqlx
//! curl 127.0.0.1:8080/
//! curl 127.0.0.1:8080/posts/<slug>
//! curl '127.0.0.1:8080/compute?n=20000'
//! curl -d author_name=Ann -d body=Hello 127.0.0.1:8080/posts/<slug>/comments
//! ```
//!
//! Settings come from the environment (`workload::Config`): `DATABASE_URL`, `REDIS_URL`,
//! `BIND`, `WORKERS` (Tokio worker threads), `POOL_MAX`, `POOL_MIN`, `PING_ON_ACQUIRE`.
//!
//! A library, so that one app builds into several binaries that differ only in their global
//! allocator, which a library cannot choose for them: `main.rs` (`axum-sqlx`, mimalloc),
//! `apps/axum-sqlx-sysalloc` (glibc malloc) and `apps/axum-sqlx-jemalloc` (jemalloc). A cargo
//! feature could not do it: one workspace build unifies features, so it gives one variant.

mod db;
mod routes;

use axum::Router;
use axum::body::Bytes;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use page_cache::PageCache;
use sqlx::Connection;
use sqlx::postgres::PgPoolOptions;
use std::{process::ExitCode, sync::Arc, sync::OnceLock, time::Duration};
use tera::Tera;
use workload::Config;

/// What every handler can reach.
#[derive(Clone)]
pub struct AppState {
    pub pool: sqlx::PgPool,
    pub cache: Arc<PageCache>,
    pub tera: Arc<Tera>,
    /// The 404 page, rendered once; `Bytes` so each 404 shares it instead of copying.
    pub not_found: Bytes,
}

/// The binary's name, set by `main` before anything runs: the prefix of its log lines.
static NAME: OnceLock<&'static str> = OnceLock::new();

fn name() -> &'static str {
    NAME.get().expect("main sets the name first")
}

/// Runs the app; `name` is the binary's, for its log lines (each allocator variant is its own
/// binary). It allocates with the binary's `#[global_allocator]`, or the system's if none.
pub fn main(name: &'static str) -> ExitCode {
    NAME.get_or_init(|| name);
    workload::run_on_tokio(name, serve)
}

async fn serve(config: Config) -> Result<(), Box<dyn std::error::Error>> {
    // region: pool
    // A checkout pings only as PING_ON_ACQUIRE says (by default a connection idle for more
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
    let tera = templates::tera()?;
    let state = AppState {
        pool,
        cache: Arc::new(PageCache::new(
            redis::Client::open(config.redis_url.as_str())?,
            name(),
        )),
        not_found: templates::not_found_page(&tera)?.into(),
        tera: Arc::new(tera),
    };
    // endregion

    let app = Router::new()
        .route("/", get(routes::home))
        .route("/posts/{slug}", get(routes::post))
        .route("/tags/{slug}", get(routes::tag))
        .route("/cached/", get(routes::cached_home))
        .route("/cached/posts/{slug}", get(routes::cached_post))
        .route("/compute", get(routes::compute))
        .route(
            "/posts/{slug}/comments",
            post(routes::comment)
                .layer(DefaultBodyLimit::max(workload::comment::FORM_LIMIT))
                // A GET is for a page, and there is none here: the 404 page, not a 405.
                .fallback(routes::not_found),
        )
        .fallback(routes::not_found)
        .with_state(state);

    let listener = tokio::net::TcpListener::bind(&config.bind)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", config.bind))?;
    println!("{} listening on http://{}/", name(), listener.local_addr()?);
    axum::serve(listener, app)
        .with_graceful_shutdown(workload::shutdown_signal())
        .await?;
    Ok(())
}
