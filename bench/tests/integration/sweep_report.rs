//! `blogbench report` on a synthetic sweep: every section present, each app's max rate under
//! the SLO with its ratio to Go's, invalid rates listed with their reasons, charts that are
//! SVG a real browser draws, and a sweep with an app that never ran still reports.

use crate::common;
use crate::screenshot;

use bench::report;
use bench::results::sweep::{
    AppSweep, ClosedLoopRound, ConnectionLevel, CpuBusy, Floor, GeneratorCeiling, MemoryLimited,
    Overload, OverloadPlan, OverloadSecond, RatePoint, RouteSweep, Sweep, SweepSettings,
};
use bench::results::{CpuSets, Latency, Machine, RunHeader, RunKind};
use std::collections::BTreeMap;
use std::path::Path;

const SECTIONS: [&str; 11] = [
    "# blogbench sweep 20260301120000",
    "## Max rate under the SLO",
    "## The machine's floor",
    "## Cost at equal load",
    "## Latency against throughput",
    "## Connection sweep",
    "## Overload and recovery",
    "## Memory-limited",
    "## Generator ceiling",
    "## Failures",
    "## Raw data",
];

const INVALID_REASON: &str = "delivered 91.0 % of the requests sent";
const INVALID_LEVEL_REASON: &str = "held 200 of 256 connections";
const APP_ERROR: &str = "start: the app exited with status 1";

/// A run at `fraction` of `closed_loop`: p99 grows with the rate, past the SLO when
/// `within_slo` is false.
fn point(
    app: &str,
    route: &str,
    closed_loop: f64,
    fraction: f64,
    within_slo: bool,
    invalid_reason: Option<&str>,
) -> RatePoint {
    let target = closed_loop * fraction;
    let sent = (target * 5.0) as u64;
    let p99 = if within_slo {
        2.0 + fraction * 10.0
    } else {
        80.0
    };
    RatePoint {
        round: 1,
        target_per_sec: target,
        fraction,
        duration_secs: 5.0,
        sent,
        completed: sent,
        failed: 0,
        in_flight: 0,
        delivered_ratio: if invalid_reason.is_some() { 0.91 } else { 1.0 },
        latency_ms: Latency {
            p50: p99 / 4.0,
            p90: p99 / 2.0,
            p99,
            p999: p99 * 1.5,
            max: p99 * 2.0,
        },
        send_delay_ms: Some(Latency {
            p50: 0.05,
            p90: 0.1,
            p99: 0.4,
            p999: 1.0,
            max: 2.0,
        }),
        connection_wait_ms: Some(Latency {
            p50: 0.01,
            p90: 0.02,
            p99: 0.3,
            p999: 0.5,
            max: 1.0,
        }),
        read_delay_ms: Some(Latency {
            p50: 0.02,
            p90: 0.04,
            p99: 0.2,
            p999: 0.6,
            max: 1.5,
        }),
        latency_less_generator_ms: None,
        generator_late: false,
        answers: BTreeMap::from([("200".to_owned(), sent)]),
        wrong_bodies: 0,
        connections_opened: 8,
        app_cpu_us_per_request: Some(120.0),
        postgres_cpu_us_per_request: Some(80.0),
        redis_cpu_us_per_request: Some(3.5),
        app_rss_max_mib: 30.0,
        cpu_busy: Some(CpuBusy {
            app: 0.4,
            services_and_load: 0.5,
            taken: None,
        }),
        client_bound: false,
        valid: invalid_reason.is_none(),
        invalid_reason: invalid_reason.map(str::to_owned),
        within_slo: within_slo && invalid_reason.is_none(),
        bookkeeping: None,
        histogram: format!("histograms/{app}-{route}-{target}.hlog"),
    }
}

fn route(
    route: &str,
    slo_ms: f64,
    closed_loop: f64,
    common: Vec<RatePoint>,
    own: Vec<RatePoint>,
) -> RouteSweep {
    RouteSweep {
        route: route.to_owned(),
        path: format!("/{route}"),
        slo_ms,
        closed_loop_per_sec: closed_loop,
        closed_loop_rounds: vec![ClosedLoopRound {
            round: 1,
            per_sec: closed_loop,
            not_counted: None,
        }],
        common,
        own,
    }
}

