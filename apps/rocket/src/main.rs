//! The blog on Rocket 0.5, rocket_db_pools (sqlx, PostgreSQL), rocket_dyn_templates (Tera)
//! and redis: the seven routes of docs/spec.md §3.
//!
//! Run it with `make up APP=rocket` (services, data, release build), or by hand:
//!
//! ```text
//! cargo build --release --workspace --lib --bins --tests --examples && target/release/rocket-blog
//! curl 127.0.0.1:8080/
//! curl 127.0.0.1:8080/posts/<slug>
//! curl '127.0.0.1:8080/compute?n=20000'
//! curl -d 'author_name=Ann&body=Hi' 127.0.0.1:8080/posts/<slug>/comments
//! ```
//!
//! Settings come from the environment every app reads (`workload::Config`): `DATABASE_URL`,
//! `REDIS_URL`, `BIND`, `WORKERS` (Rocket's workers), `POOL_MAX`, `POOL_MIN`,
//! `PING_ON_ACQUIRE`. Rocket's own sources (`Rocket.toml`, `ROCKET_*` variables) are not read.

#[macro_use]
extern crate rocket;

mod db;
mod routes;
mod rows;

use db::Db;
use mimalloc::MiMalloc;
use page_cache::PageCache;
use rocket::config::LogLevel;
use rocket::data::{Limits, ToByteUnit};
use rocket::figment::Figment;
use rocket::{Build, Rocket};
use rocket_db_pools::Database;
use rocket_dyn_templates::Template;
use std::error::Error;
use std::net::ToSocketAddrs;
use std::process::ExitCode;
use workload::Config;
use workload::comment::FORM_LIMIT;

#[global_allocator]
static GLOBAL: MiMalloc = MiMalloc;

/// Where the shared templates live. Rocket discovers only `*.tera` files in its template
/// folder and finds none here (the shared files are plain `.html`, named as Tera knows
/// them): they reach it through the customisation hook below. Relative, so Rocket resolves it
/// from the working directory, the app's folder when blogbench runs it: a path compiled in
/// would name whichever checkout built the binary.
const TEMPLATE_DIR: &str = "../../templates/tera";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("rocket: {err}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn Error>> {
    let config = Config::from_env()?;
    // Our own runtime: `#[launch]` would size it from `ROCKET_WORKERS`, read before any code
    // of ours runs.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(config.workers)
        .enable_all()
        .build()?;
    runtime.block_on(rocket(config)?.launch())?;
    Ok(())
}

/// Rocket's settings from `config`, the database, the templates, the page cache, the seven
/// routes and the four catchers.
fn rocket(config: Config) -> Result<Rocket<Build>, Box<dyn Error>> {
    let bind = config
        .bind
        .to_socket_addrs()
        .map_err(|e| format!("BIND {}: {e}", config.bind))?
        .next()
        .ok_or_else(|| format!("BIND {}: no address", config.bind))?;
    // region: pool
    let figment = Figment::from(rocket::Config::default())
        .merge((rocket::Config::ADDRESS, bind.ip()))
        .merge((rocket::Config::PORT, bind.port()))
        .merge((rocket::Config::WORKERS, config.workers))
        // Errors and warnings only: nothing per request.
        .merge((rocket::Config::LOG_LEVEL, LogLevel::Critical))
        .merge((rocket::Config::CLI_COLORS, false))
        // The comment form's limit (docs/spec.md §3.9), which `CommentForm` reads.
        .merge((
            rocket::Config::LIMITS,
            Limits::default().limit("form", FORM_LIMIT.bytes()),
        ))
        .merge(("template_dir", TEMPLATE_DIR))
        .merge((
            "databases.blog",
            rocket_db_pools::Config {
                url: config.database_url,
                min_connections: Some(config.pool_min),
                max_connections: config.pool_max as usize,
                // Seconds; used as the acquire timeout, as in axum-sqlx.
                connect_timeout: 3,
                idle_timeout: None,
                extensions: None,
            },
        ));
    // endregion

    Ok(rocket::custom(figment)
        .attach(Db::init())
        .attach(Template::try_custom(|engines| {
            // The shared templates with Go's escaper (templates::tera), replacing the empty
            // Tera instance Rocket built from its folder.
            engines.tera = templates::tera()?;
            Ok(())
        }))
        .manage(PageCache::new(
            redis::Client::open(config.redis_url.as_str())?,
            "rocket",
        ))
        .mount(
            "/",
            routes![
                routes::home,
                routes::post,
                routes::tag,
                routes::cached_home,
                routes::cached_post,
                routes::compute,
                routes::comment,
            ],
        )
        .register(
            "/",
            catchers![
                routes::not_found,
                routes::not_a_slug,
                routes::database_unavailable,
                routes::internal_error
            ],
        ))
}
