//! Flags more than one command takes, defined once: which apps, which routes, which CPUs,
//! where the results go; and what every measuring command prints at its end.

use crate::routes;
use crate::stack::apps::{self, Target};
use crate::stack::cpus;
use anyhow::{Result, bail};
use std::path::PathBuf;

/// `--apps`: the apps a command runs.
#[derive(clap::Args)]
pub struct AppSelection {
    /// Apps, comma-separated, or `all`; `name+KEY=VALUE` runs the app with that environment
    /// (e.g. `actix-sqlx+POOL_MODE=shared`; `go,go+TWIN=1,go+TWIN=2` is Go against its twins,
    /// the A/A check).
    #[arg(
        long,
        visible_alias = "app",
        value_delimiter = ',',
        default_value = "all"
    )]
    pub apps: Vec<String>,
}

impl AppSelection {
    /// The apps under their labels: `all` is every app, the Go reference included.
    pub fn targets(&self) -> Result<Vec<Target>> {
        let mut targets = Vec::new();
        for spec in &self.apps {
            if spec == "all" {
                for app in apps::all()? {
                    targets.push(Target::parse(&app.name)?);
                }
            } else {
                targets.push(Target::parse(spec)?);
            }
        }
        Ok(targets)
    }

    /// The apps, for a command that measures an app's code or pages rather than a run of
    /// it: a `name+KEY=VALUE` variant is refused.
    pub fn apps(&self, command: &str) -> Result<Vec<apps::App>> {
        self.targets()?
            .into_iter()
            .map(|target| match target.env.is_empty() {
                true => Ok(target.app),
                false => bail!(
                    "{command}: {} is a variant; {command} takes apps by name",
                    target.label
                ),
            })
            .collect()
    }

    /// Whether the selection is every app.
    pub fn all(&self) -> bool {
        self.apps.iter().any(|spec| spec == "all")
    }
}

/// `--routes`: the routes a command loads. Each command sets its own default with
/// `#[command(mut_arg("routes", |arg| arg.default_value(…)))]`.
#[derive(clap::Args)]
pub struct RouteSelection {
    /// Routes, comma-separated: home, detail, tag, cached-home, cached-detail, compute, write,
    /// mixed.
    #[arg(long, visible_alias = "route", value_delimiter = ',')]
    pub routes: Vec<String>,
}

impl RouteSelection {
    /// The routes, each checked to exist.
    pub fn checked(&self) -> Result<Vec<String>> {
        check_routes(&self.routes)?;
        Ok(self.routes.clone())
    }
}

/// Bails on a route name the harness does not know.
pub fn check_routes(names: &[String]) -> Result<()> {
    for route in names {
        if routes::path(route).is_none() {
            bail!(
                "unknown route {route:?}; valid: {}",
                routes::names().join(", ")
            );
        }
    }
    Ok(())
}

/// Where the app, the services and the load generator run.
#[derive(clap::Args)]
pub struct CpuArgs {
    /// CPUs for the app (taskset list, e.g. 0-3); default from the core count.
    #[arg(long)]
    pub cpus_app: Option<String>,
    /// CPUs for PostgreSQL and Redis.
    #[arg(long)]
    pub cpus_db: Option<String>,
    /// CPUs for the load generator.
    #[arg(long)]
    pub cpus_load: Option<String>,
}

impl CpuArgs {
    /// The default split for this machine with the sets given replaced, each checked to exist.
    pub fn split(&self) -> Result<cpus::CpuSplit> {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let mut split = cpus::default_split(cores);
        for (list, set) in [
            (&self.cpus_app, &mut split.app),
            (&self.cpus_db, &mut split.services),
            (&self.cpus_load, &mut split.load),
        ] {
            if let Some(list) = list {
                *set = cpus::parse_list(list)?;
                split.note = "set on the command line".to_owned();
            }
        }
        for (what, set) in [
            ("app", &split.app),
            ("services", &split.services),
            ("load generator", &split.load),
        ] {
            cpus::check_available(what, set, cores)?;
        }
        Ok(split)
    }
}

/// The CPU sets, for a command that pins what it runs and refuses to measure unpinned
/// unless told.
#[derive(clap::Args)]
pub struct Pinning {
    #[command(flatten)]
    pub cpus: CpuArgs,
    /// Measure even when taskset cannot pin the services or the harness (the results and
    /// the report say what was not pinned).
    #[arg(long)]
    pub allow_unpinned: bool,
}

/// `--results`: the folder a command writes its run's folder into.
#[derive(clap::Args)]
pub struct ResultsFolder {
    /// Where the run's folder is written (default: the command's own folder in the
    /// workspace, in its help's description).
    #[arg(long, visible_alias = "out")]
    pub results: Option<PathBuf>,
}

impl ResultsFolder {
    pub fn or(&self, default: impl FnOnce() -> PathBuf) -> PathBuf {
        self.results.clone().unwrap_or_else(default)
    }
}

/// The full run's value, or the `--quick` preset's; only for a flag the user did not give.
pub fn preset<T>(quick: bool, full: T, smoke: T) -> T {
    if quick { smoke } else { full }
}

/// Each problem on its own line, then how many and where to read more.
pub fn print_problems(problems: &[String], what: &str) {
    for problem in problems {
        eprintln!("blogbench: {problem}");
    }
    if !problems.is_empty() {
        eprintln!("blogbench: {} problems ({what})", problems.len());
    }
}
