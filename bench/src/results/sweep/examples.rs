//! docs/sweep.md's and the spec's sweep figures, checked against the checked-in examples'
//! `sweep.json`.

use super::*;
use crate::results::example_file;

fn example_sweep(id: &str) -> Sweep {
    Sweep::load(&example_file(&format!("example-sweep-{id}/sweep.json"))).unwrap()
}

/// docs/sweep.md's recovery figures for docs/example-sweep-20261203135229, recomputed by
/// today's rule from the per-second figures it recorded.
#[test]
fn the_example_sweep_s_overloads_by_the_recovery_rule() {
    let sweep = example_sweep("20261203135229");
    let plan = &sweep.settings.overload;
    let end = plan.before_secs + plan.overload_secs;
    let slo = sweep.settings.slo_ms["detail"];
    let back: Vec<(&str, Option<f64>)> = sweep
        .apps
        .iter()
        .filter_map(|app| {
            let o = app.overloads.first()?;
            let after = recovered_after_secs(&o.seconds, end, slo, o.base_per_sec);
            Some((app.label.as_str(), after))
        })
        .collect();
    assert_eq!(
        back,
        [
            ("go", None),
            ("axum-sqlx", Some(1.0)),
            ("axum-sqlx-sysalloc", Some(6.0)),
            ("axum-sqlx-jemalloc", None),
            ("axum-postgres", Some(5.0)),
            ("actix-sqlx", None),
            ("gin", None),
        ]
    );
}

/// docs/sweep.md's figures for docs/example-sweep-20261204170955, the first sweep with read
/// delays: what became of its runs by the rule of its day and by today's, and which maxima
/// the generator may have lowered.
#[test]
fn the_generator_late_example_sweep_as_the_docs_give_it() {
    let sweep = example_sweep("20261204170955");
    let recorded: Recorded =
        read_json(&example_file("example-sweep-20261204170955/sweep.json")).unwrap();
    let kinds = |apps: &[AppSweep]| {
        let mut counts = BTreeMap::<&str, usize>::new();
        for route in apps.iter().flat_map(|app| &app.routes) {
            for (_, run) in route.runs() {
                let less = run.latency_less_generator_ms.as_ref().unwrap().p99;
                let kind = match (run.within_slo, run.generator_late, run.valid) {
                    (true, ..) => "held",
                    (_, true, _) if less <= route.slo_ms => "late, the app's share within the SLO",
                    (_, true, _) => "late, the app's share over the SLO",
                    (_, _, true) => "missed",
                    _ => "invalid",
                };
                *counts.entry(kind).or_default() += 1;
            }
        }
        counts.into_iter().collect::<Vec<_>>()
    };
    assert_eq!(
        kinds(&recorded.apps),
        [
            ("held", 226),
            ("invalid", 11),
            ("late, the app's share over the SLO", 89),
            ("late, the app's share within the SLO", 8),
            ("missed", 22),
        ]
    );
    assert_eq!(
        kinds(&sweep.apps),
        [
            ("held", 226),
            ("invalid", 11),
            ("late, the app's share within the SLO", 8),
            ("missed", 111),
        ]
    );
    // Per app on cached-detail: the max, whether generator-late rounds could have changed
    // the verdict of the rate that decided it, and whether that rate was client-bound.
    let cached: Vec<(&str, Option<u32>, bool, bool)> = sweep
        .apps
        .iter()
        .map(|app| {
            let route = app
                .routes
                .iter()
                .find(|r| r.route == "cached-detail")
                .unwrap();
            let max = route.max_sustainable(3).map(|max| max as u32);
            let open = sweep.open_above(route);
            (app.label.as_str(), max, open.generator, open.client_bound)
        })
        .collect();
    assert_eq!(
        cached,
        [
            ("go", Some(10_140), false, false),
            ("axum-sqlx", Some(17_286), false, true),
            ("axum-sqlx-sysalloc", Some(15_934), false, true),
            ("actix-sqlx", Some(15_934), false, true),
            ("gin", Some(7_295), false, false),
        ]
    );
    // The earlier sweep of the same five apps and two routes, before read delays: runs
    // whose send delay alone had a p99 over the SLO, each counted as a failure.
    let before = example_sweep("20261203135229");
    let apps = ["go", "axum-sqlx", "axum-sqlx-sysalloc", "actix-sqlx", "gin"];
    let (mut runs, mut late_to_send) = (0, 0);
    for app in before
        .apps
        .iter()
        .filter(|a| apps.contains(&a.label.as_str()))
    {
        for route in app.routes.iter().filter(|r| r.route.ends_with("detail")) {
            let slo = before.settings.slo_ms[&route.route];
            for (_, run) in route.runs() {
                runs += 1;
                let send_p99 = run.send_delay_ms.as_ref().unwrap().p99;
                if send_p99 > slo {
                    assert!(!run.within_slo);
                    late_to_send += 1;
                }
            }
        }
    }
    assert_eq!((runs, late_to_send), (287, 110));
}

