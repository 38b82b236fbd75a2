//! `results/<batch>/results.json`: everything a batch measured, written atomically after
//! every run so a crash or Ctrl-C loses nothing that finished. The report is built from this
//! file alone.

pub mod app_settings;
pub mod faults;
pub mod idioms;
pub mod profile;
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
}

impl RunKind {
    pub const ALL: [RunKind; 4] = [
        RunKind::Batch,
        RunKind::Sweep,
        RunKind::Faults,
        RunKind::Idioms,
    ];

    /// The results file in the run's folder.
    pub const fn file(self) -> &'static str {
        match self {
            RunKind::Batch => "results.json",
            RunKind::Sweep => "sweep.json",
            RunKind::Faults => "faults.json",
            RunKind::Idioms => "idioms.json",
        }
    }

    /// What the folder's name starts with, before the id.
    pub const fn prefix(self) -> &'static str {
        match self {
            RunKind::Sweep => "sweep-",
            RunKind::Faults => "faults-",
            RunKind::Batch | RunKind::Idioms => "",
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
    /// The load generator's raw output, relative to the batch folder.
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

/// A checked-in example's file under `docs/`: tests check the README's figures against them.
#[cfg(test)]
pub(crate) fn example_file(path: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../docs")
        .join(path)
}

#[cfg(test)]
mod tests {
    use super::{Batch, Run, RunKind, example_file, kind_of, median};

    /// A folder's kind comes from its file's header, whatever the file is called; a file
    /// from before headers named it is known by its name; a folder with neither is refused.
    #[test]
    fn a_run_is_known_by_its_header_then_by_its_file_name() {
        let named = tempfile::tempdir().unwrap();
        std::fs::write(named.path().join("verdicts.json"), "[]").unwrap();
        std::fs::write(
            named.path().join("renamed.json"),
            r#"{"kind": "faults", "id": "1"}"#,
        )
        .unwrap();
        assert_eq!(kind_of(named.path()).unwrap(), RunKind::Faults);
        let legacy = tempfile::tempdir().unwrap();
        std::fs::write(legacy.path().join("sweep.json"), r#"{"id": "1"}"#).unwrap();
        assert_eq!(kind_of(legacy.path()).unwrap(), RunKind::Sweep);
        let empty = tempfile::tempdir().unwrap();
        let refused = kind_of(empty.path()).unwrap_err().to_string();
        assert!(refused.contains("no results file"), "{refused}");
        // The checked-in examples, all written before the header named their kind.
        for (folder, kind) in [
            ("example-report-20261205042703", RunKind::Batch),
            ("example-sweep-20261205010548", RunKind::Sweep),
            ("example-faults-20261205004639", RunKind::Faults),
            ("example-idioms-20261203074306", RunKind::Idioms),
        ] {
            assert_eq!(kind_of(&example_file(folder)).unwrap(), kind, "{folder}");
        }
    }

    /// The README's cached-detail sentence on docs/example-report-20261203071113: each app's
    /// ratio to its paired Go runs, rounded as the report rounds (min, median, max).
    #[test]
    fn the_example_batch_s_cached_detail_ratios() {
        let batch =
            Batch::load(&example_file("example-report-20261203071113/results.json")).unwrap();
        let ratios = |app: &str| {
            let app = batch.apps.iter().find(|a| a.name == app).unwrap();
            let route = app
                .routes
                .iter()
                .find(|r| r.route == "cached-detail")
                .unwrap();
            let ratios = route.ratios_to_pacer();
            let (median, _) = median(ratios.iter().copied()).unwrap();
            let low = ratios.iter().copied().fold(f64::MAX, f64::min);
            let high = ratios.iter().copied().fold(0.0, f64::max);
            [low, median, high].map(|r| (r * 100.0).round() / 100.0)
        };
        assert_eq!(ratios("go"), [1.00, 1.03, 1.07]);
        assert_eq!(ratios("gin"), [0.94, 1.43, 1.98]);
        assert_eq!(ratios("fasthttp"), [0.83, 1.32, 1.43]);
        let rust = [
            "axum-sqlx",
            "axum-sqlx-sysalloc",
            "axum-sqlx-jemalloc",
            "hyper",
            "warp",
            "axum-postgres",
        ];
        for rust in rust {
            let [low, median, _] = ratios(rust);
            assert!(low > 1.07 && (2.25..2.6).contains(&median), "{rust}");
        }
    }

    /// The README's ratios to Go for the batch of the six camps: the median over the rounds,
    /// and the lowest and highest round; and the home runs it leaves out.
    #[test]
    fn the_six_camp_batch_s_ratios() {
        let batch =
            Batch::load(&example_file("example-report-20261204235200/results.json")).unwrap();
        let route = |app: &str, route: &str| {
            let app = batch.apps.iter().find(|a| a.name == app).unwrap();
            app.routes
                .iter()
                .find(|r| r.route == route)
                .unwrap()
                .clone()
        };
        let ratios = |app: &str, name: &str| {
            let ratios = route(app, name).ratios_to_pacer();
            let (median, _) = median(ratios.iter().copied()).unwrap();
            let low = ratios.iter().copied().fold(f64::MAX, f64::min);
            let high = ratios.iter().copied().fold(0.0, f64::max);
            [low, median, high].map(|r| (r * 100.0).round() / 100.0)
        };
        let table = [
            (
                "go",
                [
                    [1.01, 1.11, 1.12],
                    [0.96, 1.01, 1.01],
                    [0.99, 1.00, 1.00],
                    [1.04, 1.06, 1.12],
                    [0.88, 0.96, 1.11],
                ],
            ),
            (
                "gin",
                [
                    [1.09, 1.14, 1.17],
                    [0.95, 1.00, 1.00],
                    [0.97, 1.00, 1.02],
                    [0.99, 1.01, 1.10],
                    [0.86, 0.97, 1.04],
                ],
            ),
            (
                "axum-sqlx",
                [
                    [1.06, 1.30, 1.41],
                    [2.11, 2.23, 2.41],
                    [1.17, 1.17, 1.18],
                    [0.93, 0.96, 0.97],
                    [0.80, 1.05, 1.14],
                ],
            ),
            (
                "actix-sqlx",
                [
                    [1.14, 1.24, 1.39],
                    [2.21, 2.32, 2.36],
                    [1.17, 1.18, 1.18],
                    [0.91, 0.91, 0.92],
                    [1.11, 1.18, 1.39],
                ],
            ),
            (
                "fastify",
                [
                    [0.76, 0.77, 0.84],
                    [1.08, 1.15, 1.19],
                    [1.19, 1.21, 1.22],
                    [0.92, 0.99, 1.08],
                    [0.92, 0.99, 1.05],
                ],
            ),
            (
                "fastapi",
                [
                    [0.39, 0.42, 0.43],
                    [0.15, 0.17, 0.19],
                    [0.03, 0.03, 0.03],
                    [0.45, 0.47, 0.50],
                    [0.27, 0.31, 0.32],
                ],
            ),
            (
                "spring-webflux",
                [
                    [0.71, 0.76, 0.77],
                    [0.69, 0.74, 0.81],
                    [0.94, 0.98, 0.98],
                    [0.39, 0.50, 0.55],
                    [0.54, 0.65, 0.77],
                ],
            ),
            (
                "laravel",
                [
                    [0.09, 0.09, 0.11],
                    [0.03, 0.03, 0.03],
                    [0.15, 0.16, 0.17],
                    [0.08, 0.09, 0.10],
                    [0.05, 0.06, 0.07],
                ],
            ),
        ];
        let routes = ["detail", "cached-detail", "compute", "write", "mixed"];
        for (app, row) in table {
            for (name, cell) in routes.iter().zip(row) {
                assert_eq!(ratios(app, name), cell, "{app} {name}");
            }
        }
        // FastAPI's compute counted once; the other rounds held 31 and 33 connections.
        let compute = route("fastapi", "compute");
        let held: Vec<&str> = compute
            .runs
            .iter()
            .filter_map(|run| {
                let reason = run.invalid_reason.as_deref()?;
                let held = &reason[reason.find("held ").unwrap() + 5..];
                Some(&held[..held.find(' ').unwrap()])
            })
            .collect();
        assert_eq!(held, ["31", "33"]);
        // The home runs left out: each the first run of a visit, with PostgreSQL's CPU per
        // page five to eight times the batch's median for the page.
        let per_page = |run: &Run| run.postgres_cpu_percent / 100.0 * 1e6 / run.requests_per_sec;
        let all: Vec<f64> = batch
            .apps
            .iter()
            .flat_map(|app| &app.routes)
            .filter(|r| r.route == "home")
            .flat_map(|r| r.runs.iter().chain(&r.pacer_runs))
            .map(per_page)
            .collect();
        let (typical, _) = median(all.iter().copied()).unwrap();
        assert_eq!(typical.round(), 316.0);
        let far_above: Vec<f64> = all.iter().copied().filter(|&v| v > 5.0 * typical).collect();
        assert_eq!(far_above.len(), 3, "{far_above:?}");
        for (app, round, ratio, microseconds) in [
            ("actix-sqlx", 2, 0.19, 2457.0),
            ("fastify", 2, 0.20, 2042.0),
            ("laravel", 1, 0.20, 1687.0),
        ] {
            let home = route(app, "home");
            let run = home.runs.iter().find(|r| r.index == round).unwrap();
            let pacer = home.pacer_runs.iter().find(|r| r.index == round).unwrap();
            let measured = run.requests_per_sec / pacer.requests_per_sec;
            assert_eq!((measured * 100.0).round() / 100.0, ratio, "{app}");
            assert_eq!(per_page(run).round(), microseconds, "{app}");
            assert!(per_page(run) > 5.0 * typical, "{app}: {} µs", per_page(run));
        }
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median([3.0, 1.0, 2.0].into_iter()), Some((2.0, 3)));
        assert_eq!(median([4.0, 1.0].into_iter()), Some((2.5, 2)));
        assert_eq!(median(std::iter::empty()), None);
    }
}
