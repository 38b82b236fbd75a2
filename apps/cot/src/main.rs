//! The blog on Cot 0.7: its ORM (PostgreSQL), askama templates (`cot::Template`) and its
//! Redis cache: the seven routes of docs/spec.md §3.
//!
//! Run it with `make up APP=cot` (services, data, release build), or by hand:
//!
//! ```text
//! cargo run --release -p cot-blog
//! curl 127.0.0.1:8080/
//! curl 127.0.0.1:8080/posts/<slug>
//! curl '127.0.0.1:8080/compute?n=20000'
//! curl -d 'author_name=Ann&body=Hello' 127.0.0.1:8080/posts/<slug>/comments
//! ```
//!
//! Settings come from the environment (`workload::Config`): `DATABASE_URL`, `REDIS_URL`,
//! `BIND`, `WORKERS` (Tokio worker threads). Cot's own CLI (`-c config/NAME.toml`,
//! `-l ADDR`) reads neither, so `main` builds the runtime and boots the project itself;
//! `Project::config` turns the environment into Cot's `ProjectConfig`.
//! `POOL_MAX`/`POOL_MIN` size only the Redis pool and `PING_ON_ACQUIRE` has no effect: Cot's
//! database pool has no settings (it pings every checkout).

mod db;
mod error;
mod routes;

use cot::config::{
    CacheConfig, CacheStoreConfig, CacheStoreTypeConfig, CacheUrl, ProjectConfig, Timeout,
};
use cot::error::handler::DynErrorPageHandler;
use cot::project::{AppBuilder, RegisterAppsContext};
use cot::router::method;
use cot::router::{Route, Router};
use cot::{App, Bootstrapper, Project};
use mimalloc::MiMalloc;
use std::process::ExitCode;
use workload::Config;

#[global_allocator]
static GLOBAL: MiMalloc = MiMalloc;

/// The app: its routes.
struct Blog;

impl App for Blog {
    fn name(&self) -> &str {
        env!("CARGO_PKG_NAME")
    }

    fn router(&self) -> Router {
        Router::with_urls([
            Route::with_handler("/", routes::home),
            Route::with_handler("/posts/{slug}", routes::post),
            Route::with_handler("/tags/{slug}", routes::tag),
            Route::with_handler("/cached/", routes::cached_home),
            Route::with_handler("/cached/posts/{slug}", routes::cached_post),
            Route::with_handler("/compute", routes::compute),
            Route::with_handler("/posts/{slug}/comments", method::post(routes::comment)),
        ])
    }
}

/// The project: configuration, apps, error pages.
struct BlogProject {
    config: Config,
}

impl Project for BlogProject {
    // region: cache
    /// No `database.url`: Cot would connect while booting (see `db::Db`). The cache is Cot's
    /// Redis store with no key prefix and no expiry, so pages land at `page:<path>` as in
    /// every app (Cot still stores them JSON-encoded).
    fn config(&self, _config_name: &str) -> cot::Result<ProjectConfig> {
        let redis = CacheStoreTypeConfig::Redis {
            url: CacheUrl::from(self.config.redis_url.as_str()),
            pool_size: self.config.pool_max as usize,
        };
        let cache = CacheConfig::builder()
            .store(CacheStoreConfig::builder().store_type(redis).build())
            .timeout(Timeout::Never)
            .build();
        Ok(ProjectConfig::builder().debug(false).cache(cache).build())
    }
    // endregion

    fn register_apps(&self, apps: &mut AppBuilder, _context: &RegisterAppsContext) {
        apps.register_with_views(Blog, "");
    }

    // region: errors
    fn error_handler(&self) -> DynErrorPageHandler {
        DynErrorPageHandler::new(error::error_page)
    }
    // endregion
}

fn main() -> ExitCode {
    workload::run_on_tokio("cot", |config| {
        db::configure(&config.database_url);
        serve(config)
    })
}

async fn serve(config: Config) -> cot::Result<()> {
    let bind = config.bind.clone();
    let project = Bootstrapper::new(BlogProject { config })
        .with_config_name("environment")?
        .boot()
        .await?;
    cot::run(project, &bind).await
}
