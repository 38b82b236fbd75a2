//! The faults, done to the real services: PostgreSQL and Redis stopped abruptly and started
//! again by `scripts/services.sh` (the commands a user runs), and PostgreSQL stalled by a
//! lock that every page query waits for (what a migration holding `ACCESS EXCLUSIVE` does).

use crate::stack::apps;
use crate::stack::services::{database_url, redis_url};
use anyhow::{Context, Result, bail};
use sqlx::{Connection, PgConnection};
use std::process::Command;
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Fast shutdown, `down` seconds stopped, then started.
    PostgresRestart { down: Duration },
    /// The same while the app is idle, so its pool keeps the dead connections until light
    /// traffic resumes after the restart.
    PostgresRestartWhileIdle { down: Duration },
    /// `SHUTDOWN NOSAVE`, `down` seconds stopped, then started.
    RedisRestart { down: Duration },
    /// `posts` locked for `length`: every page query waits, connections stay checked out.
    DatabaseStall { length: Duration },
}

impl Fault {
    pub fn name(self) -> String {
        match self {
            Fault::PostgresRestart { .. } => "postgres restart".to_owned(),
            Fault::PostgresRestartWhileIdle { .. } => "postgres restart while idle".to_owned(),
            Fault::RedisRestart { .. } => "redis restart".to_owned(),
            Fault::DatabaseStall { length } => {
                format!("database stall {} s", length.as_secs_f64())
            }
        }
    }

    /// Does the fault, returning when the service answers again.
    pub fn inject(self, runtime: &tokio::runtime::Runtime) -> Result<()> {
        match self {
            Fault::PostgresRestart { down } | Fault::PostgresRestartWhileIdle { down } => {
                services(&["crash", "postgres"])?;
                std::thread::sleep(down);
                services(&["up"])?;
                wait_for("PostgreSQL", || {
                    runtime
                        .block_on(PgConnection::connect(&database_url()))
                        .is_ok()
                })
            }
            Fault::RedisRestart { down } => {
                services(&["crash", "redis"])?;
                std::thread::sleep(down);
                services(&["up"])?;
                wait_for("Redis", || {
                    redis::Client::open(redis_url())
                        .and_then(|c| c.get_connection())
                        .is_ok()
                })
            }
            Fault::DatabaseStall { length } => runtime.block_on(async {
                let mut conn = PgConnection::connect(&database_url())
                    .await
                    .context("postgres: connect to hold the lock; start it with `make services`")?;
                let mut lock = conn.begin().await?;
                sqlx::query("LOCK TABLE posts IN ACCESS EXCLUSIVE MODE")
                    .execute(&mut *lock)
                    .await?;
                tokio::time::sleep(length).await;
                lock.commit().await?;
                Ok(())
            }),
        }
    }
}

/// `scripts/services.sh <args>`, its output kept for the error.
fn services(args: &[&str]) -> Result<()> {
    let script = apps::workspace_dir().join("scripts/services.sh");
    let output = Command::new(&script)
        .args(args)
        .output()
        .with_context(|| format!("run {}", script.display()))?;
    if !output.status.success() {
        bail!(
            "scripts/services.sh {} failed: {}{}",
            args.join(" "),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(())
}

fn wait_for(service: &str, mut answers: impl FnMut() -> bool) -> Result<()> {
    let started = Instant::now();
    while !answers() {
        if started.elapsed() > Duration::from_secs(30) {
            bail!("{service} did not answer within 30 s of `scripts/services.sh up`");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

/// Brings back whatever a failed fault left stopped.
pub fn restore_services() -> Result<()> {
    services(&["up"])
}
