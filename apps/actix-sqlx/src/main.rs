//! The blog on actix-web 4, sqlx (PostgreSQL), Tera and redis: the routes of docs/spec.md §3.
//!
//! Run it with `make up APP=actix-sqlx` (services, data, release build), or by hand:
//!
//! ```text
//! make build && target/release/actix-sqlx
//! curl 127.0.0.1:8080/
//! curl 127.0.0.1:8080/posts/<slug>
//! curl '127.0.0.1:8080/compute?n=20000'
//! curl -d author_name=Ann -d body=Hello 127.0.0.1:8080/posts/<slug>/comments
//! ```
//!
//! Settings come from the environment (`workload::Config`): `DATABASE_URL`, `REDIS_URL`,
//! `BIND`, `WORKERS` (actix-web workers), `POOL_MAX`, `POOL_MIN`, `PING_ON_ACQUIRE`; plus
//! this app's own `POOL_MODE`: `per-worker` (the default) gives each worker its own share of
//! the pool and its own Redis connection, `shared` one pool and one Redis connection for all
//! workers.

mod db;
mod routes;

use actix_web::{App, HttpServer, web};
use mimalloc::MiMalloc;
use page_cache::PageCache;
use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use std::{env, fmt};
use tera::Tera;
use workload::{Config, PingOnAcquire};

#[global_allocator]
static GLOBAL: MiMalloc = MiMalloc;

/// What every handler can reach. actix-web builds the app once per worker, so each worker
/// has its own `AppState`; in `shared` mode they all hold the same pool and cache.
pub struct AppState {
    pub pool: PgPool,
    pub cache: Arc<PageCache>,
    pub tera: Arc<Tera>,
    /// The 404 page, rendered once.
    pub not_found: web::Bytes,
}

/// `POOL_MODE`: where the database pool and the Redis connection live.
#[derive(Clone, Copy)]
enum PoolMode {
    /// Each worker opens its own pool shard and Redis connection, so their sockets belong to
    /// the worker's own single-threaded runtime and a query never wakes another thread.
    PerWorker,
    /// One pool and one Redis connection for all workers: a query's I/O is driven by
    /// whichever runtime opened the socket (finding 6 of the reference report).
    Shared,
}

impl PoolMode {
    fn from_env() -> Result<Self, String> {
        let Some(value) = env::var_os("POOL_MODE") else {
            return Ok(PoolMode::PerWorker);
        };
        match value.to_str() {
            Some("per-worker") => Ok(PoolMode::PerWorker),
            Some("shared") => Ok(PoolMode::Shared),
            _ => Err(format!(
                "POOL_MODE must be \"per-worker\" or \"shared\", got {value:?}"
            )),
        }
    }
}

impl fmt::Display for PoolMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PoolMode::PerWorker => "per-worker",
            PoolMode::Shared => "shared",
        })
    }
}

#[actix_web::main]
async fn main() -> ExitCode {
    match serve().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("actix-sqlx: {err}");
            ExitCode::FAILURE
        }
    }
}

async fn serve() -> Result<(), Box<dyn std::error::Error>> {
    let config = Config::from_env()?;
    let mode = PoolMode::from_env()?;
    // Parsed once here: the worker factory below cannot report errors.
    let db_options: PgConnectOptions = config.database_url.parse()?;
    let redis = redis::Client::open(config.redis_url.as_str())?;
    let tera = Arc::new(templates::tera()?);
    let not_found = web::Bytes::from(templates::not_found_page(&tera)?);

    let (workers, pool_max, pool_min) = (config.workers, config.pool_max, config.pool_min);
    let ping = config.ping_on_acquire;
    let shared = match mode {
        PoolMode::Shared => Some((
            new_pool(&db_options, pool_max, pool_min, ping),
            Arc::new(PageCache::new(redis.clone(), "actix-sqlx")),
        )),
        PoolMode::PerWorker => None,
    };
    let next_worker = Arc::new(AtomicUsize::new(0));

    // actix-web calls this factory on each worker's thread, once per worker and bound
    // address (BIND is one address), and again if it restarts a worker's service.
    let server = HttpServer::new(move || {
        // region: pool
        let (pool, cache) = match &shared {
            Some((pool, cache)) => (pool.clone(), Arc::clone(cache)),
            // This worker's own pool shard and Redis connection: their sockets are opened,
            // and driven, by this worker's runtime.
            None => {
                let worker = next_worker.fetch_add(1, Ordering::Relaxed) % workers;
                // At least one connection per worker, even when POOL_MAX < WORKERS.
                let max = workload::pool_shard(pool_max, workers, worker).max(1);
                let min = workload::pool_shard(pool_min, workers, worker);
                let pool = new_pool(&db_options, max, min, ping);
                (pool, Arc::new(PageCache::new(redis.clone(), "actix-sqlx")))
            }
        };
        let state = AppState {
            pool,
            cache,
            tera: Arc::clone(&tera),
            not_found: not_found.clone(),
        };
        // endregion
        App::new()
            .app_data(web::Data::new(state))
            .route("/", web::get().to(routes::home))
            .route("/posts/{slug}", web::get().to(routes::post))
            .route("/tags/{slug}", web::get().to(routes::tag))
            .route("/cached/", web::get().to(routes::cached_home))
            .route("/cached/posts/{slug}", web::get().to(routes::cached_post))
            .route("/compute", web::get().to(routes::compute))
            .service(
                web::resource("/posts/{slug}/comments")
                    .app_data(web::PayloadConfig::new(workload::comment::FORM_LIMIT))
                    .post(routes::comment)
                    // A GET is for a page, and there is none here: the 404 page, not a 405.
                    .default_service(web::to(routes::not_found)),
            )
            .default_service(web::to(routes::not_found))
    })
    .workers(workers)
    .bind(&config.bind)
    .map_err(|e| format!("cannot listen on {}: {e}", config.bind))?;

    println!(
        "actix-sqlx listening on http://{}/ (POOL_MODE={mode})",
        server.addrs()[0]
    );
    // actix-web's own signal handling: SIGTERM stops gracefully, Ctrl-C (SIGINT) at once.
    server.run().await?;
    Ok(())
}

// region: pool
/// A checkout pings only as `ping` says (by default a connection idle for more than 1 s,
/// pgxpool's rule); sqlx still pings every connection it takes back (no switch). Lazy, so
/// the app starts (and answers 503) while Postgres is down.
fn new_pool(options: &PgConnectOptions, max: u32, min: u32, ping: PingOnAcquire) -> PgPool {
    PgPoolOptions::new()
        .max_connections(max)
        .min_connections(min)
        .test_before_acquire(false)
        .before_acquire(move |conn, meta| {
            Box::pin(async move {
                // `Ok(false)` for a failed ping: the pool closes this connection and opens a
                // fresh one, so a connection left dead by a PostgreSQL restart fails no request.
                Ok(!ping.should_ping(meta.idle_for) || conn.ping().await.is_ok())
            })
        })
        .acquire_timeout(Duration::from_secs(3))
        .connect_lazy_with(options.clone())
}
// endregion
