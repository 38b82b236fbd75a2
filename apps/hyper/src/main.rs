//! The blog on bare hyper 1 and hyper-util, sqlx (PostgreSQL), Tera and redis: the routes of
//! docs/spec.md §3, routed by hand as hyper's own examples route.
//!
//! Run it with `make up APP=hyper` (services, data, release build), or by hand:
//!
//! ```text
//! cargo run --release -p hyper-blog
//! curl 127.0.0.1:8080/
//! curl 127.0.0.1:8080/posts/<slug>
//! curl '127.0.0.1:8080/compute?n=20000'
//! curl -d author_name=Ann -d body=Hello 127.0.0.1:8080/posts/<slug>/comments
//! ```
//!
//! Settings come from the environment (`workload::Config`): `DATABASE_URL`, `REDIS_URL`,
//! `BIND`, `WORKERS` (Tokio worker threads), `POOL_MAX`, `POOL_MIN`, `PING_ON_ACQUIRE`.

mod db;
mod routes;
mod server;

use hyper::body::{Bytes, Incoming};
use hyper::{Method, Request};
use mimalloc::MiMalloc;
use page_cache::PageCache;
use routes::{AppError, Response};
use std::{convert::Infallible, process::ExitCode, sync::Arc};
use tera::Tera;
use workload::Config;

#[global_allocator]
static GLOBAL: MiMalloc = MiMalloc;

/// What every handler can reach; one `Arc` of it per request.
pub struct AppState {
    pub pool: sqlx::PgPool,
    pub cache: PageCache,
    pub tera: Tera,
    /// The 404 page, rendered once; `Bytes` so each 404 shares it instead of copying.
    pub not_found: Bytes,
}

fn main() -> ExitCode {
    workload::run_on_tokio("hyper", serve)
}

async fn serve(config: Config) -> Result<(), Box<dyn std::error::Error>> {
    let tera = templates::tera()?;
    // region: pool
    let state = Arc::new(AppState {
        pool: db::pool(&config)?,
        cache: PageCache::new(redis::Client::open(config.redis_url.as_str())?, "hyper"),
        not_found: templates::not_found_page(&tera)?.into(),
        tera,
    });
    // endregion

    let listener = tokio::net::TcpListener::bind(&config.bind)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", config.bind))?;
    println!("hyper listening on http://{}/", listener.local_addr()?);
    let handler = move |request| route(Arc::clone(&state), request);
    server::serve(listener, handler, workload::shutdown_signal()).await;
    Ok(())
}

/// The routes, matched on the method and the path's segments (`{slug}` is one segment, still
/// percent-encoded: the handler decodes it). Every error is answered by `AppError`'s mapping.
async fn route(state: Arc<AppState>, request: Request<Incoming>) -> Result<Response, Infallible> {
    let (parts, body) = request.into_parts();
    // A HEAD is a GET whose body hyper leaves out (`can_have_body` in hyper 1.12
    // src/proto/h1/role.rs), as Go's mux and axum's `get` answer it.
    let method = if parts.method == Method::HEAD {
        &Method::GET
    } else {
        &parts.method
    };
    let segments: Vec<&str> = parts.uri.path().split('/').skip(1).collect();
    let answer = match (method, segments.as_slice()) {
        (&Method::GET, [""]) => routes::home(&state).await,
        (&Method::GET, ["posts", slug]) => routes::post(&state, slug).await,
        (&Method::GET, ["tags", slug]) => routes::tag(&state, slug).await,
        (&Method::GET, ["cached", ""]) => routes::cached_home(&state).await,
        (&Method::GET, ["cached", "posts", slug]) => routes::cached_post(&state, slug).await,
        (&Method::GET, ["compute"]) => Ok(routes::compute(parts.uri.query())),
        (&Method::POST, ["posts", slug, "comments"]) => {
            routes::comment(&state, slug, &parts.headers, body).await
        }
        // Any other path, and another method on a route's path (a GET of the comment route
        // included): the 404 page, as Go answers (docs/spec.md §3.7).
        _ => Ok(routes::not_found(&state)),
    };
    // region: errors
    Ok(answer.unwrap_or_else(AppError::into_response))
    // endregion
}
