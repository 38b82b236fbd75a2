//! What the integration tests that drive the real `blogbench` binary share.

use std::ffi::OsStr;
use std::process::{Command, Output};
use std::sync::Mutex;

/// Apps share Redis's `page:*` keys: every run of `blogbench` from one test binary waits
/// for the one before, so a run with a changed template never overlaps one expecting the
/// real pages. (Cargo runs test binaries one after another.)
static SERIAL: Mutex<()> = Mutex::new(());

/// Runs `blogbench args` with `env` added to the environment.
pub fn blogbench(args: &[&str], env: &[(&str, &OsStr)]) -> Output {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
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
