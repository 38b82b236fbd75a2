//! The PostgreSQL pool, and the filter that checks one connection out of it per request; the
//! page queries themselves are `shared_sql::pages`.

use crate::errors::AppError;
use sqlx::pool::PoolConnection;
use sqlx::postgres::{PgPool, PgPoolOptions};
use sqlx::{Connection, Postgres};
use std::time::Duration;
use warp::{Filter, Rejection};
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

// region: detail-page
/// A connection held for the whole request (what axum-sqlx's `DbConn` extractor is), so a page
/// costs its queries plus the one ping sqlx sends when the connection goes back to the pool.
/// Routes put it after their path and method filters, so a request no route takes costs no
/// connection; a failed checkout rejects with `AppError::Database` (503).
pub fn connection(
    pool: PgPool,
) -> impl Filter<Extract = (PoolConnection<Postgres>,), Error = Rejection> + Clone {
    warp::any().and_then(move || {
        let pool = pool.clone();
        async move {
            pool.acquire()
                .await
                .map_err(|err| warp::reject::custom(AppError::from(err)))
        }
    })
}
// endregion
