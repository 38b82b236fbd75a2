//! The fair benchmark (SPEC §5): one app at a time, pinned CPUs, parity gate, warm-up,
//! repeated runs, admission, and `results/<batch>/results.json` saved after every run.

use super::admission::admission;
use super::ceilings;
use super::loadgen::Loadgen;
use super::sampler::Sampler;
use super::setup::{git_commit, machine, tools};
use crate::parity::{self, Fetched};
use crate::progress::Progress;
use crate::results::{
    AppResult, AppStatus, Batch, Ceilings, CpuSets, Parity, RouteResult, Run, Settings,
};
use crate::routes;
use crate::stack::apps::{self, App};
use crate::stack::cpus::{CpuSplit, PinnedServices, format_list};
use crate::stack::page_cache;
use crate::stack::server::RunningApp;
use crate::stack::services;
use anyhow::{Context, Result, bail, ensure};
use sqlx::PgConnection;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

pub struct Options {
    pub apps: Vec<App>,
    pub routes: Vec<String>,
    pub connections: u32,
    pub duration: Duration,
    pub warmup: Duration,
    pub runs: u32,
    pub quick: bool,
    pub loadgen: Loadgen,
    pub cpus: CpuSplit,
    pub results_dir: PathBuf,
    pub command: String,
}

