//! The blog on actix-web 4 with the Rustango ORM, Rustango's Redis cache and Tera: the
//! seven routes of docs/spec.md §3.
//!
//! Run it with `make up APP=rustango-actix` (services, data, release build), or by hand:
//!
//! ```text
//! make build && target/release/rustango-actix
//! curl 127.0.0.1:8080/
//! curl 127.0.0.1:8080/cached/posts/<slug>
//! curl '127.0.0.1:8080/compute?n=20000'
//! curl -d author_name=Ann -d body=Hello 127.0.0.1:8080/posts/<slug>/comments
//! ```
//!
//! Settings come from the environment (`workload::Config`): `DATABASE_URL`, `REDIS_URL`,
//! `BIND`, `WORKERS` (actix-web workers), `POOL_MAX`, `POOL_MIN`, `PING_ON_ACQUIRE`. Each
//! worker has its own share of the pool and its own Redis connection, as in actix-sqlx (see
//! its README).

mod db;
mod routes;

use actix_web::{App, HttpServer, web};
use mimalloc::MiMalloc;
use rustango::cache::CacheError;
use rustango::sql::Pool;
use rustango_models::LazyRedisCache;
use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tera::Tera;
use workload::comment::FORM_LIMIT;
use workload::{Config, Outage, PingOnAcquire};

#[global_allocator]
static GLOBAL: MiMalloc = MiMalloc;

/// What every handler can reach. actix-web builds the app once per worker, so each worker
/// has its own `AppState`: its own pool shard and Redis connection.
pub struct AppState {
    pub pool: Pool,
    /// Rustango's Redis cache, connected on this worker's first cached request.
    pub cache: LazyRedisCache,
    pub tera: Arc<Tera>,
    /// The 404 page, rendered once.
    pub not_found: web::Bytes,
    /// Logged once per worker.
    redis_outage: Outage,
}

impl AppState {
    /// Logs when Redis starts failing and when it answers again; a Redis error is a miss.
    pub fn note_redis(&self, error: Option<&CacheError>) {
        self.redis_outage.note_redis("rustango-actix", error);
    }
}

#[actix_web::main]
async fn main() -> ExitCode {
    match serve().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("rustango-actix: {err}");
            ExitCode::FAILURE
        }
    }
}

async fn serve() -> Result<(), Box<dyn std::error::Error>> {
    let config = Config::from_env()?;
    // Parsed once here: the worker factory below cannot report errors.
    let db_options: PgConnectOptions = config.database_url.parse()?;
    let redis_url = config.redis_url.clone();
    let tera = Arc::new(templates::tera()?);
    let not_found = web::Bytes::from(templates::not_found_page(&tera)?);
    let (workers, pool_max, pool_min) = (config.workers, config.pool_max, config.pool_min);
    let ping = config.ping_on_acquire;
    let next_worker = Arc::new(AtomicUsize::new(0));

    // actix-web calls this factory on each worker's thread, once per worker and bound
    // address (BIND is one address), and again if it restarts a worker's service. The pool
    // shard and the Redis connection it makes are opened, and driven, by that worker's
    // runtime, so a query never wakes another thread.
    let server = HttpServer::new(move || {
        // region: pool
        let worker = next_worker.fetch_add(1, Ordering::Relaxed) % workers;
        // At least one connection per worker, even when POOL_MAX < WORKERS.
        let max = workload::pool_shard(pool_max, workers, worker).max(1);
        let min = workload::pool_shard(pool_min, workers, worker);
        let state = AppState {
            pool: Pool::from(new_pool(&db_options, max, min, ping)),
            cache: LazyRedisCache::new(redis_url.as_str()),
            tera: Arc::clone(&tera),
            not_found: not_found.clone(),
            redis_outage: Outage::new(),
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
                    .app_data(web::PayloadConfig::new(FORM_LIMIT))
                    .route(web::post().to(routes::add_comment)),
            )
            .default_service(web::to(routes::not_found))
    })
    .workers(workers)
    .bind(&config.bind)
    .map_err(|e| format!("cannot listen on {}: {e}", config.bind))?;

    println!("rustango-actix listening on http://{}/", server.addrs()[0]);
    // actix-web's own signal handling: SIGTERM stops gracefully, Ctrl-C (SIGINT) at once.
    server.run().await?;
    Ok(())
}

// region: pool
/// Our own sqlx pool, handed to Rustango (`Pool::from`): Rustango's pool constructors take
/// one process-wide tuning (no per-worker sizes) and install a `before_acquire` hook that
/// pings connections idle for 30 s or more. Here a checkout pings only as `ping` says (by
/// default a connection idle for more than 1 s, pgxpool's rule); sqlx still pings every
/// connection it takes back (no switch). Lazy, so the app starts (and answers 503) while
/// Postgres is down.
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
