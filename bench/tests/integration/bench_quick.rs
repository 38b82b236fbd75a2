//! `blogbench bench --quick` end to end with real load (oha; the harness's client on the
//! routes that write) and real services: every route on two apps (the batch's machinery),
//! then every app on one route (each loaded once under the admission rules). Every run of a
//! healthy app must count; the results and the report are checked.

use crate::common;
use bench::results::{AppStatus, Batch};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A finished quick batch: its results, its folder and its report in both forms.
struct QuickBatch {
    batch: Batch,
    dir: PathBuf,
    report: String,
    html: String,
}

/// Runs `blogbench bench --quick --apps apps` (on `routes`, else every route), which must
/// succeed, into `results`.
fn quick_batch(apps: &str, routes: Option<&str>, results: &Path) -> QuickBatch {
    let mut command = Command::new(env!("CARGO_BIN_EXE_blogbench"));
    command.args(["bench", "--quick", "--apps", apps]);
    if let Some(routes) = routes {
        command.args(["--routes", routes]);
    }
    let output = command
        .arg("--results")
        .arg(results)
        .output()
        .expect("run blogbench bench");
    let text = common::text(&output);
    assert!(output.status.success(), "bench failed:\n{text}");
    let dir = common::run_folder(results, "results.json").expect("a batch folder");
    let batch = Batch::load(&dir.join("results.json")).unwrap();
    assert!(batch.header.finished_at.is_some() && batch.settings.quick);
    assert!(
        batch.pacer.as_ref().is_some_and(|p| p.per_visit),
        "the Go pacer is recorded, started with each visit"
    );
    // Each visit had its own pacer, and none is left running.
    let pacers: Vec<u32> = batch
        .apps
        .iter()
        .flat_map(|app| &app.visits)
        .map(|visit| visit.pacer_pid.expect("each visit starts a pacer"))
        .collect();
    let distinct: std::collections::BTreeSet<&u32> = pacers.iter().collect();
    assert_eq!(distinct.len(), pacers.len(), "pacer pids {pacers:?}");
    for pid in &pacers {
        assert!(
            !std::path::Path::new(&format!("/proc/{pid}")).exists(),
            "pacer {pid} still running"
        );
    }
    assert!(
        batch.cpu_sets.unpinned.is_empty(),
        "{:?}",
        batch.cpu_sets.unpinned
    );
    let read = |file: &str| std::fs::read_to_string(dir.join(file)).unwrap();
    let (report, html) = (read("report.md"), read("report.html"));
    QuickBatch {
        batch,
        dir,
        report,
        html,
    }
}

/// `app` passed its parity gates, and each of its runs on `routes` and of the Go runs paired
/// with them counts, with its raw output kept and in the report.
fn check_app(quick: &QuickBatch, app: &str, routes: usize) {
    let QuickBatch {
        batch,
        dir,
        report,
        html,
    } = quick;
    let result = batch
        .apps
        .iter()
        .find(|a| a.name == app)
        .unwrap_or_else(|| panic!("{app} missing"));
    assert_eq!(result.status, AppStatus::Ok, "{app}");
    let parity = result.parity.as_ref().expect("parity recorded");
    assert_eq!(parity.mismatches, 0, "{app}");
    assert!(parity.pages > 50, "{app}");
    assert_eq!(
        result.parity_after_load.as_ref().map(|p| p.mismatches),
        Some(0),
        "{app}: pages after the load"
    );
    assert_eq!(
        result.env["WORKERS"],
        batch.cpu_sets.app.split(',').count().to_string()
    );
    assert_eq!(result.routes.len(), routes, "{app}");
    for route in &result.routes {
        assert_eq!(route.runs.len(), 1, "{app} {}", route.route);
        assert_eq!(route.pacer_runs.len(), 1, "{app} {}", route.route);
        let writes = bench::routes::writes(&route.route);
        assert_eq!(route.expected_bytes.is_some_and(|b| b > 0), !writes);
        for run in route.runs.iter().chain(&route.pacer_runs) {
            assert!(run.valid, "{app} {}: {:?}", route.route, run.invalid_reason);
            assert!(run.requests_per_sec > 0.0 && run.latency_ms.p50 > 0.0);
            if writes {
                assert_eq!(run.stale_reads, Some(0), "{app} {}", route.route);
                assert!(run.status_codes["303"] > 0, "{app} {}", route.route);
            }
            assert_eq!(run.connections, batch.settings.connections);
            assert!(
                dir.join(&run.raw_output).is_file(),
                "raw output of {app} {}",
                route.route
            );
        }
        // The quick preset's 1 s per side in 0.25 s slices: four counted slices each, in
        // reversed blocks, for every route that reads.
        match writes {
            true => assert!(route.slices.is_empty()),
            false => {
                let [round] = route.slices.as_slice() else {
                    panic!("{app} {}: one sliced round", route.route)
                };
                assert!(["APPAAPPA", "PAAPPAAP"].contains(&round.order.as_str()));
                assert!(round.rates.iter().all(|rate| *rate > 0.0));
            }
        }
        assert_eq!(route.ratios_to_pacer().len(), 1, "{app} {}", route.route);
    }
    assert!(
        report.contains(&format!("| {app}")),
        "{app} not in report.md"
    );
    assert!(html.contains(app), "{app} not in report.html");
}