/// docs/sweep.md's table of the six camps at a given load (docs/example-sweep-20261205010548):
/// per app and route, the max rate under the SLO, then at half Go's closed-loop max the
/// median share delivered, the app's CPU µs per request (runs that answered) and the
/// median run's RSS in MiB.
#[test]
fn the_six_camps_at_a_given_load_as_the_docs_give_them() {
    let sweep = example_sweep("20261205010548");
    let rounds = sweep.settings.rounds;
    let mut rows = Vec::new();
    for app in &sweep.apps {
        for route in &app.routes {
            let rungs = route.rungs();
            let half = rungs
                .iter()
                .find(|r| r.ladder == Ladder::Common && r.fraction == 0.5)
                .unwrap();
            let delivered = median(half.runs.iter().map(|run| run.delivered_ratio));
            let cpu = median(
                half.runs
                    .iter()
                    .filter(|run| run.completed > 0)
                    .map(|run| run.app_cpu_us_per_request.unwrap()),
            );
            rows.push((
                format!("{} {}", app.label, route.route),
                route.max_sustainable(rounds).map(|max| max as u32),
                half.target_per_sec as u32,
                (delivered.unwrap().0 * 100.0).round() as u32,
                cpu.map(|(cpu, _)| cpu.round() as u32),
                half.median_run().app_rss_max_mib.round() as u32,
            ));
        }
    }
    let expected = [
        ("go detail", Some(4_237), 2_354, 100, Some(263), 23),
        ("go cached-detail", Some(11_761), 11_761, 100, Some(66), 32),
        ("gin detail", Some(4_334), 2_354, 100, Some(263), 29),
        ("gin cached-detail", Some(11_761), 11_761, 100, Some(66), 39),
        ("axum-sqlx detail", Some(5_414), 2_354, 100, Some(177), 19),
        (
            "axum-sqlx cached-detail",
            Some(24_672),
            11_761,
            100,
            Some(43),
            24,
        ),
        ("actix-sqlx detail", Some(5_230), 2_354, 100, Some(178), 20),
        (
            "actix-sqlx cached-detail",
            Some(25_165),
            11_761,
            100,
            Some(44),
            31,
        ),
        ("fastify detail", Some(3_531), 2_354, 100, Some(333), 144),
        (
            "fastify cached-detail",
            Some(17_642),
            11_761,
            100,
            Some(70),
            140,
        ),
        ("fastapi detail", Some(1_622), 2_354, 59, Some(702), 79),
        (
            "fastapi cached-detail",
            Some(3_777),
            11_761,
            0,
            Some(558),
            83,
        ),
        (
            "spring-webflux detail",
            Some(2_843),
            2_354,
            100,
            Some(384),
            437,
        ),
        (
            "spring-webflux cached-detail",
            None,
            11_761,
            100,
            Some(77),
            437,
        ),
        ("laravel detail", None, 2_354, 0, Some(878), 210),
        ("laravel cached-detail", None, 11_761, 0, None, 210),
    ];
    let expected: Vec<_> = expected
        .into_iter()
        .map(|(name, max, rate, delivered, cpu, rss)| {
            (name.to_owned(), max, rate, delivered, cpu, rss)
        })
        .collect();
    assert_eq!(rows, expected);
    // It measured no machine's floor: whether any rate that decided a max was the machine's
    // is not known, so every max is only a lower bound.
    let routes = sweep.apps.iter().flat_map(|app| &app.routes);
    assert!(
        routes
            .clone()
            .all(|route| sweep.open_above(route).floor_not_measured)
    );
    assert_eq!(routes.count(), 16);
    let app = |label: &str| sweep.apps.iter().find(|a| a.label == label).unwrap();
    let spring_cached = &app("spring-webflux").routes[1];
    let half = spring_cached
        .rungs()
        .into_iter()
        .find(|r| r.ladder == Ladder::Common && r.fraction == 0.5)
        .unwrap();
    assert_eq!((half.median_run().latency_ms.p99 * 10.0).round(), 696.0);
    let laravel_detail = &app("laravel").routes[0];
    assert_eq!(laravel_detail.closed_loop_per_sec.round(), 437.0);
    let half = laravel_detail
        .rungs()
        .into_iter()
        .find(|r| r.ladder == Ladder::Common && r.fraction == 0.5)
        .unwrap();
    let answers: Vec<&str> = half.runs[0].answers.keys().map(String::as_str).collect();
    assert_eq!(answers, ["502", "error: over the latency limit"]);
}

