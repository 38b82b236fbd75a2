//! The contestants: every app `make up`, parity and the benchmark know by name.

use anyhow::{Result, bail};
use std::path::PathBuf;

pub struct App {
    /// The name users pass (`make up APP=…`, `--app …`).
    pub name: &'static str,
    /// The release binary's file name in `<target>/release/`.
    pub binary: &'static str,
    pub stack: &'static str,
}

pub const GO: &App = &App {
    name: "go",
    binary: "go-reference",
    stack: "Go net/http, pgx v5, go-redis v9, html/template (the HTML oracle)",
};

pub const APPS: &[&App] = &[
    GO,
    &App {
        name: "axum-sqlx",
        binary: "axum-sqlx",
        stack: "axum 0.8, sqlx 0.8, Tera 1.20, redis",
    },
];

pub fn find(name: &str) -> Result<&'static App> {
    match APPS.iter().find(|app| app.name == name) {
        Some(app) => Ok(app),
        None => bail!("unknown app {name:?}; valid names: {}", names().join(", ")),
    }
}

pub fn names() -> Vec<&'static str> {
    APPS.iter().map(|app| app.name).collect()
}

/// The workspace's target folder: `CARGO_TARGET_DIR`, else `<workspace>/target`.
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_dir().join("target"))
}

pub fn workspace_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

impl App {
    pub fn binary_path(&self) -> PathBuf {
        target_dir().join("release").join(self.binary)
    }
}
