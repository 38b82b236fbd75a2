//! `blogbench bench --quick` end to end: every app, every route, real load (oha), real
//! services; then the results and the report are checked. Slow-ish (about 30 s per app).

use bench::results::{AppStatus, Batch};
use std::process::Command;

#[test]
fn a_quick_batch_records_every_app_and_route_and_reports_them() {
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
        assert_eq!(result.routes.len(), 6, "{}", app.name);
        for route in &result.routes {
            assert_eq!(route.runs.len(), 1, "{} {}", app.name, route.route);
            let run = &route.runs[0];
            // A number, or a recorded reason why not.
            assert!(
                run.valid || run.invalid_reason.is_some(),
                "{} {}",
                app.name,
                route.route
            );
            if run.valid {
                assert!(
                    run.requests_per_sec > 0.0 && run.latency_ms.p50 > 0.0,
                    "{} {}",
                    app.name,
                    route.route
                );
            }
            assert!(
                dir.join(&run.raw_output).is_file(),
                "raw output of {} {}",
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
