//! `blogbench report` (a results folder's report, written again from its results file) and
//! `blogbench compare` (two batches).

use crate::report;
use crate::results::{self, RunKind};
use anyhow::{Result, bail};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct ReportArgs {
    /// The run's id under `--results` (`YYYYMMDDhhmmss`, `sweep-…`, `faults-…`), or a path
    /// to its folder.
    batch: String,
    /// Where runs live.
    #[arg(long, default_value = "results")]
    results: PathBuf,
    /// Add a "Where the time goes" section to a batch's report from this `blogbench
    /// profile` folder.
    #[arg(long)]
    profiles: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct CompareArgs {
    /// The earlier batch (id under `--results`, or a folder).
    before: String,
    /// The later batch.
    after: String,
    #[arg(long, default_value = "results")]
    results: PathBuf,
    /// Compare even when the batches' settings differ (the differences are printed).
    #[arg(long)]
    force: bool,
}

pub fn report(args: ReportArgs) -> Result<bool> {
    let dir = results::batch_dir(&args.results, &args.batch);
    let kind = results::kind_of(&dir)?;
    if args.profiles.is_some() && kind != RunKind::Batch {
        bail!(
            "--profiles adds to a batch's report; {} holds a {kind:?} run",
            dir.display()
        );
    }
    match kind {
        RunKind::Batch => report::write(&dir, args.profiles.as_deref())?,
        RunKind::Sweep => report::write_sweep(&dir)?,
        RunKind::Faults => report::write_reliability(&dir)?,
        RunKind::Idioms => report::write_idioms(&dir)?,
        RunKind::Scoreboard => report::write_scoreboard(&dir)?,
    }
    Ok(true)
}

pub fn compare(args: CompareArgs) -> Result<bool> {
    report::compare(
        &results::batch_dir(&args.results, &args.before),
        &results::batch_dir(&args.results, &args.after),
        args.force,
    )
}