fn level(connections: u32, requests_per_sec: f64, invalid_reason: Option<&str>) -> ConnectionLevel {
    ConnectionLevel {
        connections,
        connections_held: if invalid_reason.is_some() {
            200
        } else {
            connections
        },
        requests_per_sec,
        latency_ms: Latency {
            p50: 1.0,
            p90: 2.0,
            p99: 4.0,
            p999: 9.0,
            max: 20.0,
        },
        answers: BTreeMap::from([
            ("200".to_owned(), 50_000),
            ("error: connect".to_owned(), 3),
            ("503".to_owned(), 2),
        ]),
        wrong_bodies: 0,
        app_rss_max_mib: 20.0 + f64::from(connections) / 10.0,
        rss_per_connection_kib: 12.5,
        oom_kills: None,
        survived: true,
        valid: invalid_reason.is_none(),
        invalid_reason: invalid_reason.map(str::to_owned),
    }
}

fn overload(max: f64, recovered_after_secs: Option<f64>) -> Overload {
    Overload {
        round: 1,
        route: "detail".to_owned(),
        max_sustainable_per_sec: max,
        base_per_sec: max * 0.5,
        overload_per_sec: max * 1.5,
        answers_during: BTreeMap::from([
            ("200".to_owned(), 9_000),
            ("error: latency limit".to_owned(), 120),
        ]),
        wrong_bodies: 0,
        peak_rss_mib: 64.0,
        baseline_p99_ms: 4.0,
        baseline_per_sec: max * 0.5,
        back_p99_bound_ms: Some(50.0),
        recovered_after_secs,
        recovered: recovered_after_secs.is_some(),
        survived: true,
        seconds: (0..12)
            .map(|second| {
                let overloaded = (4..8).contains(&second);
                let target = if overloaded { max * 1.5 } else { max * 0.5 };
                OverloadSecond {
                    second,
                    target_per_sec: target,
                    right: if overloaded {
                        max as u64
                    } else {
                        target as u64
                    },
                    failed: if overloaded { 30 } else { 0 },
                    p99_ms: if overloaded { 400.0 } else { 4.0 },
                }
            })
            .collect(),
        histogram: "histograms/overload.hlog".to_owned(),
    }
}

fn app(label: &str) -> AppSweep {
    AppSweep {
        label: label.to_owned(),
        env: BTreeMap::new(),
        error: None,
        routes: Vec::new(),
        idle_rss_mib: None,
        start_up_warmup_secs: None,
        connections: Vec::new(),
        overloads: Vec::new(),
        memory_limited: None,
    }
}

