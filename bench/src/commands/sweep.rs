//! `blogbench sweep`: latency at a given load (docs/spec.md §8) and its report.

use super::shared::{
    AppSelection, Pinning, ResultsFolder, RouteSelection, check_routes, preset, print_problems,
};
use super::values::{parse_bytes, parse_duration, parse_slo};
use crate::load::loadgen::Loadgen;
use crate::load::{open_loop, sweep};
use crate::results::RunKind;
use crate::results::sweep::{OverloadPlan, SweepSettings};
use crate::stack::apps::{self, Target};
use crate::{report, results, routes, session};
use anyhow::{Result, bail};
use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::time::Duration;

#[derive(clap::Args)]
#[command(mut_arg("routes", |arg| arg.default_value("detail,home,cached-detail,compute")))]
pub struct SweepArgs {
    // Go is swept first whatever the order.
    #[command(flatten)]
    apps: AppSelection,
    // Only routes that read.
    #[command(flatten)]
    pub(super) routes: RouteSelection,
    /// A route's latency objective (p99), e.g. `detail=50ms`; repeatable. Default 50 ms for
    /// home, detail and tag, 10 ms for the cached pages and compute.
    #[arg(long, value_delimiter = ',', value_parser = parse_slo)]
    slo: Vec<(String, Duration)>,
    /// Each rate's measured run; default 5s, 2s with `--quick`.
    #[arg(long, visible_alias = "run", value_parser = parse_duration)]
    duration: Option<Duration>,
    /// Rounds of the closed-loop maxima and of the rate ladders, the apps visited in a
    /// rotated order each round: a rate is sustained when more than half of the rounds held
    /// it (a round runs only the rates whose verdict is still open), and the closed-loop max
    /// is the rounds' median; default 3, 2 with `--quick`.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=20))]
    rounds: Option<u32>,
    /// The warm-up at each rate before its run (and at each connection level); default 1s,
    /// 500ms with `--quick`.
    #[arg(long, value_parser = parse_duration)]
    warmup: Option<Duration>,
    /// The common rates, as fractions of Go's closed-loop max on the route; default
    /// 0.1,0.25,0.5,0.75,0.9,1.1, with `--quick` 0.25,0.5.
    #[arg(long, value_delimiter = ',')]
    common: Option<Vec<f64>>,
    /// Each app's own ladder, as fractions of its closed-loop max; default
    /// 0.5,0.7,0.9,1.0,1.1,1.2, with `--quick` 0.5,1.0.
    #[arg(long, value_delimiter = ',')]
    own: Option<Vec<f64>>,
    #[arg(long, value_enum, default_value = "constant")]
    arrivals: open_loop::Arrivals,
    /// A request unanswered this long after it fell due is given up, and the run invalid.
    #[arg(long, default_value = "2s", value_parser = parse_duration)]
    latency_limit: Duration,
    /// The most connections the open-loop generator opens.
    #[arg(long, default_value_t = open_loop::DEFAULT_MAX_CONNECTIONS)]
    max_connections: u32,
    /// The closed loop's connections, for each route's max (the fair run's).
    #[arg(long, default_value_t = 50)]
    connections: u32,
    /// The connection sweep's levels (closed loop); default 16,64,256,1024,4096, with
    /// `--quick` 16,256.
    #[arg(long, value_delimiter = ',')]
    connection_levels: Option<Vec<u32>>,
    /// The route of the connection sweeps.
    #[arg(long, default_value = "cached-detail")]
    connection_route: String,
    /// The route of the overload (one of `--routes`).
    #[arg(long, default_value = "detail")]
    overload_route: String,
    /// Also run the connection sweep with each app in a memory cgroup of this size (e.g.
    /// `512MiB`).
    #[arg(long, value_parser = parse_bytes)]
    memory_limit: Option<u64>,
    /// Variants swept only under `--memory-limit`, comma-separated (e.g.
    /// `go+GOMEMLIMIT=384MiB`).
    #[arg(long, value_delimiter = ',', requires = "memory_limit")]
    memory_variants: Vec<String>,
    /// Smoke-test size: 2 rounds, 2 s runs after 0.5 s warm-ups, two rates per ladder, 16
    /// and 256 connections, a 2 + 4 + 4 s overload (flags given win).
    #[arg(long)]
    quick: bool,
    #[command(flatten)]
    pinning: Pinning,
    #[command(flatten)]
    results: ResultsFolder,
}

