//! `blogbench apps` (the apps, their stacks; installing, linting and testing the apps built by
//! their manifests' commands) and `blogbench run` (one app in the foreground).

use crate::stack::apps;
use crate::stack::page_cache;
use anyhow::{Context, Result, bail};
use clap::Subcommand;
use std::os::unix::process::CommandExt;

#[derive(clap::Args)]
pub struct AppsArgs {
    #[command(subcommand)]
    action: Option<AppsAction>,
}

#[derive(Subcommand, Clone, Copy)]
enum AppsAction {
    /// Run each such app's `[build]` command where its lock file is newer than its last
    /// install (`make build`).
    Build,
    /// Run each such app's `[check] lint` command: its language's formatter and linter.
    Lint,
    /// Run each such app's `[check] test` command: its own tests.
    Test,
}

#[derive(clap::Args)]
pub struct RunArgs {
    /// The app's name (see `blogbench apps`).
    #[arg(long)]
    app: String,
    /// The address to listen on.
    #[arg(long, env = "BIND", default_value = workload::DEFAULT_BIND)]
    bind: String,
}

pub fn apps(args: AppsArgs) -> Result<bool> {
    match args.action {
        None => list().map(|()| true),
        Some(action) => check(action),
    }
}

fn list() -> Result<()> {
    for app in apps::all()? {
        let versions = app.versions()?;
        let versions: Vec<String> = versions
            .iter()
            .map(|(name, v)| format!("{name} {v}"))
            .collect();
        println!(
            "{:<12} {} [{}]",
            app.name,
            app.manifest.stack,
            versions.join(", ")
        );
    }
    Ok(())
}

/// Installs, lints or tests every app built by its manifest's command, each in turn; true
/// when all passed.
fn check(action: AppsAction) -> Result<bool> {
    let mut failed = Vec::new();
    for app in apps::all()? {
        let Some(check) = &app.manifest.check else {
            continue;
        };
        if let Err(err) = app.ensure_built() {
            eprintln!("blogbench: {err:#}");
            failed.push(app.name.clone());
            continue;
        }
        let line = match action {
            AppsAction::Build => continue,
            AppsAction::Lint => &check.lint,
            AppsAction::Test => &check.test,
        };
        println!("blogbench: {}: {}", app.name, line.join(" "));
        let status = app
            .manifest_command(line)
            .status()
            .with_context(|| format!("{}: run {}", app.name, line.join(" ")))?;
        if !status.success() {
            failed.push(app.name.clone());
        }
    }
    if !failed.is_empty() {
        eprintln!("blogbench: failed: {}", failed.join(", "));
    }
    Ok(failed.is_empty())
}

/// Replaces this process with the app, so Ctrl-C reaches it directly.
pub fn run(args: RunArgs) -> Result<bool> {
    let RunArgs { app: name, bind } = args;
    let app = apps::find(&name)?;
    app.ensure_built()?;
    // Every app stores its pages under the same keys (docs/spec.md §3.5), some in a format
    // of their own: the pages another app left would be served as this one's.
    match page_cache::clear() {
        Ok(0) => {}
        Ok(cleared) => {
            println!("blogbench: cleared {cleared} cached pages (page:*) left by an earlier app")
        }
        Err(err) => println!(
            "blogbench: could not clear cached pages ({err:#}); the app will treat Redis as down until it answers"
        ),
    }
    println!(
        "blogbench: starting {name} ({}) on http://{bind}/",
        app.manifest.stack
    );
    println!(
        "blogbench: open http://{bind}/  http://{bind}/posts/<slug>  http://{bind}/tags/rust  http://{bind}/cached/  http://{bind}/compute?n=20000"
    );
    println!("blogbench: Ctrl-C stops it");
    let err = app.command(&[]).env("BIND", &bind).exec();
    bail!("cannot run {name}: {err}")
}
