//! `blogbench faults`: what each app loses when the services fail under load (docs/spec.md
//! §7), and the reliability table.

use super::shared::{AppSelection, ResultsFolder, print_problems};
use crate::results::RunKind;
use crate::{faults, report, results, session};
use anyhow::Result;
use std::sync::atomic::Ordering;

#[derive(clap::Args)]
pub struct FaultsArgs {
    #[command(flatten)]
    apps: AppSelection,
    /// Concurrent connections of the load during each fault (the fair run's).
    #[arg(long, default_value_t = 50)]
    connections: u32,
    /// Shorter faults and windows, for tests.
    #[arg(long)]
    quick: bool,
    #[command(flatten)]
    results: ResultsFolder,
}

pub fn run(args: FaultsArgs) -> Result<bool> {
    let options = faults::Options {
        targets: args.apps.targets()?,
        connections: args.connections,
        quick: args.quick,
        results_dir: args.results.or(session::default_results_dir),
    };
    let interrupted = session::interrupt_flag()?;
    let dir = faults::run(&options, &interrupted)?;
    report::write_reliability(&dir)?;
    println!(
        "blogbench: reliability table in {}",
        dir.join("reliability.md").display()
    );
    let problems = results::faults::FaultsRun::load(&dir.join(RunKind::Faults.file()))?.problems();
    print_problems(&problems, "broken rules: see reliability.md");
    Ok(problems.is_empty() && !interrupted.load(Ordering::SeqCst))
}
