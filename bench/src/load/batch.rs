//! The fair benchmark (docs/spec.md §5): rounds that each visit every app once, in a rotated
//! order; per visit a fresh start, the parity gate, and per route a warm-up and a run, with
//! a Go run on the same route right after it (the pacer); parity again after the load;
//! `results/<batch>/results.json` saved after every run.

use super::admission::{Expected, admission};
use super::ceilings;
use super::client::{self, Load, Pace, Workload};
use super::loadgen::{LoadRun, Loadgen};
use super::sampler::{Sampler, Usage, measured_window};
use super::setup::{git_commit, machine, tools};
use super::warmup;
use crate::parity::{self, Fetched};
use crate::progress::Progress;
use crate::results::sweep::CpuBusy;
use crate::results::{
    AppResult, AppStatus, Batch, Ceilings, CpuSets, Pacer, Parity, RouteResult, Run, Settings,
};
use crate::routes;
use crate::stack::apps::{self, App};
use crate::stack::cpus::{CpuSplit, PinnedServices, format_list, pin_process};
use crate::stack::page_cache;
use crate::stack::processes::{local_ports, process_tree};
use crate::stack::server::RunningApp;
use crate::stack::services;
use anyhow::{Context, Result, bail, ensure};
use sqlx::PgConnection;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

pub struct Options {
    pub apps: Vec<App>,
    pub routes: Vec<String>,
    pub connections: u32,
    pub duration: Duration,
    pub warmup: Duration,
    /// The pacer's warm-up before each of its runs (it has been running since the batch
    /// started; this only moves it to the route).
    pub pacer_warmup: Duration,
    pub rounds: u32,
    pub quick: bool,
    pub loadgen: Loadgen,
    pub cpus: CpuSplit,
    /// Run even when `taskset` cannot pin everything, and say so in the results.
    pub allow_unpinned: bool,
    pub results_dir: PathBuf,
    pub command: String,
}

/// Variables that shape an app when set in the harness's environment; recorded with the
/// ones the harness sets.
const INHERITED_ENV: [&str; 6] = [
    "DATABASE_URL",
    "REDIS_URL",
    "POOL_MODE",
    "PING_ON_ACQUIRE",
    "GOGC",
    "GOMAXPROCS",
];

/// The apps' order in `round` (from 1): each round starts one app later, so no app always
/// runs first or last.
pub fn rotated(count: usize, round: u32) -> impl Iterator<Item = usize> {
    (0..count).map(move |offset| (offset + round as usize - 1) % count)
}

/// What the harness sets for every app it loads (the same for the pacer), then what it
/// passes on from its own environment.
pub fn harness_env(app_cpus: &[usize]) -> BTreeMap<String, String> {
    let mut env = BTreeMap::from([
        ("WORKERS".to_owned(), app_cpus.len().to_string()),
        (
            "POOL_MAX".to_owned(),
            workload::DEFAULT_POOL_MAX.to_string(),
        ),
        (
            "POOL_MIN".to_owned(),
            workload::DEFAULT_POOL_MIN.to_string(),
        ),
    ]);
    for name in INHERITED_ENV {
        if let Ok(value) = std::env::var(name) {
            env.insert(name.to_owned(), value);
        }
    }
    env
}

/// Resets the comments and checks the database holds the seeded data (docs/spec.md §2);
/// returns an open connection and the data's checksum.
pub fn seeded_database(runtime: &tokio::runtime::Runtime) -> Result<(PgConnection, String)> {
    let database_url = services::database_url();
    let data = seed::data::Dataset::generate();
    let expected = data.checksum();
    let writing = services::lock_comments()?;
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

/// What every step of a batch needs.
struct Batcher<'a> {
    options: &'a Options,
    dir: PathBuf,
    batch: Batch,
    /// The Go reference's parity pages, fetched once per batch.
    reference: Vec<Fetched>,
    sample: parity::Sample,
    runtime: tokio::runtime::Runtime,
    monitor: PgConnection,
    baseline_connections: usize,
    /// The Go reference running beside the app under test.
    pacer: Option<RunningApp>,
    progress: Progress,
    interrupted: &'a AtomicBool,
}