/// Go holds 2,000/s on detail and 18,000/s (client-bound) on cached-detail; axum-sqlx
/// 3,000/s and 15,000/s, its 5,400/s detail run invalid.
fn sweep() -> Sweep {
    let go_detail = route(
        "detail",
        50.0,
        4_000.0,
        vec![
            point("go", "detail", 4_000.0, 0.25, true, None),
            point("go", "detail", 4_000.0, 0.5, true, None),
            point("go", "detail", 4_000.0, 0.75, false, None),
        ],
        vec![
            point("go", "detail", 4_000.0, 0.5, true, None),
            point("go", "detail", 4_000.0, 0.9, false, None),
        ],
    );
    let mut go_cached_top = point("go", "cached-detail", 20_000.0, 0.9, true, None);
    go_cached_top.client_bound = true;
    let go_cached = route(
        "cached-detail",
        10.0,
        20_000.0,
        vec![
            point("go", "cached-detail", 20_000.0, 0.25, true, None),
            point("go", "cached-detail", 20_000.0, 0.5, true, None),
            point("go", "cached-detail", 20_000.0, 0.75, true, None),
        ],
        vec![
            point("go", "cached-detail", 20_000.0, 0.5, true, None),
            go_cached_top,
        ],
    );
    let axum_detail = route(
        "detail",
        50.0,
        6_000.0,
        vec![
            // The common ladder is at Go's rates: fractions of Go's closed-loop max.
            point("axum-sqlx", "detail", 4_000.0, 0.25, true, None),
            point("axum-sqlx", "detail", 4_000.0, 0.5, true, None),
            point("axum-sqlx", "detail", 4_000.0, 0.75, true, None),
        ],
        vec![
            point("axum-sqlx", "detail", 6_000.0, 0.5, true, None),
            point(
                "axum-sqlx",
                "detail",
                6_000.0,
                0.9,
                true,
                Some(INVALID_REASON),
            ),
        ],
    );
    let axum_cached = route(
        "cached-detail",
        10.0,
        30_000.0,
        vec![
            point("axum-sqlx", "cached-detail", 20_000.0, 0.25, true, None),
            point("axum-sqlx", "cached-detail", 20_000.0, 0.5, true, None),
            point("axum-sqlx", "cached-detail", 20_000.0, 0.75, true, None),
        ],
        vec![
            point("axum-sqlx", "cached-detail", 30_000.0, 0.5, true, None),
            point("axum-sqlx", "cached-detail", 30_000.0, 0.9, false, None),
        ],
    );
    let go = AppSweep {
        routes: vec![go_detail, go_cached],
        connections: vec![level(16, 20_000.0, None), level(256, 19_000.0, None)],
        overloads: vec![overload(2_000.0, Some(1.5))],
        ..app("go")
    };
    let mut oom_level = level(256, 8_000.0, Some("the app died"));
    oom_level.oom_kills = Some(1);
    oom_level.survived = false;
    let axum = AppSweep {
        routes: vec![axum_detail, axum_cached],
        connections: vec![
            level(16, 25_000.0, None),
            level(256, 24_000.0, Some(INVALID_LEVEL_REASON)),
        ],
        overloads: vec![overload(3_000.0, None)],
        memory_limited: Some(MemoryLimited {
            limit_bytes: 256 * 1024 * 1024,
            mechanism: "cgroup v2 memory.max".to_owned(),
            levels: vec![level(16, 24_000.0, None), oom_level],
        }),
        ..app("axum-sqlx")
    };
    Sweep {
        header: RunHeader {
            kind: Some(RunKind::Sweep),
            id: "20260301120000".to_owned(),
            started_at: "2026-03-01T12:00:00Z".to_owned(),
            finished_at: Some("2026-03-01T12:40:00Z".to_owned()),
            command: "blogbench sweep --apps go,axum-sqlx --routes detail,cached-detail".to_owned(),
            git_commit: "0123456".to_owned(),
            machine: Machine {
                hostname: "bench-host".to_owned(),
                kernel: "6.1.0".to_owned(),
                cpu_model: "Test CPU".to_owned(),
                cores: 2,
                memory_gib: 7.8,
            },
        },
        cpu_sets: CpuSets {
            app: "0".to_owned(),
            services: "1".to_owned(),
            load: "1".to_owned(),
            note: "two cores".to_owned(),
            unpinned: Vec::new(),
        },
        settings: SweepSettings {
            quick: false,
            rounds: 1,
            routes: vec!["detail".to_owned(), "cached-detail".to_owned()],
            slo_ms: BTreeMap::from([
                ("detail".to_owned(), 50.0),
                ("cached-detail".to_owned(), 10.0),
            ]),
            run_secs: 5.0,
            warmup_secs: 1.0,
            common_fractions: vec![0.25, 0.5, 0.75],
            own_fractions: vec![0.5, 0.9],
            arrivals: "constant".to_owned(),
            latency_limit_ms: 2_000.0,
            max_connections: 1_024,
            closed_loop: "oha, 50 connections".to_owned(),
            connection_levels: vec![16, 256],
            connection_route: "cached-detail".to_owned(),
            overload_route: "detail".to_owned(),
            overload: OverloadPlan {
                base_fraction: 0.5,
                overload_fraction: 1.5,
                before_secs: 4.0,
                overload_secs: 4.0,
                after_secs: 4.0,
                recover_within_secs: 10.0,
            },
            memory_limit_bytes: Some(256 * 1024 * 1024),
            open_files_limit: 65_536,
        },
        generator_ceiling: Some(GeneratorCeiling {
            per_sec: 22_000.0,
            how: "oha against a static page the size of the home page".to_owned(),
        }),
        floor: Vec::new(),
        apps: vec![go, axum],
    }
}

