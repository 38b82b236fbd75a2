//! The fair benchmark (docs/spec.md §5): rounds that each visit every app once, in a shuffled
//! order; per visit a fresh start of the app and of a Go process beside it (the pacer), the
//! parity gate, and per route a warm-up and a run paired with a pacer run on the same route
//! just before or after it; parity again after the load;
//! `results/<batch>/results.json` saved after every run.

mod measure;
mod order;

use crate::load::ceilings;
use crate::load::loadgen::Loadgen;
use crate::load::warmup;
use crate::parity::Reference;
use crate::progress::Progress;
use crate::results::{
    AppResult, AppStatus, Batch, Ceilings, Pacer, Parity, RouteResult, RunHeader, RunKind,
    Settings, StartUpWarmup, Visit,
};
use crate::routes;
use crate::session::inventory::tools;
use crate::session::{self, Measuring, Session};
use crate::stack::apps::{self, App, Target};
use crate::stack::cpus::CpuSplit;
use crate::stack::page_cache;
use crate::stack::server::RunningApp;
use crate::stack::services;
use anyhow::{Context, Result, bail};
pub use order::{VisitingOrder, imprecise_routes};
use sqlx::PgConnection;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

pub struct Options {
    /// What the batch records of how it runs, as the command line set it.
    pub settings: Settings,
    /// Apps, or an app with extra environment (`go+GOGC=200`), under their labels.
    pub apps: Vec<Target>,
    /// `settings.loadgen`, parsed.
    pub loadgen: Loadgen,
    pub cpus: CpuSplit,
    /// Run even when `taskset` cannot pin everything, and say so in the results.
    pub allow_unpinned: bool,
    /// Measure the ceilings (§5.8) before the rounds.
    pub ceilings: bool,
    pub results_dir: PathBuf,
}

impl Options {
    /// Each measured run, the app's and the pacer's.
    fn duration(&self) -> Duration {
        Duration::from_secs_f64(self.settings.duration_secs)
    }

    /// The warm-up before each route's run.
    fn warmup(&self) -> Duration {
        Duration::from_secs_f64(self.settings.warmup_secs)
    }

    /// The slice length of the routes that read; `None`: whole runs on the load generator.
    fn slice(&self) -> Option<Duration> {
        self.settings.slice_secs.map(Duration::from_secs_f64)
    }

    /// The most rounds the batch may take: `max_rounds` with a precision, else `rounds`.
    fn max_rounds(&self) -> u32 {
        self.settings
            .max_rounds
            .unwrap_or(0)
            .max(self.settings.rounds)
    }
}

/// What every step of a batch needs.
struct Batcher<'a> {
    options: &'a Options,
    dir: PathBuf,
    batch: Batch,
    /// The Go reference's parity pages, fetched once per batch.
    reference: Reference,
    runtime: tokio::runtime::Runtime,
    monitor: PgConnection,
    baseline_connections: usize,
    progress: Progress,
    interrupted: &'a AtomicBool,
}

