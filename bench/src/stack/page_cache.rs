//! The apps' Redis page cache as the harness sees it: every app uses the same `page:` keys,
//! so they are cleared before each app is checked, or one app would serve another's pages;
//! the batch's Go pacer keeps its own in a database of its own, cleared with them.

use crate::stack::services::{pacer_redis_url, redis_url};
use anyhow::{Context, Result};
use redis::Commands;

pub const KEY_PATTERN: &str = "page:*";

/// Deletes every `page:*` key (and nothing else) of the apps and of the pacer; returns how
/// many there were.
pub fn clear() -> Result<usize> {
    Ok(clear_at(&redis_url())? + clear_at(&pacer_redis_url())?)
}

fn clear_at(url: &str) -> Result<usize> {
    let mut conn = redis::Client::open(url)
        .and_then(|client| client.get_connection())
        .with_context(|| {
            format!("redis: cannot connect to {url}; start it with `make services`")
        })?;
    let keys: Vec<String> = conn.scan_match::<_, String>(KEY_PATTERN)?.collect();
    if !keys.is_empty() {
        conn.del::<_, ()>(&keys)?;
    }
    Ok(keys.len())
}