/// Writes `sweep` and its report into `dir`.
fn report_into(sweep: &Sweep, dir: &Path) {
    sweep.save(dir).unwrap();
    report::write_sweep(dir).unwrap();
}

fn reported(sweep: &Sweep) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    report_into(sweep, dir.path());
    dir
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// The header and rows of the first Markdown table after `intro`.
fn table_after(markdown: &str, intro: &str) -> Vec<Vec<String>> {
    let start = markdown
        .find(intro)
        .unwrap_or_else(|| panic!("no {intro:?} in sweep.md"));
    markdown[start..]
        .lines()
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'))
        .filter(|line| !line.starts_with("|-"))
        .map(|line| {
            line.trim_matches('|')
                .split(" | ")
                .map(|cell| cell.trim().to_owned())
                .collect()
        })
        .collect()
}

#[test]
fn every_section_in_order_and_the_max_rates_with_their_ratio_to_go() {
    let _serial = common::serial();
    let dir = reported(&sweep());
    let markdown = read(dir.path(), "sweep.md");
    let mut from = 0;
    for section in SECTIONS {
        let at = markdown[from..]
            .find(&format!("{section}\n"))
            .unwrap_or_else(|| panic!("no {section:?} after byte {from}:\n{markdown}"));
        from += at + section.len();
    }

    let table = table_after(&markdown, "## Max rate under the SLO");
    assert_eq!(
        table[0],
        ["app", "detail (p99 ≤ 50 ms)", "cached-detail (p99 ≤ 10 ms)"],
        "{markdown}"
    );
    // By hand: Go's detail ladders hold 2,000/s (its 3,000/s common and 3,600/s own runs
    // miss the SLO), cached-detail 18,000/s, client-bound. axum-sqlx holds 3,000/s on
    // detail (its 5,400/s run is invalid) and 15,000/s on cached-detail.
    // 3,000 / 2,000 = 1.5 and 15,000 / 18,000 = 0.8 to one decimal; Go's own row has no ratio.
    // Go's cached-detail ladder ended on its client-bound rate: a floor.
    // Each max with the next rate up, which was not sustained; ratios to one decimal.
    assert_eq!(
        table[1],
        [
            "go",
            "≥ 2,000 ? (next 3,000 not sustained)",
            "≥ 18,000 † ? (the ladders' top)"
        ],
        "{markdown}"
    );
    assert_eq!(
        table[2],
        [
            "axum-sqlx",
            "≥ 3,000 ? (1.5×; next 5,400 not sustained)",
            "≥ 15,000 ? (0.8×; next 27,000 not sustained)"
        ],
        "{markdown}"
    );
    assert_eq!(table.len(), 3, "one row per app:\n{markdown}");

    // Equal load: the common rate at 0.5 of Go's closed-loop max, every app at it.
    let equal = table_after(&markdown, "### detail at 2,000 req/s");
    assert_eq!(equal.len(), 3, "{markdown}");
    assert_eq!(
        equal[1][..4],
        ["go", "100.0 %", "1.75", "7.00"],
        "{markdown}"
    );
    assert_eq!(equal[2][..2], ["axum-sqlx", "100.0 %"], "{markdown}");
    assert_eq!(
        equal[1][4..6],
        ["0.40", "0.30"],
        "send delay, connection wait"
    );
    assert_eq!(equal[1][11..], ["50.0 %", "1 of 1"], "{markdown}");
    assert!(
        markdown.contains("### cached-detail at 10,000 req/s"),
        "{markdown}"
    );
}

