//! `blogbench idioms`: every app's code for the same concerns, side by side, with what it
//! costs to build and run; the page.

use super::shared::{AppSelection, ResultsFolder, print_problems};
use crate::{idioms, report, results, session};
use anyhow::Result;
use std::sync::atomic::Ordering;

#[derive(clap::Args)]
pub struct IdiomsArgs {
    #[command(flatten)]
    apps: AppSelection,
    /// Everything but the incremental rebuild, and 3 starts per app instead of 5: for
    /// tests.
    #[arg(long)]
    quick: bool,
    // Default: `idioms/` in the workspace.
    #[command(flatten)]
    results: ResultsFolder,
}

pub fn run(args: IdiomsArgs) -> Result<bool> {
    let options = idioms::Options {
        apps: args.apps.apps("idioms")?,
        quick: args.quick,
        out_dir: args.results.or(idioms::default_dir),
    };
    // Caught, so a Ctrl-C during a timed rebuild ends only the build, and the Go file it
    // changed is put back before the harness stops.
    let interrupted = session::interrupt_flag()?;
    let dir = idioms::run(&options, &interrupted)?;
    println!(
        "blogbench: results in {}",
        dir.join(results::idioms::FILE).display()
    );
    report::write_idioms(&dir)?;
    println!("blogbench: page in {}", dir.join("idioms.html").display());
    let failed = results::idioms::Idioms::load(&dir.join(results::idioms::FILE))?.problems();
    print_problems(&failed, "measurements that failed: see the page");
    Ok(failed.is_empty() && !interrupted.load(Ordering::SeqCst))
}
