//! SIGTERM (what `kill`, a CI timeout or a service manager sends) stops a long command as
//! Ctrl-C does: the step it is in ends, what it measured is saved, and nothing it started
//! is left running.

use crate::common;
use bench::results::sweep::Sweep;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Every process descended from `pid`, from `/proc/<pid>/stat`'s parent field.
fn descendants(pid: u32) -> Vec<u32> {
    let parents: Vec<(u32, u32)> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|process| {
            let stat = std::fs::read_to_string(format!("/proc/{process}/stat")).ok()?;
            // After the command name's closing parenthesis: the state, then the parent.
            let parent = stat.rsplit_once(')')?.1.split_whitespace().nth(1)?;
            Some((process, parent.parse().ok()?))
        })
        .collect();
    let mut found = Vec::new();
    let mut unvisited = vec![pid];
    while let Some(parent) = unvisited.pop() {
        for &(process, _) in parents.iter().filter(|(_, p)| *p == parent) {
            found.push(process);
            unvisited.push(process);
        }
    }
    found
}

/// Running, or stopped but not yet reaped (a zombie has exited).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z'))
    })
}

#[test]
fn a_terminated_sweep_saves_what_it_measured_and_leaves_nothing_running() {
    let _serial = common::serial();
    let results = tempfile::tempdir().unwrap();
    let mut sweep = Command::new(env!("CARGO_BIN_EXE_blogbench"))
        .args(["sweep", "--quick", "--apps", "go", "--results"])
        .arg(results.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("run blogbench sweep");
    // Go's sweep has begun once its entry is saved and the app runs.
    let deadline = Instant::now() + Duration::from_secs(120);
    let started = loop {
        let children = descendants(sweep.id());
        if common::run_folder(results.path(), "sweep.json").is_some() && !children.is_empty() {
            break children;
        }
        assert!(
            Instant::now() < deadline,
            "the sweep started no app in 120 s"
        );
        assert!(sweep.try_wait().unwrap().is_none(), "the sweep ended early");
        std::thread::sleep(Duration::from_millis(200));
    };

    // SAFETY: kill(2) on our own child's pid has no memory effects.
    unsafe { libc::kill(sweep.id() as libc::pid_t, libc::SIGTERM) };
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = sweep.try_wait().unwrap() {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "the sweep ran on 60 s after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(!status.success(), "an interrupted sweep exits non-zero");
    // Orphans are reaped by init, so a moment may pass before they are gone.
    std::thread::sleep(Duration::from_millis(500));
    let left: Vec<u32> = started.into_iter().filter(|&pid| running(pid)).collect();
    for &pid in &left {
        // SAFETY: as above; stops what the sweep left, so the next tests find a quiet machine.
        unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
    }
    assert!(left.is_empty(), "still running after the sweep: {left:?}");
    let folder = common::run_folder(results.path(), "sweep.json").unwrap();
    let saved = Sweep::load(&folder.join("sweep.json")).unwrap();
    let go = &saved.apps[0];
    assert_eq!(go.label, "go");
    assert!(
        go.error
            .as_deref()
            .is_some_and(|e| e.contains("interrupted")),
        "{:?}",
        go.error
    );
}
