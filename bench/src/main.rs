//! `blogbench`: the harness's command line.
//!
//! ```text
//! blogbench apps                       # the app names
//! blogbench run --app axum-sqlx        # one app in the foreground on 127.0.0.1:8080
//! blogbench parity --app axum-sqlx     # compare the SPEC §4 sample with the Go reference
//! blogbench parity --url http://127.0.0.1:8080   # … for any running server
//! ```

use anyhow::{Result, bail};
use bench::apps::{self, App};
use bench::parity::{self, Fetched};
use bench::sample;
use bench::server::RunningApp;
use clap::{Parser, Subcommand};
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitCode};

#[derive(Parser)]
#[command(
    name = "blogbench",
    about = "The blogbench harness: run apps, check parity with the Go oracle"
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// List the apps by name, with their stacks.
    Apps,
    /// Run one app in the foreground (what `make up` does); Ctrl-C stops it.
    Run {
        /// The app's name (see `blogbench apps`).
        #[arg(long)]
        app: String,
        /// The address to listen on.
        #[arg(long, env = "BIND", default_value = workload::DEFAULT_BIND)]
        bind: String,
    },
    /// Compare the SPEC §4 sample of pages with the Go reference's: status, Content-Type,
    /// Content-Length present, body bytes. Exits 1 and prints a diff on a mismatch.
    Parity {
        /// Apps to check (repeatable, or `all`); each is started on a free port and stopped.
        #[arg(long = "app", required_unless_present = "url")]
        apps: Vec<String>,
        /// Check an already running server at this base URL instead.
        #[arg(long, conflicts_with = "apps")]
        url: Option<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Cmd::Apps => list_apps().map(|()| true),
        Cmd::Run { app, bind } => run(&app, &bind).map(|()| true),
        Cmd::Parity { apps, url } => check_parity(&apps, url.as_deref()),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(err) => {
            eprintln!("blogbench: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn list_apps() -> Result<()> {
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

/// Replaces this process with the app, so Ctrl-C reaches it directly.
fn run(name: &str, bind: &str) -> Result<()> {
    let app = apps::find(name)?;
    let binary = app.binary_path();
    if !binary.is_file() {
        bail!(
            "{name}: no release binary at {}; build it with `make build`",
            binary.display()
        );
    }
    println!(
        "blogbench: starting {name} ({}) on http://{bind}/",
        app.manifest.stack
    );
    println!(
        "blogbench: open http://{bind}/  http://{bind}/posts/<slug>  http://{bind}/tags/rust  http://{bind}/cached/  http://{bind}/compute?n=20000"
    );
    println!("blogbench: Ctrl-C stops it");
    let err = Command::new(&binary).env("BIND", bind).exec();
    bail!("cannot run {}: {err}", binary.display())
}

/// The apps to compare with the reference (`all` = every app but the reference itself).
fn selected(names: &[String]) -> Result<Vec<App>> {
    if names.iter().any(|n| n == "all") {
        return Ok(apps::all()?
            .into_iter()
            .filter(|a| !a.is_reference())
            .collect());
    }
    names.iter().map(|n| apps::find(n)).collect()
}

fn fetch_from(app: &App, paths: &[String]) -> Result<Vec<Fetched>> {
    let running = RunningApp::start(app, &[])?;
    let fetched = parity::fetch_all(&running.base_url, paths);
    running.stop();
    fetched
}

fn check_parity(names: &[String], url: Option<&str>) -> Result<bool> {
    let targets = selected(names)?;
    let paths = sample::parity_paths();
    let reference = fetch_from(&apps::find(apps::GO)?, &paths)?;
    println!("parity: reference go: {} responses", reference.len());
    let mut all_match = true;
    let mut check = |name: &str, fetched: Vec<Fetched>| {
        let mismatches = parity::compare(&reference, &fetched, name);
        match mismatches.first() {
            None => println!(
                "parity: {name}: {}/{} responses identical to go",
                fetched.len(),
                reference.len()
            ),
            Some(first) => {
                all_match = false;
                println!(
                    "parity: {name}: {} of {} responses differ; first: GET {} ({})",
                    mismatches.len(),
                    reference.len(),
                    first.path,
                    first.what
                );
                const LISTED: usize = 10;
                for other in mismatches.iter().skip(1).take(LISTED) {
                    println!("parity: {name}:   GET {} ({})", other.path, other.what);
                }
                if mismatches.len() > LISTED + 1 {
                    println!(
                        "parity: {name}:   … and {} more",
                        mismatches.len() - LISTED - 1
                    );
                }
                print!("{}", first.diff);
            }
        }
    };
    match url {
        Some(url) => check(url, parity::fetch_all(url.trim_end_matches('/'), &paths)?),
        None => {
            for app in &targets {
                check(&app.name, fetch_from(app, &paths)?);
            }
        }
    }
    Ok(all_match)
}
