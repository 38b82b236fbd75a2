//! The apps' Redis page cache as the harness sees it: every app uses the same `page:` keys,
//! so they are cleared before each app is checked, or one app would serve another's pages.

use crate::stack::services::redis_url;
use anyhow::{Context, Result};
use redis::Commands;

pub const KEY_PATTERN: &str = "page:*";

/// Deletes every `page:*` key (and nothing else); returns how many there were.
pub fn clear() -> Result<usize> {
    let url = redis_url();
    let mut conn = redis::Client::open(url.as_str())
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
