//! `blogbench report` and `blogbench compare` on a synthetic batch: every app and route
//! accounted for, invalid runs and failures shown, nothing from `results.json` unescaped in
//! the HTML, and charts a real browser draws.

use crate::common;
use crate::screenshot;

use bench::report::{self, Comparison};
use bench::results::sweep::CpuBusy;
use bench::results::{
    AppResult, AppStatus, Batch, Ceiling, Ceilings, CpuSets, Latency, Machine, Pacer, Parity,
    RouteResult, Run, RunHeader, RunKind, Settings,
};
use bench::stack::manifest::{Queries, Settings as AppSettings};
use std::collections::BTreeMap;
use std::path::Path;

const ROUTES: [(&str, &str, f64); 6] = [
    ("home", "/", 10_000.0),
    ("detail", "/posts/hello-world", 20_000.0),
    ("tag", "/tags/rust", 8_000.0),
    ("cached-home", "/cached/", 150_000.0),
    ("cached-detail", "/cached/posts/hello-world", 160_000.0),
    ("compute", "/compute?n=20000", 15_000.0),
];

const GO_INVALID_REASON: &str = "2 non-200 responses (503)";
const AXUM_INVALID_REASON: &str = "5 connection errors (connection refused)";
/// Every paired Go run of axum-sqlx's tag page.
const PACER_INVALID_REASON: &str = "held 48 of 50 connections";
const PARITY_DIFF: &str = "--- go /posts/hello-world\n+++ cot /posts/hello-world\n@@ -1 +1 @@\n\
    -<p>&lt;script&gt;alert(&#34;xss&#34;)&lt;/script&gt;</p>\n\
    +<p><script>alert(\"xss\")</script></p>\n";
const AFTER_LOAD_DIFF: &str =
    "--- go /tags/rust\n+++ rocket /tags/rust\n@@ -1 +1 @@\n-<li>\n+<li >\n";

fn run(index: u32, requests_per_sec: f64, invalid_reason: Option<&str>) -> Run {
    let mean_ms = 50.0 / requests_per_sec * 1000.0;
    Run {
        index,
        requests: (requests_per_sec * 20.0) as u64,
        requests_per_sec,
        latency_ms: Latency {
            p50: mean_ms * 0.9,
            p90: mean_ms * 1.4,
            p99: mean_ms * 2.0,
            p999: mean_ms * 3.0,
            max: mean_ms * 5.0,
        },
        status_codes: BTreeMap::from([("200".to_owned(), (requests_per_sec * 20.0) as u64)]),
        errors: BTreeMap::new(),
        connections: 50,
        body_bytes: Some((requests_per_sec * 20.0) as u64 * 1000),
        wrong_length: None,
        valid: invalid_reason.is_none(),
        invalid_reason: invalid_reason.map(str::to_owned),
        app_cpu_percent: 380.0,
        app_rss_max_mib: 8.0 + requests_per_sec / 100_000.0,
        postgres_cpu_percent: 120.0,
        redis_cpu_percent: 5.0,
        raw_output: format!("raw/run-{index}.json"),
        stale_reads: None,
        cpu_busy: None,
    }
}

/// An app that measured every route, three rounds each: its runs around `speed` × the
/// route's base (0.98, 1.00, 1.02), each paired with a Go run around the base (0.99, 1.00,
/// 1.01). `invalid` lists app runs, `invalid_pacer` paired Go runs, by route and round.
fn measured_app(
    name: &str,
    speed: f64,
    invalid: &[(&str, u32, &str)],
    invalid_pacer: &[(&str, u32, &str)],
) -> AppResult {
    let reason = |list: &[(&str, u32, &str)], route: &str, index: u32| {
        list.iter()
            .find(|(r, i, _)| *r == route && *i == index)
            .map(|(_, _, reason)| (*reason).to_owned())
    };
    let routes = ROUTES
        .iter()
        .map(|(route, path, base)| RouteResult {
            route: (*route).to_owned(),
            path: (*path).to_owned(),
            expected_bytes: Some(1000),
            runs: (1..=3)
                .map(|index| {
                    let why = reason(invalid, route, index);
                    run(
                        index,
                        base * speed * (0.96 + 0.02 * index as f64),
                        why.as_deref(),
                    )
                })
                .collect(),
            pacer_runs: (1..=3)
                .map(|index| {
                    let why = reason(invalid_pacer, route, index);
                    run(index, base * (0.98 + 0.01 * index as f64), why.as_deref())
                })
                .collect(),
            slices: Vec::new(),
        })
        .collect();
    AppResult {
        name: name.to_owned(),
        stack: format!("{name} stack"),
        versions: BTreeMap::from([("tokio".to_owned(), "1.53.0".to_owned())]),
        settings: Some(settings(16, if name == "go" { 3 } else { 4 })),
        env: BTreeMap::from([
            ("POOL_MAX".to_owned(), "16".to_owned()),
            ("WORKERS".to_owned(), "4".to_owned()),
        ]),
        status: AppStatus::Ok,
        parity: Some(Parity {
            pages: 112,
            mismatches: 0,
            first_diff: None,
        }),
        parity_after_load: Some(Parity {
            pages: 112,
            mismatches: 0,
            first_diff: None,
        }),
        deviations: Vec::new(),
        routes,
        start_up_warmups: Vec::new(),
        visits: Vec::new(),
    }
}

fn settings(pool_max: u32, home_queries: u32) -> AppSettings {
    AppSettings {
        pool_max,
        pool_min: 4,
        ping_on_acquire: "never".to_owned(),
        ping_on_release: pool_max == 16,
        connection: "one per request".to_owned(),
        workers: "Tokio worker threads".to_owned(),
        queries: Queries {
            home: home_queries,
            post: 3,
            tag: 4,
            comment: Some(4),
        },
        cache: "GET on a hit".to_owned(),
        warmup: None,
    }
}

