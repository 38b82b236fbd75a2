//! What a run records about where it ran: the machine, the tools and their versions, the
//! commit.

use crate::load::loadgen::Loadgen;
use crate::results::Machine;
use crate::stack::{apps, services};
use sqlx::{Connection, PgConnection};
use std::collections::BTreeMap;
use std::process::Command;

/// The first line `program args` prints (stdout, then stderr): a tool's version.
pub fn command_line(program: &str, args: &[&str]) -> Option<String> {
    let output = Command::new(program).args(args).output().ok()?;
    let text = String::from_utf8_lossy(&output.stdout).to_string()
        + &String::from_utf8_lossy(&output.stderr);
    Some(text.lines().next()?.trim().to_owned())
}

pub fn git_commit() -> String {
    let dir = apps::workspace_dir();
    let dir = dir.to_string_lossy();
    let commit = command_line("git", &["-C", &dir, "rev-parse", "HEAD"])
        .unwrap_or_else(|| "unknown".to_owned());
    let dirty = Command::new("git")
        .args(["-C", &dir, "status", "--porcelain", "--untracked-files=no"])
        .output()
        .is_ok_and(|o| !o.stdout.is_empty());
    if dirty {
        format!("{commit}-dirty")
    } else {
        commit
    }
}

pub fn machine() -> Machine {
    let read = |path: &str| std::fs::read_to_string(path).unwrap_or_default();
    let cpuinfo = read("/proc/cpuinfo");
    let meminfo = read("/proc/meminfo");
    Machine {
        hostname: read("/proc/sys/kernel/hostname").trim().to_owned(),
        kernel: read("/proc/sys/kernel/osrelease").trim().to_owned(),
        cpu_model: cpuinfo
            .lines()
            .find_map(|l| l.strip_prefix("model name"))
            .map(|l| l.trim_start_matches([' ', '\t', ':']).to_owned())
            .unwrap_or_default(),
        // Every CPU of the machine, not the ones this (pinned) process may use.
        cores: cpuinfo
            .lines()
            .filter(|l| l.starts_with("processor"))
            .count(),
        memory_gib: meminfo
            .lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|kb| kb.trim().trim_end_matches(" kB").parse::<f64>().ok())
            .map_or(0.0, |kb| kb / 1024.0 / 1024.0),
    }
}

pub fn tools(loadgen: Loadgen, runtime: &tokio::runtime::Runtime) -> BTreeMap<String, String> {
    let mut tools = BTreeMap::new();
    let mut add = |name: &str, version: Option<String>| {
        tools.insert(
            name.to_owned(),
            version.unwrap_or_else(|| "unknown".to_owned()),
        );
    };
    add("go", command_line("go", &["version"]));
    add("rustc", command_line("rustc", &["--version"]));
    add("pgbench", command_line("pgbench", &["--version"]));
    add(loadgen.name(), loadgen.version().ok());
    add(
        "postgresql",
        runtime
            .block_on(async {
                let mut conn = PgConnection::connect(&services::database_url()).await?;
                sqlx::query_scalar::<_, String>("SHOW server_version")
                    .fetch_one(&mut conn)
                    .await
            })
            .ok(),
    );
    add("redis", redis_version());
    tools
}

fn redis_version() -> Option<String> {
    let client = redis::Client::open(services::redis_url()).ok()?;
    let mut conn = client.get_connection().ok()?;
    let info: String = redis::cmd("INFO").arg("server").query(&mut conn).ok()?;
    info.lines()
        .find_map(|l| l.strip_prefix("redis_version:"))
        .map(str::to_owned)
}
