//! What the integration tests share.

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, MutexGuard};
use std::time::Instant;

static SERIAL: Mutex<()> = Mutex::new(());

/// The file each test's wall time is added to (`<test>\t<seconds>`), so `make test` can say
/// where its time went.
pub const TIMES_FILE: &str = "integration-test-seconds.tsv";

/// Held for the whole of every test in this binary, so the tests run one at a time: they
/// share PostgreSQL, Redis's `page:*` keys, the ports and both CPUs (a test that restarts a
/// service, or changes a template, must not overlap one expecting the real pages, and a
/// timed one must not share the machine with a browser). A test that failed while holding
/// it does not stop the others. Dropping it records how long the test held it.
pub fn serial() -> Serial {
    Serial {
        _lock: SERIAL.lock().unwrap_or_else(|e| e.into_inner()),
        started: Instant::now(),
    }
}

pub struct Serial {
    _lock: MutexGuard<'static, ()>,
    started: Instant,
}

impl Drop for Serial {
    fn drop(&mut self) {
        // libtest names each test's thread after the test.
        let test = std::thread::current().name().unwrap_or("?").to_owned();
        let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(TIMES_FILE);
        let line = format!("{test}\t{:.1}\n", self.started.elapsed().as_secs_f64());
        // A time that cannot be recorded must not fail the test that took it.
        let _ = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .and_then(|mut file| file.write_all(line.as_bytes()));
    }
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
