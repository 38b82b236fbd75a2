//! `blogbench sweep` (docs/spec.md §8): latency at a given load. One app at a time,
//! pinned, parity-gated, in three passes:
//!
//! 1. rounds of each route's closed-loop max, the apps visited in a rotated order each
//!    round; the median of the rounds is the max the rates are fractions of;
//! 2. rounds of the open-loop rate ladders, at rates common to every app (fractions of Go's
//!    max, so apps are compared at the same load) and at rates of the app's own max, the
//!    same rates every round, each run judged against the route's latency objective;
//! 3. once per app: a closed-loop connection sweep, an overload and its recovery from the
//!    max sustainable rate, and (with a memory limit) the connection sweep again inside a
//!    memory cgroup.
//!
//! Interleaved rounds spread a noisy stretch of the shared machine over every app instead
//! of one. `sweep.json` is saved after every step.

use super::admission::{Expected, admission};
use super::batch::{harness_env, rotated, seeded_database};
use super::ceilings::StaticServer;
use super::client::{Answer, Load, Pace, Record, Workload};
use super::loadgen::Loadgen;
use super::open_loop::{self, Arrivals, OpenRun, Phase, Plan};
use super::sampler::{Sampler, Usage, measured_window};
use super::setup::{git_commit, machine};
use super::warmup;
use crate::parity::Reference;
use crate::progress::Progress;
use crate::results::sweep::{
    AppSweep, CLIENT_BOUND_FRACTION, ClosedLoopRound, ConnectionLevel, CpuBusy, Floor,
    GeneratorCeiling, Ladder, MemoryLimited, Overload, OverloadPlan, OverloadSecond, RatePoint,
    RouteSweep, Sweep, SweepSettings, generator_late, recovered_after_secs,
};
use crate::results::{CpuSets, Latency, write_atomically};
use crate::routes;
use crate::stack::apps::{self, Target};
use crate::stack::cgroup::MemoryCgroup;
use crate::stack::cpus::{CpuSplit, PinnedServices, format_list, pin_process};
use crate::stack::page_cache;
use crate::stack::processes::{await_connections_held, tree_rss_bytes};
use crate::stack::server::RunningApp;
use anyhow::{Context, Result, bail};
use hdrhistogram::Histogram;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

pub struct Options {
    /// Go first (the common rates are fractions of its max), then the others.
    pub targets: Vec<Target>,
    pub routes: Vec<String>,
    pub slo_ms: BTreeMap<String, f64>,
    pub quick: bool,
    /// Rounds of the closed-loop maxima and of the rate ladders.
    pub rounds: u32,
    pub run: Duration,
    pub warmup: Duration,
    pub common_fractions: Vec<f64>,
    pub own_fractions: Vec<f64>,
    pub arrivals: Arrivals,
    pub latency_limit: Duration,
    pub max_connections: u32,
    /// The closed loop's connections (the fair run's).
    pub connections: u32,
    pub connection_levels: Vec<u32>,
    /// The route of the connection sweeps and of the overload.
    pub connection_route: String,
    pub overload_route: String,
    pub overload: OverloadPlan,
    pub memory_limit_bytes: Option<u64>,
    /// Variants swept only under the memory limit (e.g. `go+GOMEMLIMIT=384MiB`).
    pub memory_variants: Vec<Target>,
    pub cpus: CpuSplit,
    pub allow_unpinned: bool,
    pub results_dir: PathBuf,
    pub command: String,
}

impl Options {
    /// An open-loop plan of `phases` after `warmup`, with the sweep's arrivals, connection
    /// bound and latency limit, one worker on each of the generator's CPUs.
    fn plan(&self, warmup: Duration, phases: Vec<Phase>) -> Plan {
        Plan {
            warmup,
            phases,
            arrivals: self.arrivals,
            max_connections: self.max_connections,
            latency_limit: self.latency_limit,
            cpus: self.cpus.load.clone(),
        }
    }
}

/// `rate` requests per second for `length`.
fn phase(rate: f64, length: Duration) -> Phase {
    Phase { rate, length }
}

/// The latency objective of a route when none is given: 50 ms for pages that query the
/// database, 10 ms for cached pages and `/compute`.
pub fn default_slo_ms(route: &str) -> f64 {
    match route {
        "home" | "detail" | "tag" => 50.0,
        _ => 10.0,
    }
}

/// A ladder stops after this many rates in a row that were invalid or that the app fell
/// behind: higher rates only fail harder.
const FAILING_IN_A_ROW: usize = 2;
/// How long past the warm-up a connection level waits for the app to hold all its
/// connections (two SYN resends: 1 s, then 2 s more).
const CONNECT_LIMIT: Duration = Duration::from_secs(4);

/// Sweeps every target; returns the `sweep-<id>` folder.
pub fn run(options: &Options, interrupted: &AtomicBool) -> Result<PathBuf> {
    if options
        .targets
        .first()
        .is_none_or(|t| !t.app.is_reference())
    {
        bail!("the sweep's first app must be {}", apps::GO);
    }
    let open_files_limit = raise_open_files_limit()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    seeded_database(&runtime)?;
    let pinned = PinnedServices::pin(&options.cpus.services)?;
    let mut unpinned = pinned.unpinned.clone();
    if let Err(err) = pin_process(std::process::id(), &options.cpus.load) {
        unpinned.push(format!("blogbench itself: {err:#}"));
    }
    if !unpinned.is_empty() && !options.allow_unpinned {
        bail!(
            "cannot pin: {}; fix it, or run with --allow-unpinned to sweep anyway (the report then says so)",
            unpinned.join("; ")
        );
    }
    let id = chrono::Utc::now().format("%Y%m%d%H%M%S").to_string();
    let dir = options.results_dir.join(format!("sweep-{id}"));
    std::fs::create_dir_all(dir.join("raw"))
        .with_context(|| format!("create {}", dir.display()))?;
    let sweep = Sweep {
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
            unpinned,
        },
        settings: settings(options, open_files_limit),
        generator_ceiling: None,
        floor: Vec::new(),
        apps: Vec::new(),
    };
    let reference = {
        let go = RunningApp::start_pinned(
            &apps::find(apps::GO)?,
            &env_pairs(&harness_env(&options.cpus.app)),
            Some(&options.cpus.app),
        )?;
        Reference::fetch(&go.base_url)?
    };
    let mut sweeper = Sweeper {
        options,
        dir,
        sweep,
        reference,
        progress: Progress::new(steps(options), "steps"),
        interrupted,
    };
    sweeper.measure_generator_ceiling()?;
    for target in &options.targets {
        sweeper.push_app(target)?;
    }
    'passes: for pass in [Pass::ClosedLoop, Pass::Ladders, Pass::Overload] {
        for round in 1..=options.rounds {
            if pass == Pass::Ladders {
                sweeper.measure_floor(round)?;
            }
            for index in rotated(options.targets.len(), round) {
                if interrupted.load(Ordering::SeqCst) {
                    break 'passes;
                }
                sweeper.visit(index, pass, round)?;
            }
        }
    }
    for index in 0..options.targets.len() {
        if interrupted.load(Ordering::SeqCst) {
            break;
        }
        sweeper.visit(index, Pass::Once, 1)?;
    }
    for variant in &options.memory_variants {
        if interrupted.load(Ordering::SeqCst) {
            break;
        }
        sweeper.sweep_memory_variant(variant)?;
    }
    drop(pinned);
    sweeper.progress.finish();
    sweeper.sweep.finished_at = Some(now());
    sweeper.save()?;
    Ok(sweeper.dir)
}