/// Runs a batch; returns its folder. Ctrl-C (`interrupted`) stops after the current run,
/// keeping everything finished.
pub fn run(options: &Options, interrupted: &AtomicBool) -> Result<PathBuf> {
    page_cache::clear()?;
    let Measuring {
        session: Session { header, dir },
        database: (monitor, expected),
        runtime,
        pinned,
        unpinned,
    } = Measuring::start(
        &options.results_dir,
        RunKind::Batch,
        &options.cpus,
        options.allow_unpinned,
    )?;
    let database_url = services::database_url();
    let batch = new_batch(options, header, unpinned, expected, &runtime)?;
    batch.save(&dir)?;

    let page_scripts = match options.ceilings {
        true => runtime.block_on(ceilings::page_scripts(&database_url))?,
        false => Vec::new(),
    };
    let runs_per_round = options.apps.len() * options.settings.routes.len() * 2;
    let ceiling_steps = usize::from(options.ceilings) + page_scripts.len();
    let progress = Progress::new(
        (ceiling_steps + runs_per_round * options.settings.rounds as usize) as u64,
        "steps",
    );
    let mut cx = Batcher {
        options,
        dir,
        batch,
        reference: Reference::default(),
        runtime,
        monitor,
        baseline_connections: 0,
        progress,
        interrupted,
    };
    cx.fetch_reference()?;
    cx.record_pacer()?;
    cx.baseline_connections = cx.blogbench_connections()?;
    if options.ceilings {
        cx.measure_ceilings(page_scripts)?;
    }
    let mut order = VisitingOrder::new(
        options.apps.len(),
        options.settings.order_seed.unwrap_or_default(),
    );
    'rounds: for round in 1..=options.max_rounds() {
        let running: Vec<&AppResult> = cx.batch.apps.iter().filter(|a| !a.failed()).collect();
        let round_routes = match (round <= options.settings.rounds, options.settings.precision) {
            (true, _) => options.settings.routes.clone(),
            (false, Some(precision)) => {
                imprecise_routes(&running, &options.settings.routes, precision)
            }
            (false, None) => Vec::new(),
        };
        let routes: Vec<Vec<String>> = cx
            .batch
            .apps
            .iter()
            .map(|app| match app.failed() {
                true => Vec::new(),
                false => round_routes.clone(),
            })
            .collect();
        let apps: Vec<usize> = (0..routes.len())
            .filter(|&i| !routes[i].is_empty())
            .collect();
        if apps.is_empty() {
            break;
        }
        if round > options.settings.rounds {
            let runs: usize = apps.iter().map(|&i| routes[i].len() * 2).sum();
            cx.progress.add(runs as u64);
            cx.progress.say(format!(
                "round {round}: {} not yet within ±{:.1} % for every app",
                round_routes.join(", "),
                options.settings.precision.unwrap_or_default() * 100.0
            ));
        }
        for (position, (index, pacer_first)) in (1..).zip(order.round(&apps)) {
            if interrupted.load(Ordering::SeqCst) {
                break 'rounds;
            }
            if cx.batch.apps[index].failed() {
                continue;
            }
            cx.batch.apps[index].visits.push(Visit {
                round,
                position,
                pacer_first,
                pacer_pid: None,
            });
            if let Err(err) = cx.visit(index, round, pacer_first, &routes[index]) {
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
    drop(pinned);
    cx.progress.finish();
    session::finish(&mut cx.batch.header);
    cx.batch.save(&cx.dir)?;
    Ok(cx.dir)
}

fn new_batch(
    options: &Options,
    header: RunHeader,
    unpinned: Vec<String>,
    seed_checksum: String,
    runtime: &tokio::runtime::Runtime,
) -> Result<Batch> {
    let apps = options
        .apps
        .iter()
        .map(|Target { label, app, .. }| AppResult {
            name: label.clone(),
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
            visits: Vec::new(),
        })
        .collect();
    Ok(Batch {
        header,
        cpu_sets: options.cpus.recorded(unpinned),
        settings: options.settings.clone(),
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

    /// Connections to database blogbench other than this monitor's.
    fn blogbench_connections(&mut self) -> Result<usize> {
        let query = sqlx::query_scalar::<_, i64>(
            "SELECT count(*) FROM pg_stat_activity \
             WHERE datname = 'blogbench' AND pid <> pg_backend_pid()",
        );
        let count = self.runtime.block_on(query.fetch_one(&mut self.monitor))?;
        Ok(count as usize)
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
        apps::harness_env(&self.options.cpus.app)
    }

    /// The app's environment, with the pacer's own Redis database for its page cache.
    fn pacer_env(&self) -> BTreeMap<String, String> {
        let mut env = self.app_env();
        env.insert("REDIS_URL".to_owned(), services::pacer_redis_url());
        env
    }

    fn start(&self, app: &App, env: &BTreeMap<String, String>) -> Result<RunningApp> {
        RunningApp::start_pinned(app, &apps::env_pairs(env), Some(&self.options.cpus.app))
    }

    fn fetch_reference(&mut self) -> Result<()> {
        self.progress.step("go reference pages");
        let go = apps::find(apps::GO)?;
        let running = self.start(&go, &self.app_env())?;
        self.reference = Reference::fetch(&running.base_url)?;
        running.stop();
        for route in self
            .options
            .settings
            .routes
            .iter()
            .filter(|r| !routes::writes(r))
        {
            self.expected_bytes(route)?;
        }
        Ok(())
    }

    /// The body length of the route's page as the parity gate fetched it from Go.
    fn expected_bytes(&self, route: &str) -> Result<u64> {
        let path = routes::path(route).with_context(|| format!("unknown route {route}"))?;
        self.reference
            .page(path)
            .map(|page| page.body.len() as u64)
            .with_context(|| format!("route {route}: {path} is not in the parity sample"))
    }

    /// Records the pacer's program and settings; each visit starts its own.
    fn record_pacer(&mut self) -> Result<()> {
        let go = apps::find(apps::GO)?;
        self.batch.pacer = Some(Pacer {
            app: go.name,
            env: self.pacer_env(),
            warmup_secs: self.options.warmup().as_secs_f64(),
            per_visit: true,
        });
        self.save()
    }

    /// A fresh Go process for one visit's paired runs: as new as the app it pairs with, so
    /// neither side of a pair has run longer (docs/spec.md §5.5).
    fn start_pacer(&self) -> Result<RunningApp> {
        let go = apps::find(apps::GO)?;
        self.start(&go, &self.pacer_env())
            .context("start the pacer (Go)")
    }

    /// The HTTP client ceiling, then the database ceiling of each page in `page_scripts`;
    /// Ctrl-C stops after the current one (the rounds then record every app as interrupted).
    fn measure_ceilings(&mut self, page_scripts: Vec<(&str, String)>) -> Result<()> {
        let options = self.options;
        let plan = ceilings::Plan {
            loadgen: options.loadgen,
            connections: options.settings.connections,
            warmup: options.warmup(),
            duration: options.duration(),
            runs: options.settings.rounds,
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

    /// One app's turn in a round: start, parity gate, the pacer's start, each of `routes`
    /// (the app's run and the pacer's, the pacer's first when `pacer_first`), parity again,
    /// stop both.
    fn visit(
        &mut self,
        index: usize,
        round: u32,
        pacer_first: bool,
        routes: &[String],
    ) -> Result<()> {
        let options = self.options;
        let Target {
            label: name,
            app,
            env: extra_env,
        } = &options.apps[index];
        if let Err(err) = app.ensure_built() {
            return self.fail(index, "build", &format!("{err:#}"));
        }
        // After an app that failed mid-visit, its connections may still be closing.
        self.wait_for_connection_baseline()?;
        let label = format!("round {round} · {name}");
        self.progress.step(format!("{label} · starting"));
        let mut env = self.app_env();
        env.extend(extra_env.iter().cloned());
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
        self.progress
            .step(format!("{label} · starting the go pacer"));
        let pacer = self.start_pacer()?;
        if let Some(visit) = self.batch.apps[index].visits.last_mut() {
            visit.pacer_pid = Some(pacer.pid());
        }
        if let Some(warmup) = app.manifest.settings.warmup()? {
            // The pacer gets the same start-up load, so a pair never sets a JIT that has
            // been loaded for a minute against a Go process that has not.
            let stem = self
                .dir
                .join(format!("raw/{name}-start-up-warmup-round{round}"));
            self.progress.step(format!(
                "{label} · start-up warm-up, {} s",
                warmup.as_secs()
            ));
            let parts = self.start_up_warmup(&running, warmup, routes, round, &stem)?;
            self.batch.apps[index].start_up_warmups.extend(parts);
            self.save()?;
            self.progress.step(format!(
                "{label} · go pacer's start-up warm-up, {} s",
                warmup.as_secs()
            ));
            let stem = self
                .dir
                .join(format!("raw/{name}-start-up-warmup-round{round}-pacer"));
            self.start_up_warmup(&pacer, warmup, routes, round, &stem)?;
        }

        for route in routes {
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
                    slices: Vec::new(),
                });
            }

            if let Some(slice) = options.slice().filter(|_| !routes::writes(route)) {
                self.progress
                    .step(format!("{label} · {route} · app and go pacer in slices"));
                let stem = format!("raw/{name}-{route}-round{round}");
                let (run, pacer_run, slices) = self.measure_sliced(
                    [&running, &pacer],
                    route,
                    round,
                    pacer_first,
                    slice,
                    &stem,
                )?;
                let result = self.route_result(index, route);
                result.runs.push(run);
                result.pacer_runs.push(pacer_run);
                result.slices.push(slices);
                self.save()?;
                self.progress.inc();
                self.progress.inc();
                continue;
            }
            let sides = match pacer_first {
                true => [Side::Pacer, Side::App],
                false => [Side::App, Side::Pacer],
            };
            for side in sides {
                let stem = format!("raw/{name}-{route}-round{round}");
                let (target, warmup, stem) = match side {
                    Side::App => {
                        self.progress.step(format!("{label} · {route}"));
                        (&running, options.warmup(), stem)
                    }
                    Side::Pacer => {
                        self.progress.step(format!("{label} · {route} · go pacer"));
                        (&pacer, options.warmup(), format!("{stem}-pacer"))
                    }
                };
                let run = self.measure(target, route, round, warmup, &stem)?;
                let result = self.route_result(index, route);
                match side {
                    Side::App => result.runs.push(run),
                    Side::Pacer => result.pacer_runs.push(run),
                }
                self.save()?;
                self.progress.inc();
            }
        }

        let after = self.parity_check(&running)?;
        let changed = after.first_diff.clone();
        self.batch.apps[index].parity_after_load = Some(after);
        running.stop();
        pacer.stop();
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

    fn start_up_warmup(
        &self,
        target: &RunningApp,
        warmup: Duration,
        routes: &[String],
        round: u32,
        raw_stem: &Path,
    ) -> Result<Vec<StartUpWarmup>> {
        warmup::after_start(
            target,
            warmup,
            routes,
            self.options.settings.connections,
            self.options.cpus.load.len(),
            round,
            raw_stem,
        )
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
        let mismatches = self.reference.check(&running.base_url, &running.name)?;
        let pages = self.reference.sample.len();
        Ok(Parity {
            pages,
            mismatches: mismatches.len(),
            first_diff: mismatches.first().map(|m| {
                format!(
                    "{} of {} answers differ from go; first: {} ({})\n{}",
                    mismatches.len(),
                    pages,
                    m.request,
                    m.what,
                    m.diff
                )
            }),
        })
    }
}

/// The two runs of a pair.
#[derive(Clone, Copy)]
enum Side {
    App,
    Pacer,
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().to_owned()
}