fn batch() -> Batch {
    let go = measured_app("go", 1.0, &[("detail", 2, GO_INVALID_REASON)], &[]);
    let mut axum = measured_app(
        "axum-sqlx",
        1.3,
        &[
            ("compute", 1, AXUM_INVALID_REASON),
            ("compute", 2, AXUM_INVALID_REASON),
            ("compute", 3, AXUM_INVALID_REASON),
        ],
        &[
            ("tag", 1, PACER_INVALID_REASON),
            ("tag", 2, PACER_INVALID_REASON),
            ("tag", 3, PACER_INVALID_REASON),
        ],
    );
    axum.versions.insert("axum".to_owned(), "0.8.9".to_owned());
    let ping = (
        "ping on release".to_owned(),
        "on".to_owned(),
        "sqlx pings every connection given back to the pool; no switch".to_owned(),
    );
    axum.deviations = vec![ping.clone()];
    let cot = AppResult {
        name: "cot".to_owned(),
        stack: "Cot 0.7, askama".to_owned(),
        versions: BTreeMap::from([("cot".to_owned(), "0.7.0".to_owned())]),
        settings: Some(settings(10, 5)),
        env: BTreeMap::from([("WORKERS".to_owned(), "4".to_owned())]),
        status: AppStatus::Failed {
            stage: "parity".to_owned(),
            reason: "3 of 112 pages differ; first at <p> on /posts/hello-world".to_owned(),
        },
        parity: Some(Parity {
            pages: 112,
            mismatches: 3,
            first_diff: Some(PARITY_DIFF.to_owned()),
        }),
        parity_after_load: None,
        deviations: vec![
            ping,
            (
                "pool size".to_owned(),
                "10".to_owned(),
                "Cot has no pool setting".to_owned(),
            ),
        ],
        routes: Vec::new(),
        start_up_warmups: Vec::new(),
        visits: Vec::new(),
    };
    Batch {
        header: RunHeader {
            kind: Some(RunKind::Batch),
            id: "20261130021500".to_owned(),
            started_at: "2026-11-30T02:15:00Z".to_owned(),
            finished_at: Some("2026-11-30T03:40:00Z".to_owned()),
            command: "blogbench bench --runs 3 --duration 20s".to_owned(),
            git_commit: "91efb8f".to_owned(),
            machine: Machine {
                hostname: "bench-host".to_owned(),
                kernel: "Linux 6.1.0-test".to_owned(),
                cpu_model: "Test CPU @ 3.0GHz".to_owned(),
                cores: 12,
                memory_gib: 16.0,
            },
        },
        cpu_sets: CpuSets {
            app: "0-3".to_owned(),
            services: "4-7".to_owned(),
            load: "8-11".to_owned(),
            note: "12 cores: the reference split".to_owned(),
            unpinned: Vec::new(),
        },
        settings: Settings {
            connections: 50,
            duration_secs: 20.0,
            warmup_secs: 5.0,
            rounds: 3,
            order_seed: None,
            precision: None,
            max_rounds: None,
            precision_every_app: false,
            loadgen: "oha".to_owned(),
            quick: false,
            routes: ROUTES.iter().map(|(r, _, _)| (*r).to_owned()).collect(),
            slice_secs: None,
        },
        tools: BTreeMap::from([
            ("go".to_owned(), "1.25.4".to_owned()),
            ("oha".to_owned(), "1.10.0".to_owned()),
        ]),
        seed_checksum: "abc123".to_owned(),
        ceilings: Ceilings {
            http: Some(Ceiling {
                per_sec: 300_000.0,
                how: "oha against a static 30 KB page".to_owned(),
                runs: vec![290_000.0, 300_000.0, 310_000.0],
                invalid: Vec::new(),
            }),
            database: BTreeMap::from([(
                "home".to_owned(),
                Ceiling {
                    per_sec: 40_000.0,
                    how: "pgbench, home queries".to_owned(),
                    runs: vec![39_000.0, 40_000.0, 41_000.0],
                    invalid: Vec::new(),
                },
            )]),
        },
        apps: vec![go, axum, cot],
        pacer: Some(Pacer {
            app: "go".to_owned(),
            env: BTreeMap::from([("WORKERS".to_owned(), "4".to_owned())]),
            warmup_secs: 2.0,
            per_visit: true,
        }),
    }
}

/// Writes `batch` and its report into a new temporary folder.
fn reported(batch: &Batch) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    batch.save(dir.path()).unwrap();
    report::write(dir.path(), None).unwrap();
    dir
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// The cells of the Markdown table that follows the first `intro` in `markdown`.
fn table_after(markdown: &str, intro: &str) -> Vec<Vec<String>> {
    nth_table_after(markdown, intro, 0)
}

/// The cells of the `n`th Markdown table (from 0) after the first `intro` in `markdown`.
fn nth_table_after(markdown: &str, intro: &str, n: usize) -> Vec<Vec<String>> {
    let start = markdown
        .find(intro)
        .unwrap_or_else(|| panic!("no {intro:?} in report.md"));
    let mut lines = markdown[start..].lines().peekable();
    for _ in 0..n {
        while lines.next_if(|line| !line.starts_with('|')).is_some() {}
        while lines.next_if(|line| line.starts_with('|')).is_some() {}
    }
    lines
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'))
        .skip(2) // header and rule
        .map(|line| {
            line.trim_matches('|')
                .split(" | ")
                .map(|cell| cell.trim().to_owned())
                .collect()
        })
        .collect()
}

