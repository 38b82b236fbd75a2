//! `results/<batch>/results.json`: everything a batch measured, written atomically after
//! every run so a crash or Ctrl-C loses nothing that finished. The report is built from this
//! file alone.

pub mod app_settings;
pub mod faults;
pub mod idioms;
pub mod profile;
pub mod scoreboard;
pub mod sweep;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What every results file starts with: which run it was, when, from which command and
/// commit, on which machine. Flattened into each file, so its fields stay at the top level.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunHeader {
    /// What the file holds (absent from files written before the header named it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<RunKind>,
    /// `YYYYMMDDhhmmss` (UTC): the folder's name, after the kind's prefix (`sweep-`, …).
    pub id: String,
    pub started_at: String,
    pub finished_at: Option<String>,
    /// The exact command line.
    pub command: String,
    pub git_commit: String,
    pub machine: Machine,
}

/// The runs that write a results file, each with its file and its folder's prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunKind {
    /// `blogbench bench`: [`Batch`].
    Batch,
    /// `blogbench sweep`: [`sweep::Sweep`].
    Sweep,
    /// `blogbench faults`: [`faults::FaultsRun`].
    Faults,
    /// `blogbench idioms`: [`idioms::Idioms`].
    Idioms,
    /// `blogbench scoreboard`: [`scoreboard::Scoreboard`].
    Scoreboard,
}

impl RunKind {
    pub const ALL: [RunKind; 5] = [
        RunKind::Batch,
        RunKind::Sweep,
        RunKind::Faults,
        RunKind::Idioms,
        RunKind::Scoreboard,
    ];

    /// The results file in the run's folder.
    pub const fn file(self) -> &'static str {
        match self {
            RunKind::Batch => "results.json",
            RunKind::Sweep => "sweep.json",
            RunKind::Faults => "faults.json",
            RunKind::Idioms => "idioms.json",
            RunKind::Scoreboard => "scoreboard.json",
        }
    }

    /// What the folder's name starts with, before the id.
    pub const fn prefix(self) -> &'static str {
        match self {
            RunKind::Sweep => "sweep-",
            RunKind::Faults => "faults-",
            RunKind::Batch | RunKind::Idioms | RunKind::Scoreboard => "",
        }
    }
}