/// Runs a batch; returns its folder. Ctrl-C (`interrupted`) stops after the current run,
/// keeping everything finished.
pub fn run(options: &Options, interrupted: &AtomicBool) -> Result<PathBuf> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let database_url = services::database_url();
    let (monitor, expected) = seeded_database(&runtime)?;
    page_cache::clear()?;

    let pinned = PinnedServices::pin(&options.cpus.services)?;
    let mut unpinned = pinned.unpinned.clone();
    // The sampler and the progress output run in this process: keep them off the app's CPUs.
    if let Err(err) = pin_process(std::process::id(), &options.cpus.load) {
        unpinned.push(format!("blogbench itself: {err:#}"));
    }
    if !unpinned.is_empty() && !options.allow_unpinned {
        bail!(
            "cannot pin: {}; fix it, or run with --allow-unpinned to benchmark anyway (the report then says so)",
            unpinned.join("; ")
        );
    }

    let id = chrono::Utc::now().format("%Y%m%d%H%M%S").to_string();
    let dir = options.results_dir.join(&id);
    std::fs::create_dir_all(dir.join("raw"))
        .with_context(|| format!("create {}", dir.display()))?;
    let mut batch = new_batch(options, id, expected, &runtime)?;
    batch.cpu_sets.unpinned = unpinned;
    batch.save(&dir)?;

    let page_scripts = runtime.block_on(ceilings::page_scripts(&database_url))?;
    let runs_per_round = options.apps.len() * options.routes.len() * 2;
    let ceiling_steps = 1 + page_scripts.len();
    let progress = Progress::new(
        (ceiling_steps + runs_per_round * options.rounds as usize) as u64,
        "steps",
    );
    let mut cx = Batcher {
        options,
        dir,
        batch,
        reference: Vec::new(),
        sample: parity::parity_sample(),
        runtime,
        monitor,
        baseline_connections: 0,
        pacer: None,
        progress,
        interrupted,
    };
    cx.fetch_reference()?;
    cx.start_pacer()?;
    cx.baseline_connections = cx.blogbench_connections()?;
    cx.measure_ceilings(page_scripts)?;
    'rounds: for round in 1..=options.rounds {
        for index in rotated(options.apps.len(), round) {
            if interrupted.load(Ordering::SeqCst) {
                break 'rounds;
            }
            if cx.batch.apps[index].failed() {
                continue;
            }
            if let Err(err) = cx.visit(index, round) {
                let stage = if interrupted.load(Ordering::SeqCst) {
                    "interrupted"
                } else {
                    "run"
                };
                cx.fail(index, stage, &format!("{err:#}"))?;
            }
        }
    }
    for index in 0..options.apps.len() {
        if cx.batch.apps[index].status == AppStatus::Pending {
            cx.fail(index, "interrupted", "Ctrl-C before this app started")?;
        }
    }
    if let Some(pacer) = cx.pacer.take() {
        pacer.stop();
    }
    drop(pinned);
    cx.progress.finish();
    cx.batch.finished_at = Some(now());
    cx.batch.save(&cx.dir)?;
    Ok(cx.dir)
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

fn new_batch(
    options: &Options,
    id: String,
    seed_checksum: String,
    runtime: &tokio::runtime::Runtime,
) -> Result<Batch> {
    let apps = options
        .apps
        .iter()
        .map(|app| AppResult {
            name: app.name.clone(),
            stack: app.manifest.stack.clone(),
            versions: app.versions().unwrap_or_default(),
            settings: Some(app.manifest.settings.clone()),
            env: BTreeMap::new(),
            status: AppStatus::Pending,
            parity: None,
            parity_after_load: None,
            deviations: app
                .manifest
                .deviations
                .iter()
                .map(|d| (d.setting.clone(), d.value.clone(), d.reason.clone()))
                .collect(),
            routes: Vec::new(),
            start_up_warmups: Vec::new(),
        })
        .collect();
    Ok(Batch {
        id,
        started_at: now(),
        finished_at: None,
        command: options.command.clone(),
        git_commit: git_commit(),
        machine: machine(),
        cpu_sets: CpuSets {
            app: format_list(&options.cpus.app),
            services: format_list(&options.cpus.services),
            load: format_list(&options.cpus.load),
            note: options.cpus.note.clone(),
            unpinned: Vec::new(),
        },
        settings: Settings {
            connections: options.connections,
            duration_secs: options.duration.as_secs_f64(),
            warmup_secs: options.warmup.as_secs_f64(),
            rounds: options.rounds,
            loadgen: options.loadgen.name().to_owned(),
            quick: options.quick,
            routes: options.routes.clone(),
        },
        tools: tools(options.loadgen, runtime),
        seed_checksum,
        ceilings: Ceilings::default(),
        apps,
        pacer: None,
    })
}

