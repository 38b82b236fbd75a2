//! `blogbench bench`: the fair benchmark (docs/spec.md §5) and its report.

use super::shared::{AppSelection, Pinning, ResultsFolder, RouteSelection, preset, print_problems};
use super::values::{parse_duration, parse_share};
use crate::load::batch;
use crate::load::loadgen::Loadgen;
use crate::load::slices::DEFAULT_SLICE;
use crate::results::{RunKind, Settings};
use crate::{report, results, session};
use anyhow::{Result, bail};
use std::sync::atomic::Ordering;
use std::time::Duration;

#[derive(clap::Args)]
#[command(mut_arg("routes", |arg| arg.default_value(
    "home,detail,tag,cached-home,cached-detail,compute,write,mixed"
)))]
pub struct BenchArgs {
    #[command(flatten)]
    apps: AppSelection,
    #[command(flatten)]
    pub(super) routes: RouteSelection,
    /// Concurrent connections of the load generator (and of the harness's client on the
    /// routes that write).
    #[arg(long, default_value_t = 50)]
    connections: u32,
    /// Length of each measured run (the app's, and the Go pacer's beside it); default 10s,
    /// 1s with `--quick`.
    #[arg(long, value_parser = parse_duration)]
    duration: Option<Duration>,
    /// The warm-up before each route's run, the app's and the Go pacer's alike; default 5s,
    /// 500ms with `--quick`.
    #[arg(long, value_parser = parse_duration)]
    warmup: Option<Duration>,
    /// The slice length on the routes that read (docs/spec.md §5.5): the app and its Go pacer
    /// loaded in turn by the harness's client, `--duration` of slices each after `--warmup`
    /// of them; `0` for one whole run each on `--loadgen`. Default 250ms, the length that
    /// gave the narrowest intervals in the A/A check of docs/spec.md §5.5.
    #[arg(long, value_parser = parse_duration)]
    slice: Option<Duration>,
    /// Rounds: each visits every app once (in a shuffled order) and runs each route once;
    /// default 3, 1 with `--quick`.
    #[arg(long, visible_alias = "runs")]
    rounds: Option<u32>,
    /// After `--rounds`, add rounds for the app/route cells whose ratio to Go is not yet
    /// known to this share (the 95 % interval's half width, e.g. `5%`), up to
    /// `--max-rounds` (docs/spec.md §5.12).
    #[arg(long, value_parser = parse_share)]
    precision: Option<f64>,
    /// The most rounds `--precision` may take.
    #[arg(long, default_value_t = 12, requires = "precision")]
    max_rounds: u32,
    /// The seed of the visiting order (the apps' order in each round, and which side of each
    /// pair runs first); recorded in the results. Default: drawn from the clock.
    #[arg(long)]
    seed: Option<u64>,
    /// Smoke-test size: 1 round of 1 s runs after 0.5 s warm-ups (flags given win).
    #[arg(long)]
    quick: bool,
    #[arg(long, value_enum, default_value = "oha")]
    loadgen: Loadgen,
    /// Leave out the ceilings (docs/spec.md §5.8), for a batch that only compares apps, such as
    /// an A/A check.
    #[arg(long)]
    no_ceilings: bool,
    #[command(flatten)]
    pinning: Pinning,
    #[command(flatten)]
    results: ResultsFolder,
}

/// How long each run, warm-up and slice lasts, and how many rounds.
#[derive(Debug, PartialEq)]
struct Lengths {
    duration: Duration,
    warmup: Duration,
    /// `None`: whole runs on the load generator.
    slice: Option<Duration>,
    rounds: u32,
}

impl BenchArgs {
    /// The flags given, or the `--quick` preset or the full batch's values where none was.
    fn lengths(&self) -> Lengths {
        let (quick, secs) = (self.quick, Duration::from_secs_f64);
        Lengths {
            duration: self
                .duration
                .unwrap_or(preset(quick, secs(10.0), secs(1.0))),
            warmup: self.warmup.unwrap_or(preset(quick, secs(5.0), secs(0.5))),
            slice: Some(self.slice.unwrap_or(DEFAULT_SLICE)).filter(|slice| !slice.is_zero()),
            rounds: self.rounds.unwrap_or(preset(quick, 3, 1)),
        }
    }
}