/// What the run in `dir` is, read from the header of each JSON file there; a results file
/// written before headers named their kind is known by its file's name.
pub fn kind_of(dir: &Path) -> Result<RunKind> {
    #[derive(Deserialize)]
    struct Head {
        kind: Option<RunKind>,
    }
    let entries = std::fs::read_dir(dir).with_context(|| format!("read {}", dir.display()))?;
    let mut json: Vec<PathBuf> = entries
        .filter_map(|entry| Some(entry.ok()?.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    json.sort();
    for path in &json {
        if let Ok(Head { kind: Some(kind) }) = read_json(path) {
            return Ok(kind);
        }
    }
    RunKind::ALL
        .into_iter()
        .find(|kind| dir.join(kind.file()).is_file())
        .with_context(|| {
            format!(
                "{}: no results file of blogbench here (results.json, sweep.json, faults.json, idioms.json)",
                dir.display()
            )
        })
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Batch {
    #[serde(flatten)]
    pub header: RunHeader,
    pub cpu_sets: CpuSets,
    pub settings: Settings,
    /// Go, rustc, PostgreSQL, Redis, the load generator.
    pub tools: BTreeMap<String, String>,
    pub seed_checksum: String,
    pub ceilings: Ceilings,
    pub apps: Vec<AppResult>,
    /// The Go reference run beside each app (the pacer), so every app run has a Go run
    /// seconds away: its process and environment. Its runs are in each app's routes.
    #[serde(default)]
    pub pacer: Option<Pacer>,
}

/// The second Go reference process, on the app's CPUs and idle beside the app under test;
/// just before or after each app run, the same route is run against it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Pacer {
    pub app: String,
    pub env: BTreeMap<String, String>,
    pub warmup_secs: f64,
    /// Started afresh with each visit, as the app is; batches before this rule kept one
    /// pacer from the batch's start to its end.
    #[serde(default)]
    pub per_visit: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Machine {
    pub hostname: String,
    pub kernel: String,
    pub cpu_model: String,
    pub cores: usize,
    pub memory_gib: f64,
}

/// CPU lists in `taskset -c` syntax.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CpuSets {
    pub app: String,
    pub services: String,
    pub load: String,
    /// How the split was chosen.
    pub note: String,
    /// What `taskset` could not pin (empty when everything was pinned); only with
    /// `--allow-unpinned`, else the batch stops.
    #[serde(default)]
    pub unpinned: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Settings {
    pub connections: u32,
    pub duration_secs: f64,
    pub warmup_secs: f64,
    /// Rounds every app and route ran: each visits every app once and runs each route once
    /// (batches from before rounds called it runs per route).
    #[serde(alias = "runs")]
    pub rounds: u32,
    /// The seed the visiting order was drawn from (batches from before it visited the apps
    /// in a rotated order, each app's run before its Go run).
    #[serde(default)]
    pub order_seed: Option<u64>,
    /// With a precision (a fraction, 0.05 for ±5 %), rounds after `rounds` revisited the
    /// routes on which some app's ratio to Go was not yet known that closely, up to
    /// `max_rounds`.
    #[serde(default)]
    pub precision: Option<f64>,
    #[serde(default)]
    pub max_rounds: Option<u32>,
    /// Whether every app ran a revisited route (false: batches that revisited only the
    /// imprecise app/route cells, which left the others' pairs with fewer common rounds).
    #[serde(default)]
    pub precision_every_app: bool,
    pub loadgen: String,
    pub quick: bool,
    pub routes: Vec<String>,
    /// The slice length of the routes that read (docs/spec.md §5.5): the app and its pacer
    /// loaded in turn, `duration_secs` of slices each after `warmup_secs` of them; `None`:
    /// one whole run each, on `loadgen` (and batches from before slices).
    #[serde(default)]
    pub slice_secs: Option<f64>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Ceilings {
    /// The load generator against a minimal static server with a home-page-sized body.
    pub http: Option<Ceiling>,
    /// `pgbench` running each page's queries as a script: pages per second.
    pub database: BTreeMap<String, Ceiling>,
}

/// A ceiling measured like an app: warm-up, then runs. `per_sec` is the median of the
/// valid runs, `runs` their rates; `invalid` says why each other run did not count.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Ceiling {
    pub per_sec: f64,
    pub how: String,
    #[serde(default)]
    pub runs: Vec<f64>,
    /// Why a run did not count, one entry per invalid run.
    #[serde(default)]
    pub invalid: Vec<String>,
}

impl Ceiling {
    /// The lowest and highest valid run (the median alone for a batch that kept no runs).
    pub fn range(&self) -> (f64, f64) {
        self.runs
            .iter()
            .fold(None, |range: Option<(f64, f64)>, &rate| {
                Some(range.map_or((rate, rate), |(min, max)| (min.min(rate), max.max(rate))))
            })
            .unwrap_or((self.per_sec, self.per_sec))
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AppResult {
    pub name: String,
    pub stack: String,
    pub versions: BTreeMap<String, String>,
    /// The manifest's `[settings]`: pool, pings, queries per page, cache.
    #[serde(default)]
    pub settings: Option<app_settings::Settings>,
    /// The environment the harness set for the app (`WORKERS`, …), on top of the app's
    /// own defaults.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// `Failed` stops this app's benchmark (build, start, parity) with the reason.
    pub status: AppStatus,
    pub parity: Option<Parity>,
    /// The parity pages fetched again after the app's last run: a page that changed under
    /// load fails the app.
    #[serde(default)]
    pub parity_after_load: Option<Parity>,
    pub deviations: Vec<(String, String, String)>,
    pub routes: Vec<RouteResult>,
    /// The load after each start that its manifest asks for (`warmup`), before its first
    /// measured run: a part per route, per round.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub start_up_warmups: Vec<StartUpWarmup>,
    /// The app's visits, in the batch's order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub visits: Vec<Visit>,
}

/// When an app was visited, and which side of its pairs ran first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Visit {
    pub round: u32,
    /// Its place in the round's order (from 1).
    pub position: u32,
    /// The Go run of each pair came before the app's.
    pub pacer_first: bool,
    /// The process id of the visit's own pacer; none in batches that kept one pacer, or
    /// when the visit ended before its pacer started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pacer_pid: Option<u32>,
}

/// One route's part of an app's start-up warm-up in one round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StartUpWarmup {
    pub round: u32,
    pub route: String,
    /// The right answers (the route's page) finished in each second of the part.
    pub right_per_sec: Vec<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum AppStatus {
    Pending,
    Ok,
    Failed { stage: String, reason: String },
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Parity {
    pub pages: usize,
    pub mismatches: usize,
    /// The unified diff of the first differing page.
    pub first_diff: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RouteResult {
    pub route: String,
    pub path: String,
    /// The body length every response must have: the page the parity gate fetched.
    #[serde(default)]
    pub expected_bytes: Option<u64>,
    /// One run per round; `index` is the round.
    pub runs: Vec<Run>,
    /// The pacer's (Go's) run on the same route right after each of `runs`, same `index`.
    #[serde(default)]
    pub pacer_runs: Vec<Run>,
    /// The slices of each round measured in slices (docs/spec.md §5.5).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub slices: Vec<SlicedRound>,
}

/// Which of a pair's processes a slice loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PairSide {
    App,
    Pacer,
}

/// One round of a route measured in slices: the counted slices' order and each one's rate.
/// The round's runs give each side's mean of its slices' rates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SlicedRound {
    pub round: u32,
    /// The counted slices' sides, `A` the app and `P` the pacer, in the order they ran.
    pub order: String,
    /// Right answers per second of each counted slice, in the same order.
    pub rates: Vec<f64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Run {
    /// The round (1-based).
    pub index: u32,
    pub requests: u64,
    pub requests_per_sec: f64,
    pub latency_ms: Latency,
    pub status_codes: BTreeMap<String, u64>,
    pub errors: BTreeMap<String, u64>,
    /// The fewest connections the app held at once during the measured window (from its
    /// own sockets).
    pub connections: u32,
    /// Response body bytes the load generator read, over all responses.
    #[serde(default)]
    pub body_bytes: Option<u64>,
    /// Responses whose body length was not the expected one, when the load generator
    /// counts them one by one (wrk); oha gives only the total.
    #[serde(default)]
    pub wrong_length: Option<u64>,
    /// Admission (docs/spec.md §5): every condition held; else `invalid_reason` lists each
    /// that did not.
    pub valid: bool,
    pub invalid_reason: Option<String>,
    pub app_cpu_percent: f64,
    pub app_rss_max_mib: f64,
    pub postgres_cpu_percent: f64,
    pub redis_cpu_percent: f64,
    /// The load generator's raw output, relative to the batch folder (in slices, the pair's
    /// slices and their rates).
    pub raw_output: String,
    /// Reads that lacked the comment their client had just posted (the routes that write).
    #[serde(default)]
    pub stale_reads: Option<u64>,
    /// How busy the app's CPUs and the CPUs PostgreSQL, Redis and the load generator share
    /// were during the run; `None` in batches recorded before it.
    #[serde(default)]
    pub cpu_busy: Option<sweep::CpuBusy>,
}

impl Run {
    /// The CPUs of the services and the load generator were nearly saturated
    /// ([`sweep::SERVICE_BOUND_BUSY`]): they set the pace, not only the app.
    pub fn service_bound(&self) -> bool {
        self.cpu_busy.is_some_and(|busy| busy.service_bound())
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Latency {
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub p999: f64,
    pub max: f64,
}

impl RouteResult {
    /// The median req/s of the valid runs and how many there were.
    pub fn median_requests_per_sec(&self) -> Option<(f64, usize)> {
        median(self.valid_runs().map(|r| r.requests_per_sec))
    }

    pub fn median_latency(&self, pick: impl Fn(&Latency) -> f64) -> Option<f64> {
        median(self.valid_runs().map(|r| pick(&r.latency_ms))).map(|(m, _)| m)
    }

    pub fn valid_runs(&self) -> impl Iterator<Item = &Run> {
        self.runs.iter().filter(|r| r.valid)
    }

    /// App ÷ pacer req/s for each round where both runs counted.
    pub fn ratios_to_pacer(&self) -> Vec<f64> {
        self.ratios_to_pacer_by_round()
            .into_iter()
            .map(|(_, ratio)| ratio)
            .collect()
    }

    /// (round, app ÷ pacer req/s) for each round where both runs counted.
    pub fn ratios_to_pacer_by_round(&self) -> Vec<(u32, f64)> {
        self.valid_runs()
            .filter_map(|run| {
                let pacer = self
                    .pacer_runs
                    .iter()
                    .find(|p| p.index == run.index && p.valid)?;
                (pacer.requests_per_sec > 0.0)
                    .then(|| (run.index, run.requests_per_sec / pacer.requests_per_sec))
            })
            .collect()
    }
}

impl AppResult {
    pub fn failed(&self) -> bool {
        matches!(self.status, AppStatus::Failed { .. })
    }
}

impl Batch {
    /// What went wrong, one line each: failed apps and invalid runs. Empty for a clean
    /// batch; `blogbench bench` exits non-zero otherwise.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        for app in &self.apps {
            if let AppStatus::Failed { stage, reason } = &app.status {
                problems.push(format!("{}: failed at {stage}: {reason}", app.name));
            }
            for route in &app.routes {
                for (runs, whose) in [(&route.runs, ""), (&route.pacer_runs, " (pacer)")] {
                    for run in runs.iter().filter(|run| !run.valid) {
                        problems.push(format!(
                            "{} {} round {}{whose}: invalid: {}",
                            app.name,
                            route.route,
                            run.index,
                            run.invalid_reason
                                .as_deref()
                                .unwrap_or("no reason recorded")
                        ));
                    }
                }
            }
        }
        problems
    }
}

pub fn median(values: impl Iterator<Item = f64>) -> Option<(f64, usize)> {
    let mut values: Vec<f64> = values.collect();
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let n = values.len();
    let m = if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    };
    Some((m, n))
}

/// A batch's (or a faults run's, a sweep's, an idioms page's) folder: `batch` itself when it
/// is one, else `<results_dir>/<batch>`.
pub fn batch_dir(results_dir: &Path, batch: &str) -> PathBuf {
    let path = Path::new(batch);
    if RunKind::ALL
        .iter()
        .any(|kind| path.join(kind.file()).is_file())
    {
        path.to_owned()
    } else {
        results_dir.join(batch)
    }
}

impl Batch {
    pub fn load(path: &Path) -> Result<Batch> {
        read_json(path)
    }

    /// Writes `results.json` in `dir` through a temporary file and a rename.
    pub fn save(&self, dir: &Path) -> Result<()> {
        write_json(&dir.join(RunKind::Batch.file()), self)
    }
}

/// A results file, parsed.
pub fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T> {
    let text = std::fs::read_to_string(path).with_context(|| format!("read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("parse {}", path.display()))
}

/// `value` as indented JSON at `path`, written atomically.
pub fn write_json(path: &Path, value: &impl Serialize) -> Result<()> {
    write_atomically(path, serde_json::to_string_pretty(value)?.as_bytes())
}

/// Writes `bytes` to `path` so a reader sees the old file or the new one, never half.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes).with_context(|| format!("write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("rename {}", path.display()))
}

/// A checked-in example's file under `docs/`: tests check the figures of the docs pages against them.
#[cfg(test)]
pub(crate) fn example_file(path: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../docs")
        .join(path)
}

#[cfg(test)]
mod tests;
