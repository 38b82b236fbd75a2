//! What the integration tests share.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, MutexGuard};

static SERIAL: Mutex<()> = Mutex::new(());

/// Held for the whole of every test in this binary, so the tests run one at a time: they
/// share PostgreSQL, Redis's `page:*` keys, the ports and both CPUs (a test that restarts a
/// service, or changes a template, must not overlap one expecting the real pages, and a
/// timed one must not share the machine with a browser). A test that failed while holding
/// it does not stop the others.
pub fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `blogbench args` with `env` added to the environment.
pub fn blogbench(args: &[&str], env: &[(&str, &OsStr)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_blogbench"))
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("run blogbench")
}

/// stdout then stderr, for assertion messages.
pub fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The run folder under `results` (e.g. `sweep-<id>/`) that holds `file`, once it does.
pub fn run_folder(results: &Path, file: &str) -> Option<PathBuf> {
    std::fs::read_dir(results)
        .ok()?
        .flatten()
        .map(|entry| entry.path())
        .find(|folder| folder.join(file).is_file())
}