#[test]
fn a_quick_batch_records_every_route_and_reports_it() {
    let _serial = common::serial();
    let results = tempfile::tempdir().unwrap();
    let quick = quick_batch("go,axum-sqlx", None, results.path());
    let batch = &quick.batch;
    assert!(
        batch
            .ceilings
            .http
            .as_ref()
            .is_some_and(|c| c.per_sec > 0.0)
    );
    assert_eq!(batch.ceilings.database.len(), 3, "home, detail, tag");
    for ceiling in batch
        .ceilings
        .http
        .iter()
        .chain(batch.ceilings.database.values())
    {
        assert_eq!(
            ceiling.runs.len(),
            1,
            "{}: {:?}",
            ceiling.how,
            ceiling.invalid
        );
    }
    let names: Vec<&str> = batch.apps.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["go", "axum-sqlx"]);
    for app in names {
        check_app(&quick, app, bench::routes::ROUTES.len());
    }
    assert!(quick.report.contains("Requests per second") && quick.report.contains("Ceilings"));
    assert!(quick.html.contains("<svg"));
}

#[test]
fn every_app_serves_go_s_pages_and_holds_the_load_of_a_quick_run() {
    let _serial = common::serial();
    let results = tempfile::tempdir().unwrap();
    let quick = quick_batch("all", Some("home"), results.path());
    for app in bench::stack::apps::all().unwrap() {
        check_app(&quick, &app.name, 1);
        check_start_up_warmup(&quick, &app);
    }
}

/// An app whose manifest asks for a start-up warm-up got it, on the batch's route, second by
/// second, and the report draws it; the others got none.
fn check_start_up_warmup(quick: &QuickBatch, app: &bench::stack::apps::App) {
    let result = quick
        .batch
        .apps
        .iter()
        .find(|a| a.name == app.name)
        .unwrap();
    let Some(warmup) = app.manifest.settings.warmup().unwrap() else {
        assert!(result.start_up_warmups.is_empty(), "{}", app.name);
        return;
    };
    assert_eq!(
        result.start_up_warmups.len(),
        1,
        "{}: one round, one route",
        app.name
    );
    let part = &result.start_up_warmups[0];
    assert_eq!((part.round, part.route.as_str()), (1, "home"));
    assert_eq!(
        part.right_per_sec.len() as u64,
        warmup.as_secs(),
        "{}",
        app.name
    );
    assert!(
        part.right_per_sec.last().is_some_and(|&n| n > 0),
        "{}: no right answer in the warm-up's last second: {:?}",
        app.name,
        part.right_per_sec
    );
    // The Go pacer started with it was loaded as long, on the same route.
    let pacer_warmup = quick.dir.join(format!(
        "raw/{}-start-up-warmup-round1-pacer-home.csv",
        app.name
    ));
    assert!(
        std::fs::metadata(&pacer_warmup).is_ok_and(|m| m.len() > 0),
        "{}",
        pacer_warmup.display()
    );
    let chart = format!("warmup-{}.svg", app.name);
    assert!(quick.dir.join(&chart).is_file(), "{chart}");
    assert!(
        quick
            .report
            .contains(&format!("### {}: start-up warm-up", app.name))
            && quick.report.contains(&chart),
        "{}: the warm-up is not in the report",
        app.name
    );
}
