//! `blogbench roundtrips`: SQL statements and PostgreSQL round trips per page, counted at the
//! protocol level.

use super::shared::AppSelection;
use crate::probe::roundtrips;
use anyhow::Result;

#[derive(clap::Args)]
pub struct RoundtripsArgs {
    #[command(flatten)]
    apps: AppSelection,
    /// Requests per page after the warm-up.
    #[arg(long, default_value_t = 100)]
    requests: u32,
}

pub fn run(args: RoundtripsArgs) -> Result<bool> {
    let targets = args.apps.targets()?;
    let width = targets
        .iter()
        .map(|t| t.label.len())
        .max()
        .unwrap_or(0)
        .max(3);
    println!(
        "{:<width$} {:<18} {:>10} {:>11} {:>5} {:>16}",
        "app", "page", "statements", "round trips", "pings", "new connections"
    );
    for target in &targets {
        for count in roundtrips::measure(&target.app, &target.env_pairs(), args.requests)? {
            println!(
                "{:<width$} {:<18} {:>10.2} {:>11.2} {:>5.2} {:>16}",
                target.label,
                count.page,
                count.statements,
                count.round_trips,
                count.pings,
                count.connections_opened
            );
        }
    }
    Ok(true)
}