/// What a visit to an app measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    /// Each route's closed-loop max.
    ClosedLoop,
    /// Each route's rate ladders.
    Ladders,
    /// The overload from the max sustainable rate the ladders found.
    Overload,
    /// The connection sweep and the memory-limited sweep.
    Once,
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

fn settings(options: &Options, open_files_limit: u64) -> SweepSettings {
    SweepSettings {
        quick: options.quick,
        rounds: options.rounds,
        routes: options.routes.clone(),
        slo_ms: options.slo_ms.clone(),
        run_secs: options.run.as_secs_f64(),
        warmup_secs: options.warmup.as_secs_f64(),
        common_fractions: options.common_fractions.clone(),
        own_fractions: options.own_fractions.clone(),
        arrivals: options.arrivals.name().to_owned(),
        latency_limit_ms: options.latency_limit.as_secs_f64() * 1000.0,
        max_connections: options.max_connections,
        closed_loop: format!("oha, {} connections", options.connections),
        connection_levels: options.connection_levels.clone(),
        connection_route: options.connection_route.clone(),
        overload_route: options.overload_route.clone(),
        overload: options.overload.clone(),
        memory_limit_bytes: options.memory_limit_bytes,
        open_files_limit,
    }
}

/// The progress bar's length: every run the sweep may make.
fn steps(options: &Options) -> u64 {
    let ladder = 1 + options.common_fractions.len() + options.own_fractions.len();
    let levels = options.connection_levels.len();
    let memory = if options.memory_limit_bytes.is_some() {
        levels
    } else {
        0
    };
    let per_round = options.routes.len() * ladder + 1;
    let per_app = options.rounds as usize * per_round + levels + memory;
    let floor = options.rounds as usize * options.routes.len() * options.common_fractions.len();
    (1 + floor + options.targets.len() * per_app + options.memory_variants.len() * memory) as u64
}

/// Sets the open-file limit to its hard limit (the app inherits it): the connection sweep
/// opens thousands of sockets on both sides.
fn raise_open_files_limit() -> Result<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit write and read the struct we own.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return Err(std::io::Error::last_os_error()).context("getrlimit(RLIMIT_NOFILE)");
        }
        limit.rlim_cur = limit.rlim_max;
        if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
            return Err(std::io::Error::last_os_error()).context("setrlimit(RLIMIT_NOFILE)");
        }
    }
    Ok(limit.rlim_cur)
}

fn env_pairs(env: &BTreeMap<String, String>) -> Vec<(&str, &str)> {
    env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect()
}

struct Sweeper<'a> {
    options: &'a Options,
    dir: PathBuf,
    sweep: Sweep,
    reference: Reference,
    progress: Progress,
    interrupted: &'a AtomicBool,
}

/// A route's page as Go serves it on the seeded data: what every 200 must be.
struct RoutePage {
    route: String,
    path: &'static str,
    page: Arc<Vec<u8>>,
}

/// The process an open-loop run loads, and its loopback port.
#[derive(Clone, Copy)]
struct Served {
    pid: u32,
    port: u16,
}

