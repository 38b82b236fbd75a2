//! Loading the data set with COPY and reading its checksum back from the database.

use crate::data::{Checksum, Dataset};
use anyhow::{Context, Result, bail};
use sqlx::postgres::{PgConnectOptions, PgConnection};
use sqlx::{ConnectOptions, Connection};
use std::str::FromStr;

const SCHEMA: &str = include_str!("schema.sql");
const INDEXES: &str = include_str!("indexes.sql");

pub async fn connect(url: &str) -> Result<PgConnection> {
    let options =
        PgConnectOptions::from_str(url).context("DATABASE_URL is not a PostgreSQL URL")?;
    if options.get_database() != Some("blogbench") {
        bail!(
            "DATABASE_URL must name database `blogbench` (blogbench never touches another database)"
        );
    }
    let mut conn = options.connect().await.with_context(|| {
        format!(
            "postgres: cannot connect to {}:{} as {}; start it with `make services`",
            options.get_host(),
            options.get_port(),
            options.get_username()
        )
    })?;
    // Timestamps must come out of COPY exactly as the generator wrote them.
    sqlx::raw_sql("SET TIME ZONE 'UTC'")
        .execute(&mut conn)
        .await?;
    Ok(conn)
}

/// The checksum of the tables' contents, or `None` when they do not all exist.
pub async fn checksum(conn: &mut PgConnection, data: &Dataset) -> Result<Option<String>> {
    let existing: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename = ANY($1)",
    )
    .bind(data.tables.iter().map(|t| t.name).collect::<Vec<_>>())
    .fetch_one(&mut *conn)
    .await?;
    if existing != data.tables.len() as i64 {
        return Ok(None);
    }
    let mut sum = Checksum::default();
    for table in &data.tables {
        let mut text = Vec::with_capacity(table.copy_text.len());
        let mut stream = conn.copy_out_raw(&table.copy_out()).await?;
        while let Some(chunk) = futures_util::TryStreamExt::try_next(&mut stream).await? {
            text.extend_from_slice(&chunk);
        }
        sum.add(table.name, &text);
    }
    Ok(Some(sum.hex()))
}

/// Removes what the comments route added since the load (docs/spec.md §2): the comments
/// with ids above the seeded ones, and the id sequence back to the last seeded id, so the
/// next comment gets the same id on every run; then vacuums the table. Without the vacuum,
/// the tens of thousands of rows a write run adds to the newest posts, deleted, stay as dead
/// entries that every home page's comment count wades through until autovacuum comes round.
/// `false` when the tables predate the comments' id sequence (a `load` is needed).
pub async fn reset(conn: &mut PgConnection) -> Result<bool> {
    let sequence: Option<String> =
        sqlx::query_scalar("SELECT pg_get_serial_sequence('comments', 'id')")
            .fetch_optional(&mut *conn)
            .await
            .ok()
            .flatten();
    if sequence.is_none() {
        return Ok(false);
    }
    let mut tx = conn.begin().await?;
    sqlx::query("DELETE FROM comments WHERE id > $1")
        .bind(crate::data::COMMENTS as i32)
        .execute(&mut *tx)
        .await
        .context("deleting the comments added since the load")?;
    sqlx::raw_sql(RESTART_COMMENT_IDS).execute(&mut *tx).await?;
    tx.commit().await?;
    // Outside the transaction: VACUUM cannot run inside one.
    sqlx::raw_sql("VACUUM (ANALYZE) comments")
        .execute(&mut *conn)
        .await
        .context("vacuuming the comments after the reset")?;
    Ok(true)
}

/// The comments' id sequence, continuing after the last seeded id.
const RESTART_COMMENT_IDS: &str =
    "SELECT setval(pg_get_serial_sequence('comments', 'id'), (SELECT max(id) FROM comments))";

/// Recreates the five tables and loads them in one transaction: a failure leaves the
/// database as it was.
pub async fn load(conn: &mut PgConnection, data: &Dataset) -> Result<()> {
    let mut tx = conn.begin().await?;
    sqlx::raw_sql(SCHEMA)
        .execute(&mut *tx)
        .await
        .context("creating the schema")?;
    for table in &data.tables {
        let mut copy = tx.copy_in_raw(&table.copy_in()).await?;
        copy.send(table.copy_text.as_bytes()).await?;
        let rows = copy
            .finish()
            .await
            .with_context(|| format!("COPY {}", table.name))?;
        println!("seed:   {:<9} {rows:>6} rows", table.name);
    }
    sqlx::raw_sql(INDEXES)
        .execute(&mut *tx)
        .await
        .context("creating the indexes")?;
    sqlx::raw_sql(RESTART_COMMENT_IDS).execute(&mut *tx).await?;
    tx.commit().await?;
    sqlx::raw_sql("ANALYZE authors, tags, posts, post_tags, comments")
        .execute(&mut *conn)
        .await?;
    Ok(())
}
