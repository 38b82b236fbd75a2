//! The ceilings a batch measures beside the apps, so a reader sees what limited a number:
//! the load generator against a minimal static server (HTTP), and `pgbench` running each
//! page's queries as a script (database).

use crate::load::loadgen::Loadgen;
use crate::results::Ceiling;
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

/// The load generator's requests per second against [`serve_static`] on the app's CPUs.
pub fn http(
    loadgen: Loadgen,
    body_bytes: usize,
    app_cpus: &[usize],
    load_cpus: &[usize],
    connections: u32,
    duration: Duration,
    raw: &Path,
) -> Result<Ceiling> {
    let addr = format!("127.0.0.1:{}", free_port()?);
    let mut server = StaticServer(
        Command::new("taskset")
            .args(["-c", &format_list(app_cpus)])
            .arg(std::env::current_exe()?)
            .args([
                "static-server",
                "--bind",
                &addr,
                "--bytes",
                &body_bytes.to_string(),
            ])
            .args(["--workers", &app_cpus.len().to_string()])
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
    let run = loadgen.run(
        &format!("http://{addr}/"),
        connections,
        duration,
        load_cpus,
        raw,
    )?;
    Ok(Ceiling {
        per_sec: run.requests_per_sec,
        how: format!(
            "{} at {connections} connections against a static {body_bytes}-byte page (axum, CPUs {})",
            loadgen.name(),
            format_list(app_cpus)
        ),
    })
}

struct StaticServer(Child);

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

/// `pgbench` running `script` (one page) with `connections` clients: pages per second.
pub fn database(
    page: &str,
    script: &str,
    database_url: &str,
    connections: u32,
    load_cpus: &[usize],
    duration: Duration,
    dir: &Path,
) -> Result<Ceiling> {
    let script_path = dir.join(format!("pgbench-{page}.sql"));
    std::fs::write(&script_path, script)?;
    let output = Command::new("taskset")
        .args(["-c", &format_list(load_cpus)])
        .args(["pgbench", "-n", "-M", "prepared"])
        .args([
            "-c",
            &connections.to_string(),
            "-j",
            &load_cpus.len().max(1).to_string(),
        ])
        .args(["-T", &duration.as_secs().max(1).to_string(), "-f"])
        .arg(&script_path)
        .arg(database_url)
        .output()
        .context("run pgbench (Debian package postgresql-contrib / postgresql-client)")?;
    let text = String::from_utf8_lossy(&output.stdout);
    std::fs::write(dir.join(format!("pgbench-{page}.txt")), text.as_bytes())?;
    if !output.status.success() {
        bail!(
            "pgbench {page}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let tps = text
        .lines()
        .find_map(|l| l.strip_prefix("tps = "))
        .and_then(|rest| rest.split_whitespace().next()?.parse::<f64>().ok())
        .context("no `tps = ` line in pgbench's output")?;
    Ok(Ceiling {
        per_sec: tps,
        how: format!(
            "pgbench -M prepared, {connections} connections, the {page} page's {} queries per transaction",
            script.lines().count()
        ),
    })
}

/// The database ceiling uses the pool size every app runs with.
pub fn pool_connections() -> u32 {
    apps::find(apps::GO)
        .map(|go| go.manifest.settings.pool_max)
        .unwrap_or(16)
}