/// The static server missed the SLO at 15,000/s on cached-detail: every max set by a rate
/// from there up is machine-bound, a floor; detail, where no floor ran, is a lower bound (?).
#[test]
fn rates_the_machine_s_floor_could_not_hold_are_machine_bound() {
    let _serial = common::serial();
    let mut sweep = sweep();
    let markdown = read(reported(&sweep).path(), "sweep.md");
    assert!(markdown.contains("This sweep did not measure the machine's floor."));
    sweep.floor = vec![Floor {
        route: "cached-detail".to_owned(),
        body_bytes: 6_000,
        runs: vec![
            point("floor", "cached-detail", 20_000.0, 0.25, true, None),
            point("floor", "cached-detail", 20_000.0, 0.5, true, None),
            point("floor", "cached-detail", 20_000.0, 0.75, false, None),
        ],
    }];
    let markdown = read(reported(&sweep).path(), "sweep.md");
    let max = table_after(&markdown, "## Max rate under the SLO");
    assert_eq!(
        max[1],
        [
            "go",
            "≥ 2,000 ? (next 3,000 not sustained)",
            "≥ 18,000 † ⊥ (the ladders' top)"
        ],
        "{markdown}"
    );
    assert_eq!(
        max[2][2], "≥ 15,000 ⊥ (0.8×; next 27,000 not sustained)",
        "{markdown}"
    );
    let floor = table_after(&markdown, "### cached-detail (p99 ≤ 10 ms), p99 ms");
    assert_eq!(floor[0], ["rate", "machine floor", "go", "axum-sqlx"]);
    assert_eq!(
        floor[1],
        [
            "5,000 (0.25× Go's max)",
            "4.50 (4.50–4.50), held 1 of 1",
            "4.50",
            "4.50"
        ],
        "{markdown}"
    );
    assert_eq!(
        floor[3][1], "80.00 (80.00–80.00), held 0 of 1",
        "{markdown}"
    );
    assert!(markdown.contains(
        "From 15,000 req/s the floor itself did not sustain the SLO: every app's run there is machine-bound (⊥)."
    ));
}

#[test]
fn the_recovery_rule_is_the_one_the_sweep_recorded() {
    let _serial = common::serial();
    let rule = |sweep: &Sweep| {
        let markdown = read(reported(sweep).path(), "sweep.md");
        let from = markdown.find("*Recovered after* counts").unwrap();
        let to = from + markdown[from..].find("\n\n").unwrap();
        markdown[from..to].to_owned()
    };
    let mut sweep = sweep();
    assert!(
        rule(&sweep).contains("until the first of three seconds in a row that were back"),
        "{}",
        rule(&sweep)
    );
    // A sweep recorded before the bound was the route's SLO: its rule, as it was.
    for app in &mut sweep.apps {
        for overload in &mut app.overloads {
            overload.back_p99_bound_ms = None;
        }
    }
    assert!(
        rule(&sweep).contains("until every later second was back within the baseline"),
        "{}",
        rule(&sweep)
    );
}

#[test]
fn invalid_runs_and_levels_are_listed_with_their_reasons() {
    let _serial = common::serial();
    let dir = reported(&sweep());
    let markdown = read(dir.path(), "sweep.md");
    let failures = &markdown[markdown.find("## Failures").unwrap()..];
    let failures = &failures[..failures.find("## Raw data").unwrap()];
    let invalid = table_after(failures, "Rates an app could not hold");
    assert_eq!(
        invalid[1..],
        [["axum-sqlx", "detail", "own", "1", "5,400", INVALID_REASON]],
        "{failures}"
    );

    let connections = table_after(&markdown, "## Connection sweep");
    let axum_256 = connections
        .iter()
        .find(|row| row[0] == "axum-sqlx" && row[1] == "256")
        .unwrap_or_else(|| panic!("no axum-sqlx 256 row:\n{markdown}"));
    // 3 connection errors and 2 × 503: every answer that is not a 200.
    assert_eq!(axum_256[7], "5", "{markdown}");
    assert_eq!(
        axum_256[10],
        format!("no: {INVALID_LEVEL_REASON}"),
        "{markdown}"
    );

    let overload = table_after(&markdown, "## Overload and recovery");
    assert_eq!(overload[1][8], "1.5 s", "{markdown}");
    assert_eq!(overload[2][8], "not within 10 s", "{markdown}");
    assert_eq!(
        overload[2][7], "200: 9000, error: latency limit: 120",
        "{markdown}"
    );

    let memory = table_after(&markdown, "### axum-sqlx: 256.0 MiB limit");
    assert_eq!(memory[2][6..8], ["1", "no"], "{markdown}");
    assert!(
        markdown.contains("histograms/axum-sqlx-detail-5400.hlog"),
        "{markdown}"
    );
}

