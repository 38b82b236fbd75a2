//! The Loco application: its `Hooks` — configuration, boot (database, cache), routes,
//! middleware (none) and initializers (the view engine).

use crate::controllers;
use crate::initializers::view_engine::ViewEngineInitializer;
use axum::Router as AxumRouter;
use bb8_redis::{RedisConnectionManager, bb8};
use loco_rs::app::{AppContext, Hooks, Initializer};
use loco_rs::bgworker::Queue;
use loco_rs::boot::{self, BootResult, StartMode};
use loco_rs::cache::{self, Cache};
use loco_rs::config::{self, CacheConfig, Config};
use loco_rs::controller::AppRoutes;
use loco_rs::controller::middleware::MiddlewareLayer;
use loco_rs::environment::Environment;
use loco_rs::prelude::{async_trait, get};
use loco_rs::task::Tasks;
use loco_rs::{Error, Result};
use sea_orm::sqlx::Connection;
use sea_orm::{ConnectOptions, Database, DatabaseConnection};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// Loco's own default: `config/` in the working directory, the app's folder when blogbench
/// runs it; `LOCO_CONFIG_FOLDER` overrides it, as in any Loco app. Not a path compiled in:
/// cargo reuses a build made in another checkout sharing the target folder.
const CONFIG_DIR: &str = "config";

/// How long a request waits for a Redis connection from the cache's pool before treating
/// the cache as unavailable (a miss). bb8's default is 30 s, which would stall every cached
/// request during a Redis outage; Loco's cache config has no setting for it.
const CACHE_CHECKOUT_TIMEOUT: Duration = Duration::from_millis(500);

pub struct App;

#[async_trait]
impl Hooks for App {
    fn app_name() -> &'static str {
        env!("CARGO_CRATE_NAME")
    }

    fn app_version() -> String {
        env!("CARGO_PKG_VERSION").to_string()
    }

    async fn load_config(environment: &Environment) -> Result<Config> {
        match std::env::var_os("LOCO_CONFIG_FOLDER") {
            Some(dir) => environment.load_from_folder(Path::new(&dir)),
            None => environment.load_from_folder(Path::new(CONFIG_DIR)),
        }
    }

    // region: pool
    /// Loco's `create_app` would connect eagerly (failing while PostgreSQL is down), keep
    /// sqlx's ping on every checkout, and wait 30 s for a Redis connection; the context is
    /// built here instead, from the same `database` and `cache` settings.
    async fn boot(
        mode: StartMode,
        environment: &Environment,
        config: Config,
    ) -> Result<BootResult> {
        let db = connect_database(&config.database).await?;
        let cache = redis_cache(&config.cache)?;
        let ctx = AppContext::builder(environment.clone(), db, config)
            .cache(cache)
            .build();
        boot::run_app::<Self>(&mode, ctx).await
    }
    // endregion

    /// `/cached/` (a trailing slash Loco's `Routes` would strip) and the 404 fallback.
    async fn before_routes(_ctx: &AppContext) -> Result<AxumRouter<AppContext>> {
        Ok(AxumRouter::new()
            .route("/cached/", get(controllers::cached::home))
            .fallback(controllers::not_found))
    }

    fn routes(_ctx: &AppContext) -> AppRoutes {
        AppRoutes::empty()
            .add_route(controllers::pages::routes())
            .add_route(controllers::cached::routes())
            .add_route(controllers::comments::routes())
            .add_route(controllers::compute::routes())
    }

    /// None of Loco's default stack (request id, logger, etag, powered-by, fallback page,
    /// timeouts, payload limit, catch-panic…): docs/spec.md §3 allows only Go's headers and
    /// bodies.
    fn middlewares(_ctx: &AppContext) -> Vec<Box<dyn MiddlewareLayer>> {
        vec![]
    }

    async fn initializers(_ctx: &AppContext) -> Result<Vec<Box<dyn Initializer>>> {
        Ok(vec![Box::new(ViewEngineInitializer)])
    }

    async fn connect_workers(_ctx: &AppContext, _queue: &Queue) -> Result<()> {
        Ok(())
    }

    fn register_tasks(_tasks: &mut Tasks) {}

    async fn truncate(_ctx: &AppContext) -> Result<()> {
        Ok(())
    }

    async fn seed(_ctx: &AppContext, _base: &Path) -> Result<()> {
        Ok(())
    }
}

// region: pool
/// SeaORM's connection (a sqlx pool) from `config.database`, as Loco's `db::connect` builds
/// it, plus two settings Loco does not expose: a checkout ping only as `PING_ON_ACQUIRE`
/// says (by default a connection idle for more than 1 s, pgxpool's rule), through SeaORM's
/// `before_acquire` hook, and a lazy pool, so the app starts, and answers 503, while
/// PostgreSQL is down.
async fn connect_database(config: &config::Database) -> Result<DatabaseConnection> {
    // Loco's database config has no such setting; `main` has already checked the variable.
    let ping = workload::Config::from_env()
        .map_err(|err| Error::Message(err.to_string()))?
        .ping_on_acquire;
    let mut options = ConnectOptions::new(&config.uri);
    options
        .max_connections(config.max_connections)
        .min_connections(config.min_connections)
        .connect_timeout(Duration::from_millis(config.connect_timeout))
        .idle_timeout(Duration::from_millis(config.idle_timeout))
        .sqlx_logging(config.enable_logging)
        .test_before_acquire(false)
        .map_sqlx_postgres_before_acquire(move |conn, meta| {
            Box::pin(async move {
                // `Ok(false)` for a failed ping: the pool closes this connection and opens a
                // fresh one, so a connection left dead by a PostgreSQL restart fails no request.
                Ok(!ping.should_ping(meta.idle_for) || conn.ping().await.is_ok())
            })
        })
        .connect_lazy(true);
    if let Some(timeout) = config.acquire_timeout {
        options.acquire_timeout(Duration::from_millis(timeout));
    }
    Ok(Database::connect(options).await?)
}
// endregion

// region: cache
/// Loco's Redis cache (`cache::drivers::redis`) over a bb8 pool built as its `new` builds
/// it, but without waiting for Redis at start-up and with a short checkout timeout. bb8
/// keeps its default PING on every checkout: the driver cannot drop a dead connection any
/// other way (bb8-redis's `has_broken` is always false and a multiplexed connection does
/// not reconnect), so without it caching would never resume after a Redis restart.
fn redis_cache(config: &CacheConfig) -> Result<Arc<Cache>> {
    let CacheConfig::Redis(redis) = config else {
        return Err(Error::string(
            "config: the page cache needs `cache: kind: Redis`",
        ));
    };
    let manager = RedisConnectionManager::new(redis.uri.as_str())
        .map_err(|err| Error::Message(format!("cache.uri: {err}")))?;
    let pool = bb8::Pool::builder()
        .max_size(redis.max_size)
        .connection_timeout(CACHE_CHECKOUT_TIMEOUT)
        .test_on_check_out(true)
        .build_unchecked(manager);
    Ok(Arc::new(Cache::new(cache::drivers::redis::Redis::from(
        pool,
    ))))
}
// endregion