/// `14,140` or `14,140 (…)`.
fn starts_with_number(cell: &str) -> bool {
    let number = cell.split(' ').next().unwrap_or("");
    let groups: Vec<&str> = number.split(',').collect();
    !number.is_empty()
        && groups[0].len() <= 3
        && groups
            .iter()
            .all(|g| g.chars().all(|c| c.is_ascii_digit()) && !g.is_empty())
        && groups[1..].iter().all(|g| g.len() == 3)
}

fn route_mut<'a>(batch: &'a mut Batch, app: &str, route: &str) -> &'a mut RouteResult {
    batch
        .apps
        .iter_mut()
        .find(|a| a.name == app)
        .unwrap_or_else(|| panic!("no app {app}"))
        .routes
        .iter_mut()
        .find(|r| r.route == route)
        .unwrap_or_else(|| panic!("{app} has no route {route}"))
}

/// The report's cell for three paired rounds, worked out here from the req/s pairs:
/// `median× (min–max; CI low–high)` of app ÷ Go, the interval the geometric mean's with
/// Student's t for two degrees of freedom as tabulated.
fn expected_ratio_cell(pairs: [(f64, f64); 3]) -> String {
    let mut ratios: Vec<f64> = pairs.iter().map(|(app, go)| app / go).collect();
    ratios.sort_by(f64::total_cmp);
    let logs: Vec<f64> = ratios.iter().map(|r| r.ln()).collect();
    let mean = logs.iter().sum::<f64>() / 3.0;
    let s = (logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / 2.0).sqrt();
    let half = 4.302_652_729_911_275 * s / 3f64.sqrt();
    format!(
        "{:.2}× ({:.2}–{:.2}; CI {:.2}–{:.2})",
        ratios[1],
        ratios[0],
        ratios[2],
        (mean - half).exp(),
        (mean + half).exp()
    )
}

/// The req/s of round `index` (1-based) as `measured_app` makes them.
fn app_rate(base: f64, speed: f64, index: u32) -> f64 {
    base * speed * (0.96 + 0.02 * index as f64)
}

fn pacer_rate(base: f64, index: u32) -> f64 {
    base * (0.98 + 0.01 * index as f64)
}

#[test]
fn every_route_of_every_app_is_a_number_or_a_recorded_failure() {
    let _serial = common::serial();
    let dir = reported(&batch());
    let markdown = read(dir.path(), "report.md");
    let rows = table_after(&markdown, "Every route, median req/s");
    let names: Vec<&str> = rows.iter().map(|row| row[0].as_str()).collect();
    assert_eq!(names, ["go", "axum-sqlx", "cot"], "{markdown}");
    for row in &rows {
        assert_eq!(row.len(), 1 + ROUTES.len(), "{row:?}");
        for cell in &row[1..] {
            assert!(
                starts_with_number(cell) || cell.starts_with("— ") || cell == "failed: parity",
                "{}: {cell:?} is neither a number nor a recorded failure",
                row[0]
            );
        }
    }
    // go: home is 9,800 / 10,000 / 10,200 → median 10,000.
    assert_eq!(rows[0][1], "10,000");
    // go's detail run 2 was invalid: the median of runs 1 and 3, and says so.
    assert_eq!(rows[0][2], "20,000 (2/3 valid)");
    assert_eq!(
        rows[1][6],
        format!("— 3/3 runs invalid: {AXUM_INVALID_REASON}")
    );
    assert!(rows[2][1..].iter().all(|cell| cell == "failed: parity"));

    let ranges = table_after(&markdown, "The range of those runs");
    assert_eq!(ranges[0][1..3], ["9,800–10,200", "19,600–20,400"]);
    assert_eq!(ranges[1][6], "— no valid run");
}

#[test]
fn the_ratio_to_go_table_comes_first_with_the_median_and_range_of_the_paired_runs() {
    let _serial = common::serial();
    let mut paired = batch();
    let pairs = [(2000.0, 1000.0), (2100.0, 1000.0), (1900.0, 1000.0)];
    let home = route_mut(&mut paired, "axum-sqlx", "home");
    for ((run, pacer), (app_rate, go_rate)) in
        home.runs.iter_mut().zip(&mut home.pacer_runs).zip(pairs)
    {
        run.requests_per_sec = app_rate;
        pacer.requests_per_sec = go_rate;
    }
    let expected = expected_ratio_cell(pairs);
    assert_eq!(expected, "2.00× (1.90–2.10; CI 1.76–2.26)");

    let dir = reported(&paired);
    let markdown = read(dir.path(), "report.md");
    // Nothing between the setup table and the ratio table: no other section, no other table.
    let setup = markdown.find("| setup").expect("the setup table");
    let after_setup = setup
        + markdown[setup..]
            .find("\n\n")
            .expect("a blank line after the setup table");
    let ratio = markdown.find("## Ratio to Go").expect("the ratio section");
    let between = &markdown[after_setup..ratio];
    assert!(
        !between.contains("\n|") && !between.contains("\n#"),
        "something before the ratio table:\n{between}"
    );
    assert!(markdown[ratio..].contains("paired with a run of the Go reference on the same route"));

    let rows = table_after(&markdown, "## Ratio to Go");
    let names: Vec<&str> = rows.iter().map(|row| row[0].as_str()).collect();
    assert_eq!(names, ["go (noise floor)", "axum-sqlx", "cot"]);
    assert_eq!(rows[1][1], expected);
    // go's home: its runs against the pacer's, round by round.
    let base = ROUTES[0].2;
    let go_pairs = [1, 2, 3].map(|i| (app_rate(base, 1.0, i), pacer_rate(base, i)));
    assert_eq!(rows[0][1], expected_ratio_cell(go_pairs));
    // go's detail run 2 did not count: two rounds of three paired.
    assert!(rows[0][2].ends_with("; 2/3 rounds)"), "{}", rows[0][2]);
    // Cells without a valid pair say why.
    assert_eq!(
        rows[1][3],
        format!("— no round in which both runs counted; Go runs invalid: {PACER_INVALID_REASON}")
    );
    assert_eq!(
        rows[1][6],
        format!("— 3/3 runs invalid: {AXUM_INVALID_REASON}")
    );
    assert!(rows[2][1..].iter().all(|cell| cell == "failed: parity"));

    let html = read(dir.path(), "report.html");
    let ratio_in_html = html
        .find("<h2>Ratio to Go</h2>")
        .expect("the ratio section");
    let requests_in_html = html.find("<h2>Requests per second</h2>").unwrap();
    assert!(ratio_in_html < requests_in_html);
    assert!(html[ratio_in_html..requests_in_html].contains(&expected));
}