impl Sweeper<'_> {
    fn save(&self) -> Result<()> {
        self.sweep.save(&self.dir)
    }

    fn app(&mut self, index: usize) -> &mut AppSweep {
        &mut self.sweep.apps[index]
    }

    fn check_interrupted(&self) -> Result<()> {
        if self.interrupted.load(Ordering::SeqCst) {
            bail!("interrupted (Ctrl-C or SIGTERM)");
        }
        Ok(())
    }

    fn route_page(&self, route: &str) -> Result<RoutePage> {
        let path = routes::path(route).with_context(|| format!("unknown route {route}"))?;
        let page = self
            .reference
            .page(path)
            .with_context(|| format!("route {route}: {path} is not in the parity sample"))?;
        Ok(RoutePage {
            route: route.to_owned(),
            path,
            page: Arc::new(page.body.clone()),
        })
    }

    /// The generator against a static page the size of the home page, on the app's CPUs,
    /// at a rate no client here can deliver: what it delivers is its ceiling.
    fn measure_generator_ceiling(&mut self) -> Result<()> {
        self.progress.step("generator ceiling");
        let page = self.route_page("home")?;
        let (server, addr) = StaticServer::start(&self.options.cpus.app, page.page.len())?;
        let static_page = Arc::new(vec![b'x'; page.page.len()]);
        let rate = 200_000.0;
        // A warm-up inside the measured plan would leave a backlog of unanswerable
        // requests ahead of the measured ones, so it is a run of its own.
        let plan = |length| self.options.plan(Duration::ZERO, vec![phase(rate, length)]);
        open_loop::run(
            &addr,
            "/",
            Arc::clone(&static_page),
            &plan(self.options.warmup),
            || (),
        )?;
        let run = open_loop::run(&addr, "/", static_page, &plan(self.options.run), || ())?;
        drop(server);
        let per_sec = delivered(&run, Duration::ZERO) as f64 / run.length.as_secs_f64();
        self.sweep.generator_ceiling = Some(GeneratorCeiling {
            per_sec,
            how: format!(
                "the open-loop generator at {rate:.0} req/s for {:.0} s against a static {}-byte page (axum, CPUs {}); generator on CPUs {}, up to {} connections",
                run.length.as_secs_f64(),
                page.page.len(),
                format_list(&self.options.cpus.app),
                format_list(&self.options.cpus.load),
                self.options.max_connections
            ),
        });
        self.progress
            .say(format!("generator ceiling: {per_sec:.0} req/s"));
        self.progress.inc();
        self.save()
    }

    /// A round's latency floor (docs/spec.md §8.9): per route, the static server on the app's
    /// CPUs with a page of the route's size, at each of the common rates.
    fn measure_floor(&mut self, round: u32) -> Result<()> {
        let options = self.options;
        for route in &options.routes {
            let Some(go_max) = self.sweep.apps[0]
                .routes
                .iter()
                .find(|r| &r.route == route && r.closed_loop_counted())
                .map(|r| r.closed_loop_per_sec)
            else {
                continue;
            };
            let bytes = self.route_page(route)?.page.len();
            let (server, addr) = StaticServer::start(&options.cpus.app, bytes)?;
            let page = RoutePage {
                route: route.clone(),
                path: "/",
                page: Arc::new(vec![b'x'; bytes]),
            };
            let port = addr.rsplit(':').next().unwrap_or_default().parse()?;
            let served = Served {
                pid: server.pid(),
                port,
            };
            for &fraction in &options.common_fractions {
                self.check_interrupted()?;
                let rate = (go_max * fraction).round().max(1.0);
                let percent = (fraction * 100.0).round();
                self.progress.step(format!(
                    "round {round} · the machine's floor · {route} · {rate:.0} req/s"
                ));
                let stem = format!("raw/floor-{route}-common-{percent:03}-r{round}");
                let point = self.rate_point(served, &page, round, rate, fraction, &stem)?;
                match self.sweep.floor.iter_mut().find(|f| &f.route == route) {
                    Some(floor) => floor.runs.push(point),
                    None => self.sweep.floor.push(Floor {
                        route: route.clone(),
                        body_bytes: bytes,
                        runs: vec![point],
                    }),
                }
                self.progress.inc();
            }
            drop(server);
            self.save()?;
        }
        Ok(())
    }

    /// The harness's environment, then the target's own.
    fn env(&self, target: &Target) -> BTreeMap<String, String> {
        let mut env = harness_env(&self.options.cpus.app);
        env.extend(target.env.iter().cloned());
        env
    }

    /// Adds the target's (empty) results and saves them.
    fn push_app(&mut self, target: &Target) -> Result<()> {
        self.sweep.apps.push(AppSweep {
            label: target.label.clone(),
            env: self.env(target),
            error: None,
            routes: Vec::new(),
            idle_rss_mib: None,
            start_up_warmup_secs: target
                .app
                .manifest
                .settings
                .warmup()?
                .map(|w| w.as_secs_f64()),
            connections: Vec::new(),
            overloads: Vec::new(),
            memory_limited: None,
        });
        self.save()
    }

    /// One pass's visit to the app at `index`. What fails is recorded as the app's error,
    /// and later passes skip the app.
    fn visit(&mut self, index: usize, pass: Pass, round: u32) -> Result<()> {
        if self.sweep.apps[index].error.is_some() {
            return Ok(());
        }
        let options = self.options;
        let target = &options.targets[index];
        let env = self.env(target);
        let measured = match pass {
            Pass::ClosedLoop => self.measure_closed_loops(index, target, &env, round),
            Pass::Ladders => self.measure_ladders(index, target, &env, round),
            Pass::Overload => self.measure_overload(index, target, &env, round),
            Pass::Once => self.measure_once(index, target, &env),
        };
        if let Err(err) = measured {
            let error = format!("{err:#}");
            self.progress.say(format!("{}: {error}", target.label));
            self.app(index).error = Some(error);
        }
        if pass == Pass::Once
            && options.memory_limit_bytes.is_some()
            && !self.interrupted.load(Ordering::SeqCst)
            && let Err(err) = self.measure_memory_limited(index, target, &env)
        {
            let app = self.app(index);
            let error = format!("memory-limited: {err:#}");
            app.error = Some(match app.error.take() {
                Some(first) => format!("{first}; {error}"),
                None => error,
            });
        }
        self.save()
    }

    fn sweep_memory_variant(&mut self, variant: &Target) -> Result<()> {
        self.push_app(variant)?;
        let index = self.sweep.apps.len() - 1;
        if let Err(err) = self.measure_memory_limited(index, variant, &self.env(variant)) {
            self.app(index).error = Some(format!("memory-limited: {err:#}"));
        }
        self.save()
    }

    /// Starts `target` for `pass` (which names its start-up warm-up's raw output), checks
    /// its pages against Go's, and gives it the start-up warm-up its manifest asks for.
    fn start(
        &self,
        target: &Target,
        env: &BTreeMap<String, String>,
        cgroup: Option<Arc<MemoryCgroup>>,
        pass: &str,
    ) -> Result<RunningApp> {
        let running = RunningApp::start_in(
            &target.app,
            &env_pairs(env),
            Some(&self.options.cpus.app),
            cgroup,
        )?;
        if let Some(first) = self
            .reference
            .check(&running.base_url, &target.label)?
            .first()
        {
            bail!(
                "parity: {} differs from Go's ({}); run `blogbench parity --apps {}`",
                first.request,
                first.what,
                target.app.name
            );
        }
        if let Some(warmup) = target.app.manifest.settings.warmup()? {
            let options = self.options;
            self.progress.step(format!(
                "{}: start-up warm-up, {} s",
                target.label,
                warmup.as_secs()
            ));
            let stem = self
                .dir
                .join(format!("raw/{}-start-up-warmup-{pass}", target.label));
            warmup::after_start(
                &running,
                warmup,
                &options.routes,
                options.connections,
                options.cpus.load.len(),
                0,
                &stem,
            )?;
        }
        Ok(running)
    }

    /// `round/rounds · label`: where the sweep is, for the progress line.
    fn at(&self, round: u32, target: &Target) -> String {
        format!("round {round}/{} · {}", self.options.rounds, target.label)
    }

    /// The first pass: each route's closed-loop max, added to the route's rounds.
    fn measure_closed_loops(
        &mut self,
        index: usize,
        target: &Target,
        env: &BTreeMap<String, String>,
        round: u32,
    ) -> Result<()> {
        let options = self.options;
        let at = self.at(round, target);
        self.progress.step(format!("{at} · start, parity"));
        let running = self.start(target, env, None, &format!("closed-loop-r{round}"))?;
        for route in &options.routes {
            self.check_interrupted()?;
            let page = self.route_page(route)?;
            self.progress
                .step(format!("{at} · {route} · closed-loop max"));
            let run = self.closed_loop_max(&running, &page, &target.label, round)?;
            if let Some(reason) = &run.not_counted {
                self.progress.say(format!("{at} · {route}: {reason}"));
            }
            let routes = &mut self.app(index).routes;
            if !routes.iter().any(|r| &r.route == route) {
                routes.push(RouteSweep {
                    route: route.clone(),
                    path: page.path.to_owned(),
                    slo_ms: options.slo_ms[route],
                    closed_loop_per_sec: 0.0,
                    closed_loop_rounds: Vec::new(),
                    common: Vec::new(),
                    own: Vec::new(),
                });
            }
            let swept = routes.iter_mut().find(|r| &r.route == route);
            swept.expect("added above").add_closed_loop_round(run);
            self.progress.inc();
            self.save()?;
        }
        running.stop();
        Ok(())
    }

    /// The second pass: each route's two ladders, at rates fixed by the first pass's
    /// medians, so every round runs the same rates.
    fn measure_ladders(
        &mut self,
        index: usize,
        target: &Target,
        env: &BTreeMap<String, String>,
        round: u32,
    ) -> Result<()> {
        let options = self.options;
        let closed_loop_max = |app: &AppSweep, route: &str| {
            app.routes
                .iter()
                .find(|r| r.route == route && r.closed_loop_counted())
                .map(|r| r.closed_loop_per_sec)
                .with_context(|| {
                    format!(
                        "{}'s closed-loop max on {route}: no round's run counted",
                        app.label
                    )
                })
        };
        let at = self.at(round, target);
        self.progress.step(format!("{at} · start, parity"));
        let running = self.start(target, env, None, &format!("ladders-r{round}"))?;
        for route in &options.routes {
            let page = self.route_page(route)?;
            let go_max = closed_loop_max(&self.sweep.apps[0], route)?;
            let own_max = closed_loop_max(&self.sweep.apps[index], route)?;
            for (ladder, base, fractions) in [
                (Ladder::Common, go_max, &options.common_fractions),
                (Ladder::Own, own_max, &options.own_fractions),
            ] {
                let mut failing_in_a_row = 0;
                for &fraction in fractions {
                    self.check_interrupted()?;
                    if failing_in_a_row >= FAILING_IN_A_ROW {
                        self.progress.inc();
                        continue;
                    }
                    let rate = (base * fraction).round().max(1.0);
                    let percent = (fraction * 100.0).round();
                    self.progress.step(format!(
                        "{at} · {route} · {} {percent:.0} % · {rate:.0} req/s",
                        ladder.name()
                    ));
                    let stem = format!(
                        "raw/{}-{route}-{}-{percent:03}-r{round}",
                        target.label,
                        ladder.name()
                    );
                    prepare_cache(&running, &page)?;
                    let served = Served {
                        pid: running.pid(),
                        port: running.port,
                    };
                    let point = self.rate_point(served, &page, round, rate, fraction, &stem)?;
                    // A generator-late run says nothing of the app either way.
                    failing_in_a_row =
                        match (point.generator_late, point.valid && !point.fell_behind()) {
                            (true, _) => failing_in_a_row,
                            (false, true) => 0,
                            (false, false) => failing_in_a_row + 1,
                        };
                    let swept = self
                        .app(index)
                        .routes
                        .iter_mut()
                        .find(|r| &r.route == route);
                    let swept = swept.expect("added by the closed-loop pass");
                    match ladder {
                        Ladder::Common => swept.common.push(point),
                        Ladder::Own => swept.own.push(point),
                    }
                    self.progress.inc();
                }
                self.save()?;
            }
        }
        running.stop();
        Ok(())
    }

    /// The last pass: the connection sweep and the overload.
    fn measure_once(
        &mut self,
        index: usize,
        target: &Target,
        env: &BTreeMap<String, String>,
    ) -> Result<()> {
        let options = self.options;
        self.progress
            .step(format!("{}: start, parity", target.label));
        let running = self.start(target, env, None, "connections")?;
        let idle_rss = rss_mib(running.pid());
        self.app(index).idle_rss_mib = Some(idle_rss);
        let page = self.route_page(&options.connection_route)?;
        for &connections in &options.connection_levels {
            self.check_interrupted()?;
            self.progress.step(format!(
                "{}: {connections} connections on {}",
                target.label, page.route
            ));
            let level = connection_level(&running, &page, connections, idle_rss, options)?;
            self.app(index).connections.push(level);
            self.progress.inc();
            self.save()?;
        }
        running.stop();
        Ok(())
    }

    /// A round's overload, the app started fresh for it.
    fn measure_overload(
        &mut self,
        index: usize,
        target: &Target,
        env: &BTreeMap<String, String>,
        round: u32,
    ) -> Result<()> {
        let at = self.at(round, target);
        self.progress.step(format!("{at} · start, parity"));
        let running = self.start(target, env, None, &format!("overload-r{round}"))?;
        self.progress.step(format!("{at} · overload"));
        let overload = self.overload(&running, index, target, round)?;
        self.app(index).overloads.extend(overload);
        self.progress.inc();
        running.stop();
        Ok(())
    }

    /// The fair run's closed loop (oha at its connections) after a warm-up: req/s, and why
    /// the run does not count (docs/spec.md §5.6) when it does not.
    fn closed_loop_max(
        &self,
        running: &RunningApp,
        page: &RoutePage,
        label: &str,
        round: u32,
    ) -> Result<ClosedLoopRound> {
        let options = self.options;
        prepare_cache(running, page)?;
        let url = running.url(page.path);
        let raw = |what: &str| {
            self.dir.join(format!(
                "raw/{label}-{}-closed-loop-r{round}{what}.json",
                page.route
            ))
        };
        let page_bytes = page.page.len() as u64;
        let load = |duration: Duration, what: &str| {
            Loadgen::Oha.run(
                &url,
                options.connections,
                duration,
                &options.cpus.load,
                &raw(what),
                Some(page_bytes),
            )
        };
        load(options.warmup, "-warmup")?;
        let sampler = Sampler::start_once_held(
            running.pid(),
            running.port,
            measured_window(options.run),
            options.connections,
        );
        let run = load(options.run, "");
        let usage = sampler.finish();
        let run = run?;
        let expected = Expected {
            connections: options.connections,
            body_bytes: Some(page_bytes),
            writes: false,
        };
        let not_counted = admission(&run, expected, &usage)
            .map(|reason| format!("{reason}; see {}", raw("").display()));
        Ok(ClosedLoopRound {
            round,
            per_sec: run.requests_per_sec,
            not_counted,
        })
    }

    /// One open-loop rate: the cache prepared, a warm-up at the rate, the measured run,
    /// its histogram saved as `<stem>.hlog`.
    fn rate_point(
        &self,
        server: Served,
        page: &RoutePage,
        round: u32,
        rate: f64,
        fraction: f64,
        stem: &str,
    ) -> Result<RatePoint> {
        let options = self.options;
        let addr = format!("127.0.0.1:{}", server.port);
        let plan = options.plan(options.warmup, vec![phase(rate, options.run)]);
        let mut sampler = None;
        let run = open_loop::run(&addr, page.path, Arc::clone(&page.page), &plan, || {
            sampler = Some(Sampler::start(
                server.pid,
                server.port,
                measured_window(options.run),
            ));
        })?;
        let usage = sampler.map(Sampler::finish).unwrap_or_default();
        let histogram_file = format!("{stem}.hlog");
        write_atomically(
            &self.dir.join(&histogram_file),
            &open_loop::interval_log(&run.records, run.length),
        )?;
        let client_bound = self
            .sweep
            .generator_ceiling
            .as_ref()
            .is_some_and(|c| rate > CLIENT_BOUND_FRACTION * c.per_sec);
        Ok(rate_point(
            &run,
            Scheduled {
                round,
                rate,
                fraction,
            },
            options.slo_ms[&page.route],
            &usage,
            usage.cpu_busy(&options.cpus),
            client_bound,
            histogram_file,
        ))
    }

    /// Overload on the overload route, from the app's max sustainable rate there.
    fn overload(
        &self,
        running: &RunningApp,
        index: usize,
        target: &Target,
        round: u32,
    ) -> Result<Option<Overload>> {
        let options = self.options;
        let route = &options.overload_route;
        let Some(max) = self.sweep.apps[index]
            .routes
            .iter()
            .find(|r| &r.route == route)
            .and_then(|r| r.max_sustainable(options.rounds))
        else {
            self.progress.say(format!(
                "{}: no overload: no rate held on {route}",
                target.label
            ));
            return Ok(None);
        };
        let page = self.route_page(route)?;
        prepare_cache(running, &page)?;
        let plan_secs = &options.overload;
        let base = (max * plan_secs.base_fraction).round().max(1.0);
        let over = (max * plan_secs.overload_fraction).round().max(1.0);
        let secs = Duration::from_secs_f64;
        let plan = options.plan(
            Duration::ZERO,
            vec![
                phase(base, secs(plan_secs.before_secs)),
                phase(over, secs(plan_secs.overload_secs)),
                phase(base, secs(plan_secs.after_secs)),
            ],
        );
        let addr = format!("127.0.0.1:{}", running.port);
        // An empty window: only CPU and RSS are read, connections are not counted.
        let sampler = Sampler::start(running.pid(), running.port, Duration::ZERO..Duration::ZERO);
        let run = open_loop::run(&addr, page.path, Arc::clone(&page.page), &plan, || ())?;
        let usage = sampler.finish();
        let histogram = format!("raw/{}-overload-{route}-r{round}.hlog", target.label);
        write_atomically(
            &self.dir.join(&histogram),
            &open_loop::interval_log(&run.records, run.length),
        )?;
        Ok(Some(overload_outcome(
            &run,
            round,
            route,
            options.slo_ms[route],
            max,
            (base, over),
            plan_secs,
            usage.app_rss_max_mib,
            running.is_running(),
            histogram,
        )))
    }

    /// The connection sweep again with the app in a memory cgroup, restarted after a
    /// level that killed it.
    fn measure_memory_limited(
        &mut self,
        index: usize,
        target: &Target,
        env: &BTreeMap<String, String>,
    ) -> Result<()> {
        let options = self.options;
        let limit = options.memory_limit_bytes.expect("checked by the caller");
        let cgroup = Arc::new(MemoryCgroup::create(
            &target.label.replace('+', "-"),
            limit,
        )?);
        self.app(index).memory_limited = Some(MemoryLimited {
            limit_bytes: limit,
            mechanism: cgroup.mechanism().to_owned(),
            levels: Vec::new(),
        });
        let page = self.route_page(&options.connection_route)?;
        let mut running: Option<RunningApp> = None;
        for &connections in &options.connection_levels {
            self.check_interrupted()?;
            self.progress.step(format!(
                "{}: {connections} connections under {} MiB",
                target.label,
                limit / (1024 * 1024)
            ));
            let app = match running.take() {
                Some(app) if app.is_running() => app,
                _ => self.start(
                    target,
                    env,
                    Some(Arc::clone(&cgroup)),
                    &format!("memory-limited-c{connections}"),
                )?,
            };
            let idle_rss = rss_mib(app.pid());
            let kills_before = cgroup.oom_kills();
            let mut level = connection_level(&app, &page, connections, idle_rss, options)?;
            let kills = cgroup.oom_kills() - kills_before;
            level.oom_kills = Some(kills);
            if kills > 0 {
                level.valid = false;
                let reason = format!("{kills} OOM kills");
                level.invalid_reason = Some(match level.invalid_reason.take() {
                    Some(other) => format!("{reason}; {other}"),
                    None => reason,
                });
            }
            let memory = self.app(index).memory_limited.as_mut().expect("set above");
            memory.levels.push(level);
            running = Some(app);
            self.progress.inc();
            self.save()?;
        }
        drop(running);
        Ok(())
    }
}

