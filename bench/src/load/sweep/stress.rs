//! The sweep's stress passes, once per app after the rate ladders: the closed-loop
//! connection sweep, the overload and its recovery, and the connection sweep again inside
//! a memory cgroup.

use super::runner::{RoutePage, Sweeper, prepare_cache};
use super::verdicts::{level_outcome, overload_outcome};
use super::{CONNECT_LIMIT, Options, phase};
use crate::load::client::{Load, Pace, Workload};
use crate::load::open_loop;
use crate::load::sampler::{Sampler, measured_window};
use crate::results::sweep::{ConnectionLevel, MemoryLimited, Overload, verdict_open};
use crate::results::write_atomically;
use crate::stack::apps::Target;
use crate::stack::cgroup::MemoryCgroup;
use crate::stack::processes::{await_connections_held, tree_rss_bytes};
use crate::stack::server::RunningApp;
use anyhow::Result;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

impl Sweeper<'_> {
    /// The last pass: the connection sweep and the overload.
    pub(super) fn measure_once(
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
        let page = self.route_page(&options.settings.connection_route)?;
        for &connections in &options.settings.connection_levels {
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

    /// A round's overload, the app started fresh for it; none once the earlier rounds
    /// decided whether the app recovers (in more than half of the rounds), or when the app
    /// sustained no rate on the route.
    pub(super) fn measure_overload(
        &mut self,
        index: usize,
        target: &Target,
        env: &BTreeMap<String, String>,
        round: u32,
    ) -> Result<()> {
        let options = self.options;
        let route = &options.settings.overload_route;
        let app = &self.sweep.apps[index];
        let (recovered, _) = app.overloads_recovered();
        let max = app
            .routes
            .iter()
            .find(|r| &r.route == route)
            .and_then(|r| r.max_sustainable(options.settings.rounds));
        let Some(max) = max else {
            self.progress.say(format!(
                "{}: no overload: no rate held on {route}",
                target.label
            ));
            self.progress.inc();
            return Ok(());
        };
        if !verdict_open(recovered, round, options.settings.rounds) {
            self.progress.inc();
            return Ok(());
        }
        let at = self.at(round, target);
        self.progress.step(format!("{at} · start, parity"));
        let running = self.start(target, env, None, &format!("overload-r{round}"))?;
        self.progress.step(format!("{at} · overload"));
        let overload = self.overload(&running, target, round, max)?;
        self.app(index).overloads.push(overload);
        self.progress.inc();
        running.stop();
        Ok(())
    }

    /// Overload on the overload route, from the app's max sustainable rate `max` there.
    fn overload(
        &self,
        running: &RunningApp,
        target: &Target,
        round: u32,
        max: f64,
    ) -> Result<Overload> {
        let options = self.options;
        let route = &options.settings.overload_route;
        let page = self.route_page(route)?;
        prepare_cache(running, &page)?;
        let plan_secs = &options.settings.overload;
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
        Ok(overload_outcome(
            &run,
            round,
            route,
            options.settings.slo_ms[route],
            max,
            (base, over),
            plan_secs,
            usage.app_rss_max_mib,
            running.is_running(),
            histogram,
        ))
    }

    /// The connection sweep again with the app in a memory cgroup, restarted after a
    /// level that killed it.
    pub(super) fn measure_memory_limited(
        &mut self,
        index: usize,
        target: &Target,
        env: &BTreeMap<String, String>,
    ) -> Result<()> {
        let options = self.options;
        let limit = options
            .settings
            .memory_limit_bytes
            .expect("checked by the caller");
        let cgroup = Arc::new(MemoryCgroup::create(
            &target.label.replace('+', "-"),
            limit,
        )?);
        self.app(index).memory_limited = Some(MemoryLimited {
            limit_bytes: limit,
            mechanism: cgroup.mechanism().to_owned(),
            levels: Vec::new(),
        });
        let page = self.route_page(&options.settings.connection_route)?;
        let mut running: Option<RunningApp> = None;
        for &connections in &options.settings.connection_levels {
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

fn rss_mib(pid: u32) -> f64 {
    tree_rss_bytes(pid) as f64 / (1024.0 * 1024.0)
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
    std::thread::sleep(options.warmup());
    // The connections all open at once and the kernel resends a SYN it dropped only a
    // second later: the warm-up lasts until the app holds them all, or the level is invalid.
    await_connections_held(running.pid(), running.port, connections, CONNECT_LIMIT);
    let warmed = load.started.elapsed();
    let sampler = Sampler::start(running.pid(), running.port, measured_window(options.run()));
    std::thread::sleep(options.run());
    let usage = sampler.finish();
    let records = load.finish(&runtime);
    let measured: Vec<_> = records
        .iter()
        .filter(|r| r.sent >= warmed && r.sent < warmed + options.run())
        .copied()
        .collect();
    Ok(level_outcome(
        connections,
        &measured,
        options.run(),
        &usage,
        idle_rss_mib,
        running.is_running(),
    ))
}
