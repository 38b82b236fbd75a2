//! The Redis page cache (docs/spec.md §3.5) the sqlx apps share: key `page:<path>`, value the raw
//! HTML. Not framework idiom, so it lives once: each app decides where a `PageCache` lives
//! (one per process, or one per actix worker) and when to use it.
//!
//! One multiplexed connection (redis's `ConnectionManager`: no PING per command, reconnects
//! by itself), opened on first use so an app starts while Redis is down. Every Redis error
//! is a miss: the caller renders the page from the database and still serves it. The type
//! is `Sync` (a Tokio `OnceCell`, an atomic flag), so one cache can serve many threads.

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{AsyncCommands, RedisError};
use std::time::Duration;
use tokio::sync::OnceCell;
use workload::Outage;

/// The key of the cached home page.
pub const HOME_KEY: &str = "page:/";

/// The key of a cached post page.
pub fn post_key(slug: &str) -> String {
    format!("page:/posts/{slug}")
}

/// The keys a new comment on post `slug` makes stale: its page (the comments) and the home
/// page (the counts). docs/spec.md §3.9.
pub fn keys_a_comment_changes(slug: &str) -> [String; 2] {
    [post_key(slug), HOME_KEY.to_owned()]
}

pub struct PageCache {
    client: redis::Client,
    connection: OnceCell<ConnectionManager>,
    redis_outage: Outage,
    /// The app's name, for its log lines.
    app: &'static str,
}

impl PageCache {
    /// Takes a client, not a URL, so a caller that cannot report errors (an actix worker
    /// factory) can still make one.
    pub fn new(client: redis::Client, app: &'static str) -> Self {
        PageCache {
            client,
            connection: OnceCell::new(),
            redis_outage: Outage::new(),
            app,
        }
    }

    async fn connection(&self) -> Result<ConnectionManager, RedisError> {
        // Short timeouts and no retry: an outage must not stall requests. Every request waits
        // for the reconnection in progress, and redis-rs passes its `factor` to backon as the
        // growth rate, so even one retry sleeps backon's minimum delay, 1 s plus jitter
        // (redis 0.32 aio/connection_manager.rs). The next request tries again.
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Duration::from_millis(250))
            .set_response_timeout(Duration::from_secs(1))
            .set_number_of_retries(0);
        let connect = ConnectionManager::new_with_config(self.client.clone(), config);
        self.connection.get_or_try_init(|| connect).await.cloned()
    }

    /// The page stored under `key`; `None` on a miss or any Redis error.
    pub async fn get(&self, key: &str) -> Option<Vec<u8>> {
        let result = match self.connection().await {
            Ok(mut conn) => conn.get(key).await,
            Err(err) => Err(err),
        };
        self.note(result.as_ref().err());
        result.ok().flatten()
    }

    /// Stores `page` under `key`, with no expiry (the data never changes; the harness
    /// clears the keys). A Redis error is logged, not returned.
    pub async fn set(&self, key: &str, page: &str) {
        let result = match self.connection().await {
            Ok(mut conn) => conn.set::<_, _, ()>(key, page).await,
            Err(err) => Err(err),
        };
        self.note(result.as_ref().err());
    }

    /// Deletes `keys` with one `DEL`, after a write. Best-effort: a Redis error is logged,
    /// not returned, since the write is already committed (docs/spec.md §3.9).
    pub async fn invalidate(&self, keys: &[String]) {
        let result = match self.connection().await {
            Ok(mut conn) => conn.del::<_, ()>(keys).await,
            Err(err) => Err(err),
        };
        self.note(result.as_ref().err());
    }

    fn note(&self, error: Option<&RedisError>) {
        self.redis_outage.note_redis(self.app, error);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn keys_follow_the_spec() {
        assert_eq!(super::HOME_KEY, "page:/");
        assert_eq!(super::post_key("a-1"), "page:/posts/a-1");
        assert_eq!(
            super::keys_a_comment_changes("a-1"),
            ["page:/posts/a-1", "page:/"]
        );
    }

    /// Redis refusing connections: every look is a miss at once, never a wait for a
    /// reconnection's retries (the first retry alone would sleep at least 1 s).
    #[tokio::test]
    async fn a_refused_connection_is_a_miss_without_a_wait() {
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("redis://{}/0", closed.local_addr().unwrap());
        drop(closed);
        let cache = super::PageCache::new(redis::Client::open(url).unwrap(), "test");
        for look in 0..3 {
            let started = std::time::Instant::now();
            assert_eq!(cache.get(super::HOME_KEY).await, None);
            let waited = started.elapsed();
            assert!(
                waited < std::time::Duration::from_millis(500),
                "look {look} waited {waited:?}"
            );
        }
    }
}
