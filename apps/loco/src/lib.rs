//! The blog on Loco 1.2 (axum 0.8), SeaORM 2 (PostgreSQL), Tera 2 and Loco's Redis cache: the
//! seven routes of docs/spec.md §3, written as a Loco app (`app.rs`: the `Hooks`; `controllers/`,
//! `models/`, `views.rs`, `initializers/`; `config/production.yaml`).
//!
//! Run it with `make up APP=loco` (services, data, release build), or by hand:
//!
//! ```text
//! cargo run --release -p loco
//! curl 127.0.0.1:8080/
//! curl 127.0.0.1:8080/posts/<slug>
//! curl -d 'author_name=Ann&body=Hello' 127.0.0.1:8080/posts/<slug>/comments
//! curl '127.0.0.1:8080/compute?n=20000'
//! ```
//!
//! `config/production.yaml` reads `DATABASE_URL`, `REDIS_URL`, `POOL_MAX` and `POOL_MIN`;
//! `main.rs` reads `BIND` (as `cargo loco start --binding … --port …` would) and `WORKERS`
//! (Tokio worker threads), `app.rs` `PING_ON_ACQUIRE`. `LOCO_ENV` picks another `config/<env>.yaml`. There is no
//! `cargo loco` CLI: the generator is not a dependency.

pub mod app;
pub mod controllers;
pub mod initializers;
pub mod models;
pub mod views;
