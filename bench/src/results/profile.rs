//! `profiles/<id>/`: what `blogbench profile` measured, per app and route, and the template
//! engines' render times. The report reads these files alone.

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Profile {
    pub app: String,
    pub route: String,
    pub path: String,
    pub connections: u32,
    pub duration_secs: f64,
    /// Responses in the measured window, and how many were not 200 (or failed).
    pub requests: u64,
    pub not_ok: u64,
    pub requests_per_sec: f64,
    pub cpu_us_per_request: CpuPerRequest,
    pub postgres_per_page: PostgresPerPage,
    /// `INFO commandstats` deltas ÷ requests, by command.
    pub redis_commands_per_request: BTreeMap<String, f64>,
    pub context_switches_per_request: ContextSwitches,
    /// `strace -c -f` calls ÷ the strace window's requests, by syscall (strace slows the app;
    /// the counts per request stay meaningful, the times do not).
    pub syscalls_per_request: Option<BTreeMap<String, f64>>,
    pub go_gc: Option<Gc>,
    /// A JVM app's collector, from `-Xlog:gc` (absent in profiles written before).
    #[serde(default)]
    pub jvm_gc: Option<Gc>,
    /// The flame graph's file name, next to this profile.
    pub flamegraph: Option<String>,
    /// Measurements this machine could not make, with the reason.
    pub unavailable: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct CpuPerRequest {
    /// The app's user time.
    pub app: f64,
    /// The app's system time: the kernel working for it (sockets, futexes, epoll).
    pub kernel: f64,
    pub postgres: f64,
    pub redis: f64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct PostgresPerPage {
    /// Round trips on the app's connections (start-up excluded): requests sent while an
    /// earlier one is unanswered share the round trip.
    pub round_trips: f64,
    /// The pool's liveness checks (a bare `Sync`) per page, whether or not they shared a
    /// round trip; absent in profiles recorded before the relay counted them.
    #[serde(default)]
    pub pings: Option<f64>,
    /// `Query` and `Execute` messages the app sent.
    pub statements_sent: f64,
    /// Executions `pg_stat_statements` counted: a pool's ping is a round trip but no query.
    pub queries_executed: Option<f64>,
    /// Connections the app opened during the window (each adds start-up round trips).
    pub connections_opened: u64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ContextSwitches {
    pub voluntary: f64,
    pub involuntary: f64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Gc {
    pub collections_per_sec: f64,
    /// Stop-the-world pause time as a share of the window's wall time.
    pub pause_percent: f64,
}

impl Profile {
    pub fn file_stem(app: &str, route: &str) -> String {
        format!("{app}-{route}")
    }

    /// Every profile in `dir`.
    pub fn load_all(dir: &Path) -> Result<Vec<Profile>> {
        let mut profiles = Vec::new();
        for entry in std::fs::read_dir(dir).with_context(|| format!("read {}", dir.display()))? {
            let path = entry?.path();
            let is_profile =
                path.extension().is_some_and(|e| e == "json") && !path.ends_with(RenderTimes::FILE);
            if is_profile {
                let text = std::fs::read_to_string(&path)?;
                profiles.push(
                    serde_json::from_str(&text)
                        .with_context(|| format!("parse {}", path.display()))?,
                );
            }
        }
        profiles.sort_by(|a: &Profile, b| (&a.route, &a.app).cmp(&(&b.route, &b.app)));
        Ok(profiles)
    }
}

/// Render time per page of each template engine alone, on the pages' real view data:
/// µs per page by engine, then page (`home`, `post`, `tag`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct RenderTimes {
    pub micros: BTreeMap<String, BTreeMap<String, f64>>,
    /// The commands that measured them.
    pub commands: Vec<String>,
}

impl RenderTimes {
    pub const FILE: &str = "render-times.json";

    pub fn load(dir: &Path) -> Result<Option<RenderTimes>> {
        let path = dir.join(Self::FILE);
        if !path.is_file() {
            return Ok(None);
        }
        let text = std::fs::read_to_string(&path)?;
        Ok(Some(
            serde_json::from_str(&text).with_context(|| format!("parse {}", path.display()))?,
        ))
    }
}