/// Clears the shared page cache (apps do not all store the same value under a key) and, for
/// a cached route, primes it.
fn prepare_cache(running: &RunningApp, page: &RoutePage) -> Result<()> {
    page_cache::clear()?;
    if page.path.starts_with("/cached/") {
        ureq::get(&running.url(page.path)).call()?;
    }
    Ok(())
}

fn count(run: &OpenRun, which: impl Fn(Answer) -> bool) -> u64 {
    run.records.iter().filter(|r| which(r.answer)).count() as u64
}

/// Right answers in by `grace` after the end of the run's schedule. Answers that come in
/// later while it drains are right but late: an app that keeps up has none, one that queues
/// has seconds'. With the route's SLO as the grace, a request due at the very end and answered
/// within the SLO counts, as it would have mid-run.
fn delivered(run: &OpenRun, grace: Duration) -> u64 {
    run.records
        .iter()
        .filter(|r| r.answer == Answer::Page && r.due + r.latency <= run.length + grace)
        .count() as u64
}

fn answers(records: impl Iterator<Item = Answer>) -> BTreeMap<String, u64> {
    let mut answers = BTreeMap::new();
    for answer in records {
        let label = match answer {
            Answer::WrongBody => "200".to_owned(),
            other => other.label(),
        };
        *answers.entry(label).or_default() += 1;
    }
    answers
}

