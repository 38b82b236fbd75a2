//! Where PostgreSQL and Redis are: the same environment variables and defaults the apps read,
//! and putting the data back as it was loaded.

use anyhow::{Result, bail, ensure};
use sqlx::PgConnection;

pub fn database_url() -> String {
    std::env::var("DATABASE_URL").unwrap_or_else(|_| workload::DEFAULT_DATABASE_URL.to_owned())
}

pub fn redis_url() -> String {
    std::env::var("REDIS_URL").unwrap_or_else(|_| workload::DEFAULT_REDIS_URL.to_owned())
}

/// The Redis URL of the batch's Go pacer: the apps' own with the next database number. The
/// pacer and the app run at once (docs/spec.md §5.5), and not every app stores under the
/// shared `page:` keys a value Go can serve, so each keeps its pages apart.
pub fn pacer_redis_url() -> String {
    next_database(&redis_url())
}

/// `url` with the database after its own (database 0 when it names none).
fn next_database(url: &str) -> String {
    let (base, database) = match url.rsplit_once('/') {
        Some((base, number))
            if base.contains("//") && number.bytes().all(|b| b.is_ascii_digit()) =>
        {
            (base, number.parse::<u32>().unwrap_or(0))
        }
        _ => (url, 0),
    };
    format!("{base}/{}", database + 1)
}

/// Held while this process writes comments and resets them: a PostgreSQL advisory lock, so
/// two harness processes (tests run side by side) never interleave their comments and
/// resets. Released when dropped (its connection closes).
pub struct CommentsLock {
    _connection: sqlx::PgConnection,
    _runtime: tokio::runtime::Runtime,
}

/// The advisory lock's key: "blogbench" in ASCII, as an integer.
const COMMENTS_LOCK_KEY: i64 = 0x626c_6f67_6265_6e63;

/// Waits for, then takes, the [`CommentsLock`].
pub fn lock_comments() -> Result<CommentsLock> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let connection = runtime.block_on(async {
        let mut conn = seed::db::connect(&database_url()).await?;
        sqlx::query("SELECT pg_advisory_lock($1)")
            .bind(COMMENTS_LOCK_KEY)
            .execute(&mut conn)
            .await?;
        anyhow::Ok(conn)
    })?;
    Ok(CommentsLock {
        _connection: connection,
        _runtime: runtime,
    })
}

/// Deletes the comments added since the data was loaded and restarts their ids
/// (`seed reset`, docs/spec.md §2), so a run that writes starts from the seeded data.
pub fn reset_comments() -> Result<()> {
    on_database(async |conn| {
        if !seed::db::reset(conn).await? {
            bail!("the comments table has no id sequence: reload the data with `make services`");
        }
        Ok(())
    })
}

/// The bodies of the comments added since the data was loaded.
pub fn comments_added() -> Result<Vec<String>> {
    on_database(async |conn| {
        let bodies = sqlx::query_scalar("SELECT body FROM comments WHERE id > $1")
            .bind(seed::data::COMMENTS as i32)
            .fetch_all(&mut *conn)
            .await?;
        Ok(bodies)
    })
}

/// Runs `work` on a new connection to the database, from code that is not async.
fn on_database<T>(work: impl AsyncFnOnce(&mut sqlx::PgConnection) -> Result<T>) -> Result<T> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(async {
            let mut conn = seed::db::connect(&database_url()).await?;
            work(&mut conn).await
        })
}

/// `host:port` of a `scheme://[user[:password]@]host:port[/…]` URL.
pub fn host_port(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let rest = rest.rsplit_once('@').map_or(rest, |(_, rest)| rest);
    rest.split(['/', '?']).next().unwrap_or(rest)
}

/// `url` with its `host:port` replaced by `addr` (to route an app through a relay).
pub fn with_host_port(url: &str, addr: &str) -> String {
    url.replacen(host_port(url), addr, 1)
}

/// Resets the comments and checks the database holds the seeded data (docs/spec.md §2);
/// returns an open connection and the data's checksum.
pub fn seeded_database(runtime: &tokio::runtime::Runtime) -> Result<(PgConnection, String)> {
    let database_url = database_url();
    let data = seed::data::Dataset::generate();
    let expected = data.checksum();
    let writing = lock_comments()?;
    let (monitor, found) = runtime.block_on(async {
        let mut conn = seed::db::connect(&database_url).await?;
        seed::db::reset(&mut conn).await?;
        let found = seed::db::checksum(&mut conn, &data).await?;
        anyhow::Ok((conn, found))
    })?;
    drop(writing);
    ensure!(
        found.as_deref() == Some(expected.as_str()),
        "postgres: database blogbench does not hold the expected data (checksum {found:?}, expected {expected}); run `make services`"
    );
    Ok((monitor, expected))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pacer_s_redis_database_is_the_next_one() {
        assert_eq!(
            next_database("redis://127.0.0.1:6379/0"),
            "redis://127.0.0.1:6379/1"
        );
        assert_eq!(
            next_database("redis://127.0.0.1:6379/4"),
            "redis://127.0.0.1:6379/5"
        );
        assert_eq!(
            next_database("redis://127.0.0.1:6379/"),
            "redis://127.0.0.1:6379/1"
        );
        assert_eq!(
            next_database("redis://127.0.0.1:6379"),
            "redis://127.0.0.1:6379/1"
        );
    }

    #[test]
    fn finds_and_replaces_host_and_port() {
        let url = "postgres://u:p@127.0.0.1:5432/blogbench?sslmode=disable";
        assert_eq!(host_port(url), "127.0.0.1:5432");
        assert_eq!(host_port("redis://127.0.0.1:6379/0"), "127.0.0.1:6379");
        assert_eq!(
            with_host_port(url, "127.0.0.1:40000"),
            "postgres://u:p@127.0.0.1:40000/blogbench?sslmode=disable"
        );
    }
}
