//! [`LazyRedisCache`]: Rustango's `RedisCache`, connected on first use.
//!
//! `RedisCache::new` connects before it returns, so an app that builds it at start-up cannot
//! start while Redis is down, and actix-web's worker factory (where each worker builds its own
//! cache) cannot `.await` at all. This wrapper builds the `RedisCache` on the first call, on
//! the caller's runtime, and tries again on the next call when that fails; every command then
//! goes straight to the `RedisCache` (one multiplexed connection, no PING).

use async_trait::async_trait;
use bytes::Bytes;
use rustango::cache::redis_backend::{RedisCache, RedisTimeouts};
use rustango::cache::{Cache, CacheError};
use std::time::Duration;
use tokio::sync::OnceCell;

/// Short timeouts, so an outage turns into cache misses, not stalls (as the sqlx apps' cache).
const TIMEOUTS: RedisTimeouts =
    RedisTimeouts::new(Duration::from_millis(250), Duration::from_secs(1));

pub struct LazyRedisCache {
    url: String,
    cache: OnceCell<RedisCache>,
}

impl LazyRedisCache {
    /// A cache for `url` (`redis://…`); nothing is opened until the first command.
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            cache: OnceCell::new(),
        }
    }

    /// The connected cache. No default TTL: `set(.., None)` stores without expiry.
    async fn redis(&self) -> Result<&RedisCache, CacheError> {
        self.cache
            .get_or_try_init(|| RedisCache::with_timeouts(&self.url, None, TIMEOUTS))
            .await
    }
}

#[async_trait]
impl Cache for LazyRedisCache {
    async fn get(&self, key: &str) -> Result<Option<String>, CacheError> {
        self.redis().await?.get(key).await
    }

    async fn set(&self, key: &str, value: &str, ttl: Option<Duration>) -> Result<(), CacheError> {
        self.redis().await?.set(key, value, ttl).await
    }

    async fn set_forever(&self, key: &str, value: &str) -> Result<(), CacheError> {
        self.redis().await?.set_forever(key, value).await
    }

    async fn get_bytes(&self, key: &str) -> Result<Option<Bytes>, CacheError> {
        self.redis().await?.get_bytes(key).await
    }

    async fn set_bytes(
        &self,
        key: &str,
        value: &[u8],
        ttl: Option<Duration>,
    ) -> Result<(), CacheError> {
        self.redis().await?.set_bytes(key, value, ttl).await
    }

    async fn delete(&self, key: &str) -> Result<(), CacheError> {
        self.redis().await?.delete(key).await
    }

    async fn exists(&self, key: &str) -> Result<bool, CacheError> {
        self.redis().await?.exists(key).await
    }

    async fn clear(&self) -> Result<(), CacheError> {
        self.redis().await?.clear().await
    }

    async fn incr(&self, key: &str, by: i64, ttl: Option<Duration>) -> Result<i64, CacheError> {
        self.redis().await?.incr(key, by, ttl).await
    }

    async fn add(&self, key: &str, value: &str, ttl: Option<Duration>) -> Result<bool, CacheError> {
        self.redis().await?.add(key, value, ttl).await
    }

    async fn touch(&self, key: &str, ttl: Option<Duration>) -> Result<bool, CacheError> {
        self.redis().await?.touch(key, ttl).await
    }

    async fn delete_prefix(&self, prefix: &str) -> Result<(), CacheError> {
        self.redis().await?.delete_prefix(prefix).await
    }
}
