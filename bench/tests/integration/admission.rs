//! Admission that can fail: `blogbench bench --quick` against apps made to misbehave under
//! load (`blogbench misbehaving-app`: every request passed on to a Go reference and its
//! answer sent back byte for byte, so the parity gate passes, then 500s, short bodies,
//! connections left unaccepted, or cached pages never invalidated once the load starts).
//! Each of their runs must be invalid for the right reason, the report must list it, and the
//! command must exit non-zero. Real services, real load (oha and the harness's client),
//! loopback only.

use crate::common;

use bench::results::Batch;
use bench::stack::apps::{self, EXTRA_APPS_VAR};
use bench::stack::server::RunningApp;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// `name`'s folder with a manifest that starts `blogbench misbehaving-app --mode <mode>`.
fn misbehaving_app(root: &Path, mode: &str, pages_from: &str) -> PathBuf {
    let dir = root.join(mode);
    std::fs::create_dir_all(&dir).unwrap();
    let manifest = format!(
        r#"name = "{mode}"
binary = "blogbench"
args = ["misbehaving-app", "--mode", "{mode}", "--pages-from", "{pages_from}"]
stack = "the Go reference's pages, misbehaving under load"
key_packages = []

[settings]
pool_max = 16
pool_min = 4
ping_on_acquire = false
ping_on_release = false
connection = "none"
workers = "one thread"
queries = {{ home = 0, post = 0, tag = 0 }}
cache = "none"
"#
    );
    std::fs::write(dir.join("bench.toml"), manifest).unwrap();
    dir
}

/// Runs `blogbench bench --quick --apps names --routes routes` with the apps of `dirs`, into
/// `results`; the command must fail. The batch, its folder and the command's output.
fn failing_batch(
    names: &str,
    routes: &str,
    dirs: &[PathBuf],
    results: &Path,
) -> (Batch, PathBuf, String) {
    let extra: OsString = std::env::join_paths(dirs).unwrap();
    let output = common::blogbench(
        &[
            "bench",
            "--quick",
            "--apps",
            names,
            "--routes",
            routes,
            "--results",
            results.to_str().unwrap(),
        ],
        &[(EXTRA_APPS_VAR, extra.as_os_str())],
    );
    let text = common::text(&output);
    assert!(!output.status.success(), "bench must fail:\n{text}");
    let dir = std::fs::read_dir(results)
        .unwrap()
        .next()
        .expect("a batch folder")
        .unwrap()
        .path();
    (Batch::load(&dir.join("results.json")).unwrap(), dir, text)
}

#[test]
fn runs_of_misbehaving_apps_are_invalid_listed_and_fail_the_command() {
    let _serial = common::serial();
    // The misbehaving apps pass requests on to this Go reference: a full pool from the start,
    // so its connections do not grow under their load and count as theirs at the baseline.
    let go = RunningApp::start(&apps::find(apps::GO).unwrap(), &[("POOL_MIN", "16")]).unwrap();
    let root = tempfile::tempdir().unwrap();
    let results = tempfile::tempdir().unwrap();
    let modes = [
        ("status-500", "non-200 responses: 500"),
        ("short-body", "with a body other than"),
        (
            "few-connections",
            "the app held 10 of 50 connections (at most 40 more waited in its listen queue",
        ),
    ];
    let dirs: Vec<_> = modes
        .iter()
        .map(|(mode, _)| misbehaving_app(root.path(), mode, &go.base_url))
        .collect();
    let names = modes.map(|(mode, _)| mode).join(",");
    let (batch, dir, text) = failing_batch(&names, "home", &dirs, results.path());
    go.stop();
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    for (mode, reason) in modes {
        let app = batch.apps.iter().find(|a| a.name == mode).unwrap();
        let parity = app.parity.as_ref().expect("parity checked");
        assert_eq!(parity.mismatches, 0, "{mode} serves Go's pages");
        let run = &app.routes[0].runs[0];
        let why = run.invalid_reason.as_deref().unwrap_or_default();
        assert!(!run.valid, "{mode}: the run must not count");
        assert!(
            why.contains(reason),
            "{mode}: {why:?} should say {reason:?}"
        );
        assert!(
            text.contains(mode) && text.contains("invalid"),
            "the command must say which: {text}"
        );
        assert!(report.contains(mode), "{mode} not in report.md");
        assert!(
            report.contains(reason),
            "report.md must list the reason {reason:?}"
        );
        let pacer = &app.routes[0].pacer_runs[0];
        assert!(
            pacer.valid,
            "{mode}: the Go pacer's run beside it counts: {:?}",
            pacer.invalid_reason
        );
    }
}

/// The stale-read check can fail: an app whose cached post pages are never invalidated (the
/// Go reference behind a proxy that, under load, keeps the first answer to each
/// `/cached/posts/…`) passes the parity gate, then its `mixed` run is invalid with the stale
/// reads listed, while the Go pacer's run beside it, on the real app, counts.
#[test]
fn a_cache_never_invalidated_fails_the_stale_read_check() {
    let _serial = common::serial();
    // The misbehaving apps pass requests on to this Go reference: a full pool from the start,
    // so its connections do not grow under their load and count as theirs at the baseline.
    let go = RunningApp::start(&apps::find(apps::GO).unwrap(), &[("POOL_MIN", "16")]).unwrap();
    let root = tempfile::tempdir().unwrap();
    let results = tempfile::tempdir().unwrap();
    let app_dir = misbehaving_app(root.path(), "stale-cache", &go.base_url);
    let (batch, dir, _) = failing_batch("stale-cache", "mixed", &[app_dir], results.path());
    go.stop();
    let app = &batch.apps[0];
    assert_eq!(app.parity.as_ref().map(|p| p.mismatches), Some(0));
    let run = &app.routes[0].runs[0];
    let why = run.invalid_reason.as_deref().unwrap_or_default();
    assert!(!run.valid, "the run must not count");
    assert!(run.stale_reads.is_some_and(|n| n > 0), "{run:?}");
    assert!(
        why.contains("stale reads; first: /cached/posts/")
            && why.contains("after its comment's 303"),
        "{why}"
    );
    let pacer = &app.routes[0].pacer_runs[0];
    assert!(
        pacer.valid,
        "Go's own run counts: {:?}",
        pacer.invalid_reason
    );
    assert_eq!(pacer.stale_reads, Some(0));
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(
        report.contains("stale reads"),
        "report.md must list the reason"
    );
}