const NOT_COUNTED: &str = "the app held 27 of 50 connections";

/// The sweep over three rounds: rounds 2 and 3 repeat round 1's runs, except that Go's
/// 2,000/s detail runs ran with the services' CPU 95 % busy and p99s of 9 and 8 ms, and
/// axum-sqlx's two 3,000/s detail runs missed the SLO in rounds 2 and 3; Go's detail
/// closed loop ran at 3,900, 5,000 (not counted) and 4,100 req/s.
fn three_rounds() -> Sweep {
    let mut sweep = sweep();
    sweep.settings.rounds = 3;
    for app in &mut sweep.apps {
        for route in &mut app.routes {
            for ladder in [&mut route.common, &mut route.own] {
                let first: Vec<RatePoint> = ladder.clone();
                for round in [2, 3] {
                    for point in &first {
                        let mut point = point.clone();
                        point.round = round;
                        let detail = route.route == "detail";
                        if detail && app.label == "go" && point.target_per_sec == 2_000.0 {
                            point.latency_ms.p99 = if round == 2 { 9.0 } else { 8.0 };
                            point.app_cpu_us_per_request =
                                Some([130.0, 110.0, 125.0][round as usize - 1]);
                            point.cpu_busy = Some(CpuBusy {
                                app: 0.4,
                                services_and_load: 0.95,
                                taken: None,
                            });
                        }
                        if detail && app.label == "go" && point.target_per_sec == 3_000.0 {
                            point.cpu_busy = Some(CpuBusy {
                                app: 0.5,
                                services_and_load: 0.97,
                                taken: None,
                            });
                        }
                        if detail && app.label == "axum-sqlx" && point.target_per_sec == 3_000.0 {
                            point.latency_ms.p99 = 80.0;
                            point.within_slo = false;
                        }
                        ladder.push(point);
                    }
                }
            }
            if route.route == "detail" && app.label == "go" {
                for (round, after) in [(2, None), (3, Some(2.0))] {
                    let mut again = overload(2_000.0, after);
                    again.round = round;
                    app.overloads.push(again);
                }
                let runs = [
                    (3_900.0, None),
                    (5_000.0, Some(NOT_COUNTED)),
                    (4_100.0, None),
                ];
                route.closed_loop_rounds = (1..)
                    .zip(runs)
                    .map(|(round, (per_sec, not_counted))| ClosedLoopRound {
                        round,
                        per_sec,
                        not_counted: not_counted.map(str::to_owned),
                    })
                    .collect();
            }
        }
    }
    sweep
}