/// docs/spec.md §8.7's figures: Go on cached-detail with the generator sharing CPU 1 with
/// PostgreSQL and Redis (docs/example-sweep-20261204175115), then alone on it
/// (-20261204190632): per round at half Go's max, (p99, latency less the generator's
/// lateness p99, generator-late), in ms.
#[test]
fn go_s_tails_with_the_generator_shared_and_alone() {
    let at_half = |id: &str| -> Vec<(f64, f64, bool)> {
        let sweep = example_sweep(id);
        let route = &sweep.apps[0].routes[0];
        route
            .common
            .iter()
            .filter(|p| p.fraction == 0.5)
            .map(|p| {
                let less = p.latency_less_generator_ms.as_ref().unwrap().p99;
                let round = |ms: f64| (ms * 10.0).round() / 10.0;
                (round(p.latency_ms.p99), round(less), p.generator_late)
            })
            .collect()
    };
    assert_eq!(
        at_half("20261204175115"),
        [(61.2, 61.0, false), (5.5, 5.0, false), (14.3, 13.6, false)]
    );
    assert_eq!(
        at_half("20261204190632"),
        [(3.3, 1.9, false), (13.1, 9.6, true), (3.8, 2.8, false)]
    );
}

/// docs/sweep.md's figures for cached-detail at half Go's max in
/// docs/example-sweep-20261203135229.
#[test]
fn the_example_sweep_s_cached_detail_tails_as_the_docs_give_them() {
    let sweep = example_sweep("20261203135229");
    let slo = sweep.settings.slo_ms["cached-detail"];
    let runs: Vec<(&str, &RatePoint)> = sweep
        .apps
        .iter()
        .flat_map(|app| app.routes.iter().map(move |r| (app.label.as_str(), r)))
        .filter(|(_, route)| route.route == "cached-detail")
        .flat_map(|(label, route)| route.common.iter().map(move |p| (label, p)))
        .filter(|(_, p)| p.fraction == 0.5)
        .collect();
    assert_eq!(runs[0].1.target_per_sec, 10_106.0);
    let held_once = sweep
        .apps
        .iter()
        .filter(|app| {
            runs.iter()
                .filter(|(l, p)| *l == app.label && p.within_slo)
                .count()
                == 1
        })
        .count();
    assert_eq!((held_once, sweep.apps.len()), (5, 7));
    let p50s = runs.iter().map(|(_, p)| p.latency_ms.p50);
    let p50_range = (
        p50s.clone().fold(f64::MAX, f64::min),
        p50s.fold(0.0, f64::max),
    );
    assert_eq!(p50_range, (0.218, 0.502));
    let missed: Vec<&RatePoint> = runs
        .iter()
        .map(|(_, p)| *p)
        .filter(|p| !p.within_slo)
        .collect();
    let p99s = missed.iter().map(|p| p.latency_ms.p99);
    let p99_range = (
        p99s.clone().fold(f64::MAX, f64::min),
        p99s.fold(0.0, f64::max),
    );
    assert_eq!((missed.len(), p99_range), (14, (11.279, 84.735)));
    let p99 = |latency: &Option<Latency>| latency.as_ref().unwrap().p99;
    let generator_late: Vec<f64> = missed
        .iter()
        .map(|p| p99(&p.send_delay_ms))
        .filter(|delay| *delay > slo)
        .collect();
    assert_eq!(generator_late, [14.375, 10.199]);
    let (waited, rest): (Vec<&&RatePoint>, Vec<&&RatePoint>) = missed
        .iter()
        .filter(|p| p99(&p.send_delay_ms) <= slo)
        .partition(|p| p99(&p.connection_wait_ms) > slo);
    let waits: Vec<f64> = waited.iter().map(|p| p99(&p.connection_wait_ms)).collect();
    assert_eq!(waits, [22.719]);
    let share = rest
        .iter()
        .map(|p| (p99(&p.send_delay_ms) + p99(&p.connection_wait_ms)) / p.latency_ms.p99)
        .fold(0.0, f64::max);
    assert_eq!((rest.len(), (share * 100.0).round()), (11, 54.0));
}

