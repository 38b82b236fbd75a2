//! What every measuring command does the same way, whatever it measures: its id and folder,
//! the header of its results file, its time stamps, pinning the services and the harness, the
//! Ctrl-C flag, and the inventory of the machine and tools it ran on.

pub mod inventory;

use crate::results::{RunHeader, RunKind};
use crate::stack::cpus::{CpuSplit, PinnedServices, pin_process};
use crate::stack::{apps, services};
use anyhow::{Context, Result, bail};
use sqlx::PgConnection;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// One run of a command: its folder and the header its results file starts with.
pub struct Session {
    pub header: RunHeader,
    pub dir: PathBuf,
}

impl Session {
    /// Creates the run's folder in `parent` ([`new_folder`]) and stamps the header: its
    /// kind, now, this command line, the commit, the machine.
    pub fn start(parent: &Path, kind: RunKind) -> Result<Session> {
        let (id, dir) = new_folder(parent, kind.prefix())?;
        let header = RunHeader {
            kind: Some(kind),
            id,
            started_at: now(),
            finished_at: None,
            command: std::env::args().collect::<Vec<_>>().join(" "),
            git_commit: inventory::git_commit(),
            machine: inventory::machine(),
        };
        Ok(Session { header, dir })
    }
}

/// What a command that loads apps holds for its whole run: its session, the seeded
/// database, a runtime for the harness's own database work, and the services and the
/// harness pinned (PostgreSQL and Redis unpinned again when it is dropped).
pub struct Measuring {
    pub session: Session,
    /// An open connection to the database, and the checksum of the seeded data it holds.
    pub database: (PgConnection, String),
    pub runtime: tokio::runtime::Runtime,
    pub pinned: PinnedServices,
    /// What could not be pinned (measured anyway with `--allow-unpinned`), to be recorded.
    pub unpinned: Vec<String>,
}

impl Measuring {
    /// Resets the comments and checks the seeded data (docs/spec.md §2), [`pin`]s, then
    /// starts the session with its `raw/` folder: nothing is created when a check fails.
    pub fn start(
        parent: &Path,
        kind: RunKind,
        cpus: &CpuSplit,
        allow_unpinned: bool,
    ) -> Result<Measuring> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let database = services::seeded_database(&runtime)?;
        let (pinned, unpinned) = pin(cpus, allow_unpinned)?;
        let session = Session::start(parent, kind)?;
        raw_dir(&session.dir)?;
        Ok(Measuring {
            session,
            database,
            runtime,
            pinned,
            unpinned,
        })
    }
}

/// Creates `<parent>/<prefix><id>`, the id the UTC second it is made; returns both.
pub fn new_folder(parent: &Path, prefix: &str) -> Result<(String, PathBuf)> {
    let id = chrono::Utc::now().format("%Y%m%d%H%M%S").to_string();
    let dir = parent.join(format!("{prefix}{id}"));
    std::fs::create_dir_all(&dir).with_context(|| format!("create {}", dir.display()))?;
    Ok((id, dir))
}

/// `dir/raw/`, created: the files behind the results (CSVs, logs, histograms).
pub fn raw_dir(dir: &Path) -> Result<PathBuf> {
    let raw = dir.join("raw");
    std::fs::create_dir_all(&raw).with_context(|| format!("create {}", raw.display()))?;
    Ok(raw)
}

/// The time stamp of every results file: UTC, to the second.
pub fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// Marks the run finished now.
pub fn finish(header: &mut RunHeader) {
    header.finished_at = Some(now());
}

/// Pins PostgreSQL and Redis to the services' CPUs and this process to the load generator's
/// (its sampler and progress output stay off the app's CPUs); what could not be pinned
/// stops the run unless `allow_unpinned`, and is returned to be recorded.
pub fn pin(cpus: &CpuSplit, allow_unpinned: bool) -> Result<(PinnedServices, Vec<String>)> {
    let pinned = PinnedServices::pin(&cpus.services)?;
    let mut unpinned = pinned.unpinned.clone();
    if let Err(err) = pin_process(std::process::id(), &cpus.load) {
        unpinned.push(format!("blogbench itself: {err:#}"));
    }
    if !unpinned.is_empty() && !allow_unpinned {
        bail!(
            "cannot pin: {}; fix it, or run with --allow-unpinned to measure anyway (the report then says so)",
            unpinned.join("; ")
        );
    }
    Ok((pinned, unpinned))
}

/// Set by Ctrl-C, SIGTERM or SIGHUP: the long commands finish the step they are in, save,
/// stop what they started, and exit non-zero.
pub fn interrupt_flag() -> Result<Arc<AtomicBool>> {
    let interrupted = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&interrupted);
    ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst))?;
    Ok(interrupted)
}

/// The folder results go to by default: `<workspace>/results`.
pub fn default_results_dir() -> PathBuf {
    apps::workspace_dir().join("results")
}