#[test]
fn over_rounds_a_rate_counts_when_most_rounds_held_it_and_each_round_shows() {
    let _serial = common::serial();
    let dir = reported(&three_rounds());
    let markdown = read(dir.path(), "sweep.md");
    let max = table_after(&markdown, "## Max rate under the SLO");
    // Go's 2,000/s detail rung: held in every round; the 3,000/s above it, which set the
    // max, failed service-bound, so 2,000/s is a floor. axum-sqlx's 3,000/s held only in
    // round 1, so its max falls to 2,000/s = Go's.
    assert_eq!(
        max[1],
        [
            "go",
            "≥ 2,000 ‡ ? (next 3,000 not sustained; rounds 2,000 / 2,000 / 2,000)",
            "≥ 18,000 † ? (the ladders' top; rounds 18,000 / 18,000 / 18,000)"
        ],
        "{markdown}"
    );
    assert_eq!(
        max[2][1],
        "≥ 2,000 ? (1.0×; next 3,000 not sustained; rounds 3,000 / 2,000 / 2,000; CI 1,280–4,095)",
        "{markdown}"
    );
    // The median of the two that counted, (3,900 + 4,100) ÷ 2; the other is a failure.
    let closed_loop = table_after(&markdown, "The closed-loop max each app");
    assert_eq!(
        closed_loop[1][1], "4,000 (3,900 / not counted / 4,100)",
        "{markdown}"
    );
    let equal = table_after(&markdown, "### detail at 2,000 req/s");
    // p99s 7, 9 and 8 ms: the median round's (round 3's) 8 ms, with the spread and the
    // interval of their geometric mean, 7.96 ms × ÷ e^(4.303 · 0.1258 / √3).
    assert_eq!(equal[1][3], "8.00 (7.00–9.00; CI 5.82–10.88)", "{markdown}");
    assert_eq!(equal[1][6], "0.20", "read delay p99, {markdown}");
    assert_eq!(equal[1][11..], ["95.0 % ‡", "3 of 3"], "{markdown}");
    // CPU per request: the median of the rounds (120 in round 1, then 110 and 125), then the
    // lowest and highest, in whole µs.
    assert_eq!(
        equal[1][7..10],
        ["120 (110–125)", "80 (80–80)", "4 (4–4)"],
        "{markdown}"
    );
    let failures = &markdown[markdown.find("## Failures").unwrap()..];
    assert!(
        failures.contains(&format!(
            "- go detail closed loop, round 2: does not count: {NOT_COUNTED}"
        )),
        "{failures}"
    );
    let invalid = table_after(failures, "Rates an app could not hold");
    let rounds: Vec<&str> = invalid[1..].iter().map(|row| row[3].as_str()).collect();
    assert_eq!(rounds, ["1", "2", "3"], "{failures}");
    // Go's overload in three rounds: back after 1.5 s, not back, back after 2 s.
    let overloads = table_after(&markdown, "## Overload and recovery");
    let go: Vec<(&str, &str)> = overloads[1..]
        .iter()
        .filter(|row| row[0] == "go")
        .map(|row| (row[1].as_str(), row[8].as_str()))
        .collect();
    assert_eq!(
        go,
        [("1", "1.5 s"), ("2", "not within 10 s"), ("3", "2.0 s")],
        "{markdown}"
    );
    assert!(
        markdown.contains("- go: recovers (back within 10 s in 2 of 3 rounds)"),
        "{markdown}"
    );
}

/// axum-sqlx's 3,000/s on detail held in round 1 and missed in rounds 2 and 3, whose
/// generator was late but whose app-side latency was over the SLO too: misses, not set
/// aside, so 3,000/s held in 1 round of 3 is not sustained and the max is 2,000/s, a lower
/// bound since no floor ran at 3,000/s.
#[test]
fn generator_late_runs_with_the_app_over_the_slo_are_misses() {
    let _serial = common::serial();
    let mut sweep = three_rounds();
    let axum = sweep
        .apps
        .iter_mut()
        .find(|a| a.label == "axum-sqlx")
        .unwrap();
    let detail = axum
        .routes
        .iter_mut()
        .find(|r| r.route == "detail")
        .unwrap();
    for run in detail.common.iter_mut().chain(detail.own.iter_mut()) {
        if run.target_per_sec == 3_000.0 && run.round > 1 {
            run.generator_late = true;
        }
    }
    let dir = reported(&sweep);
    let markdown = read(dir.path(), "sweep.md");
    let max = table_after(&markdown, "## Max rate under the SLO");
    assert!(
        max[2][1]
            .starts_with("≥ 2,000 ? (1.0×; next 3,000 not sustained; rounds 3,000 / 2,000 / 2,000"),
        "{markdown}"
    );
}

