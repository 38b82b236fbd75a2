//! The faults, done to the real services: PostgreSQL and Redis stopped abruptly and started
//! again by `scripts/services.sh` (the commands a user runs), and PostgreSQL stalled by a
//! lock that every page query waits for (what a migration holding `ACCESS EXCLUSIVE` does).

use crate::stack::apps;
use crate::stack::services::{database_url, redis_url};
use anyhow::{Context, Result, bail};
use sqlx::{Connection, PgConnection};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
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

    /// Does the fault, returning when the service answers again, with the instant it first
    /// did.
    pub fn inject(self, runtime: &tokio::runtime::Runtime) -> Result<Instant> {
        match self {
            Fault::PostgresRestart { down } | Fault::PostgresRestartWhileIdle { down } => {
                restart("PostgreSQL", "postgres", down, || {
                    runtime
                        .block_on(PgConnection::connect(&database_url()))
                        .is_ok()
                })
            }
            Fault::RedisRestart { down } => restart("Redis", "redis", down, || {
                redis::Client::open(redis_url())
                    .and_then(|c| c.get_connection())
                    .is_ok()
            }),
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
                Ok(Instant::now())
            }),
        }
    }
}

/// `service` stopped abruptly by `scripts/services.sh crash <name>`, `down` later started
/// again by `scripts/services.sh up`.
fn restart(
    service: &str,
    name: &str,
    down: Duration,
    answers: impl Fn() -> bool + Sync,
) -> Result<Instant> {
    outage(
        service,
        || services(&["crash", name]),
        down,
        || services(&["up"]),
        answers,
    )
}

/// Crashes a service, starts it again `down` later, and returns the instant it first
/// answered: a poller of its own asks it every 10 ms from the crash on, so the time `start`
/// spends on its own checks once the service is back does not count as outage.
fn outage(
    service: &str,
    crash: impl FnOnce() -> Result<()>,
    down: Duration,
    start: impl FnOnce() -> Result<()>,
    answers: impl Fn() -> bool + Sync,
) -> Result<Instant> {
    crash()?;
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let poller = scope.spawn(|| {
            while !stop.load(Ordering::SeqCst) {
                if answers() {
                    return Some(Instant::now());
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            None
        });
        std::thread::sleep(down);
        let started = start();
        let deadline = Instant::now() + Duration::from_secs(30);
        while started.is_ok() && !poller.is_finished() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        stop.store(true, Ordering::SeqCst);
        let back = poller.join().expect("the poller does not panic");
        started?;
        back.with_context(|| {
            format!("{service} did not answer within 30 s of `scripts/services.sh up`")
        })
    })
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

/// Brings back whatever a failed fault left stopped.
pub fn restore_services() -> Result<()> {
    services(&["up"])
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{TcpListener, TcpStream};
    use std::sync::Mutex;

    #[test]
    fn the_outage_ends_when_the_service_first_answers_not_when_its_start_script_returns() {
        let addr = {
            let free = TcpListener::bind("127.0.0.1:0").unwrap();
            free.local_addr().unwrap()
        };
        let service = Mutex::new(None);
        let listening = Mutex::new(None);
        let script_done = Mutex::new(None);
        let back = outage(
            "the test service",
            || Ok(()),
            Duration::from_millis(100),
            || {
                // Listening at once, then the script's own checks take a while.
                *service.lock().unwrap() = Some(TcpListener::bind(addr)?);
                *listening.lock().unwrap() = Some(Instant::now());
                std::thread::sleep(Duration::from_secs(1));
                *script_done.lock().unwrap() = Some(Instant::now());
                Ok(())
            },
            || TcpStream::connect(addr).is_ok(),
        )
        .unwrap();
        let listening = listening.lock().unwrap().unwrap();
        let script_done = script_done.lock().unwrap().unwrap();
        assert!(
            listening <= back && back < script_done,
            "back {:?} after listening, script done {:?} after",
            back - listening,
            script_done - listening
        );
    }

    #[test]
    fn a_service_that_never_answers_is_named() {
        let err = outage(
            "the test service",
            || Ok(()),
            Duration::ZERO,
            || anyhow::bail!("scripts/services.sh up failed: no such service"),
            || false,
        )
        .unwrap_err();
        assert_eq!(
            format!("{err:#}"),
            "scripts/services.sh up failed: no such service"
        );
    }
}
