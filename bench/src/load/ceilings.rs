//! The ceilings a batch measures beside the apps, so a reader sees what limited a number:
//! the load generator against a minimal static server (HTTP), and `pgbench` running each
//! page's queries as a script (database).

use super::admission::{Expected, admission};
use super::loadgen::Loadgen;
use super::sampler::{Sampler, measured_window};
use crate::results::{Ceiling, median};
use crate::routes::DETAIL_SLUG;
use crate::stack::apps;
use crate::stack::cpus::format_list;
use crate::stack::server::free_port;
use anyhow::{Context, Result, bail};
use shared_sql as sql;
use sqlx::Connection;
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// Serves `bytes` bytes of HTML on every path until killed (`blogbench static-server`).
pub fn serve_static(bind: &str, bytes: usize, workers: usize) -> Result<()> {
    let body: &'static str = "x".repeat(bytes).leak();
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers.max(1))
        .enable_all()
        .build()?
        .block_on(async move {
            let app =
                axum::Router::new().fallback(move || async move { axum::response::Html(body) });
            let listener = tokio::net::TcpListener::bind(bind).await?;
            axum::serve(listener, app).await?;
            Ok(())
        })
}

/// How a ceiling is measured: like an app, a warm-up and then `runs` runs.
pub struct Plan<'a> {
    pub loadgen: Loadgen,
    pub connections: u32,
    pub warmup: Duration,
    pub duration: Duration,
    pub runs: u32,
    /// Where the server side sits: the static server, or pgbench (which stands in for the
    /// app as PostgreSQL's client).
    pub app_cpus: &'a [usize],
    pub load_cpus: &'a [usize],
}

impl Plan<'_> {
    fn ceiling(&self, how: String, outcomes: Vec<(f64, Option<String>)>) -> Ceiling {
        let valid: Vec<f64> = outcomes
            .iter()
            .filter(|(_, reason)| reason.is_none())
            .map(|(rate, _)| *rate)
            .collect();
        Ceiling {
            per_sec: median(valid.iter().copied()).map_or(0.0, |(m, _)| m),
            how,
            runs: valid,
            invalid: outcomes
                .into_iter()
                .filter_map(|(_, reason)| reason)
                .collect(),
        }
    }
}

/// HTTP client ceiling: the load generator's requests per second against [`serve_static`]
/// on the app's CPUs, each run admitted like an app's.
pub fn http(plan: &Plan, body_bytes: usize, raw_dir: &Path) -> Result<Ceiling> {
    let (server, addr) = StaticServer::start(plan.app_cpus, body_bytes)?;
    let url = format!("http://{addr}/");
    let expected = Expected {
        connections: plan.connections,
        body_bytes: Some(body_bytes as u64),
        writes: false,
    };
    let raw =
        |what: &str| raw_dir.join(format!("ceiling-http-{what}.{}", plan.loadgen.extension()));
    let load = |duration: Duration, what: &str| {
        plan.loadgen.run(
            &url,
            plan.connections,
            duration,
            plan.load_cpus,
            &raw(what),
            expected.body_bytes,
        )
    };
    load(plan.warmup, "warmup")?;
    let mut outcomes = Vec::new();
    for run in 1..=plan.runs {
        let sampler = Sampler::start_once_held(
            server.pid(),
            addr_port(&addr),
            measured_window(plan.duration),
            plan.connections,
        );
        let result = load(plan.duration, &run.to_string());
        let usage = sampler.finish();
        let result = result?;
        let reason = admission(&result, expected, &usage);
        outcomes.push((result.requests_per_sec, reason));
    }
    Ok(plan.ceiling(
        format!(
            "{} at {} connections against a static {body_bytes}-byte page (axum, CPUs {})",
            plan.loadgen.name(),
            plan.connections,
            format_list(plan.app_cpus)
        ),
        outcomes,
    ))
}

fn addr_port(addr: &str) -> u16 {
    addr.rsplit_once(':')
        .and_then(|(_, port)| port.parse().ok())
        .unwrap_or(0)
}

/// [`serve_static`] in a process of its own; stopped when dropped.
pub struct StaticServer(Child);

