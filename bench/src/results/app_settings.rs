//! An app's `[settings]` (its `bench.toml`), recorded with every result of the app: what
//! the report and the reliability table print beside its numbers.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    pub pool_max: u32,
    pub pool_min: u32,
    /// When the pool pings a connection it hands out: `always`, `after 1 s idle`, `never`
    /// (older results say `true` or `false`).
    #[serde(deserialize_with = "ping_rule")]
    pub ping_on_acquire: String,
    pub ping_on_release: bool,
    /// How a request gets its database connection(s).
    pub connection: String,
    /// What `WORKERS` sets.
    pub workers: String,
    /// SQL statements per page.
    pub queries: Queries,
    /// How the page cache talks to Redis.
    pub cache: String,
    /// Load the app gets after each start, before anything of it is measured (`"40s"`): for
    /// a runtime that reaches its steady speed only after some (a JIT compiler).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warmup: Option<String>,
}

fn ping_rule<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Rule {
        Text(String),
        Flag(bool),
    }
    Ok(match Rule::deserialize(deserializer)? {
        Rule::Text(text) => text,
        Rule::Flag(true) => "always".to_owned(),
        Rule::Flag(false) => "never".to_owned(),
    })
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Queries {
    pub home: u32,
    pub post: u32,
    pub tag: u32,
    /// Statements per stored comment, `BEGIN` and `COMMIT` included (Go: 4). Absent in
    /// results written before the comment route existed.
    #[serde(default)]
    pub comment: Option<u32>,
}