/// `route` of `app` measured over `rounds` paired rounds at `speed` × Go, every run valid.
fn with_rounds(batch: &mut Batch, app: &str, route: &str, speed: f64, rounds: u32) {
    let base = ROUTES.iter().find(|r| r.0 == route).unwrap().2;
    let result = route_mut(batch, app, route);
    let (run, pacer) = (result.runs[0].clone(), result.pacer_runs[0].clone());
    let paired = |template: &Run, index: u32, requests_per_sec: f64| Run {
        index,
        requests_per_sec,
        valid: true,
        invalid_reason: None,
        ..template.clone()
    };
    result.runs = (1..=rounds)
        .map(|i| paired(&run, i, app_rate(base, speed, i)))
        .collect();
    result.pacer_runs = (1..=rounds)
        .map(|i| paired(&pacer, i, pacer_rate(base, i)))
        .collect();
}

fn summary(markdown: &str) -> &str {
    let summary = &markdown[markdown.find("## In short").expect("the summary")..];
    &summary[..3 + summary[3..].find("\n## ").unwrap()]
}

#[test]
fn the_summary_gives_each_app_its_letters_from_the_verdicts() {
    let _serial = common::serial();
    // Three rounds, axum-sqlx 1.3× go in each, the same to the last digit: the paired test
    // tells them apart, and they share no letter.
    let markdown = read(reported(&batch()).path(), "report.md");
    let three = summary(&markdown);
    let home = three
        .split(". ")
        .find(|s| s.contains("home: axum-sqlx 1.30× (CI "))
        .unwrap_or_else(|| panic!("no home in {three}"));
    assert!(home.contains(") [a], go 1.00× (CI "), "{home}");
    assert!(home.contains(") [b]"), "{home}");
    // axum-sqlx's tag page has no valid paired Go run, its compute no valid run.
    assert!(three.contains("tag: only go 1.00× (CI "), "{three}");
    assert!(three.contains("compute: only go 1.00× (CI "), "{three}");

    // Two rounds: no verdict of any kind.
    let mut two = batch();
    for app in ["go", "axum-sqlx"] {
        with_rounds(
            &mut two,
            app,
            "home",
            if app == "go" { 1.0 } else { 1.3 },
            2,
        );
    }
    let markdown = read(reported(&two).path(), "report.md");
    let two = summary(&markdown);
    assert!(
        two.contains(
            "home: no verdict, some pairs having only 2 common rounds of the 3 a verdict needs; \
             highest axum-sqlx 1.29× (CI "
        ),
        "{two}"
    );

    // Eight rounds: 1.3× in every one is told apart, and so is 1 % in every one: a
    // difference the rounds show, however small, is not a tie.
    let mut eight = batch();
    for (route, speed) in [("home", 1.3), ("cached-home", 1.01)] {
        with_rounds(&mut eight, "go", route, 1.0, 8);
        with_rounds(&mut eight, "axum-sqlx", route, speed, 8);
    }
    // As a batch with `--precision 5%` would have them: each cell says its rounds and
    // whether its interval reached ±5 %.
    eight.settings.precision = Some(0.05);
    eight.settings.max_rounds = Some(12);
    let dir = reported(&eight);
    let markdown = read(dir.path(), "report.md");
    let rows = table_after(&markdown, "## Ratio to Go");
    assert!(rows[1][1].ends_with("; 8 rounds)"), "{}", rows[1][1]);
    assert!(
        rows[0][2].ends_with("; 2/3 rounds; not within ±5.0 %)"),
        "{}",
        rows[0][2]
    );
    let eight = summary(&markdown);
    assert!(
        eight.contains("cached-home: axum-sqlx 1.03× (CI "),
        "{eight}"
    );
    assert!(eight.contains("**Uncached pages.**"), "{eight}");

    // The same verdicts, for whoever checks them.
    let verdicts: serde_json::Value =
        serde_json::from_str(&read(dir.path(), "verdicts.json")).unwrap();
    let route = |name: &str| {
        verdicts
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["route"] == name)
            .unwrap_or_else(|| panic!("no {name} in {verdicts}"))
            .clone()
    };
    let letters = |name: &str| -> Vec<(String, String)> {
        let apps = route(name)["apps"].as_array().unwrap().clone();
        apps.iter()
            .map(|a| {
                (
                    a["app"].as_str().unwrap().to_owned(),
                    a["letters"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    let expected = [("axum-sqlx", "a"), ("go", "b")].map(|(a, l)| (a.to_owned(), l.to_owned()));
    assert_eq!(letters("home"), expected);
    assert_eq!(letters("cached-home"), expected);
    let pair = &route("home")["judged"][0];
    assert_eq!(pair["comparison"]["a"], "go");
    assert_eq!(pair["comparison"]["b"], "axum-sqlx");
    assert_eq!(pair["verdict"], "slower");
    assert_eq!(route("cached-home")["judged"][0]["verdict"], "slower");
}

#[test]
fn closed_loop_latency_is_labelled_and_service_bound_cells_are_marked() {
    // The latency, req/s and ratio tables mark a route whose valid runs were mostly
    // service-bound.
    let _serial = common::serial();
    let mut busy = batch();
    let busy_runs = [0.95, 0.4, 0.92];
    for (run, services_and_load) in route_mut(&mut busy, "axum-sqlx", "detail")
        .runs
        .iter_mut()
        .zip(busy_runs)
    {
        run.cpu_busy = Some(CpuBusy {
            app: 0.8,
            services_and_load,
            taken: None,
        });
    }
    let markdown = read(reported(&busy).path(), "report.md");
    let latency = &markdown[markdown.find("## Latency").unwrap()..];
    assert!(latency.contains("coordinated omission"), "{latency}");
    let table = table_after(latency, "p50 / p99 in ms");
    // Two of its three detail runs had the shared CPU at least 90 % busy; no other route's.
    assert_eq!(service_bound(&table, "axum-sqlx"), ["detail"], "{latency}");
    let requests = table_after(&markdown, "Every route, median req/s of the valid runs");
    assert_eq!(
        service_bound(&requests, "axum-sqlx"),
        ["detail"],
        "{markdown}"
    );
    let ratios = table_after(&markdown, "## Ratio to Go");
    assert_eq!(
        service_bound(&ratios, "axum-sqlx"),
        ["detail"],
        "{markdown}"
    );
}

/// The routes whose cell in `app`'s row of a per-route table is marked service-bound.
fn service_bound(table: &[Vec<String>], app: &str) -> Vec<&'static str> {
    let row = table.iter().find(|row| row[0] == app).unwrap();
    ROUTES
        .iter()
        .zip(&row[1..])
        .filter(|(_, cell)| cell.ends_with(" ‡"))
        .map(|((route, ..), _)| *route)
        .collect()
}

#[test]
fn the_drift_table_spans_every_apps_paired_go_runs() {
    let _serial = common::serial();
    let markdown = read(reported(&batch()).path(), "report.md");
    let rows = table_after(
        &markdown,
        "## How much the machine drifted during the batch",
    );
    let routes: Vec<&str> = rows.iter().map(|row| row[0].as_str()).collect();
    assert_eq!(routes, ROUTES.map(|(r, _, _)| r));
    // home: go's and axum-sqlx's pacer runs, 9,900 / 10,000 / 10,100 each.
    let base = ROUTES[0].2;
    let (min, max) = (pacer_rate(base, 1), pacer_rate(base, 3));
    assert_eq!(
        rows[0][1..],
        [
            "6 of 6".to_owned(),
            "9,900".to_owned(),
            "10,000".to_owned(),
            "10,100".to_owned(),
            format!("{:.1} %", (max - min) / base * 100.0),
        ]
    );
    assert_eq!(rows[0][5], "2.0 %");
    // tag: axum-sqlx's three paired Go runs did not count.
    assert_eq!(rows[2][1], "3 of 6");
}

#[test]
fn report_shows_setup_failures_deviations_and_ceilings() {
    let _serial = common::serial();
    let mut unpinned = batch();
    unpinned.cpu_sets.unpinned =
        vec!["load generator (taskset: Operation not permitted)".to_owned()];
    let dir = reported(&unpinned);
    let markdown = read(dir.path(), "report.md");
    for expected in [
        "# blogbench report: batch 20261130021500",
        "Test CPU @ 3.0GHz",
        "12 cores",
        "Linux 6.1.0-test",
        "app 0-3",
        "NOT pinned: load generator (taskset: Operation not permitted)",
        "| load          | oha, 50 connections",
        "| rounds        | 3, each visiting every app once; per app and route a 5 s warm-up, then one 20 s run",
        "the Go reference (go) on the app CPUs, started afresh with each visit; per route a 2 s warm-up",
        "environment WORKERS=4",
        "go 1.25.4",
        "91efb8f",
        "```sh\nblogbench bench --runs 3 --duration 20s\n```",
        "**How to read this.**",
        "every body had the expected length",
        "held all 50 connections",
        "Medians and min–max ranges are over the rounds",
        "112 pages identical",
        "3 of 112 pages differ",
        // Latency: go home p50 = 0.9 × 50/10,000 s, p99 = 2 ×.
        "4.50 / 10.00",
        "25 % of the database ceiling",
        "of the HTTP client ceiling",
        "axum 0.8.9",
        "### cot failed: parity",
        "first at \\<p\\> on /posts/hello-world",
        "```diff\n--- go /posts/hello-world",
        "requests-per-sec-uncached.svg",
    ] {
        assert!(
            markdown.contains(expected),
            "no {expected:?} in:\n{markdown}"
        );
    }

    let deviations = table_after(&markdown, "## Deviations");
    assert_eq!(
        deviations.len(),
        2,
        "the shared ping row is merged: {deviations:?}"
    );
    assert_eq!(
        deviations[0][..3],
        ["ping on release", "on", "axum-sqlx, cot"]
    );
    assert_eq!(deviations[1][..3], ["pool size", "10", "cot"]);

    let settings = table_after(&markdown, "## App settings");
    let cot = settings
        .iter()
        .find(|row| row[0] == "cot")
        .expect("cot's settings row");
    assert_eq!(cot[1..4], ["10/4", "never / no", "5/3/4/4"]);
    assert_eq!(cot[6], "WORKERS=4");
    assert_eq!(settings[0][6], r"POOL\_MAX=16 WORKERS=4");
}

#[test]
fn invalid_runs_of_the_app_and_of_its_paired_go_runs_are_listed_and_failed_apps_explained() {
    let _serial = common::serial();
    let mut changed = batch();
    let mut rocket = measured_app("rocket", 1.1, &[], &[]);
    rocket.status = AppStatus::Failed {
        stage: "after load".to_owned(),
        reason: "2 of 112 pages changed under load".to_owned(),
    };
    rocket.parity_after_load = Some(Parity {
        pages: 112,
        mismatches: 2,
        first_diff: Some(AFTER_LOAD_DIFF.to_owned()),
    });
    changed.apps.push(rocket);
    let markdown = read(reported(&changed).path(), "report.md");

    let invalid = table_after(&markdown, "### Invalid runs");
    let rows: Vec<[&str; 4]> = invalid
        .iter()
        .map(|row| [&row[0], &row[1], &row[2], &row[5]].map(String::as_str))
        .collect();
    let mut expected = vec![["go", "detail", "app", GO_INVALID_REASON]];
    expected.extend(
        [[
            "axum-sqlx",
            "tag",
            "paired Go run (pacer)",
            PACER_INVALID_REASON,
        ]; 3],
    );
    expected.extend([["axum-sqlx", "compute", "app", AXUM_INVALID_REASON]; 3]);
    let mut sorted = rows.clone();
    sorted.sort();
    expected.sort();
    assert_eq!(sorted, expected, "{markdown}");
    let pacer_rounds: Vec<&str> = invalid
        .iter()
        .filter(|row| row[2] == "paired Go run (pacer)")
        .map(|row| row[3].as_str())
        .collect();
    assert_eq!(pacer_rounds, ["1", "2", "3"]);

    // The app that changed its pages under load: stage, reason, the diff; its runs kept.
    for expected in [
        "### rocket failed: after load",
        "2 of 112 pages changed under load",
        "After load, pages changed under load: 2 of 112 pages differ",
        "```diff\n--- go /tags/rust\n+++ rocket /tags/rust",
    ] {
        assert!(
            markdown.contains(expected),
            "no {expected:?} in:\n{markdown}"
        );
    }
    let apps = table_after(&markdown, "## Apps");
    let rocket = apps.iter().find(|row| row[0] == "rocket").unwrap();
    assert_eq!(
        rocket[2..],
        [
            "failed: after load",
            "112 pages identical",
            "2 of 112 pages differ"
        ]
    );
    let requests = table_after(&markdown, "Every route, median req/s");
    assert_eq!(requests[3][1], "11,000", "{requests:?}");
}

#[test]
fn an_app_above_a_ceilings_range_says_the_ceiling_did_not_hold() {
    let _serial = common::serial();
    let mut outrun = batch();
    outrun.ceilings.http = Some(Ceiling {
        per_sec: 140_000.0,
        how: "oha against a static 30 KB page".to_owned(),
        runs: vec![130_000.0, 140_000.0, 155_000.0],
        invalid: vec!["3 read errors".to_owned()],
    });
    // go: cached-home's median above the ceiling's median but within its runs; cached-detail
    // above its highest run.
    let (cached_home, cached_detail) = (ROUTES[3].2, ROUTES[4].2);
    assert!(cached_home > 140_000.0 && cached_home <= 155_000.0);
    assert!(cached_detail > 155_000.0);

    let markdown = read(reported(&outrun).path(), "report.md");
    let ceilings = table_after(&markdown, "## Ceilings");
    assert_eq!(
        ceilings[0][..4],
        [
            "HTTP client ceiling: oha against a static page the size of the home page",
            "140,000",
            "130,000–155,000",
            "3 of 4",
        ]
    );
    assert_eq!(
        ceilings[1][..4],
        [
            "database ceiling: pgbench running the home page's statements",
            "40,000",
            "39,000–41,000",
            "3 of 3",
        ]
    );
    let shares = nth_table_after(&markdown, "## Ceilings", 1);
    assert_eq!(shares[0][0], "go");
    assert_eq!(shares[0][1], "25 % of the database ceiling");
    assert_eq!(shares[0][4], "at the HTTP client ceiling");
    assert_eq!(
        shares[0][5],
        "above the HTTP client ceiling's range: the ceiling did not hold"
    );
    for cell in shares.iter().flat_map(|row| &row[1..]) {
        let share: Option<f64> = cell.split(" %").next().and_then(|n| n.parse().ok());
        assert!(
            share.is_none_or(|s| s <= 100.0),
            "a share above 100 %: {cell}"
        );
    }
    let invalid = table_after(&markdown, "### Invalid ceiling runs");
    assert_eq!(invalid[0][1], "3 read errors");
}

#[test]
fn html_escapes_everything_from_the_batch_and_inlines_the_charts() {
    let _serial = common::serial();
    let dir = reported(&batch());
    let html = read(dir.path(), "report.html");
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(!html.contains("<script"), "unescaped script in report.html");
    assert!(!html.contains("<p> on"), "unescaped reason in report.html");
    assert!(html.contains("+&lt;p&gt;&lt;script&gt;alert(\"xss\")&lt;/script&gt;&lt;/p&gt;"));
    assert!(html.contains("first at &lt;p&gt; on /posts/hello-world"));
    assert!(html.contains(GO_INVALID_REASON));
    assert!(html.contains("<table>"));
    // Self-contained: the five charts inline, nothing fetched.
    assert_eq!(html.matches("<svg").count(), 5, "{html}");
    for external in ["src=", "href=", "@import", "url("] {
        assert!(!html.contains(external), "report.html refers to {external}");
    }
}

#[test]
fn charts_are_standalone_svg_naming_every_app_with_whiskers_on_the_req_s_bars() {
    let _serial = common::serial();
    let dir = reported(&batch());
    // One whisker per bar with a valid run: go's and axum-sqlx's, not cot's (failed), nor
    // axum-sqlx's compute (no valid run); none on latency or memory.
    for (chart, whiskers) in [
        ("requests-per-sec-uncached.svg", 2 * 3),
        ("requests-per-sec-cached.svg", 2 * 2),
        ("requests-per-sec-compute.svg", 1),
        ("latency.svg", 0),
        ("memory.svg", 0),
    ] {
        let svg = read(dir.path(), chart);
        assert!(svg.starts_with("<svg"), "{chart}");
        assert!(svg.trim_end().ends_with("</svg>"), "{chart}");
        for app in ["go", "axum-sqlx", "cot"] {
            assert!(
                svg.contains(&format!(">\n{app}\n</text>")),
                "{chart} has no {app} label"
            );
        }
        assert!(svg.contains("failed: parity"), "{chart}");
        // Whiskers are the only dark grey lines.
        assert_eq!(
            svg.matches(r##"<polyline fill="none" opacity="1" stroke="#333333""##)
                .count(),
            whiskers,
            "{chart}:\n{svg}"
        );
    }
    let uncached = read(dir.path(), "requests-per-sec-uncached.svg");
    assert!(uncached.contains("req/s · higher is better"));
    assert!(uncached.contains("20,000 (2/3 valid)"));
    let compute = read(dir.path(), "requests-per-sec-compute.svg");
    assert!(compute.contains("— no valid run"));
}

#[test]
fn a_stopped_batch_reports_what_it_has() {
    let _serial = common::serial();
    let mut stopped = batch();
    stopped.header.finished_at = None;
    stopped.apps[1].status = AppStatus::Pending;
    stopped.apps[1].routes.clear();
    let dir = reported(&stopped);
    let markdown = read(dir.path(), "report.md");
    assert!(markdown.contains("not finished"), "{markdown}");
    let rows = table_after(&markdown, "Every route, median req/s");
    assert!(
        rows[1][1..].iter().all(|cell| cell == "not run"),
        "{rows:?}"
    );

    // Stopped before any app ran: a report without charts, not a crash.
    stopped.apps.clear();
    let dir = reported(&stopped);
    assert!(read(dir.path(), "report.html").contains("batch 20261130021500"));
    assert!(!dir.path().join("latency.svg").exists());
}

/// A `results.json` from before the pacer, pinning records and ceiling runs still reports,
/// and says why it has no ratio, no drift and no ceiling range.
#[test]
fn a_batch_recorded_before_the_pacer_still_reports() {
    let _serial = common::serial();
    let mut json = serde_json::to_value(batch()).unwrap();
    json.as_object_mut().unwrap().remove("pacer");
    json["cpu_sets"].as_object_mut().unwrap().remove("unpinned");
    for pointer in ["/ceilings/http", "/ceilings/database/home"] {
        let ceiling = json.pointer_mut(pointer).unwrap().as_object_mut().unwrap();
        ceiling.remove("runs");
        ceiling.remove("invalid");
    }
    for app in json["apps"].as_array_mut().unwrap() {
        let app = app.as_object_mut().unwrap();
        app.remove("env");
        app.remove("parity_after_load");
        for route in app["routes"].as_array_mut().unwrap() {
            let route = route.as_object_mut().unwrap();
            route.remove("pacer_runs");
            route.remove("expected_bytes");
            for run in route["runs"].as_array_mut().unwrap() {
                let run = run.as_object_mut().unwrap();
                run.remove("body_bytes");
                run.remove("wrong_length");
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("results.json"), json.to_string()).unwrap();
    report::write(dir.path(), None).unwrap();
    let markdown = read(dir.path(), "report.md");

    let ratios = table_after(&markdown, "## Ratio to Go");
    assert_eq!(ratios[1][1], "— no Go run was paired with it");
    assert!(markdown.contains("This batch ran without the pacer, so no cell has a ratio."));
    assert!(
        markdown.contains("This batch recorded no paired Go runs"),
        "{markdown}"
    );
    assert!(markdown.contains("none: this batch ran no paired Go runs"));
    let ceilings = table_after(&markdown, "## Ceilings");
    assert_eq!(ceilings[0][1..3], ["300,000", "— runs not recorded"]);
    // Without paired rounds there are no intervals, so the summary makes no claim.
    assert!(
        markdown.contains("home: no app has a paired round."),
        "{markdown}"
    );
}

/// `batch` with every req/s of axum-sqlx's home page multiplied by `factor`.
fn with_axum_home_scaled(factor: f64) -> Batch {
    let mut changed = batch();
    changed.header.id = "20261201000000".to_owned();
    for run in &mut route_mut(&mut changed, "axum-sqlx", "home").runs {
        run.requests_per_sec *= factor;
    }
    changed
}

/// The table row of axum-sqlx's home page in a comparison.
fn axum_home_row(text: &str) -> &str {
    text.lines()
        .find(|l| l.starts_with("| axum-sqlx") && l.contains("| home "))
        .unwrap_or_else(|| panic!("no axum-sqlx home row in:\n{text}"))
}

#[test]
fn compare_flags_a_change_outside_the_band() {
    let _serial = common::serial();
    let before = reported(&batch());
    let after = reported(&with_axum_home_scaled(1.2));
    assert!(!report::compare(before.path(), after.path(), false).unwrap());

    let comparison = Comparison::of(&batch(), &with_axum_home_scaled(1.2), false).unwrap();
    assert!(!comparison.within_band);
    let flagged: Vec<&str> = comparison
        .text
        .lines()
        .filter(|l| l.starts_with('|') && l.contains(" !"))
        .collect();
    assert_eq!(flagged.len(), 1, "{}", comparison.text);
    assert!(flagged[0].contains("axum-sqlx") && flagged[0].contains("home"));
    assert!(flagged[0].contains("+20.0 % !"), "{}", flagged[0]);
    // Runs within ±2 %: the band is the 15 % floor.
    assert!(flagged[0].contains("±15.0 %"), "{}", flagged[0]);
}

#[test]
fn compare_accepts_changes_within_the_band() {
    let _serial = common::serial();
    let before = reported(&batch());
    let after = reported(&with_axum_home_scaled(1.1));
    assert!(report::compare(before.path(), after.path(), false).unwrap());
    let comparison = Comparison::of(&batch(), &with_axum_home_scaled(1.1), false).unwrap();
    assert!(comparison.text.contains("+10.0 %"), "{}", comparison.text);
    assert!(!comparison.text.contains(" !"), "{}", comparison.text);
}

#[test]
fn the_band_widens_to_a_batchs_own_spread() {
    let _serial = common::serial();
    let runs = [7_000.0, 10_000.0, 13_000.0];
    let noisy = |factor: f64| {
        let mut noisy = batch();
        let home = route_mut(&mut noisy, "axum-sqlx", "home");
        for (run, rate) in home.runs.iter_mut().zip(runs) {
            run.requests_per_sec = rate * factor;
        }
        noisy
    };
    // (max − min) / median of the runs, the same in both batches.
    let spread = (runs[2] - runs[0]) / runs[1];
    let comparison = Comparison::of(&noisy(1.0), &noisy(1.2), false).unwrap();
    let row = axum_home_row(&comparison.text);
    assert!(row.contains("+20.0 %"), "{row}");
    assert!(row.contains(&format!("±{:.1} %", spread * 100.0)), "{row}");
    assert!(!row.contains(" !"), "{row}");
    assert!(comparison.within_band, "{}", comparison.text);

    // Only the after batch is noisy: its spread is the band all the same.
    let comparison = Comparison::of(&with_axum_home_scaled(1.2), &noisy(1.0), false).unwrap();
    let row = axum_home_row(&comparison.text);
    assert!(row.contains(&format!("±{:.1} %", spread * 100.0)), "{row}");
    assert!(!row.contains(" !"), "{row}");
}

#[test]
fn compare_refuses_batches_measured_differently_unless_forced() {
    let _serial = common::serial();
    let mut wider = batch();
    wider.header.id = "20261201000000".to_owned();
    wider.settings.connections = 100;
    let difference = "connections: 50 (before) → 100 (after)";
    assert_eq!(report::differences(&batch(), &wider), [difference]);
    assert!(report::differences(&batch(), &with_axum_home_scaled(1.2)).is_empty());

    let refused = Comparison::of(&batch(), &wider, false).unwrap_err();
    let refused = format!("{refused:#}");
    assert!(
        refused.contains(difference) && refused.contains("--force"),
        "{refused}"
    );

    let before = reported(&batch());
    let after = reported(&wider);
    assert!(report::compare(before.path(), after.path(), false).is_err());
    // Forced: the same numbers, within the band.
    assert!(report::compare(before.path(), after.path(), true).unwrap());

    let forced = Comparison::of(&batch(), &wider, true).unwrap();
    assert_eq!(forced.differences, [difference]);
    let listed = forced
        .text
        .find(&format!("- {difference}"))
        .expect("the differences listed");
    let table = forced.text.find("| app").expect("the comparison table");
    assert!(listed < table, "{}", forced.text);
}

/// Headless Chromium opens `report.html` and screenshots it: the charts must be drawn, in
/// colour. The report and `report.png` stay in the target folder for a person to look at.
#[test]
fn chromium_renders_the_charts() {
    let _serial = common::serial();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-screenshot");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    batch().save(&dir).unwrap();
    report::write(&dir, None).unwrap();
    let png = dir.join("report.png");
    let colours = screenshot::coloured_pixels(&dir.join("report.html"), &png, 4000);
    let coloured: usize = colours.values().sum();
    let bar_colours = colours.values().filter(|&&n| n >= 1_000).count();
    assert!(
        coloured >= 10_000 && bar_colours >= 2,
        "the screenshot {} shows no charts: {coloured} coloured pixels, {bar_colours} colours of \
         1,000 pixels or more",
        png.display()
    );
}

#[test]
fn a_batch_of_go_and_its_twins_reports_its_false_findings() {
    let _serial = common::serial();
    // The fixture's go and axum-sqlx, axum-sqlx relabelled as a twin of go: its 1.3×, the
    // same in every round, is then a false finding, and three rounds are enough to make it.
    let mut twins = batch();
    twins.apps.retain(|app| app.name != "cot");
    twins.apps[1].name = "go+TWIN=1".to_owned();
    let markdown = read(reported(&twins).path(), "report.md");
    let check = &markdown[markdown.find("## The A/A check").expect("the A/A section")..];
    // Intervals: go's on all six routes, the twin's on four (its tag page has no valid pacer
    // run, its compute no valid run), each of the twin's at 1.3× excluding 1; pairs: the
    // four routes with both, three of them told apart by the batch's adjusted intervals.
    assert!(
        check.contains("4 of 10 intervals of a ratio to Go exclude 1 (40.0 %;")
            && check.contains("3 of 4 pairs were told apart (75.0 %;"),
        "{check}"
    );
    // A batch with any other app has no such section, nor one with Go under a setting of
    // its own.
    let markdown = read(reported(&batch()).path(), "report.md");
    assert!(!markdown.contains("## The A/A check"));
    twins.apps[1].name = "go+GOGC=200".to_owned();
    let markdown = read(reported(&twins).path(), "report.md");
    assert!(!markdown.contains("## The A/A check"));
}
