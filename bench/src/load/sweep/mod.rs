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

mod climb;
mod runner;
mod stress;
mod verdicts;

use super::open_loop::{Arrivals, Phase, Plan};
use crate::parity::Reference;
use crate::progress::Progress;
use crate::results::RunKind;
use crate::results::sweep::{Sweep, SweepSettings};
use crate::session::{self, Measuring, Session};
use crate::stack::apps::{self, Target};
use crate::stack::cpus::CpuSplit;
use crate::stack::server::RunningApp;
use anyhow::{Context, Result, bail};
use runner::Sweeper;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

pub struct Options {
    /// What the sweep records of how it runs, as the command line set it
    /// (`open_files_limit` is filled in when the sweep starts).
    pub settings: SweepSettings,
    /// Go first (the common rates are fractions of its max), then the others.
    pub targets: Vec<Target>,
    /// `settings.arrivals`, parsed.
    pub arrivals: Arrivals,
    /// The closed loop's connections (the fair run's), in `settings.closed_loop`.
    pub connections: u32,
    /// Variants swept only under the memory limit (e.g. `go+GOMEMLIMIT=384MiB`).
    pub memory_variants: Vec<Target>,
    pub cpus: CpuSplit,
    pub allow_unpinned: bool,
    pub results_dir: PathBuf,
}

impl Options {
    /// Each rate's measured run.
    fn run(&self) -> Duration {
        Duration::from_secs_f64(self.settings.run_secs)
    }

    fn warmup(&self) -> Duration {
        Duration::from_secs_f64(self.settings.warmup_secs)
    }

    /// An open-loop plan of `phases` after `warmup`, with the sweep's arrivals, connection
    /// bound and latency limit, one worker on each of the generator's CPUs.
    fn plan(&self, warmup: Duration, phases: Vec<Phase>) -> Plan {
        Plan {
            warmup,
            phases,
            arrivals: self.arrivals,
            max_connections: self.settings.max_connections,
            latency_limit: Duration::from_secs_f64(self.settings.latency_limit_ms / 1000.0),
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
    let Measuring {
        session: Session { header, dir },
        pinned,
        unpinned,
        ..
    } = Measuring::start(
        &options.results_dir,
        RunKind::Sweep,
        &options.cpus,
        options.allow_unpinned,
    )?;
    let sweep = Sweep {
        header,
        cpu_sets: options.cpus.recorded(unpinned),
        settings: SweepSettings {
            open_files_limit,
            ..options.settings.clone()
        },
        generator_ceiling: None,
        floor: Vec::new(),
        apps: Vec::new(),
    };
    let reference = {
        let go = RunningApp::start_pinned(
            &apps::find(apps::GO)?,
            &apps::env_pairs(&apps::harness_env(&options.cpus.app)),
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
        if pass == Pass::Overload {
            sweeper.measure_floor_at_deciding_rates()?;
        }
        for round in 1..=options.settings.rounds {
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
    session::finish(&mut sweeper.sweep.header);
    sweeper.save()?;
    Ok(sweeper.dir)
}

/// The apps' order in `round` (from 1): each round starts one app later, so no app always
/// runs first or last.
pub fn rotated(count: usize, round: u32) -> impl Iterator<Item = usize> {
    (0..count).map(move |offset| (offset + round as usize - 1) % count)
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

/// The progress bar's length: every run the sweep may make.
fn steps(options: &Options) -> u64 {
    let ladder = 1 + options.settings.common_fractions.len() + options.settings.own_fractions.len();
    let levels = options.settings.connection_levels.len();
    let memory = if options.settings.memory_limit_bytes.is_some() {
        levels
    } else {
        0
    };
    let per_round = options.settings.routes.len() * ladder + 1;
    let per_app = options.settings.rounds as usize * per_round + levels + memory;
    let floor = options.settings.rounds as usize
        * options.settings.routes.len()
        * options.settings.common_fractions.len();
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