impl Batcher<'_> {
    fn save(&self) -> Result<()> {
        self.batch.save(&self.dir)
    }

    fn fail(&mut self, index: usize, stage: &str, reason: &str) -> Result<()> {
        self.progress.say(format!(
            "{}: failed at {stage}: {reason}",
            self.batch.apps[index].name
        ));
        self.batch.apps[index].status = AppStatus::Failed {
            stage: stage.to_owned(),
            reason: reason.to_owned(),
        };
        self.save()
    }

    /// Connections to database blogbench other than this monitor's and the pacer's.
    fn blogbench_connections(&mut self) -> Result<usize> {
        let query = sqlx::query_scalar::<_, Option<i32>>(
            "SELECT client_port FROM pg_stat_activity \
             WHERE datname = 'blogbench' AND pid <> pg_backend_pid()",
        );
        let ports = self.runtime.block_on(query.fetch_all(&mut self.monitor))?;
        let pacer_ports = self
            .pacer
            .as_ref()
            .map(|pacer| local_ports(&process_tree(pacer.pid())))
            .unwrap_or_default();
        Ok(ports
            .into_iter()
            .filter(|port| !port.is_some_and(|p| pacer_ports.contains(&(p as u16))))
            .count())
    }

    /// Waits until the previous app's connections are gone (docs/spec.md §5).
    fn wait_for_connection_baseline(&mut self) -> Result<()> {
        let started = Instant::now();
        loop {
            let now = self.blogbench_connections()?;
            if now <= self.baseline_connections {
                return Ok(());
            }
            if started.elapsed() > Duration::from_secs(30) {
                bail!(
                    "postgres still has {now} connections to blogbench, baseline {}",
                    self.baseline_connections
                );
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    fn app_env(&self) -> BTreeMap<String, String> {
        harness_env(&self.options.cpus.app)
    }

    fn start(&self, app: &App, env: &BTreeMap<String, String>) -> Result<RunningApp> {
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        RunningApp::start_pinned(app, &env, Some(&self.options.cpus.app))
    }

    fn fetch_reference(&mut self) -> Result<()> {
        self.progress.step("go reference pages");
        let go = apps::find(apps::GO)?;
        let running = self.start(&go, &self.app_env())?;
        self.reference = parity::fetch_all(&running.base_url, &self.sample)?;
        running.stop();
        for route in self.options.routes.iter().filter(|r| !routes::writes(r)) {
            self.expected_bytes(route)?;
        }
        Ok(())
    }

    /// The body length of the route's page as the parity gate fetched it from Go.
    fn expected_bytes(&self, route: &str) -> Result<u64> {
        let path = routes::path(route).with_context(|| format!("unknown route {route}"))?;
        parity::read_page(&self.reference, path)
            .map(|page| page.body.len() as u64)
            .with_context(|| format!("route {route}: {path} is not in the parity sample"))
    }

    fn start_pacer(&mut self) -> Result<()> {
        let go = apps::find(apps::GO)?;
        let env = self.app_env();
        self.pacer = Some(self.start(&go, &env).context("start the pacer (Go)")?);
        self.batch.pacer = Some(Pacer {
            app: go.name,
            env,
            warmup_secs: self.options.pacer_warmup.as_secs_f64(),
        });
        self.save()
    }

    /// The HTTP client ceiling, then the database ceiling of each page in `page_scripts`;
    /// Ctrl-C stops after the current one (the rounds then record every app as interrupted).
    fn measure_ceilings(&mut self, page_scripts: Vec<(&str, String)>) -> Result<()> {
        let options = self.options;
        let plan = ceilings::Plan {
            loadgen: options.loadgen,
            connections: options.connections,
            warmup: options.warmup,
            duration: options.duration,
            runs: options.rounds,
            app_cpus: &options.cpus.app,
            load_cpus: &options.cpus.load,
        };
        self.progress.step("HTTP client ceiling");
        let home_bytes = self.expected_bytes("home").unwrap_or(10_000) as usize;
        self.batch.ceilings.http = Some(ceilings::http(&plan, home_bytes, &self.dir.join("raw"))?);
        self.progress.inc();
        let database_url = services::database_url();
        for (page, script) in page_scripts {
            if self.interrupted.load(Ordering::SeqCst) {
                self.progress
                    .say("Ctrl-C: the remaining database ceilings are not measured");
                break;
            }
            self.progress.step(format!("database ceiling · {page}"));
            let ceiling = ceilings::database(
                &plan,
                page,
                &script,
                &database_url,
                ceilings::pool_connections(),
                &self.dir.join("raw"),
            )?;
            self.batch
                .ceilings
                .database
                .insert(page.to_owned(), ceiling);
            self.progress.inc();
        }
        self.save()
    }

    /// One app's turn in a round: start, parity gate, each route (app run, then the pacer's
    /// run), parity again, stop.
    fn visit(&mut self, index: usize, round: u32) -> Result<()> {
        let options = self.options;
        let app = &options.apps[index];
        if let Err(err) = app.ensure_built() {
            return self.fail(index, "build", &format!("{err:#}"));
        }
        // After an app that failed mid-visit, its connections may still be closing.
        self.wait_for_connection_baseline()?;
        let label = format!("round {round}/{} · {}", options.rounds, app.name);
        self.progress.step(format!("{label} · starting"));
        let env = self.app_env();
        self.batch.apps[index].env = env.clone();
        let running = match self.start(app, &env) {
            Ok(running) => running,
            Err(err) => return self.fail(index, "start", &format!("{err:#}")),
        };

        let gate = self.parity_check(&running)?;
        let first_failure = gate.first_diff.clone();
        if self.batch.apps[index].parity.is_none() || first_failure.is_some() {
            self.batch.apps[index].parity = Some(gate);
        }
        if let Some(diff) = first_failure {
            return self.fail(index, "parity", &first_line(&diff));
        }
        if let Some(warmup) = app.manifest.settings.warmup()? {
            self.progress.step(format!(
                "{label} · start-up warm-up, {} s",
                warmup.as_secs()
            ));
            let stem = self
                .dir
                .join(format!("raw/{}-start-up-warmup-round{round}", app.name));
            let parts = warmup::after_start(
                &running,
                warmup,
                &options.routes,
                options.connections,
                options.cpus.load.len(),
                round,
                &stem,
            )?;
            self.batch.apps[index].start_up_warmups.extend(parts);
            self.save()?;
        }

        for route in &options.routes {
            if self.interrupted.load(Ordering::SeqCst) {
                bail!("Ctrl-C during {route}");
            }
            let path = routes::path(route).with_context(|| format!("unknown route {route}"))?;
            let expected_bytes = match routes::writes(route) {
                true => None,
                false => Some(self.expected_bytes(route)?),
            };
            let routes = &mut self.batch.apps[index].routes;
            if !routes.iter().any(|r| r.route == *route) {
                routes.push(RouteResult {
                    route: route.clone(),
                    path: path.to_owned(),
                    expected_bytes,
                    runs: Vec::new(),
                    pacer_runs: Vec::new(),
                });
            }

            self.progress.step(format!("{label} · {route}"));
            let stem = format!("raw/{}-{route}-round{round}", app.name);
            let run = self.measure(&running, route, round, options.warmup, &stem)?;
            self.route_result(index, route).runs.push(run);
            self.save()?;
            self.progress.inc();

            self.progress.step(format!("{label} · {route} · go pacer"));
            let pacer = self.pacer.as_ref().context("the pacer is not running")?;
            let stem = format!("{stem}-pacer");
            let run = self.measure(pacer, route, round, options.pacer_warmup, &stem)?;
            self.route_result(index, route).pacer_runs.push(run);
            self.save()?;
            self.progress.inc();
        }

        let after = self.parity_check(&running)?;
        let changed = after.first_diff.clone();
        self.batch.apps[index].parity_after_load = Some(after);
        running.stop();
        if let Err(err) = self.wait_for_connection_baseline() {
            return self.fail(index, "stop", &format!("{err:#}"));
        }
        match changed {
            Some(diff) => self.fail(
                index,
                "after load",
                &format!("pages changed under load: {}", first_line(&diff)),
            ),
            None => {
                self.batch.apps[index].status = AppStatus::Ok;
                self.save()
            }
        }
    }

    fn route_result(&mut self, index: usize, route: &str) -> &mut RouteResult {
        self.batch.apps[index]
            .routes
            .iter_mut()
            .find(|r| r.route == route)
            .expect("added before its first run")
    }

    /// Fetches the parity sample from `running` and compares it with Go's pages.
    fn parity_check(&self, running: &RunningApp) -> Result<Parity> {
        let fetched = parity::fetch_all(&running.base_url, &self.sample)?;
        let mismatches = parity::compare(&self.reference, &fetched, &running.name);
        Ok(Parity {
            pages: fetched.len(),
            mismatches: mismatches.len(),
            first_diff: mismatches.first().map(|m| {
                format!(
                    "{} of {} answers differ from go; first: {} ({})\n{}",
                    mismatches.len(),
                    fetched.len(),
                    m.request,
                    m.what,
                    m.diff
                )
            }),
        })
    }

    /// One run of `target` on `route`: the page cache cleared (and primed for a cached
    /// route), a warm-up, then the measured run, sampled and admitted. The load generator's
    /// output goes to `<stem>.<ext>` (and `<stem>-warmup.<ext>`) in the batch folder.
    fn measure(
        &self,
        target: &RunningApp,
        route: &str,
        round: u32,
        warmup: Duration,
        stem: &str,
    ) -> Result<Run> {
        if routes::writes(route) {
            return self.measure_comments(target, route, round, warmup, stem);
        }
        let options = self.options;
        let path = routes::path(route).with_context(|| format!("unknown route {route}"))?;
        let url = target.url(path);
        let expected = Expected {
            connections: options.connections,
            body_bytes: Some(self.expected_bytes(route)?),
            writes: false,
        };
        // Apps share the `page:*` keys, and not every app stores the same value there.
        page_cache::clear()?;
        if path.starts_with("/cached/") {
            ureq::get(&url).call()?;
        }
        let raw = |what: &str| {
            self.dir
                .join(format!("{stem}{what}.{}", options.loadgen.extension()))
        };
        options.loadgen.run(
            &url,
            options.connections,
            warmup,
            &options.cpus.load,
            &raw("-warmup"),
            expected.body_bytes,
        )?;
        let sampler = Sampler::start_once_held(
            target.pid(),
            target.port,
            measured_window(options.duration),
            options.connections,
        );
        let load = options.loadgen.run(
            &url,
            options.connections,
            options.duration,
            &options.cpus.load,
            &raw(""),
            expected.body_bytes,
        );
        let usage = sampler.finish();
        let raw_output = format!("{stem}.{}", options.loadgen.extension());
        let busy = usage.cpu_busy(&options.cpus);
        Ok(admitted_run(
            round, load?, expected, &usage, busy, raw_output,
        ))
    }

    /// One run of a route that writes (docs/spec.md §5.2), on the harness's own client: the
    /// comments reset and the page cache cleared, a warm-up, again, then the measured run.
    /// Client `i` comments on post `1000 − i` only; every request is kept (`<stem>.csv`).
    fn measure_comments(
        &self,
        target: &RunningApp,
        route: &str,
        round: u32,
        warmup: Duration,
        stem: &str,
    ) -> Result<Run> {
        let options = self.options;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(options.cpus.load.len().max(1))
            .enable_all()
            .build()?;
        let start_over = || -> Result<()> {
            services::reset_comments()?;
            page_cache::clear()?;
            Ok(())
        };
        let _writing = services::lock_comments()?;
        start_over()?;
        let posts = client::seeded_posts(target, options.connections)?;
        let workload = Workload::Comments {
            posts: Arc::clone(&posts),
            mixed: route == "mixed",
        };
        let addr = format!("127.0.0.1:{}", target.port);
        let load = |duration: Duration| {
            let load = Load::start(&runtime, &addr, &workload, options.connections, Pace::Flat);
            std::thread::sleep(duration);
            load.finish(&runtime)
        };
        load(warmup);
        start_over()?;
        let sampler = Sampler::start_once_held(
            target.pid(),
            target.port,
            measured_window(options.duration),
            options.connections,
        );
        let records = load(options.duration);
        let usage = sampler.finish();
        start_over()?;
        let raw_output = format!("{stem}.csv");
        std::fs::write(self.dir.join(&raw_output), client::records_csv(&records))?;
        let expected = Expected {
            connections: options.connections,
            body_bytes: None,
            writes: true,
        };
        let load = client::summarise(&records, &posts);
        let busy = usage.cpu_busy(&options.cpus);
        Ok(admitted_run(
            round, load, expected, &usage, busy, raw_output,
        ))
    }
}

/// A run's numbers, with whether it counts (docs/spec.md §5.6) and why not.
fn admitted_run(
    round: u32,
    load: LoadRun,
    expected: Expected,
    usage: &Usage,
    cpu_busy: Option<CpuBusy>,
    raw_output: String,
) -> Run {
    let invalid_reason = admission(&load, expected, usage);
    Run {
        index: round,
        requests: load.requests,
        requests_per_sec: load.requests_per_sec,
        latency_ms: load.latency_ms,
        status_codes: load.status_codes,
        errors: load.errors,
        connections: usage.connections_min,
        body_bytes: load.body_bytes,
        wrong_length: load.wrong_length,
        valid: invalid_reason.is_none(),
        invalid_reason,
        app_cpu_percent: usage.app_cpu_percent,
        app_rss_max_mib: usage.app_rss_max_mib,
        postgres_cpu_percent: usage.postgres_cpu_percent,
        redis_cpu_percent: usage.redis_cpu_percent,
        raw_output,
        stale_reads: expected.writes.then_some(load.stale_reads),
        cpu_busy,
    }
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().to_owned()
}

/// The folder results go to by default: `<workspace>/results`.
pub fn default_results_dir() -> PathBuf {
    apps::workspace_dir().join("results")
}
