//! The sweep's runs: the generator's ceiling and the machine's floor, then each app started,
//! pinned and parity-gated, its closed-loop maxima and rate ladders measured and saved (the
//! stress passes after them are in stress.rs).

use crate::load::admission::{Expected, admission};
use crate::load::ceilings::StaticServer;
use crate::load::loadgen::Loadgen;
use crate::load::open_loop::{self};
use crate::load::sampler::{Sampler, measured_window};
use crate::load::warmup;
use crate::parity::Reference;
use crate::progress::Progress;
use crate::results::sweep::{
    AppSweep, CLIENT_BOUND_FRACTION, ClosedLoopRound, Floor, FloorAt, GeneratorCeiling, Ladder,
    RatePoint, RouteSweep, Sweep, verdict_open,
};
use crate::results::write_atomically;
use crate::routes;
use crate::stack::apps::{self, Target};
use crate::stack::cgroup::MemoryCgroup;
use crate::stack::cpus::format_list;
use crate::stack::page_cache;
use crate::stack::server::RunningApp;
use anyhow::{Context, Result, bail};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use super::climb::Climb;
use super::verdicts::{Scheduled, delivered, rate_point};
use super::{Options, Pass, phase};

pub(super) struct Sweeper<'a> {
    pub options: &'a Options,
    pub dir: PathBuf,
    pub sweep: Sweep,
    pub reference: Reference,
    pub progress: Progress,
    pub interrupted: &'a AtomicBool,
}

/// A route's page as Go serves it on the seeded data: what every 200 must be.
pub(super) struct RoutePage {
    pub(super) route: String,
    pub(super) path: &'static str,
    pub(super) page: Arc<Vec<u8>>,
}

/// A rate the machine's floor runs at: its fraction of Go's closed-loop max, and the name
/// its raw files take.
struct FloorRate {
    rate: f64,
    fraction: f64,
    name: String,
}

/// One ladder of a route: its rates, each with its fraction of the closed-loop max it is
/// taken from.
struct LadderRates {
    route: String,
    ladder: Ladder,
    rates: Vec<(f64, f64)>,
}

/// The process an open-loop run loads, and its loopback port.
#[derive(Clone, Copy)]
struct Served {
    pid: u32,
    port: u16,
}

