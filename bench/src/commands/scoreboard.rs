//! `blogbench scoreboard`: every app measured on every question from one commit, in
//! budgeted, resumable sittings, and the page that puts it side by side.

use super::shared::{AppSelection, Pinning, ResultsFolder, print_problems};
use super::values::parse_duration;
use crate::results::RunKind;
use crate::results::scoreboard::{PartKind, Scoreboard};
use crate::scoreboard::{self, Options, Start};
use crate::stack::apps;
use crate::{report, session};
use anyhow::Result;
use std::sync::atomic::Ordering;
use std::time::Duration;

#[derive(clap::Args)]
pub struct ScoreboardArgs {
    #[command(flatten)]
    apps: AppSelection,
    /// The most the whole scoreboard may take (e.g. `6h`): the plan with the longest runs
    /// that fits is chosen and printed before anything runs; a budget below the rules'
    /// minimums (docs/spec.md §9) is refused.
    #[arg(long, value_parser = parse_duration, conflicts_with = "resume")]
    budget: Option<Duration>,
    /// Measure only these parts (round-trips, idioms, batch, sweep, faults); the page says
    /// the others were not run.
    #[arg(long, value_delimiter = ',', value_parser = parse_part, conflicts_with = "resume")]
    parts: Option<Vec<PartKind>>,
    /// End this sitting before a part that would not finish within this long; `--resume`
    /// continues.
    #[arg(long, value_parser = parse_duration)]
    stop_after: Option<Duration>,
    /// Continue scoreboard `<id>` (same machine, same measured code): the parts it has
    /// measured are kept, the others run.
    #[arg(long, value_name = "ID")]
    resume: Option<String>,
    /// Every part at its command's `--quick` size: a smoke test, not a result.
    #[arg(long, conflicts_with = "resume")]
    quick: bool,
    /// Print the plan and its estimate, and stop: nothing is measured or made.
    #[arg(long, conflicts_with = "resume")]
    plan: bool,
    #[command(flatten)]
    pinning: Pinning,
    // Default: `scoreboard/` in the workspace.
    #[command(flatten)]
    results: ResultsFolder,
}

fn parse_part(name: &str) -> Result<PartKind, String> {
    [
        PartKind::RoundTrips,
        PartKind::Idioms,
        PartKind::Batch,
        PartKind::Sweep,
        PartKind::Faults,
    ]
    .into_iter()
    .find(|kind| scoreboard::plan::kind_name(*kind) == name)
    .ok_or_else(|| format!("{name}: parts are round-trips, idioms, batch, sweep, faults"))
}

pub fn run(args: ScoreboardArgs) -> Result<bool> {
    let start = match args.resume {
        Some(id) => Start::Resume(id),
        None => {
            let mut apps: Vec<String> = args
                .apps
                .targets()?
                .into_iter()
                .map(|target| target.label)
                .filter(|label| label != apps::GO)
                .collect();
            apps.insert(0, apps::GO.to_owned());
            let budget_secs = args.budget.map(|b| b.as_secs_f64());
            if args.plan {
                let (plan, parts) =
                    scoreboard::new_plan(&apps, args.quick, budget_secs, args.parts.as_deref())?;
                scoreboard::print_parts(&plan, &parts);
                return Ok(true);
            }
            Start::New {
                apps,
                quick: args.quick,
                budget_secs,
                only: args.parts,
            }
        }
    };
    let mut pinning = Vec::new();
    for (flag, value) in [
        ("--cpus-app", &args.pinning.cpus.cpus_app),
        ("--cpus-db", &args.pinning.cpus.cpus_db),
        ("--cpus-load", &args.pinning.cpus.cpus_load),
    ] {
        if let Some(value) = value {
            pinning.extend([flag.to_owned(), value.clone()]);
        }
    }
    if args.pinning.allow_unpinned {
        pinning.push("--allow-unpinned".to_owned());
    }
    let options = Options {
        start,
        stop_after: args.stop_after,
        pinning,
        dir: args.results.or(scoreboard::default_dir),
    };
    let interrupted = session::interrupt_flag()?;
    let dir = scoreboard::run(&options, &interrupted)?;
    report::write_scoreboard(&dir)?;
    println!(
        "blogbench: scoreboard in {}",
        dir.join("index.html").display()
    );
    let scoreboard = Scoreboard::load(&dir.join(RunKind::Scoreboard.file()))?;
    let problems = scoreboard.problems();
    print_problems(
        &problems,
        &format!(
            "parts not measured or with failures; `blogbench scoreboard --resume {}` runs what is left",
            scoreboard.header.id
        ),
    );
    Ok(problems.is_empty() && !interrupted.load(Ordering::SeqCst))
}
