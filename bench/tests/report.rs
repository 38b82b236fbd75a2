//! `blogbench report` and `blogbench compare` on a synthetic batch: every app and route
//! accounted for, invalid runs and failures shown, nothing from `results.json` unescaped in
//! the HTML, and charts a real browser draws.

use bench::report::{self, Comparison};
use bench::results::{
    AppResult, AppStatus, Batch, Ceiling, Ceilings, CpuSets, Latency, Machine, Parity, RouteResult,
    Run, Settings,
};
use bench::stack::manifest::{Queries, Settings as AppSettings};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

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
const PARITY_DIFF: &str = "--- go /posts/hello-world\n+++ cot /posts/hello-world\n@@ -1 +1 @@\n\
    -<p>&lt;script&gt;alert(&#34;xss&#34;)&lt;/script&gt;</p>\n\
    +<p><script>alert(\"xss\")</script></p>\n";

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
        valid: invalid_reason.is_none(),
        invalid_reason: invalid_reason.map(str::to_owned),
        app_cpu_percent: 380.0,
        app_rss_max_mib: 8.0 + requests_per_sec / 100_000.0,
        postgres_cpu_percent: 120.0,
        redis_cpu_percent: 5.0,
        raw_output: format!("raw/run-{index}.json"),
    }
}

/// An app that measured every route, three runs each around `speed` × the route's base.
fn measured_app(name: &str, speed: f64, invalid: &[(&str, u32, &str)]) -> AppResult {
    let routes = ROUTES
        .iter()
        .map(|(route, path, base)| RouteResult {
            route: (*route).to_owned(),
            path: (*path).to_owned(),
            runs: (1..=3)
                .map(|index| {
                    let reason = invalid
                        .iter()
                        .find(|(r, i, _)| r == route && *i == index)
                        .map(|(_, _, reason)| *reason);
                    run(index, base * speed * (0.96 + 0.02 * index as f64), reason)
                })
                .collect(),
        })
        .collect();
    AppResult {
        name: name.to_owned(),
        stack: format!("{name} stack"),
        versions: BTreeMap::from([("tokio".to_owned(), "1.53.0".to_owned())]),
        settings: Some(settings(16, if name == "go" { 3 } else { 4 })),
        status: AppStatus::Ok,
        parity: Some(Parity {
            pages: 112,
            mismatches: 0,
            first_diff: None,
        }),
        deviations: Vec::new(),
        routes,
    }
}

fn settings(pool_max: u32, home_queries: u32) -> AppSettings {
    AppSettings {
        pool_max,
        pool_min: 4,
        ping_on_acquire: false,
        ping_on_release: pool_max == 16,
        connection: "one per request".to_owned(),
        workers: "Tokio worker threads".to_owned(),
        queries: Queries {
            home: home_queries,
            post: 3,
            tag: 4,
        },
        cache: "GET on a hit".to_owned(),
    }
}