impl Sweeper<'_> {
    pub(super) fn save(&self) -> Result<()> {
        self.sweep.save(&self.dir)
    }

    pub(super) fn app(&mut self, index: usize) -> &mut AppSweep {
        &mut self.sweep.apps[index]
    }

    pub(super) fn check_interrupted(&self) -> Result<()> {
        if self.interrupted.load(Ordering::SeqCst) {
            bail!("interrupted (Ctrl-C or SIGTERM)");
        }
        Ok(())
    }

    pub(super) fn route_page(&self, route: &str) -> Result<RoutePage> {
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
    pub(super) fn measure_generator_ceiling(&mut self) -> Result<()> {
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
            &plan(self.options.warmup()),
            || (),
        )?;
        let run = open_loop::run(&addr, "/", static_page, &plan(self.options.run()), || ())?;
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
                self.options.settings.max_connections
            ),
        });
        self.progress
            .say(format!("generator ceiling: {per_sec:.0} req/s"));
        self.progress.inc();
        self.save()
    }

    /// A round's latency floor (docs/spec.md §8.9): per route, the static server on the app's
    /// CPUs with a page of the route's size, at each of the common rates.
    pub(super) fn measure_floor(&mut self, round: u32) -> Result<()> {
        let options = self.options;
        for route in &options.settings.routes {
            let Some(go_max) = self.go_max(route) else {
                continue;
            };
            let rates: Vec<FloorRate> = options
                .settings
                .common_fractions
                .iter()
                .map(|&fraction| FloorRate {
                    rate: (go_max * fraction).round().max(1.0),
                    fraction,
                    name: format!("common-{:03}", (fraction * 100.0).round()),
                })
                .collect();
            self.floor_runs(route, round, &rates)?;
        }
        Ok(())
    }

    /// The floor at every rate that decided an app's max (the lowest rate above it, or for
    /// an app that sustained none its lowest) where the common rates said nothing of the
    /// machine: without it, a miss there may be the machine's (docs/spec.md §8.9). In every
    /// round, after the ladders' rounds have fixed those rates.
    pub(super) fn measure_floor_at_deciding_rates(&mut self) -> Result<()> {
        let options = self.options;
        let rounds = options.settings.rounds;
        let mut by_route = Vec::new();
        for route in &options.settings.routes {
            let Some(go_max) = self.go_max(route) else {
                continue;
            };
            let mut rates: Vec<f64> = self
                .sweep
                .apps
                .iter()
                .filter_map(|app| app.routes.iter().find(|r| &r.route == route))
                .filter_map(|swept| swept.rung_that_set_the_max(rounds))
                .filter(|rung| !rung.sustained(rounds))
                .map(|rung| rung.target_per_sec)
                .filter(|&rate| self.sweep.floor_at(route, rate) == FloorAt::NotMeasured)
                .collect();
            rates.sort_by(f64::total_cmp);
            rates.dedup();
            let rates: Vec<FloorRate> = rates
                .into_iter()
                .map(|rate| FloorRate {
                    rate,
                    fraction: rate / go_max,
                    name: format!("at-{rate:.0}"),
                })
                .collect();
            self.progress.add((rates.len() * rounds as usize) as u64);
            by_route.push((route, rates));
        }
        for round in 1..=rounds {
            for (route, rates) in &by_route {
                self.floor_runs(route, round, rates)?;
            }
        }
        Ok(())
    }

    /// Go's closed-loop max on `route`, the base of the common rates, when a round counted.
    fn go_max(&self, route: &str) -> Option<f64> {
        self.sweep.apps[0]
            .routes
            .iter()
            .find(|r| r.route == route && r.closed_loop_counted())
            .map(|r| r.closed_loop_per_sec)
    }

    /// One round of the static server on the app's CPUs, serving a page of `route`'s size, at
    /// each of `rates`; its runs added to the route's floor.
    /// A rate whose verdict the earlier rounds decided is passed over.
    fn floor_runs(&mut self, route: &str, round: u32, rates: &[FloorRate]) -> Result<()> {
        let options = self.options;
        let held_before = |rate: f64| {
            let floor = self.sweep.floor.iter().find(|f| f.route == route);
            let runs = floor.into_iter().flat_map(|f| &f.runs);
            runs.filter(|run| run.target_per_sec == rate && run.within_slo)
                .count()
        };
        let (open, decided): (Vec<&FloorRate>, Vec<&FloorRate>) = rates
            .iter()
            .partition(|r| verdict_open(held_before(r.rate), round, options.settings.rounds));
        decided.iter().for_each(|_| self.progress.inc());
        if open.is_empty() {
            return Ok(());
        }
        let bytes = self.route_page(route)?.page.len();
        let (server, addr) = StaticServer::start(&options.cpus.app, bytes)?;
        let page = RoutePage {
            route: route.to_owned(),
            path: "/",
            page: Arc::new(vec![b'x'; bytes]),
        };
        let port = addr.rsplit(':').next().unwrap_or_default().parse()?;
        let served = Served {
            pid: server.pid(),
            port,
        };
        for floor_rate in open {
            self.check_interrupted()?;
            let rate = floor_rate.rate;
            self.progress.step(format!(
                "round {round} · the machine's floor · {route} · {rate:.0} req/s"
            ));
            let stem = format!("raw/floor-{route}-{}-r{round}", floor_rate.name);
            let point = self.rate_point(served, &page, round, rate, floor_rate.fraction, &stem)?;
            match self.sweep.floor.iter_mut().find(|f| f.route == route) {
                Some(floor) => floor.runs.push(point),
                None => self.sweep.floor.push(Floor {
                    route: route.to_owned(),
                    body_bytes: bytes,
                    runs: vec![point],
                }),
            }
            self.progress.inc();
        }
        drop(server);
        self.save()
    }

    /// The harness's environment, then the target's own.
    fn env(&self, target: &Target) -> BTreeMap<String, String> {
        let mut env = apps::harness_env(&self.options.cpus.app);
        env.extend(target.env.iter().cloned());
        env
    }

    /// Adds the target's (empty) results and saves them.
    pub(super) fn push_app(&mut self, target: &Target) -> Result<()> {
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
    pub(super) fn visit(&mut self, index: usize, pass: Pass, round: u32) -> Result<()> {
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
            && options.settings.memory_limit_bytes.is_some()
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

    pub(super) fn sweep_memory_variant(&mut self, variant: &Target) -> Result<()> {
        self.push_app(variant)?;
        let index = self.sweep.apps.len() - 1;
        if let Err(err) = self.measure_memory_limited(index, variant, &self.env(variant)) {
            self.app(index).error = Some(format!("memory-limited: {err:#}"));
        }
        self.save()
    }

    /// Starts `target` for `pass` (which names its start-up warm-up's raw output), checks
    /// its pages against Go's, and gives it the start-up warm-up its manifest asks for.
    pub(super) fn start(
        &self,
        target: &Target,
        env: &BTreeMap<String, String>,
        cgroup: Option<Arc<MemoryCgroup>>,
        pass: &str,
    ) -> Result<RunningApp> {
        let running = RunningApp::start_in(
            &target.app,
            &apps::env_pairs(env),
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
                &options.settings.routes,
                options.connections,
                options.cpus.load.len(),
                0,
                &stem,
            )?;
        }
        Ok(running)
    }

    /// `round/rounds · label`: where the sweep is, for the progress line.
    pub(super) fn at(&self, round: u32, target: &Target) -> String {
        format!(
            "round {round}/{} · {}",
            self.options.settings.rounds, target.label
        )
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
        for route in &options.settings.routes {
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
                    slo_ms: options.settings.slo_ms[route],
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
    /// medians, so every round runs the same rates; a round runs only the rates whose
    /// verdict is still open ([`Climb`]), and does not start the app when there are none.
    fn measure_ladders(
        &mut self,
        index: usize,
        target: &Target,
        env: &BTreeMap<String, String>,
        round: u32,
    ) -> Result<()> {
        let options = self.options;
        let ladders = self.ladders(index)?;
        let open = ladders.iter().any(|ladder| {
            let mut climb = Climb::default();
            ladder.rates.iter().any(|&(rate, _)| {
                let earlier = self.earlier_runs(index, &ladder.route, ladder.ladder, rate);
                climb.runs(&earlier, round, options.settings.rounds)
            })
        });
        if !open {
            let steps: usize = ladders.iter().map(|ladder| ladder.rates.len()).sum();
            (0..steps).for_each(|_| self.progress.inc());
            return Ok(());
        }
        let at = self.at(round, target);
        self.progress.step(format!("{at} · start, parity"));
        let running = self.start(target, env, None, &format!("ladders-r{round}"))?;
        let mut route_page: Option<RoutePage> = None;
        for LadderRates {
            route,
            ladder,
            rates,
        } in ladders
        {
            if route_page.as_ref().is_none_or(|page| page.route != route) {
                route_page = Some(self.route_page(&route)?);
            }
            let page = route_page.as_ref().expect("set above");
            let mut climb = Climb::default();
            for (rate, fraction) in rates {
                self.check_interrupted()?;
                let earlier = self.earlier_runs(index, &route, ladder, rate);
                if !climb.runs(&earlier, round, options.settings.rounds) {
                    self.progress.inc();
                    continue;
                }
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
                prepare_cache(&running, page)?;
                let served = Served {
                    pid: running.pid(),
                    port: running.port,
                };
                let point = self.rate_point(served, page, round, rate, fraction, &stem)?;
                climb.ran(&point);
                let swept = self.app(index).routes.iter_mut().find(|r| r.route == route);
                let swept = swept.expect("added by the closed-loop pass");
                match ladder {
                    Ladder::Common => swept.common.push(point),
                    Ladder::Own => swept.own.push(point),
                }
                self.progress.inc();
            }
            self.save()?;
        }
        running.stop();
        Ok(())
    }

    /// The app's ladders, route by route, common first: each rate with its fraction of the
    /// closed-loop max it is taken from (Go's for the common ladder, the app's own else).
    fn ladders(&self, index: usize) -> Result<Vec<LadderRates>> {
        let settings = &self.options.settings;
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
        let mut ladders = Vec::new();
        for route in &settings.routes {
            let go_max = closed_loop_max(&self.sweep.apps[0], route)?;
            let own_max = closed_loop_max(&self.sweep.apps[index], route)?;
            for (ladder, base, fractions) in [
                (Ladder::Common, go_max, &settings.common_fractions),
                (Ladder::Own, own_max, &settings.own_fractions),
            ] {
                let rates = fractions
                    .iter()
                    .map(|&fraction| ((base * fraction).round().max(1.0), fraction))
                    .collect();
                ladders.push(LadderRates {
                    route: route.clone(),
                    ladder,
                    rates,
                });
            }
        }
        Ok(ladders)
    }

    /// The earlier rounds' runs of the app at `rate` of `ladder` on `route`.
    fn earlier_runs(
        &self,
        index: usize,
        route: &str,
        ladder: Ladder,
        rate: f64,
    ) -> Vec<&RatePoint> {
        self.sweep.apps[index]
            .routes
            .iter()
            .filter(|r| r.route == route)
            .flat_map(RouteSweep::runs)
            .filter(|(l, run)| *l == ladder && run.target_per_sec == rate)
            .map(|(_, run)| run)
            .collect()
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
        load(options.warmup(), "-warmup")?;
        let sampler = Sampler::start_once_held(
            running.pid(),
            running.port,
            measured_window(options.run()),
            options.connections,
        );
        let run = load(options.run(), "");
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
        let plan = options.plan(options.warmup(), vec![phase(rate, options.run())]);
        let mut sampler = None;
        let run = open_loop::run(&addr, page.path, Arc::clone(&page.page), &plan, || {
            sampler = Some(Sampler::start(
                server.pid,
                server.port,
                measured_window(options.run()),
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
            options.settings.slo_ms[&page.route],
            &usage,
            usage.cpu_busy(&options.cpus),
            client_bound,
            histogram_file,
        ))
    }
}

/// Clears the shared page cache (apps do not all store the same value under a key) and, for
/// a cached route, primes it.
pub(super) fn prepare_cache(running: &RunningApp, page: &RoutePage) -> Result<()> {
    page_cache::clear()?;
    if page.path.starts_with("/cached/") {
        ureq::get(&running.url(page.path)).call()?;
    }
    Ok(())
}
