//! The Redis page cache (SPEC §3): key `page:<path>`, value the raw HTML.
//!
//! One multiplexed connection (redis's `ConnectionManager`: no ping per command, reconnects
//! by itself), opened on first use so the app starts while Redis is down. Every Redis error
//! is a miss: the page is rendered from the database and still served.

use redis::AsyncCommands;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use std::time::Duration;
use tokio::sync::OnceCell;

pub struct PageCache {
    client: redis::Client,
    connection: OnceCell<ConnectionManager>,
}

impl PageCache {
    pub fn new(url: &str) -> redis::RedisResult<Self> {
        Ok(PageCache {
            client: redis::Client::open(url)?,
            connection: OnceCell::new(),
        })
    }

    async fn connection(&self) -> Option<ConnectionManager> {
        // Short timeouts and one retry: an outage must not stall requests.
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Duration::from_millis(250))
            .set_response_timeout(Duration::from_secs(1))
            .set_number_of_retries(1);
        let connect = ConnectionManager::new_with_config(self.client.clone(), config);
        match self.connection.get_or_try_init(|| connect).await {
            Ok(conn) => Some(conn.clone()),
            Err(err) => {
                eprintln!("axum-sqlx: redis unavailable, serving from the database: {err}");
                None
            }
        }
    }

    pub async fn get(&self, key: &str) -> Option<Vec<u8>> {
        let mut conn = self.connection().await?;
        conn.get(key).await.unwrap_or_else(|err| {
            eprintln!("axum-sqlx: redis GET {key}: {err}");
            None
        })
    }

    pub async fn set(&self, key: &str, page: &str) {
        if let Some(mut conn) = self.connection().await
            && let Err(err) = conn.set::<_, _, ()>(key, page).await
        {
            eprintln!("axum-sqlx: redis SET {key}: {err}");
        }
    }
}
