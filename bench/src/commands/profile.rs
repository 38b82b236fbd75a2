//! `blogbench profile`: where each app spends its time under the fair run's load.

use super::shared::{AppSelection, CpuArgs, ResultsFolder, RouteSelection};
use super::values::parse_duration;
use crate::probe::profile;
use anyhow::Result;
use std::time::Duration;

#[derive(clap::Args)]
#[command(mut_arg("routes", |arg| arg.default_value("detail")))]
pub struct ProfileArgs {
    #[command(flatten)]
    apps: AppSelection,
    #[command(flatten)]
    pub(super) routes: RouteSelection,
    /// Concurrent connections of the load generator (as in the fair run).
    #[arg(long, default_value_t = 50)]
    connections: u32,
    /// The measured window.
    #[arg(long, default_value = "25s", value_parser = parse_duration)]
    duration: Duration,
    #[arg(long, default_value = "5s", value_parser = parse_duration)]
    warmup: Duration,
    /// The strace window and the perf window, each (`0s` skips both).
    #[arg(long, default_value = "5s", value_parser = parse_duration)]
    tool_window: Duration,
    /// Also time each template engine alone on the same pages (`cargo bench` of
    /// templates/benches/render.rs, `go test -bench Render`).
    #[arg(long)]
    templates: bool,
    #[command(flatten)]
    cpus: CpuArgs,
    // Default: `profiles/` in the workspace.
    #[command(flatten)]
    results: ResultsFolder,
}

pub fn run(args: ProfileArgs) -> Result<bool> {
    let options = profile::Options {
        targets: args.apps.targets()?,
        routes: args.routes.checked()?,
        connections: args.connections,
        duration: args.duration,
        warmup: args.warmup,
        tool_window: args.tool_window,
        cpus: args.cpus.split()?,
        templates: args.templates,
        out_dir: args.results.or(profile::default_profiles_dir),
    };
    let dir = profile::run(&options)?;
    println!("blogbench: profiles in {}", dir.display());
    Ok(true)
}
