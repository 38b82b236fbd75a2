//! Checks of the results model, and of docs/benchmark.md's batch figures against the checked-in
//! examples' `results.json`.

use super::{Batch, Run, RunKind, example_file, kind_of, median};

/// A folder's kind comes from its file's header, whatever the file is called; a file
/// from before headers named it is known by its name; a folder with neither is refused.
#[test]
fn a_run_is_known_by_its_header_then_by_its_file_name() {
    let named = tempfile::tempdir().unwrap();
    std::fs::write(named.path().join("verdicts.json"), "[]").unwrap();
    std::fs::write(
        named.path().join("renamed.json"),
        r#"{"kind": "faults", "id": "1"}"#,
    )
    .unwrap();
    assert_eq!(kind_of(named.path()).unwrap(), RunKind::Faults);
    let legacy = tempfile::tempdir().unwrap();
    std::fs::write(legacy.path().join("sweep.json"), r#"{"id": "1"}"#).unwrap();
    assert_eq!(kind_of(legacy.path()).unwrap(), RunKind::Sweep);
    let empty = tempfile::tempdir().unwrap();
    let refused = kind_of(empty.path()).unwrap_err().to_string();
    assert!(refused.contains("no results file"), "{refused}");
    // The checked-in examples, all written before the header named their kind.
    for (folder, kind) in [
        ("example-report-20261205042703", RunKind::Batch),
        ("example-sweep-20261205010548", RunKind::Sweep),
        ("example-faults-20261205004639", RunKind::Faults),
        ("example-idioms-20261203074306", RunKind::Idioms),
    ] {
        assert_eq!(kind_of(&example_file(folder)).unwrap(), kind, "{folder}");
    }
}

/// docs/benchmark.md's cached-detail sentence on docs/example-report-20261203071113: each app's
/// ratio to its paired Go runs, rounded as the report rounds (min, median, max).
#[test]
fn the_example_batch_s_cached_detail_ratios() {
    let batch = Batch::load(&example_file("example-report-20261203071113/results.json")).unwrap();
    let ratios = |app: &str| {
        let app = batch.apps.iter().find(|a| a.name == app).unwrap();
        let route = app
            .routes
            .iter()
            .find(|r| r.route == "cached-detail")
            .unwrap();
        let ratios = route.ratios_to_pacer();
        let (median, _) = median(ratios.iter().copied()).unwrap();
        let low = ratios.iter().copied().fold(f64::MAX, f64::min);
        let high = ratios.iter().copied().fold(0.0, f64::max);
        [low, median, high].map(|r| (r * 100.0).round() / 100.0)
    };
    assert_eq!(ratios("go"), [1.00, 1.03, 1.07]);
    assert_eq!(ratios("gin"), [0.94, 1.43, 1.98]);
    assert_eq!(ratios("fasthttp"), [0.83, 1.32, 1.43]);
    let rust = [
        "axum-sqlx",
        "axum-sqlx-sysalloc",
        "axum-sqlx-jemalloc",
        "hyper",
        "warp",
        "axum-postgres",
    ];
    for rust in rust {
        let [low, median, _] = ratios(rust);
        assert!(low > 1.07 && (2.25..2.6).contains(&median), "{rust}");
    }
}

/// docs/benchmark.md's ratios to Go for the batch of the six camps: the median over the rounds,
/// and the lowest and highest round; and the home runs it leaves out.
#[test]
fn the_six_camp_batch_s_ratios() {
    let batch = Batch::load(&example_file("example-report-20261204235200/results.json")).unwrap();
    let route = |app: &str, route: &str| {
        let app = batch.apps.iter().find(|a| a.name == app).unwrap();
        app.routes
            .iter()
            .find(|r| r.route == route)
            .unwrap()
            .clone()
    };
    let ratios = |app: &str, name: &str| {
        let ratios = route(app, name).ratios_to_pacer();
        let (median, _) = median(ratios.iter().copied()).unwrap();
        let low = ratios.iter().copied().fold(f64::MAX, f64::min);
        let high = ratios.iter().copied().fold(0.0, f64::max);
        [low, median, high].map(|r| (r * 100.0).round() / 100.0)
    };
    let table = [
        (
            "go",
            [
                [1.01, 1.11, 1.12],
                [0.96, 1.01, 1.01],
                [0.99, 1.00, 1.00],
                [1.04, 1.06, 1.12],
                [0.88, 0.96, 1.11],
            ],
        ),
        (
            "gin",
            [
                [1.09, 1.14, 1.17],
                [0.95, 1.00, 1.00],
                [0.97, 1.00, 1.02],
                [0.99, 1.01, 1.10],
                [0.86, 0.97, 1.04],
            ],
        ),
        (
            "axum-sqlx",
            [
                [1.06, 1.30, 1.41],
                [2.11, 2.23, 2.41],
                [1.17, 1.17, 1.18],
                [0.93, 0.96, 0.97],
                [0.80, 1.05, 1.14],
            ],
        ),
        (
            "actix-sqlx",
            [
                [1.14, 1.24, 1.39],
                [2.21, 2.32, 2.36],
                [1.17, 1.18, 1.18],
                [0.91, 0.91, 0.92],
                [1.11, 1.18, 1.39],
            ],
        ),
        (
            "fastify",
            [
                [0.76, 0.77, 0.84],
                [1.08, 1.15, 1.19],
                [1.19, 1.21, 1.22],
                [0.92, 0.99, 1.08],
                [0.92, 0.99, 1.05],
            ],
        ),
        (
            "fastapi",
            [
                [0.39, 0.42, 0.43],
                [0.15, 0.17, 0.19],
                [0.03, 0.03, 0.03],
                [0.45, 0.47, 0.50],
                [0.27, 0.31, 0.32],
            ],
        ),
        (
            "spring-webflux",
            [
                [0.71, 0.76, 0.77],
                [0.69, 0.74, 0.81],
                [0.94, 0.98, 0.98],
                [0.39, 0.50, 0.55],
                [0.54, 0.65, 0.77],
            ],
        ),
        (
            "laravel",
            [
                [0.09, 0.09, 0.11],
                [0.03, 0.03, 0.03],
                [0.15, 0.16, 0.17],
                [0.08, 0.09, 0.10],
                [0.05, 0.06, 0.07],
            ],
        ),
    ];
    let routes = ["detail", "cached-detail", "compute", "write", "mixed"];
    for (app, row) in table {
        for (name, cell) in routes.iter().zip(row) {
            assert_eq!(ratios(app, name), cell, "{app} {name}");
        }
    }
    // FastAPI's compute counted once; the other rounds held 31 and 33 connections.
    let compute = route("fastapi", "compute");
    let held: Vec<&str> = compute
        .runs
        .iter()
        .filter_map(|run| {
            let reason = run.invalid_reason.as_deref()?;
            let held = &reason[reason.find("held ").unwrap() + 5..];
            Some(&held[..held.find(' ').unwrap()])
        })
        .collect();
    assert_eq!(held, ["31", "33"]);
    // The home runs left out: each the first run of a visit, with PostgreSQL's CPU per
    // page five to eight times the batch's median for the page.
    let per_page = |run: &Run| run.postgres_cpu_percent / 100.0 * 1e6 / run.requests_per_sec;
    let all: Vec<f64> = batch
        .apps
        .iter()
        .flat_map(|app| &app.routes)
        .filter(|r| r.route == "home")
        .flat_map(|r| r.runs.iter().chain(&r.pacer_runs))
        .map(per_page)
        .collect();
    let (typical, _) = median(all.iter().copied()).unwrap();
    assert_eq!(typical.round(), 316.0);
    let far_above: Vec<f64> = all.iter().copied().filter(|&v| v > 5.0 * typical).collect();
    assert_eq!(far_above.len(), 3, "{far_above:?}");
    for (app, round, ratio, microseconds) in [
        ("actix-sqlx", 2, 0.19, 2457.0),
        ("fastify", 2, 0.20, 2042.0),
        ("laravel", 1, 0.20, 1687.0),
    ] {
        let home = route(app, "home");
        let run = home.runs.iter().find(|r| r.index == round).unwrap();
        let pacer = home.pacer_runs.iter().find(|r| r.index == round).unwrap();
        let measured = run.requests_per_sec / pacer.requests_per_sec;
        assert_eq!((measured * 100.0).round() / 100.0, ratio, "{app}");
        assert_eq!(per_page(run).round(), microseconds, "{app}");
        assert!(per_page(run) > 5.0 * typical, "{app}: {} µs", per_page(run));
    }
}

#[test]
fn median_of_odd_and_even_counts() {
    assert_eq!(median([3.0, 1.0, 2.0].into_iter()), Some((2.0, 3)));
    assert_eq!(median([4.0, 1.0].into_iter()), Some((2.5, 2)));
    assert_eq!(median(std::iter::empty()), None);
}
