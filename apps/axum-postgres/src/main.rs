//! The blog on axum 0.8, tokio-postgres (deadpool-postgres), Tera and redis: the routes of
//! docs/spec.md §3.
//!
//! Run it with `make up APP=axum-postgres` (services, data, release build), or by hand:
//!
//! ```text
//! cargo run --release -p axum-postgres
//! curl 127.0.0.1:8080/
//! curl 127.0.0.1:8080/posts/<slug>
//! curl '127.0.0.1:8080/compute?n=20000'
//! curl -d author_name=Ann -d body=Hello 127.0.0.1:8080/posts/<slug>/comments
//! ```
//!
//! Settings come from the environment (`workload::Config`): `DATABASE_URL`, `REDIS_URL`,
//! `BIND`, `WORKERS` (Tokio worker threads), `POOL_MAX`, `PING_ON_ACQUIRE` (`POOL_MIN` is
//! read but has no effect: deadpool keeps no minimum of idle connections).

mod db;
mod routes;

use axum::Router;
use axum::body::Bytes;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use mimalloc::MiMalloc;
use page_cache::PageCache;
use std::{process::ExitCode, sync::Arc};
use tera::Tera;
use workload::Config;

#[global_allocator]
static GLOBAL: MiMalloc = MiMalloc;

/// What every handler can reach.
#[derive(Clone)]
pub struct AppState {
    pub pool: deadpool_postgres::Pool,
    pub cache: Arc<PageCache>,
    pub tera: Arc<Tera>,
    /// The 404 page, rendered once; `Bytes` so each 404 shares it instead of copying.
    pub not_found: Bytes,
}

fn main() -> ExitCode {
    workload::run_on_tokio("axum-postgres", serve)
}

async fn serve(config: Config) -> Result<(), Box<dyn std::error::Error>> {
    let tera = templates::tera()?;
    // region: pool
    let state = AppState {
        pool: db::pool(&config)?,
        cache: Arc::new(PageCache::new(
            redis::Client::open(config.redis_url.as_str())?,
            "axum-postgres",
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
    println!(
        "axum-postgres listening on http://{}/",
        listener.local_addr()?
    );
    axum::serve(listener, app)
        .with_graceful_shutdown(workload::shutdown_signal())
        .await?;
    Ok(())
}
