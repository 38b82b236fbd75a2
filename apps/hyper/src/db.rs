//! The PostgreSQL pool. A handler checks out one connection and holds it for the whole request,
//! so a page costs its queries plus the one ping sqlx sends when the connection goes back to
//! the pool; the page queries themselves are `shared_sql::pages`.

use sqlx::Connection;
use sqlx::postgres::{PgPool, PgPoolOptions};
use std::time::Duration;
use workload::Config;

// region: pool
/// A checkout pings only as PING_ON_ACQUIRE says (by default a connection idle for more than
/// 1 s, pgxpool's rule); sqlx still pings every connection it takes back (no switch). Lazy,
/// so the app starts (and answers 503) while Postgres is down.
pub fn pool(config: &Config) -> Result<PgPool, sqlx::Error> {
    let ping = config.ping_on_acquire;
    PgPoolOptions::new()
        .max_connections(config.pool_max)
        .min_connections(config.pool_min)
        .test_before_acquire(false)
        .before_acquire(move |conn, meta| {
            Box::pin(async move {
                // `Ok(false)` for a failed ping: the pool closes this connection and opens a
                // fresh one, so a connection left dead by a PostgreSQL restart fails no request.
                Ok(!ping.should_ping(meta.idle_for) || conn.ping().await.is_ok())
            })
        })
        .acquire_timeout(Duration::from_secs(3))
        .connect_lazy(&config.database_url)
}
// endregion