fn latency_ms(histogram: &Histogram<u64>) -> Latency {
    let ms = |q: f64| histogram.value_at_quantile(q) as f64 / 1000.0;
    Latency {
        p50: ms(0.50),
        p90: ms(0.90),
        p99: ms(0.99),
        p999: ms(0.999),
        max: histogram.max() as f64 / 1000.0,
    }
}

/// Where a run sits in the sweep: its round, its target rate and the fraction of a
/// closed-loop max that rate is.
struct Scheduled {
    round: u32,
    rate: f64,
    fraction: f64,
}

/// A run's numbers and whether the rate was held (docs/spec.md §8).
fn rate_point(
    run: &OpenRun,
    Scheduled {
        round,
        rate,
        fraction,
    }: Scheduled,
    slo_ms: f64,
    usage: &Usage,
    cpu_busy: Option<CpuBusy>,
    client_bound: bool,
    histogram: String,
) -> RatePoint {
    let wrong_bodies = count(run, |a| a == Answer::WrongBody);
    // Of the requests sent, not of rate × length: Poisson arrivals make due a few percent
    // more or fewer than that. No gate of its own: an answer it leaves out took longer than
    // the SLO, so a p99 within the SLO means at least 99 % delivered (docs/spec.md §8).
    let delivered_ratio =
        delivered(run, Duration::from_secs_f64(slo_ms / 1000.0)) as f64 / run.sent.max(1) as f64;
    let latency = latency_ms(&open_loop::histogram(&run.records));
    let send_delay = latency_ms(&open_loop::send_delay_histogram(&run.records));
    let read_delay = latency_ms(&open_loop::read_delay_histogram(&run.records));
    let generator_delay = latency_ms(&open_loop::generator_delay_histogram(&run.records));
    let latency_less_generator =
        latency_ms(&open_loop::latency_less_generator_histogram(&run.records));
    let connection_wait = latency_ms(&open_loop::connection_wait_histogram(&run.records));
    let answers = answers(run.records.iter().map(|r| r.answer));
    let per_request = |percent: f64| {
        (run.completed > 0).then(|| percent / 100.0 * usage.seconds * 1e6 / run.completed as f64)
    };
    let mut reasons = Vec::new();
    let bookkeeping = bookkeeping_error(run);
    reasons.extend(bookkeeping.clone());
    if run.in_flight > 0 {
        reasons.push(format!("{} still in flight at the end", run.in_flight));
    }
    for (label, n) in answers.iter().filter(|(label, _)| *label != "200") {
        reasons.push(format!("{n} × {label}"));
    }
    if wrong_bodies > 0 {
        reasons.push(format!("{wrong_bodies} wrong bodies"));
    }
    let valid = reasons.is_empty();
    // A request given up at the latency limit was slow, not wrong: such a run is judged by
    // its latency like a valid one, and its lateness may be the generator's.
    let only_given_up = bookkeeping.is_none()
        && run.in_flight == 0
        && wrong_bodies == 0
        && answers
            .keys()
            .all(|label| label == "200" || *label == Answer::TooLate.label());
    let generator_late = generator_late(
        only_given_up,
        latency.p99,
        generator_delay.p99,
        latency_less_generator.p99,
        slo_ms,
    );
    RatePoint {
        round,
        target_per_sec: rate,
        fraction,
        duration_secs: run.length.as_secs_f64(),
        sent: run.sent,
        completed: run.completed,
        failed: run.failed,
        in_flight: run.in_flight,
        delivered_ratio,
        within_slo: valid && latency.p99 <= slo_ms,
        read_delay_ms: Some(read_delay),
        latency_less_generator_ms: Some(latency_less_generator),
        generator_late,
        latency_ms: latency,
        send_delay_ms: Some(send_delay),
        connection_wait_ms: Some(connection_wait),
        answers,
        wrong_bodies,
        connections_opened: run.connections_opened,
        app_cpu_us_per_request: per_request(usage.app_cpu_percent),
        postgres_cpu_us_per_request: per_request(usage.postgres_cpu_percent),
        redis_cpu_us_per_request: per_request(usage.redis_cpu_percent),
        app_rss_max_mib: usage.app_rss_max_mib,
        cpu_busy,
        client_bound,
        valid,
        invalid_reason: (!valid).then(|| reasons.join("; ")),
        bookkeeping,
        histogram,
    }
}