/// docs/sweep.md's sentence on Cot's home page in the two example sweeps that ran it.
#[test]
fn cot_s_home_page_held_no_rate_in_the_example_sweeps() {
    let mut found = Vec::new();
    for id in ["20261203095217", "20261202122851"] {
        let sweep = example_sweep(id);
        let cot = sweep.apps.iter().find(|a| a.label == "cot").unwrap();
        let home = cot.routes.iter().find(|r| r.route == "home").unwrap();
        assert_eq!(home.max_sustainable(sweep.settings.rounds), None, "{id}");
        let lowest = ladder_lowest(home);
        found.push((
            lowest.target_per_sec,
            lowest.latency_ms.p99.round(),
            home.closed_loop_per_sec.round(),
        ));
    }
    assert_eq!(found, [(45.0, 485.0, 91.0), (40.0, 52.0, 81.0)]);
}

/// docs/sweep.md's figures for axum-sqlx, its system-allocator and its jemalloc build (in
/// that order) in the one-pass and the rounds example sweeps: the max sustainable rate
/// on cached-detail and the closed-loop max on detail.
#[test]
fn the_allocator_builds_in_the_example_sweeps() {
    let builds = ["axum-sqlx", "axum-sqlx-sysalloc", "axum-sqlx-jemalloc"];
    let figures = |id: &str| -> Vec<(f64, f64)> {
        let sweep = example_sweep(id);
        builds
            .iter()
            .map(|label| {
                let app = sweep.apps.iter().find(|a| a.label == *label).unwrap();
                let route = |name: &str| app.routes.iter().find(|r| r.route == name).unwrap();
                let cached = route("cached-detail").max_sustainable(sweep.settings.rounds);
                let detail = route("detail").closed_loop_per_sec.round();
                (cached.unwrap(), detail)
            })
            .collect()
    };
    assert_eq!(
        figures("20261203095217"),
        [(14_444.0, 2_401.0), (4_815.0, 3_925.0), (1_926.0, 7_998.0)]
    );
    assert_eq!(
        figures("20261203135229"),
        [(5_053.0, 8_210.0), (5_053.0, 7_138.0), (5_053.0, 6_234.0)]
    );
}