#[test]
fn charts_are_svg_with_every_app_and_the_slo() {
    let _serial = common::serial();
    let dir = reported(&sweep());
    let svg = |file: &str| {
        let text = read(dir.path(), file);
        assert!(
            text.starts_with("<svg") || text.starts_with("<?xml"),
            "{file} is not SVG: {}",
            &text[..text.len().min(200)]
        );
        assert!(text.trim_end().ends_with("</svg>"), "{file} is cut short");
        text
    };
    for file in [
        "sweep-latency-detail.svg",
        "sweep-latency-cached-detail.svg",
        "sweep-overload-go-r1.svg",
        "sweep-overload-axum-sqlx-r1.svg",
    ] {
        let text = svg(file);
        assert!(text.contains("SLO"), "{file} has no SLO line:\n{text}");
    }
    for file in [
        "sweep-latency-detail.svg",
        "sweep-connections-rate.svg",
        "sweep-connections-rss.svg",
    ] {
        let text = svg(file);
        for app in ["go", "axum-sqlx"] {
            assert!(
                text.contains(&format!(">\n{app}\n</text>")),
                "{file} does not name {app}"
            );
        }
    }
    let markdown = read(dir.path(), "sweep.md");
    let html = read(dir.path(), "sweep.html");
    for file in ["sweep-latency-detail.svg", "sweep-connections-rate.svg"] {
        assert!(markdown.contains(&format!("]({file})")), "{markdown}");
    }
    assert_eq!(html.matches("<svg").count(), 6, "every chart inline");
    assert!(!html.contains("<img"), "{html}");
}

#[test]
fn a_sweep_with_an_app_that_never_ran_still_reports() {
    let _serial = common::serial();
    let mut sweep = sweep();
    sweep.apps.push(AppSweep {
        error: Some(APP_ERROR.to_owned()),
        ..app("broken")
    });
    sweep.generator_ceiling = None;
    let dir = reported(&sweep);
    let markdown = read(dir.path(), "sweep.md");
    let max = table_after(&markdown, "## Max rate under the SLO");
    assert_eq!(max[3], ["broken", "—", "—"], "{markdown}");
    let failures = &markdown[markdown.find("## Failures").unwrap()..];
    assert!(
        failures.contains(&format!("- broken: {APP_ERROR}")),
        "{failures}"
    );

    // Nothing measured at all: every section still there, no chart.
    let empty = Sweep {
        apps: vec![AppSweep {
            error: Some(APP_ERROR.to_owned()),
            ..app("go")
        }],
        ..sweep
    };
    let dir = reported(&empty);
    let markdown = read(dir.path(), "sweep.md");
    for section in SECTIONS {
        assert!(markdown.contains(section), "no {section:?}:\n{markdown}");
    }
    let svgs = std::fs::read_dir(dir.path())
        .unwrap()
        .filter(|entry| {
            entry
                .as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".svg")
        })
        .count();
    assert_eq!(svgs, 0, "{markdown}");
}

/// Headless Chromium opens `sweep.html` and screenshots it: the line charts must be drawn,
/// in colour (as bench/tests/integration/report.rs checks `report.html`). The report and `sweep.png`
/// stay in the target folder for a person to look at.
#[test]
fn chromium_renders_the_sweep_charts() {
    let _serial = common::serial();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sweep-screenshot");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    report_into(&sweep(), &dir);
    let png = dir.join("sweep.png");
    let colours = screenshot::coloured_pixels(&dir.join("sweep.html"), &png, 6000);
    let coloured: usize = colours.values().sum();
    let line_colours = colours.values().filter(|&&n| n >= 300).count();
    assert!(
        coloured >= 3_000 && line_colours >= 2,
        "the screenshot {} shows no charts: {coloured} coloured pixels, {line_colours} colours \
         of 300 pixels or more",
        png.display()
    );
}