/// Where the generator's records disagree with its counters. The dispatcher counts what it
/// sent; each request's task counts what became of it and leaves a record. They disagree only
/// when a request was lost or miscounted: a check of the generator's bookkeeping, not of the
/// app.
fn bookkeeping_error(run: &OpenRun) -> Option<String> {
    let recorded = run.records.len() as u64;
    let answered = run
        .records
        .iter()
        .filter(|r| !r.answer.unanswered())
        .count() as u64;
    if (answered, recorded - answered) != (run.completed, run.failed) {
        return Some(format!(
            "records ≠ counters: {answered} answered and {} not in the records, {} and {} counted",
            recorded - answered,
            run.completed,
            run.failed
        ));
    }
    (run.sent != recorded + run.in_flight).then(|| {
        format!(
            "sent {} ≠ {recorded} recorded + {} in flight",
            run.sent, run.in_flight
        )
    })
}

/// The overload run summarised per second of due time, and whether the app came back.
#[allow(clippy::too_many_arguments)]
fn overload_outcome(
    run: &OpenRun,
    round: u32,
    route: &str,
    slo_ms: f64,
    max: f64,
    (base, over): (f64, f64),
    plan: &OverloadPlan,
    peak_rss_mib: f64,
    survived: bool,
    histogram: String,
) -> Overload {
    let seconds_total = run.length.as_secs_f64().ceil() as usize;
    let overload_start = plan.before_secs;
    let overload_end = plan.before_secs + plan.overload_secs;
    let mut seconds: Vec<(Histogram<u64>, u64, u64)> =
        vec![(open_loop::new_histogram(), 0, 0); seconds_total];
    for record in &run.records {
        let slot = &mut seconds[(record.due.as_secs() as usize).min(seconds_total - 1)];
        if open_loop::has_latency(record.answer) {
            slot.0.saturating_record(record.latency.as_micros() as u64);
        }
        if record.answer == Answer::Page {
            slot.1 += 1;
        } else if record.answer.unanswered() {
            slot.2 += 1;
        }
    }
    let seconds: Vec<OverloadSecond> = seconds
        .into_iter()
        .enumerate()
        .map(|(second, (histogram, right, failed))| {
            let at = second as f64;
            OverloadSecond {
                second: second as u32,
                target_per_sec: if (overload_start..overload_end).contains(&at) {
                    over
                } else {
                    base
                },
                right,
                failed,
                p99_ms: histogram.value_at_quantile(0.99) as f64 / 1000.0,
            }
        })
        .collect();
    // The base phase's first second warms the app up.
    let mut baseline = open_loop::new_histogram();
    let mut baseline_right = 0;
    for record in run.records.iter().filter(|r| {
        let at = r.due.as_secs_f64();
        (1.0..overload_start).contains(&at) && r.answer == Answer::Page
    }) {
        baseline.saturating_record(record.latency.as_micros() as u64);
        baseline_right += 1;
    }
    let baseline_p99_ms = baseline.value_at_quantile(0.99) as f64 / 1000.0;
    let baseline_per_sec = baseline_right as f64 / (overload_start - 1.0).max(1.0);
    let recovered_after_secs = recovered_after_secs(&seconds, overload_end, slo_ms, base);
    let answers_during = answers(
        run.records
            .iter()
            .filter(|r| (overload_start..overload_end).contains(&r.due.as_secs_f64()))
            .map(|r| r.answer),
    );
    Overload {
        round,
        route: route.to_owned(),
        max_sustainable_per_sec: max,
        base_per_sec: base,
        overload_per_sec: over,
        answers_during,
        wrong_bodies: count(run, |a| a == Answer::WrongBody),
        peak_rss_mib,
        baseline_p99_ms,
        baseline_per_sec,
        back_p99_bound_ms: Some(slo_ms),
        recovered: survived
            && recovered_after_secs.is_some_and(|secs| secs <= plan.recover_within_secs),
        recovered_after_secs,
        survived,
        seconds,
        histogram,
    }
}

/// One closed-loop level of the connection sweep on the harness's client (every body
/// checked): `connections` clients, a warm-up while they connect, then the measured run.
fn connection_level(
    running: &RunningApp,
    page: &RoutePage,
    connections: u32,
    idle_rss_mib: f64,
    options: &Options,
) -> Result<ConnectionLevel> {
    prepare_cache(running, page)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(options.cpus.load.len().max(1))
        .enable_all()
        .build()?;
    let workload = Workload::Read {
        path: page.path.to_owned(),
        page: Arc::clone(&page.page),
    };
    let addr = format!("127.0.0.1:{}", running.port);
    let load = Load::start(&runtime, &addr, &workload, connections, Pace::Flat);
    std::thread::sleep(options.warmup);
    // The connections all open at once and the kernel resends a SYN it dropped only a
    // second later: the warm-up lasts until the app holds them all, or the level is invalid.
    await_connections_held(running.pid(), running.port, connections, CONNECT_LIMIT);
    let warmed = load.started.elapsed();
    let sampler = Sampler::start(running.pid(), running.port, measured_window(options.run));
    std::thread::sleep(options.run);
    let usage = sampler.finish();
    let records = load.finish(&runtime);
    let measured: Vec<_> = records
        .iter()
        .filter(|r| r.sent >= warmed && r.sent < warmed + options.run)
        .copied()
        .collect();
    Ok(level_outcome(
        connections,
        &measured,
        options.run,
        &usage,
        idle_rss_mib,
        running.is_running(),
    ))
}