/// What every step of a batch needs.
struct Batcher<'a> {
    options: &'a Options,
    dir: PathBuf,
    batch: Batch,
    reference: Vec<Fetched>,
    paths: Vec<String>,
    runtime: tokio::runtime::Runtime,
    monitor: PgConnection,
    baseline_connections: i64,
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
    let data = seed::data::Dataset::generate();
    let expected = data.checksum();
    let (monitor, found) = runtime.block_on(async {
        let mut conn = seed::db::connect(&database_url).await?;
        let found = seed::db::checksum(&mut conn, &data).await?;
        anyhow::Ok((conn, found))
    })?;
    ensure!(
        found.as_deref() == Some(expected.as_str()),
        "postgres: database blogbench does not hold the expected data (checksum {found:?}, expected {expected}); run `make services`"
    );
    page_cache::clear()?;

    let id = chrono::Utc::now().format("%Y%m%d%H%M%S").to_string();
    let dir = options.results_dir.join(&id);
    std::fs::create_dir_all(dir.join("raw"))
        .with_context(|| format!("create {}", dir.display()))?;
    let batch = new_batch(options, id, expected, &runtime)?;
    batch.save(&dir)?;

    let total_runs = options.apps.len() * options.routes.len() * (options.runs as usize + 1);
    let progress = Progress::new(total_runs as u64, "runs");
    let mut cx = Batcher {
        options,
        dir,
        batch,
        reference: Vec::new(),
        paths: parity::parity_paths(),
        runtime,
        monitor,
        baseline_connections: 0,
        progress,
        interrupted,
    };
    cx.baseline_connections = cx.blogbench_connections()?;
    let pinned = PinnedServices::pin(&options.cpus.services)?;
    cx.fetch_reference()?;
    cx.measure_ceilings()?;
    for index in 0..options.apps.len() {
        if interrupted.load(Ordering::SeqCst) {
            cx.fail(index, "interrupted", "Ctrl-C before this app started")?;
            continue;
        }
        let outcome = cx.bench_app(index);
        if let Err(err) = outcome {
            let stage = if interrupted.load(Ordering::SeqCst) {
                "interrupted"
            } else {
                "run"
            };
            cx.fail(index, stage, &format!("{err:#}"))?;
        }
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
            status: AppStatus::Pending,
            parity: None,
            deviations: app
                .manifest
                .deviations
                .iter()
                .map(|d| (d.setting.clone(), d.value.clone(), d.reason.clone()))
                .collect(),
            routes: Vec::new(),
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
        },
        settings: Settings {
            connections: options.connections,
            duration_secs: options.duration.as_secs_f64(),
            warmup_secs: options.warmup.as_secs_f64(),
            runs: options.runs,
            loadgen: options.loadgen.name().to_owned(),
            quick: options.quick,
            routes: options.routes.clone(),
        },
        tools: tools(options.loadgen, runtime),
        seed_checksum,
        ceilings: Ceilings::default(),
        apps,
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

    fn blogbench_connections(&mut self) -> Result<i64> {
        let query =
            sqlx::query_scalar("SELECT count(*) FROM pg_stat_activity WHERE datname = 'blogbench'");
        Ok(self.runtime.block_on(query.fetch_one(&mut self.monitor))?)
    }

    /// Waits until the previous app's connections are gone (SPEC §5).
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

    fn app_env(&self) -> Vec<(&'static str, String)> {
        vec![("WORKERS", self.options.cpus.app.len().to_string())]
    }

    fn start(&self, app: &App) -> Result<RunningApp> {
        let env = self.app_env();
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        RunningApp::start_pinned(app, &env, Some(&self.options.cpus.app))
    }

    fn fetch_reference(&mut self) -> Result<()> {
        self.progress.step("go reference pages");
        let go = apps::find(apps::GO)?;
        let running = self.start(&go)?;
        self.reference = parity::fetch_all(&running.base_url, &self.paths)?;
        running.stop();
        Ok(())
    }

    fn measure_ceilings(&mut self) -> Result<()> {
        let options = self.options;
        self.progress.step("ceilings");
        let home_bytes = self
            .reference
            .first()
            .map_or(10_000, |home| home.body.len());
        self.batch.ceilings.http = Some(ceilings::http(
            options.loadgen,
            home_bytes,
            &options.cpus.app,
            &options.cpus.load,
            options.connections,
            options.duration,
            &self.dir.join("raw/ceiling-http.json"),
        )?);
        let database_url = services::database_url();
        let scripts = self
            .runtime
            .block_on(ceilings::page_scripts(&database_url))?;
        for (page, script) in scripts {
            let ceiling = ceilings::database(
                page,
                &script,
                &database_url,
                ceilings::pool_connections(),
                &options.cpus.load,
                options.duration,
                &self.dir.join("raw"),
            )?;
            self.batch
                .ceilings
                .database
                .insert(page.to_owned(), ceiling);
        }
        self.save()
    }

    fn bench_app(&mut self, index: usize) -> Result<()> {
        let options = self.options;
        let app = &options.apps[index];
        if !app.binary_path().is_file() {
            return self.fail(
                index,
                "build",
                &format!(
                    "no release binary at {}; run `make build`",
                    app.binary_path().display()
                ),
            );
        }
        self.wait_for_connection_baseline()?;
        self.progress.step(format!("{} starting", app.name));
        let running = match self.start(app) {
            Ok(running) => running,
            Err(err) => return self.fail(index, "start", &format!("{err:#}")),
        };

        let fetched = parity::fetch_all(&running.base_url, &self.paths)?;
        let mismatches = parity::compare(&self.reference, &fetched, &app.name);
        self.batch.apps[index].parity = Some(Parity {
            pages: fetched.len(),
            mismatches: mismatches.len(),
            first_diff: mismatches
                .first()
                .map(|m| format!("GET {} ({})\n{}", m.path, m.what, m.diff)),
        });
        if let Some(first) = mismatches.first() {
            let reason = format!(
                "{} of {} pages differ from go; first: GET {} ({})",
                mismatches.len(),
                fetched.len(),
                first.path,
                first.what
            );
            return self.fail(index, "parity", &reason);
        }
        self.progress
            .say(format!("{}: parity ok ({} pages)", app.name, fetched.len()));

        page_cache::clear()?;
        for route in ["cached-home", "cached-detail"] {
            ureq::get(&running.url(routes::path(route).expect("known route"))).call()?;
        }
        for route in &options.routes {
            let path = routes::path(route).with_context(|| format!("unknown route {route}"))?;
            self.batch.apps[index].routes.push(RouteResult {
                route: route.clone(),
                path: path.to_owned(),
                runs: Vec::new(),
            });
            self.progress
                .step(format!("{} · {route} · warm-up", app.name));
            let raw = self.dir.join(format!(
                "raw/{}-{route}-warmup.{}",
                app.name,
                raw_extension(options.loadgen)
            ));
            options.loadgen.run(
                &running.url(path),
                options.connections,
                options.warmup,
                &options.cpus.load,
                &raw,
            )?;
            self.progress.inc();
            for run in 1..=options.runs {
                if self.interrupted.load(Ordering::SeqCst) {
                    bail!("Ctrl-C during {route}");
                }
                self.progress.step(format!(
                    "{} · {route} · run {run}/{}",
                    app.name, options.runs
                ));
                let result = self.one_run(&running, route, path, run)?;
                self.batch.apps[index]
                    .routes
                    .last_mut()
                    .expect("pushed above")
                    .runs
                    .push(result);
                self.save()?;
                self.progress.inc();
            }
        }
        running.stop();
        self.batch.apps[index].status = AppStatus::Ok;
        self.save()
    }

    fn one_run(&self, running: &RunningApp, route: &str, path: &str, index: u32) -> Result<Run> {
        let options = self.options;
        let raw_name = format!(
            "raw/{}-{route}-{index}.{}",
            running.name,
            raw_extension(options.loadgen)
        );
        let sampler = Sampler::start(running.pid(), running.port);
        let load = options.loadgen.run(
            &running.url(path),
            options.connections,
            options.duration,
            &options.cpus.load,
            &self.dir.join(&raw_name),
        );
        let usage = sampler.finish();
        let load = load?;
        let invalid_reason = admission(&load, options.connections, usage.connections_max);
        Ok(Run {
            index,
            requests: load.requests,
            requests_per_sec: load.requests_per_sec,
            latency_ms: load.latency_ms,
            status_codes: load.status_codes,
            errors: load.errors,
            connections: usage.connections_max,
            valid: invalid_reason.is_none(),
            invalid_reason,
            app_cpu_percent: usage.app_cpu_percent,
            app_rss_max_mib: usage.app_rss_max_mib,
            postgres_cpu_percent: usage.postgres_cpu_percent,
            redis_cpu_percent: usage.redis_cpu_percent,
            raw_output: raw_name,
        })
    }
}

fn raw_extension(loadgen: Loadgen) -> &'static str {
    match loadgen {
        Loadgen::Oha => "json",
        Loadgen::Wrk => "txt",
    }
}

/// The folder results go to by default: `<workspace>/results`.
pub fn default_results_dir() -> PathBuf {
    apps::workspace_dir().join("results")
}