impl StaticServer {
    /// Starts it on a free loopback port pinned to `cpus`; returns it and its `host:port`.
    pub fn start(cpus: &[usize], body_bytes: usize) -> Result<(StaticServer, String)> {
        let addr = format!("127.0.0.1:{}", free_port()?);
        let mut server = StaticServer(
            Command::new("taskset")
                .args(["-c", &format_list(cpus)])
                .arg(std::env::current_exe()?)
                .args([
                    "static-server",
                    "--bind",
                    &addr,
                    "--bytes",
                    &body_bytes.to_string(),
                ])
                .args(["--workers", &cpus.len().to_string()])
                .spawn()
                .context("start the static server")?,
        );
        let started = Instant::now();
        while TcpStream::connect(&addr).is_err() {
            if started.elapsed() > Duration::from_secs(10) || server.0.try_wait()?.is_some() {
                bail!("the static server did not start on {addr}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok((server, addr))
    }

    pub fn pid(&self) -> u32 {
        self.0.id()
    }
}

impl Drop for StaticServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Each page's queries as a `pgbench` script, `$1` replaced by the values the benchmark's
/// page uses (read from the database, so the scripts match the data).
pub async fn page_scripts(database_url: &str) -> Result<Vec<(&'static str, String)>> {
    let mut conn = sqlx::PgConnection::connect(database_url).await?;
    let home_ids: Vec<i32> =
        sqlx::query_scalar("SELECT id FROM posts ORDER BY published_at DESC, id DESC LIMIT 20")
            .fetch_all(&mut conn)
            .await?;
    let post_id: i32 = sqlx::query_scalar("SELECT id FROM posts WHERE slug = $1")
        .bind(DETAIL_SLUG)
        .fetch_one(&mut conn)
        .await?;
    let tag_id: i32 = sqlx::query_scalar("SELECT id FROM tags WHERE slug = 'rust'")
        .fetch_one(&mut conn)
        .await?;
    // The first column of TAG_POSTS is the post id.
    let tag_post_ids: Vec<i32> = sqlx::query_scalar(sql::TAG_POSTS)
        .bind(tag_id)
        .fetch_all(&mut conn)
        .await?;
    conn.close().await?;
    let array = |ids: &[i32]| {
        format!(
            "'{{{}}}'::int[]",
            ids.iter().map(i32::to_string).collect::<Vec<_>>().join(",")
        )
    };
    let with = |query: &str, value: &str| format!("{};\n", query.replace("$1", value));
    Ok(vec![
        (
            "home",
            [
                with(sql::HOME_POSTS, ""),
                with(sql::TAGS_OF_POSTS, &array(&home_ids)),
                with(sql::COMMENT_COUNTS, &array(&home_ids)),
            ]
            .concat(),
        ),
        (
            "detail",
            [
                with(sql::POST_BY_SLUG, &format!("'{DETAIL_SLUG}'")),
                with(sql::TAGS_OF_POST, &post_id.to_string()),
                with(sql::COMMENTS_OF_POST, &post_id.to_string()),
            ]
            .concat(),
        ),
        (
            "tag",
            [
                with(sql::TAG_BY_SLUG, "'rust'"),
                with(sql::TAG_POSTS, &tag_id.to_string()),
                with(sql::TAGS_OF_POSTS, &array(&tag_post_ids)),
                with(sql::TAG_POST_COUNT, &tag_id.to_string()),
            ]
            .concat(),
        ),
    ])
}

/// Database ceiling of one page: `pgbench` running the page's statements as one
/// transaction with `connections` clients, pinned where the app sits (it stands in for the
/// app as PostgreSQL's client): pages per second.
pub fn database(
    plan: &Plan,
    page: &str,
    script: &str,
    database_url: &str,
    connections: u32,
    raw_dir: &Path,
) -> Result<Ceiling> {
    let script_path = raw_dir.join(format!("pgbench-{page}.sql"));
    std::fs::write(&script_path, script)?;
    let pgbench = |duration: Duration, what: &str| -> Result<f64> {
        let output = Command::new("taskset")
            .args(["-c", &format_list(plan.app_cpus)])
            .args(["pgbench", "-n", "-M", "prepared"])
            .args([
                "-c",
                &connections.to_string(),
                "-j",
                &plan.app_cpus.len().max(1).to_string(),
            ])
            .args(["-T", &whole_seconds(duration).to_string(), "-f"])
            .arg(&script_path)
            .arg(database_url)
            .output()
            .context("run pgbench (Debian package postgresql-contrib / postgresql-client)")?;
        let text = String::from_utf8_lossy(&output.stdout);
        std::fs::write(
            raw_dir.join(format!("pgbench-{page}-{what}.txt")),
            text.as_bytes(),
        )?;
        if !output.status.success() {
            bail!(
                "pgbench {page}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        text.lines()
            .find_map(|l| l.strip_prefix("tps = "))
            .and_then(|rest| rest.split_whitespace().next()?.parse::<f64>().ok())
            .context("no `tps = ` line in pgbench's output")
    };
    pgbench(plan.warmup, "warmup")?;
    let mut outcomes = Vec::new();
    for run in 1..=plan.runs {
        outcomes.push((pgbench(plan.duration, &run.to_string())?, None));
    }
    Ok(plan.ceiling(
        format!(
            "pgbench -M prepared on CPUs {}, {connections} connections, the {page} page's {} statements per transaction, {} s runs",
            format_list(plan.app_cpus),
            script.lines().count(),
            whole_seconds(plan.duration)
        ),
        outcomes,
    ))
}

/// pgbench's `-T` takes whole seconds: a fractional run length is rounded up, and the
/// ceiling's description says so.
fn whole_seconds(duration: Duration) -> u64 {
    duration.as_secs_f64().ceil().max(1.0) as u64
}

/// The database ceiling uses the pool size every app runs with.
pub fn pool_connections() -> u32 {
    apps::find(apps::GO)
        .map(|go| go.manifest.settings.pool_max)
        .unwrap_or(16)
}