/// A connection level's figures from the requests sent in its measured window, and whether
/// it counts: the app held every connection, answered every request with the page, and
/// survived.
fn level_outcome(
    connections: u32,
    measured: &[Record],
    run: Duration,
    usage: &Usage,
    idle_rss_mib: f64,
    survived: bool,
) -> ConnectionLevel {
    let mut histogram = open_loop::new_histogram();
    for record in measured {
        histogram.saturating_record(record.latency.as_micros() as u64);
    }
    let answers = answers(measured.iter().map(|r| r.answer));
    let wrong_bodies = measured
        .iter()
        .filter(|r| r.answer == Answer::WrongBody)
        .count() as u64;
    let held = usage.connections_min;
    let mut reasons: Vec<String> = usage.connections_short(connections).into_iter().collect();
    for (label, n) in answers.iter().filter(|(label, _)| *label != "200") {
        reasons.push(format!("{n} × {label}"));
    }
    if wrong_bodies > 0 {
        reasons.push(format!("{wrong_bodies} wrong bodies"));
    }
    if !survived {
        reasons.push("the app died".to_owned());
    }
    let valid = reasons.is_empty();
    ConnectionLevel {
        connections,
        connections_held: held,
        requests_per_sec: measured.len() as f64 / run.as_secs_f64(),
        latency_ms: latency_ms(&histogram),
        answers,
        wrong_bodies,
        app_rss_max_mib: usage.app_rss_max_mib,
        rss_per_connection_kib: (usage.app_rss_max_mib - idle_rss_mib).max(0.0) * 1024.0
            / f64::from(held.max(1)),
        oom_kills: None,
        survived,
        valid,
        invalid_reason: (!valid).then(|| reasons.join("; ")),
    }
}