impl Lengths {
    /// Refuses a run or warm-up that is not a whole number of slices.
    fn checked(self) -> Result<Lengths> {
        if let Some(slice) = self.slice {
            for (flag, length) in [("--duration", self.duration), ("--warmup", self.warmup)] {
                let slices = length.as_secs_f64() / slice.as_secs_f64();
                if (slices - slices.round()).abs() > 1e-6 || (flag == "--duration" && slices < 1.0)
                {
                    bail!(
                        "{flag} {length:?} is not a whole number of {slice:?} slices: \
                         make it one, or pass --slice 0 for whole runs"
                    );
                }
            }
        }
        Ok(self)
    }
}

pub fn run(args: BenchArgs) -> Result<bool> {
    let routes = args.routes.checked()?;
    args.loadgen.version()?;
    let Lengths {
        duration,
        warmup,
        slice,
        rounds,
    } = args.lengths().checked()?;
    let settings = Settings {
        connections: args.connections,
        duration_secs: duration.as_secs_f64(),
        warmup_secs: warmup.as_secs_f64(),
        rounds,
        order_seed: Some(args.seed.unwrap_or_else(clock_seed)),
        precision: args.precision,
        max_rounds: args.precision.map(|_| args.max_rounds),
        precision_every_app: true,
        loadgen: args.loadgen.name().to_owned(),
        quick: args.quick,
        routes,
        slice_secs: slice.map(|slice| slice.as_secs_f64()),
    };
    let options = batch::Options {
        settings,
        apps: args.apps.targets()?,
        loadgen: args.loadgen,
        cpus: args.pinning.cpus.split()?,
        allow_unpinned: args.pinning.allow_unpinned,
        ceilings: !args.no_ceilings,
        results_dir: args.results.or(session::default_results_dir),
    };
    let interrupted = session::interrupt_flag()?;
    let dir = batch::run(&options, &interrupted)?;
    println!(
        "blogbench: results in {}",
        dir.join(RunKind::Batch.file()).display()
    );
    report::write(&dir, None)?;
    println!("blogbench: report in {}", dir.join("report.md").display());
    let problems = results::Batch::load(&dir.join(RunKind::Batch.file()))?.problems();
    print_problems(
        &problems,
        "failed apps, runs that did not count: see the report's failures section",
    );
    Ok(problems.is_empty() && !interrupted.load(Ordering::SeqCst))
}

/// A seed nobody chose: the clock's nanoseconds.
fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos() as u64)
}

#[cfg(test)]
mod tests {
    use super::Lengths;
    use crate::commands::{Cli, Command};
    use clap::Parser;
    use std::time::Duration;

    fn lengths(flags: &[&str]) -> Lengths {
        let cli = Cli::try_parse_from([&["blogbench", "bench"], flags].concat()).unwrap();
        let Command::Bench(args) = cli.command else {
            unreachable!("parsed as bench")
        };
        args.lengths()
    }

    #[test]
    fn the_quick_preset_fills_in_only_what_no_flag_gave() {
        let secs = Duration::from_secs_f64;
        assert_eq!(
            lengths(&["--quick", "--rounds", "4", "--duration", "2s"]),
            Lengths {
                duration: secs(2.0),
                warmup: secs(0.5),
                slice: Some(secs(0.25)),
                rounds: 4
            }
        );
        assert_eq!(
            lengths(&["--warmup", "1s"]),
            Lengths {
                duration: secs(10.0),
                warmup: secs(1.0),
                slice: Some(secs(0.25)),
                rounds: 3
            }
        );
        assert_eq!(lengths(&["--slice", "0"]).slice, None);
    }

    #[test]
    fn runs_and_warm_ups_are_whole_slices() {
        assert!(
            lengths(&["--slice", "2s", "--warmup", "4s"])
                .checked()
                .is_ok()
        );
        let error = lengths(&["--slice", "3s"]).checked().unwrap_err();
        assert!(lengths(&["--duration", "1.1s"]).checked().is_err());
        assert!(
            error
                .to_string()
                .starts_with("--duration 10s is not a whole number of 3s slices"),
            "{error}"
        );
        assert!(
            lengths(&["--slice", "2s", "--warmup", "1s"])
                .checked()
                .is_err()
        );
        assert!(
            lengths(&["--slice", "0", "--duration", "1.5s"])
                .checked()
                .is_ok()
        );
    }
}
