//! `blogbench bench --quick` end to end: every app, every route, real load (oha; the harness's
//! client on the routes that write), real services; every run of a healthy app must count,
//! and the results and the report are checked. Slow-ish: each route's run is paired with a
//! Go run.

use crate::common;
use bench::results::{AppStatus, Batch};
use std::process::Command;

#[test]
fn a_quick_batch_records_every_app_and_route_and_reports_them() {
    let _serial = common::serial();
    let results = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_blogbench"))
        .args(["bench", "--quick", "--results"])
        .arg(results.path())
        .output()
        .expect("run blogbench bench");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "bench failed:\n{text}");

    let batches: Vec<_> = std::fs::read_dir(results.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(batches.len(), 1, "{batches:?}");
    let dir = &batches[0];
    let batch = Batch::load(&dir.join("results.json")).unwrap();
    assert!(batch.finished_at.is_some());
    assert!(batch.settings.quick);
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
    assert!(batch.pacer.is_some(), "the Go pacer is recorded");
    assert!(
        batch.cpu_sets.unpinned.is_empty(),
        "{:?}",
        batch.cpu_sets.unpinned
    );

    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    for app in bench::stack::apps::all().unwrap() {
        let result = batch
            .apps
            .iter()
            .find(|a| a.name == app.name)
            .unwrap_or_else(|| panic!("{} missing", app.name));
        assert_eq!(result.status, AppStatus::Ok, "{}", app.name);
        let parity = result.parity.as_ref().expect("parity recorded");
        assert_eq!(parity.mismatches, 0, "{}", app.name);
        assert!(parity.pages > 50, "{}", app.name);
        assert_eq!(
            result.parity_after_load.as_ref().map(|p| p.mismatches),
            Some(0),
            "{}: pages after the load",
            app.name
        );
        assert_eq!(
            result.env["WORKERS"],
            batch.cpu_sets.app.split(',').count().to_string()
        );
        assert_eq!(result.routes.len(), 8, "{}", app.name);
        for route in &result.routes {
            assert_eq!(route.runs.len(), 1, "{} {}", app.name, route.route);
            assert_eq!(route.pacer_runs.len(), 1, "{} {}", app.name, route.route);
            let writes = bench::routes::writes(&route.route);
            assert_eq!(route.expected_bytes.is_some_and(|b| b > 0), !writes);
            for run in route.runs.iter().chain(&route.pacer_runs) {
                assert!(
                    run.valid,
                    "{} {}: {:?}",
                    app.name, route.route, run.invalid_reason
                );
                assert!(run.requests_per_sec > 0.0 && run.latency_ms.p50 > 0.0);
                if writes {
                    assert_eq!(run.stale_reads, Some(0), "{} {}", app.name, route.route);
                    assert!(run.status_codes["303"] > 0, "{} {}", app.name, route.route);
                }
                assert_eq!(run.connections, batch.settings.connections);
                assert!(
                    dir.join(&run.raw_output).is_file(),
                    "raw output of {} {}",
                    app.name,
                    route.route
                );
            }
            assert_eq!(
                route.ratios_to_pacer().len(),
                1,
                "{} {}",
                app.name,
                route.route
            );
        }
        assert!(
            report.contains(&format!("| {}", app.name)),
            "{} not in report.md",
            app.name
        );
        assert!(html.contains(&app.name), "{} not in report.html", app.name);
    }
    assert!(report.contains("Requests per second") && report.contains("Ceilings"));
    assert!(html.contains("<svg"));
}