impl SweepArgs {
    /// What the sweep records of how it runs: the flags given, the `--quick` preset or the
    /// full run's values where none was given, each route checked.
    fn settings(&self) -> Result<SweepSettings> {
        let args = self;
        let routes = args.routes.checked()?;
        for route in routes.iter().chain([&args.connection_route]) {
            if routes::writes(route) {
                bail!("sweep: {route} writes; the sweep loads routes that read");
            }
        }
        if !routes.contains(&args.overload_route) {
            bail!(
                "sweep: the overload route {} is not among --routes",
                args.overload_route
            );
        }
        let mut slo_ms: BTreeMap<String, f64> = routes
            .iter()
            .map(|r| (r.clone(), sweep::default_slo_ms(r)))
            .collect();
        for (route, slo) in &args.slo {
            check_routes(std::slice::from_ref(route))?;
            slo_ms.insert(route.clone(), slo.as_secs_f64() * 1000.0);
        }
        let quick = args.quick;
        let (before, overload, after) = preset(quick, (10.0, 30.0, 20.0), (2.0, 4.0, 4.0));
        Ok(SweepSettings {
            quick,
            rounds: args.rounds.unwrap_or(preset(quick, 3, 2)),
            routes,
            slo_ms,
            run_secs: args
                .duration
                .map_or(preset(quick, 5.0, 2.0), |d| d.as_secs_f64()),
            warmup_secs: args
                .warmup
                .map_or(preset(quick, 1.0, 0.5), |d| d.as_secs_f64()),
            common_fractions: args.common.clone().unwrap_or_else(|| {
                preset(quick, vec![0.1, 0.25, 0.5, 0.75, 0.9, 1.1], vec![0.25, 0.5])
            }),
            own_fractions: args.own.clone().unwrap_or_else(|| {
                preset(quick, vec![0.5, 0.7, 0.9, 1.0, 1.1, 1.2], vec![0.5, 1.0])
            }),
            arrivals: args.arrivals.name().to_owned(),
            latency_limit_ms: args.latency_limit.as_secs_f64() * 1000.0,
            max_connections: args.max_connections,
            closed_loop: format!("oha, {} connections", args.connections),
            connection_levels: args
                .connection_levels
                .clone()
                .unwrap_or_else(|| preset(quick, vec![16, 64, 256, 1024, 4096], vec![16, 256])),
            connection_route: args.connection_route.clone(),
            overload_route: args.overload_route.clone(),
            overload: OverloadPlan {
                base_fraction: 0.5,
                overload_fraction: 1.5,
                before_secs: before,
                overload_secs: overload,
                after_secs: after,
                recover_within_secs: 10.0,
            },
            memory_limit_bytes: args.memory_limit,
            // Measured when the sweep starts.
            open_files_limit: 0,
        })
    }
}

pub fn run(args: SweepArgs) -> Result<bool> {
    let settings = args.settings()?;
    let mut swept = args.apps.targets()?;
    swept.retain(|t| t.label != apps::GO);
    swept.insert(0, Target::parse(apps::GO)?);
    let memory_variants = AppSelection {
        apps: args.memory_variants.clone(),
    }
    .targets()?;
    let options = sweep::Options {
        settings,
        targets: swept,
        arrivals: args.arrivals,
        connections: args.connections,
        memory_variants,
        cpus: args.pinning.cpus.split()?,
        allow_unpinned: args.pinning.allow_unpinned,
        results_dir: args.results.or(session::default_results_dir),
    };
    Loadgen::Oha.version()?;
    let interrupted = session::interrupt_flag()?;
    let dir = sweep::run(&options, &interrupted)?;
    println!(
        "blogbench: results in {}",
        dir.join(RunKind::Sweep.file()).display()
    );
    report::write_sweep(&dir)?;
    let problems = results::sweep::Sweep::load(&dir.join(RunKind::Sweep.file()))?.problems();
    print_problems(&problems, "see the sweep report's failures section");
    Ok(problems.is_empty() && !interrupted.load(Ordering::SeqCst))
}

#[cfg(test)]
mod tests {
    use crate::commands::{Cli, Command};
    use clap::Parser;

    fn settings(flags: &[&str]) -> super::SweepSettings {
        let cli = Cli::try_parse_from([&["blogbench", "sweep"], flags].concat()).unwrap();
        let Command::Sweep(args) = cli.command else {
            unreachable!("parsed as the sweep")
        };
        args.settings().unwrap()
    }

    #[test]
    fn the_quick_preset_fills_in_only_what_no_flag_gave() {
        let quick = settings(&["--quick", "--rounds", "3", "--common", "0.5", "--run", "4s"]);
        assert_eq!(quick.rounds, 3);
        assert_eq!(quick.common_fractions, [0.5]);
        assert_eq!(quick.run_secs, 4.0);
        assert_eq!(
            (quick.warmup_secs, quick.own_fractions),
            (0.5, vec![0.5, 1.0])
        );
        assert_eq!(quick.connection_levels, [16, 256]);
        let full = settings(&["--rounds", "5"]);
        assert_eq!(
            (full.rounds, full.run_secs, full.warmup_secs),
            (5, 5.0, 1.0)
        );
        assert_eq!(full.connection_levels, [16, 64, 256, 1024, 4096]);
        assert_eq!(full.routes, ["detail", "home", "cached-detail", "compute"]);
    }
}