fn rss_mib(pid: u32) -> f64 {
    tree_rss_bytes(pid) as f64 / (1024.0 * 1024.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::open_loop::OpenRecord;

    /// A run of `sent` requests due evenly over one second, each answered with the right
    /// page after `latency(k)` for request k.
    fn run_of(sent: u64, latency: impl Fn(u64) -> Duration) -> OpenRun {
        let records = (0..sent)
            .map(|k| OpenRecord {
                due: Duration::from_secs_f64(k as f64 / sent as f64),
                latency: latency(k),
                send_delay: Duration::ZERO,
                connection_wait: Some(Duration::ZERO),
                answer_arrived: Some(latency(k)),
                read_delay: Some(Duration::ZERO),
                answer: Answer::Page,
            })
            .collect();
        OpenRun {
            records,
            sent,
            completed: sent,
            failed: 0,
            in_flight: 0,
            connections_opened: 8,
            length: Duration::from_secs(1),
        }
    }

    /// A run whose answers all took 15 ms against a 10 ms SLO, the generator late on 5 % of
    /// them: `late(k)` is request k's (send delay, read delay).
    fn run_with_a_late_generator(late: impl Fn(u64) -> (Duration, Duration)) -> OpenRun {
        let mut run = run_of(1000, |_| Duration::from_millis(15));
        for (k, record) in run.records.iter_mut().enumerate() {
            let (send, read) = late(k as u64);
            record.send_delay = send;
            record.read_delay = Some(read);
        }
        run
    }

    #[test]
    fn a_run_the_generator_was_late_for_is_generator_late_not_failed() {
        let ms = Duration::from_millis;
        // Every answer waited 6 ms in the socket: the app's share, 9 ms, is within the SLO.
        let read_late = run_with_a_late_generator(|_| (ms(0), ms(6)));
        let read_late = point(&read_late, 1000.0, 10.0);
        assert!(read_late.valid && !read_late.within_slo);
        assert!(
            read_late.generator_late,
            "{:?}",
            read_late.latency_less_generator_ms
        );
        // Taken up 12 ms late for the last 2 %: no app could have held the run's p99.
        let send_late = run_with_a_late_generator(|k| match k >= 980 {
            true => (ms(12), ms(0)),
            false => (ms(0), ms(0)),
        });
        let send_late = point(&send_late, 1000.0, 10.0);
        assert!(send_late.generator_late, "{:?}", send_late.read_delay_ms);
        // Late by 1 ms both ways: the app's 13 ms misses the SLO on its own.
        let slow_app = run_with_a_late_generator(|_| (ms(1), ms(1)));
        let slow_app = point(&slow_app, 1000.0, 10.0);
        assert!(!slow_app.generator_late && !slow_app.within_slo);
        // The last 2 % taken up 2 s late and given up at the latency limit: the run is
        // invalid, but slow, not wrong, and the generator's.
        let mut given_up = run_with_a_late_generator(|k| match k >= 980 {
            true => (ms(2000), ms(0)),
            false => (ms(0), ms(0)),
        });
        for record in given_up.records.iter_mut().skip(980) {
            record.answer = Answer::TooLate;
            record.latency = ms(2000);
            record.read_delay = None;
        }
        (given_up.completed, given_up.failed) = (980, 20);
        let given_up = point(&given_up, 1000.0, 10.0);
        assert!(!given_up.valid && given_up.generator_late, "{given_up:?}");
        // A wrong answer is the app's, however late the generator.
        let mut wrong = run_with_a_late_generator(|_| (ms(0), ms(6)));
        wrong.records[0].answer = Answer::WrongBody;
        assert!(!point(&wrong, 1000.0, 10.0).generator_late);
        // A run that held is held, however late the generator.
        let held = point(&run_with_a_late_generator(|_| (ms(8), ms(6))), 1000.0, 20.0);
        assert!(held.within_slo && !held.generator_late);
    }

    #[test]
    fn a_connection_level_counts_only_when_every_connection_was_held_and_answered_right() {
        let records = |answer: Answer| -> Vec<Record> {
            (0..100)
                .map(|k| Record {
                    client: k % 16,
                    sent: Duration::from_millis(u64::from(k) * 10),
                    latency: Duration::from_millis(2),
                    answer,
                    comment: None,
                })
                .collect()
        };
        let usage = Usage {
            connections_min: 16,
            app_rss_max_mib: 36.0,
            ..Usage::default()
        };
        let second = Duration::from_secs(1);
        let held = level_outcome(16, &records(Answer::Page), second, &usage, 20.0, true);
        assert!(held.valid, "{:?}", held.invalid_reason);
        assert_eq!(held.requests_per_sec, 100.0);
        assert_eq!(
            held.rss_per_connection_kib, 1024.0,
            "16 MiB over 16 connections"
        );
        let short = Usage {
            connections_min: 12,
            ..usage.clone()
        };
        let short = level_outcome(16, &records(Answer::Page), second, &short, 20.0, true);
        assert!(!short.valid && short.invalid_reason.unwrap().contains("held 12 of 16"));
        let wrong = level_outcome(16, &records(Answer::WrongBody), second, &usage, 20.0, true);
        assert!(!wrong.valid && wrong.invalid_reason.unwrap().contains("100 wrong bodies"));
        let died = level_outcome(16, &records(Answer::Page), second, &usage, 20.0, false);
        assert_eq!(died.invalid_reason.as_deref(), Some("the app died"));
    }

    fn point(run: &OpenRun, rate: f64, slo_ms: f64) -> RatePoint {
        let scheduled = Scheduled {
            round: 1,
            rate,
            fraction: 0.5,
        };
        let usage = Usage::default();
        rate_point(run, scheduled, slo_ms, &usage, None, false, String::new())
    }

    #[test]
    fn a_run_whose_answers_are_right_and_within_the_slo_holds_though_some_come_after_its_end() {
        // Every answer takes 40 ms of a 50 ms SLO, so those due in the last 40 ms come in
        // after the schedule's end: 4 % of the run, as late as the rest.
        let steady = run_of(1000, |_| Duration::from_millis(40));
        let held = point(&steady, 1000.0, 50.0);
        assert!(held.valid && held.within_slo, "{:?}", held.invalid_reason);
        assert_eq!(held.delivered_ratio, 1.0);
    }

    #[test]
    fn poisson_arrivals_are_judged_against_the_requests_sent() {
        // Poisson arrivals made 970 due in a second at 1,000 req/s; all answered in 1 ms.
        let fewer = run_of(970, |_| Duration::from_millis(1));
        let held = point(&fewer, 1000.0, 10.0);
        assert!(held.valid && held.within_slo, "{:?}", held.invalid_reason);
        assert_eq!(held.delivered_ratio, 1.0);
    }

    #[test]
    fn an_app_that_queues_delivers_too_little_and_misses_its_slo() {
        // Each answer a millisecond later than the one before: the queue grows to a second.
        // Every answer is right, so the run measured the app correctly; it did not hold.
        let queueing = run_of(1000, Duration::from_millis);
        let missed = point(&queueing, 1000.0, 50.0);
        assert!(missed.valid && !missed.within_slo);
        // Answered by the run's end plus 50 ms: requests 0 to 525 of 1,000.
        assert_eq!(missed.delivered_ratio, 0.526);
    }

    #[test]
    fn records_that_disagree_with_the_counters_make_the_run_invalid() {
        // Counted as one failed, recorded as answered: `sent = completed + failed` holds.
        let mut miscounted = run_of(1000, |_| Duration::from_millis(1));
        (miscounted.completed, miscounted.failed) = (999, 1);
        let reason = point(&miscounted, 1000.0, 10.0).invalid_reason.unwrap();
        assert_eq!(
            reason,
            "records ≠ counters: 1000 answered and 0 not in the records, 999 and 1 counted"
        );
        // A request counted but never recorded.
        let mut lost = run_of(1000, |_| Duration::from_millis(1));
        lost.records.pop();
        (lost.completed, lost.failed) = (999, 0);
        lost.sent = 1000;
        let lost = point(&lost, 1000.0, 10.0);
        assert_eq!(
            lost.bookkeeping.as_deref(),
            Some("sent 1000 ≠ 999 recorded + 0 in flight")
        );
        assert_eq!(lost.invalid_reason, lost.bookkeeping);
    }

    const OVERLOAD_PLAN: OverloadPlan = OverloadPlan {
        base_fraction: 0.5,
        overload_fraction: 1.5,
        before_secs: 10.0,
        overload_secs: 30.0,
        after_secs: 20.0,
        recover_within_secs: 10.0,
    };

    /// An overload run of 100 req/s, 300 req/s from second 10 to 40, 100 req/s again to 60;
    /// request `k` of second `s` answered right after `latency(s, k)`.
    fn overload_of(latency: impl Fn(u64, u64) -> Duration) -> Overload {
        let mut records = Vec::new();
        for second in 0..60 {
            let rate = if (10..40).contains(&second) { 300 } else { 100 };
            for k in 0..rate {
                records.push(OpenRecord {
                    due: Duration::from_secs(second) + Duration::from_secs(k) / rate as u32,
                    latency: latency(second, k),
                    send_delay: Duration::ZERO,
                    connection_wait: Some(Duration::ZERO),
                    answer_arrived: Some(latency(second, k)),
                    read_delay: Some(Duration::ZERO),
                    answer: Answer::Page,
                });
            }
        }
        let sent = records.len() as u64;
        let run = OpenRun {
            records,
            sent,
            completed: sent,
            failed: 0,
            in_flight: 0,
            connections_opened: 64,
            length: Duration::from_secs(60),
        };
        let rates = (100.0, 300.0);
        overload_outcome(
            &run,
            1,
            "detail",
            50.0,
            200.0,
            rates,
            &OVERLOAD_PLAN,
            40.0,
            true,
            String::new(),
        )
    }

    #[test]
    fn an_app_is_back_from_an_overload_at_three_seconds_in_a_row_within_the_slo() {
        // Slow while overloaded and for two seconds after; a one-second blip at second 56.
        let overload = overload_of(|second, _| match second {
            10..42 => Duration::from_millis(200),
            56 => Duration::from_millis(80),
            _ => Duration::from_millis(5),
        });
        assert_eq!(overload.recovered_after_secs, Some(2.0));
        assert!(overload.recovered);
        assert_eq!(overload.back_p99_bound_ms, Some(50.0));
    }

    #[test]
    fn a_noisy_baseline_does_not_loosen_the_recovery_bound() {
        // A baseline p99 of 69 ms (2 % of its requests), then 100 ms answers after the
        // overload: twice a noisy baseline, but twice the SLO too.
        let overload = overload_of(|second, k| match second {
            0..10 if k % 50 == 0 => Duration::from_millis(69),
            10.. => Duration::from_millis(100),
            _ => Duration::from_millis(5),
        });
        assert!(
            overload.baseline_p99_ms > 68.0,
            "{}",
            overload.baseline_p99_ms
        );
        assert_eq!(overload.recovered_after_secs, None);
        assert!(!overload.recovered);
    }

    #[test]
    fn a_stall_at_the_end_of_a_run_counts_as_one_in_its_middle() {
        // 30 ms of requests (3 %) held up to 60 ms by a stall, at the end or mid-run: neither
        // run holds a 10 ms SLO, both are valid measurements.
        let stall = |from: u64| {
            move |k: u64| match k >= from && k < from + 30 {
                true => Duration::from_millis(60 - (k - from)),
                false => Duration::from_millis(1),
            }
        };
        let at_end = point(&run_of(1000, stall(970)), 1000.0, 10.0);
        let mid_run = point(&run_of(1000, stall(500)), 1000.0, 10.0);
        for run in [&at_end, &mid_run] {
            assert!(run.valid && !run.within_slo, "{:?}", run.invalid_reason);
        }
        assert_eq!(mid_run.delivered_ratio, 1.0);
        // The stall at the end delivered late what the p99 already counts as slow.
        assert_eq!(at_end.delivered_ratio, 0.97);
    }
}
