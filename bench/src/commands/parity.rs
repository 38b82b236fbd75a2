//! `blogbench parity`: the parity sample (docs/spec.md §4) of each app, or of any running
//! server, against the Go reference's.

use super::shared::AppSelection;
use crate::parity::{Mismatch, Reference};
use crate::stack::apps;
use crate::stack::server::RunningApp;
use anyhow::Result;

#[derive(clap::Args)]
pub struct ParityArgs {
    // Each app is started on a free port and stopped; `all` is every app but the reference.
    #[command(flatten)]
    apps: AppSelection,
    /// Check an already running server at this base URL instead.
    #[arg(long, conflicts_with = "apps")]
    url: Option<String>,
}

/// Mismatches listed after the first, whose diff is printed.
const LISTED: usize = 10;

pub fn run(args: ParityArgs) -> Result<bool> {
    let reference = {
        let go = RunningApp::start(&apps::find(apps::GO)?, &[])?;
        Reference::fetch(&go.base_url)?
    };
    println!("parity: reference go: {} responses", reference.sample.len());
    if let Some(url) = &args.url {
        let mismatches = reference.check(url.trim_end_matches('/'), url)?;
        return Ok(print(url, &reference, &mismatches));
    }
    let mut targets = args.apps.targets()?;
    if args.apps.all() {
        targets.retain(|t| !(t.app.is_reference() && t.env.is_empty()));
    }
    let mut all_match = true;
    for target in &targets {
        let running = RunningApp::start(&target.app, &target.env_pairs())?;
        let mismatches = reference.check(&running.base_url, &target.label)?;
        all_match &= print(&target.label, &reference, &mismatches);
    }
    Ok(all_match)
}

/// Prints whether the app matched the reference, and how it differs; true when it did.
fn print(name: &str, reference: &Reference, mismatches: &[Mismatch]) -> bool {
    let pages = reference.sample.len();
    let Some(first) = mismatches.first() else {
        println!("parity: {name}: {pages}/{pages} responses identical to go");
        return true;
    };
    println!(
        "parity: {name}: {} of {pages} responses differ; first: {} ({})",
        mismatches.len(),
        first.request,
        first.what
    );
    for other in mismatches.iter().skip(1).take(LISTED) {
        println!("parity: {name}:   {} ({})", other.request, other.what);
    }
    if mismatches.len() > LISTED + 1 {
        println!(
            "parity: {name}:   … and {} more",
            mismatches.len() - LISTED - 1
        );
    }
    print!("{}", first.diff);
    false
}