/// docs/spec.md §8.7: Go's p99 on cached-detail at a tenth of its closed-loop max in the
/// sweep with one schedule per rate and in the two before it.
#[test]
fn go_s_low_rate_tail_in_the_example_sweeps() {
    let p99s: Vec<(f64, f64)> = ["20261203073719", "20261202122851", "20261202171842"]
        .iter()
        .map(|id| {
            let sweep = example_sweep(id);
            let go = &sweep.apps[0];
            let cached = go
                .routes
                .iter()
                .find(|r| r.route == "cached-detail")
                .unwrap();
            let tenth = cached.common.iter().find(|p| p.fraction == 0.1).unwrap();
            (
                tenth.target_per_sec,
                (tenth.latency_ms.p99 * 10.0).round() / 10.0,
            )
        })
        .collect();
    assert_eq!(p99s, [(1_769.0, 5.2), (1_001.0, 25.2), (1_366.0, 110.7)]);
}

fn ladder_lowest(route: &RouteSweep) -> &RatePoint {
    route
        .runs()
        .map(|(_, p)| p)
        .min_by(|a, b| a.target_per_sec.total_cmp(&b.target_per_sec))
        .unwrap()
}

/// docs/sweep.md's figures for docs/example-sweep-20261205125726, seven apps beside the
/// machine's floor, by today's rules: the floor held every common rate in every round but
/// ran no higher; each max, held in most rounds, and why it is only a lower bound where it
/// is one; the runs recorded as generator-late that are the apps' misses; and steal under
/// the mark in every run.
#[test]
fn the_machine_s_floor_beside_seven_apps_as_the_docs_give_it() {
    let sweep = example_sweep("20261205125726");
    let rounds = sweep.settings.rounds;
    for floor in &sweep.floor {
        assert_eq!(floor.machine_bound_from(rounds), None, "{}", floor.route);
        assert!(floor.rungs().iter().all(|rung| rung.held() == 3));
        let p99s: Vec<f64> = floor
            .rungs()
            .iter()
            .map(|rung| rung.median_run().latency_ms.p99)
            .collect();
        let low = p99s.iter().copied().fold(f64::INFINITY, f64::min);
        let high = p99s.iter().copied().fold(0.0, f64::max);
        let top = floor
            .rungs()
            .iter()
            .map(|r| r.target_per_sec)
            .fold(0.0, f64::max);
        let expected = match floor.route.as_str() {
            "detail" => (1.17, 1.28, 4_173),
            _ => (1.25, 2.60, 19_503),
        };
        assert_eq!(
            (round2(low), round2(high), top.round() as u32),
            expected,
            "{}",
            floor.route
        );
    }

    // Every max was held in most rounds, so its median round's p99 is within the SLO.
    let mut maxima = Vec::new();
    let mut marks = BTreeMap::<&str, usize>::new();
    for app in &sweep.apps {
        for route in &app.routes {
            let max = route.max_sustainable(rounds);
            if let Some(max) = max {
                let rungs = route.rungs();
                let at_max = rungs.iter().find(|r| r.target_per_sec == max).unwrap();
                assert!(at_max.held() >= 2);
                assert!(at_max.median_run().latency_ms.p99 <= route.slo_ms);
            }
            let open = sweep.open_above(route);
            for (set, mark) in [
                (open.any(), "≥"),
                (open.top_of_ladders, "top"),
                (open.client_bound, "†"),
                (open.service_bound, "‡"),
                (open.generator, "◊"),
                (open.machine_bound, "⊥"),
                (open.floor_not_measured, "?"),
            ] {
                *marks.entry(mark).or_default() += usize::from(set);
            }
            maxima.push((
                format!("{} {}", app.label, route.route),
                max.map(|max| max as u32),
                open.any(),
            ));
        }
    }
    let expected = [
        ("go detail", Some(2_319), false),
        ("go cached-detail", Some(10_835), false),
        ("gin detail", Some(3_478), false),
        ("gin cached-detail", Some(10_835), false),
        ("axum-sqlx detail", Some(3_478), true),
        ("axum-sqlx cached-detail", Some(19_503), true),
        ("actix-sqlx detail", Some(4_173), true),
        ("actix-sqlx cached-detail", Some(19_503), true),
        ("warp detail", Some(3_478), true),
        ("warp cached-detail", Some(16_252), true),
        ("hyper detail", Some(2_821), true),
        ("hyper cached-detail", Some(16_252), true),
        ("axum-postgres detail", Some(4_173), true),
        ("axum-postgres cached-detail", Some(10_835), true),
    ];
    let expected: Vec<_> = expected
        .into_iter()
        .map(|(cell, max, lower_bound)| (cell.to_owned(), max, lower_bound))
        .collect();
    assert_eq!(maxima, expected);
    // actix-sqlx's detail max against Go's, to one decimal as the report gives it.
    let detail_max = |label: &str| {
        let app = sweep.apps.iter().find(|a| a.label == label).unwrap();
        let detail = app.routes.iter().find(|r| r.route == "detail").unwrap();
        detail.max_sustainable(rounds).unwrap()
    };
    assert_eq!(
        (detail_max("actix-sqlx") / detail_max("go") * 10.0).round(),
        18.0
    );
    assert_eq!(
        marks.into_iter().collect::<Vec<_>>(),
        [
            ("?", 4),
            ("top", 0),
            ("†", 4),
            ("‡", 9),
            ("≥", 10),
            ("⊥", 0),
            ("◊", 4)
        ]
    );

    // The runs it recorded as generator-late, and those of them whose app-side p99 was
    // within the SLO: the others are the apps' misses by today's rule.
    let recorded: Recorded =
        read_json(&example_file("example-sweep-20261205125726/sweep.json")).unwrap();
    let late = |apps: &[AppSweep]| {
        let routes = apps.iter().flat_map(|app| &app.routes);
        routes
            .flat_map(|route| route.runs().filter(|(_, run)| run.generator_late))
            .count()
    };
    assert_eq!((late(&recorded.apps), late(&sweep.apps)), (101, 16));

    let detail_at_09: Vec<f64> = sweep
        .apps
        .iter()
        .map(|app| {
            let detail = app.routes.iter().find(|r| r.route == "detail").unwrap();
            let rung = detail
                .rungs()
                .into_iter()
                .find(|r| r.ladder == Ladder::Common && r.fraction == 0.9)
                .unwrap();
            rung.median_run().latency_ms.p99
        })
        .collect();
    let low = detail_at_09.iter().copied().fold(f64::INFINITY, f64::min);
    let high = detail_at_09.iter().copied().fold(0.0, f64::max);
    assert_eq!((low.round() as u32, high.round() as u32), (15, 371));

    let app_runs = sweep
        .apps
        .iter()
        .flat_map(|app| &app.routes)
        .flat_map(|route| route.runs().map(|(_, run)| run));
    let floor_runs = sweep.floor.iter().flat_map(|floor| &floor.runs);
    let steal: Vec<f64> = app_runs
        .chain(floor_runs)
        .map(|run| {
            let taken = run.cpu_busy.unwrap().taken.unwrap();
            taken.steal_app.max(taken.steal_services_and_load)
        })
        .collect();
    let worst = steal.iter().copied().fold(0.0, f64::max);
    assert_eq!(steal.len(), 318);
    assert!(
        worst < STEAL_MARK && round2(worst * 100.0) == 1.13,
        "{worst}"
    );
    assert_eq!(median(steal.iter().copied()).unwrap().0, 0.0);
}

/// `value` to two decimals.
fn round2(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}
