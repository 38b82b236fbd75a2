//! The blog on warp 0.4, sqlx (PostgreSQL), Tera and redis: the routes of docs/spec.md §3,
//! composed from warp's filters as warp's own examples compose them.
//!
//! Run it with `make up APP=warp` (services, data, release build), or by hand:
//!
//! ```text
//! cargo run --release -p warp-blog
//! curl 127.0.0.1:8080/
//! curl 127.0.0.1:8080/posts/<slug>
//! curl '127.0.0.1:8080/compute?n=20000'
//! curl -d author_name=Ann -d body=Hello 127.0.0.1:8080/posts/<slug>/comments
//! ```
//!
//! Settings come from the environment (`workload::Config`): `DATABASE_URL`, `REDIS_URL`,
//! `BIND`, `WORKERS` (Tokio worker threads), `POOL_MAX`, `POOL_MIN`, `PING_ON_ACQUIRE`.

mod db;
mod errors;
mod routes;
mod server;

use hyper::body::Bytes;
use hyper_util::service::TowerToHyperService;
use mimalloc::MiMalloc;
use page_cache::PageCache;
use routes::Slug;
use std::{convert::Infallible, process::ExitCode, sync::Arc};
use tera::Tera;
use warp::Filter;
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
    workload::run_on_tokio("warp", serve)
}

async fn serve(config: Config) -> Result<(), Box<dyn std::error::Error>> {
    let tera = templates::tera()?;
    // region: pool
    let state = Arc::new(AppState {
        pool: db::pool(&config)?,
        cache: PageCache::new(redis::Client::open(config.redis_url.as_str())?, "warp"),
        not_found: templates::not_found_page(&tera)?.into(),
        tera,
    });
    // endregion

    // The routes: path first, then method, then what the handler needs, as warp's guide
    // orders filters; `{slug}` is `Slug`, which only a slug parses into. Every rejection
    // (unknown path, unknown slug, failure, refused comment) is answered by `errors::recover`.
    let app = with_state(Arc::clone(&state));
    let conn = db::connection(state.pool.clone());
    let home = warp::path::end()
        .and(warp::get())
        .and(app.clone())
        .and(conn.clone())
        .and_then(routes::home);
    // region: detail-page
    let post = warp::path!("posts" / Slug)
        .and(warp::get())
        .and(app.clone())
        .and(conn.clone())
        .and_then(routes::post);
    // endregion
    let tag = warp::path!("tags" / Slug)
        .and(warp::get())
        .and(app.clone())
        .and(conn)
        .and_then(routes::tag);
    // `/cached/`: warp's path filters let one trailing slash end a path.
    let cached_home = warp::path!("cached")
        .and(warp::get())
        .and(app.clone())
        .and_then(routes::cached_home);
    // region: cache
    let cached_post = warp::path!("cached" / "posts" / Slug)
        .and(warp::get())
        .and(app.clone())
        .and_then(routes::cached_post);
    // endregion
    let compute = warp::path!("compute")
        .and(warp::get())
        .and(routes::raw_query())
        .map(routes::compute);
    // region: comment
    let comment = warp::path!("posts" / Slug / "comments")
        .and(warp::post())
        .and(routes::comment_form())
        .and(app)
        .and_then(routes::comment);
    // endregion
    let routes = home
        .or(post)
        .or(tag)
        .or(cached_home)
        .or(cached_post)
        .or(compute)
        .or(comment)
        .recover(move |rejection| errors::recover(Arc::clone(&state), rejection));

    let listener = tokio::net::TcpListener::bind(&config.bind)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", config.bind))?;
    println!("warp listening on http://{}/", listener.local_addr()?);
    // The filter as a tower service, and that as a hyper one, as warp's own server runs it.
    let service = TowerToHyperService::new(warp::service(routes));
    server::serve(listener, service, workload::shutdown_signal()).await;
    Ok(())
}

/// The shared state, handed to every handler that asks for it.
fn with_state(
    state: Arc<AppState>,
) -> impl Filter<Extract = (Arc<AppState>,), Error = Infallible> + Clone {
    warp::any().map(move || Arc::clone(&state))
}