fn batch() -> Batch {
    let go = measured_app("go", 1.0, &[("detail", 2, GO_INVALID_REASON)]);
    let mut axum = measured_app(
        "axum-sqlx",
        1.3,
        &[
            ("compute", 1, AXUM_INVALID_REASON),
            ("compute", 2, AXUM_INVALID_REASON),
            ("compute", 3, AXUM_INVALID_REASON),
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
        status: AppStatus::Failed {
            stage: "parity".to_owned(),
            reason: "3 of 112 pages differ; first at <p> on /posts/hello-world".to_owned(),
        },
        parity: Some(Parity {
            pages: 112,
            mismatches: 3,
            first_diff: Some(PARITY_DIFF.to_owned()),
        }),
        deviations: vec![
            ping,
            (
                "pool size".to_owned(),
                "10".to_owned(),
                "Cot has no pool setting".to_owned(),
            ),
        ],
        routes: Vec::new(),
    };
    Batch {
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
        cpu_sets: CpuSets {
            app: "0-3".to_owned(),
            services: "4-7".to_owned(),
            load: "8-11".to_owned(),
            note: "12 cores: the reference split".to_owned(),
        },
        settings: Settings {
            connections: 50,
            duration_secs: 20.0,
            warmup_secs: 5.0,
            runs: 3,
            loadgen: "oha".to_owned(),
            quick: false,
            routes: ROUTES.iter().map(|(r, _, _)| (*r).to_owned()).collect(),
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
            }),
            database: BTreeMap::from([(
                "home".to_owned(),
                Ceiling {
                    per_sec: 40_000.0,
                    how: "pgbench, home queries".to_owned(),
                },
            )]),
        },
        apps: vec![go, axum, cot],
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

/// The cells of the Markdown table that follows the line starting with `intro`.
fn table_after(markdown: &str, intro: &str) -> Vec<Vec<String>> {
    let start = markdown
        .find(intro)
        .unwrap_or_else(|| panic!("no {intro:?} in report.md"));
    markdown[start..]
        .lines()
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

#[test]
fn every_route_of_every_app_is_a_number_or_a_recorded_failure() {
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
fn report_shows_setup_failures_deviations_and_ceilings() {
    let dir = reported(&batch());
    let markdown = read(dir.path(), "report.md");
    for expected in [
        "# blogbench report: batch 20261130021500",
        "Test CPU @ 3.0GHz",
        "12 cores",
        "Linux 6.1.0-test",
        "app 0-3",
        "oha, 50 connections; per route a 5 s warm-up, then 3 × 20 s runs",
        "go 1.25.4",
        "91efb8f",
        "```sh\nblogbench bench --runs 3 --duration 20s\n```",
        "**How to read this.**",
        "112 pages identical",
        "3 of 112 pages differ",
        // Latency: go home p50 = 0.9 × 50/10,000 s, p99 = 2 ×.
        "4.50 / 10.00",
        "25 % of DB",
        "of HTTP",
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

    let invalid = table_after(&markdown, "### Invalid runs");
    let reasons: Vec<(&str, &str, &str)> = invalid
        .iter()
        .map(|row| (row[0].as_str(), row[1].as_str(), row[4].as_str()))
        .collect();
    assert!(
        reasons.contains(&("go", "detail", GO_INVALID_REASON)),
        "{reasons:?}"
    );
    assert_eq!(
        reasons.len(),
        4,
        "one invalid go run and three axum ones: {reasons:?}"
    );

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
    assert_eq!(cot[1..4], ["10/4", "no / no", "5/3/4"]);
}

#[test]
fn html_escapes_everything_from_the_batch_and_inlines_the_charts() {
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
fn charts_are_standalone_svg_naming_every_app() {
    let dir = reported(&batch());
    for chart in [
        "requests-per-sec-uncached.svg",
        "requests-per-sec-cached.svg",
        "requests-per-sec-compute.svg",
        "latency.svg",
        "memory.svg",
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
    }
    let uncached = read(dir.path(), "requests-per-sec-uncached.svg");
    assert!(uncached.contains("req/s · higher is better"));
    assert!(uncached.contains("20,000 (2/3 valid)"));
    let compute = read(dir.path(), "requests-per-sec-compute.svg");
    assert!(compute.contains("— no valid run"));
}

#[test]
fn a_stopped_batch_reports_what_it_has() {
    let mut stopped = batch();
    stopped.finished_at = None;
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

/// `batch` with every req/s of axum-sqlx's home page multiplied by `factor`.
fn with_axum_home_scaled(factor: f64) -> Batch {
    let mut changed = batch();
    changed.id = "20261201000000".to_owned();
    let axum = changed
        .apps
        .iter_mut()
        .find(|a| a.name == "axum-sqlx")
        .unwrap();
    let home = axum.routes.iter_mut().find(|r| r.route == "home").unwrap();
    for run in &mut home.runs {
        run.requests_per_sec *= factor;
    }
    changed
}

#[test]
fn compare_flags_a_change_outside_the_band() {
    let before = reported(&batch());
    let after = reported(&with_axum_home_scaled(1.2));
    assert!(!report::compare(before.path(), after.path()).unwrap());

    let comparison = Comparison::of(&batch(), &with_axum_home_scaled(1.2));
    assert!(!comparison.within_band);
    let flagged: Vec<&str> = comparison
        .text
        .lines()
        .filter(|l| l.starts_with('|') && l.contains(" !"))
        .collect();
    assert_eq!(flagged.len(), 1, "{}", comparison.text);
    assert!(flagged[0].contains("axum-sqlx") && flagged[0].contains("home"));
    assert!(flagged[0].contains("+20.0 % !"), "{}", flagged[0]);
}

#[test]
fn compare_accepts_changes_within_the_band() {
    let before = reported(&batch());
    let after = reported(&with_axum_home_scaled(1.1));
    assert!(report::compare(before.path(), after.path()).unwrap());
    let comparison = Comparison::of(&batch(), &with_axum_home_scaled(1.1));
    assert!(comparison.text.contains("+10.0 %"), "{}", comparison.text);
    assert!(!comparison.text.contains(" !"), "{}", comparison.text);
}

#[test]
fn compare_lists_apps_in_one_batch_only() {
    let mut after = batch();
    after.apps.retain(|a| a.name != "go");
    let comparison = Comparison::of(&batch(), &after);
    assert!(comparison.within_band, "{}", comparison.text);
    assert!(
        comparison
            .text
            .lines()
            .any(|l| l.contains("go") && l.contains("only in before")),
        "{}",
        comparison.text
    );
}

/// Headless Chromium opens `report.html` and screenshots it: the charts must be drawn, in
/// colour. The report and `report.png` stay in the target folder for a person to look at.
#[test]
fn chromium_renders_the_charts() {
    let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .find(|path| Path::new(path).exists())
        .expect("no chromium: apt-get install chromium (Debian's package) to run this test");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-screenshot");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    batch().save(&dir).unwrap();
    report::write(&dir, None).unwrap();
    let screenshot = dir.join("report.png");
    let profile = tempfile::tempdir().unwrap();

    let mut browser = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--window-size=1280,2000",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--screenshot={}", screenshot.display()))
        .arg(format!("file://{}", dir.join("report.html").display()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromium");
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = browser.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = browser.kill();
            panic!("chromium took more than 120 s to screenshot report.html");
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(status.success(), "chromium: {status}");

    let file = std::io::BufReader::new(std::fs::File::open(&screenshot).expect("report.png"));
    let mut reader = png::Decoder::new(file).read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut pixels).unwrap();
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    let channels = info.color_type.samples();
    assert!(channels >= 3, "{:?}", info.color_type);
    assert_eq!((info.width, info.height), (1280, 2000));

    // The page itself is greys; only drawn chart bars are strongly coloured.
    let mut colours: BTreeMap<[u8; 3], usize> = BTreeMap::new();
    for pixel in pixels[..info.buffer_size()].chunks_exact(channels) {
        let [r, g, b] = [pixel[0], pixel[1], pixel[2]];
        if r.max(g).max(b) - r.min(g).min(b) >= 60 {
            *colours.entry([r, g, b]).or_default() += 1;
        }
    }
    let coloured: usize = colours.values().sum();
    let bar_colours = colours.values().filter(|&&n| n >= 1_000).count();
    assert!(
        coloured >= 10_000 && bar_colours >= 2,
        "the screenshot {} shows no charts: {coloured} coloured pixels, {bar_colours} colours of \
         1,000 pixels or more",
        screenshot.display()
    );
}
