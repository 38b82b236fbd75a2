//! Checks of the sweep's verdicts: what a rate held, sustained, missed or was bound by.

use super::*;

fn point(round: u32, rate: f64, within_slo: bool, p99: f64) -> RatePoint {
    RatePoint {
        round,
        target_per_sec: rate,
        fraction: 0.0,
        duration_secs: 1.0,
        sent: 0,
        completed: 0,
        failed: 0,
        in_flight: 0,
        delivered_ratio: 1.0,
        latency_ms: Latency {
            p99,
            ..Latency::default()
        },
        send_delay_ms: None,
        connection_wait_ms: None,
        read_delay_ms: None,
        latency_less_generator_ms: None,
        generator_late: false,
        answers: BTreeMap::new(),
        wrong_bodies: 0,
        connections_opened: 0,
        app_cpu_us_per_request: None,
        postgres_cpu_us_per_request: None,
        redis_cpu_us_per_request: None,
        app_rss_max_mib: 0.0,
        cpu_busy: None,
        client_bound: false,
        valid: within_slo,
        invalid_reason: None,
        bookkeeping: None,
        within_slo,
        histogram: String::new(),
    }
}

fn route(common: Vec<RatePoint>, own: Vec<RatePoint>) -> RouteSweep {
    RouteSweep {
        route: "detail".to_owned(),
        path: "/".to_owned(),
        slo_ms: 50.0,
        closed_loop_per_sec: 1000.0,
        closed_loop_rounds: Vec::new(),
        common,
        own,
    }
}

#[test]
fn one_round_the_max_sustainable_rate_is_the_highest_sustained_with_misses_below_counted() {
    let route = route(
        vec![
            point(1, 100.0, true, 1.0),
            point(1, 300.0, false, 90.0),
            point(1, 500.0, true, 9.0),
        ],
        vec![
            point(1, 250.0, true, 3.0),
            point(1, 200.0, true, 2.0),
            point(1, 600.0, false, 80.0),
        ],
    );
    assert_eq!(route.max_sustainable(1), Some(500.0));
    assert_eq!(route.misses_below_max(1), 1);
    let above = route.rung_that_set_the_max(1).unwrap();
    assert_eq!(above.target_per_sec, 600.0);
    let none = RouteSweep {
        common: vec![point(1, 100.0, false, 70.0)],
        own: Vec::new(),
        ..route
    };
    assert_eq!(none.max_sustainable(1), None);
    assert_eq!(none.misses_below_max(1), 0);
    assert_eq!(none.rung_that_set_the_max(1).unwrap().target_per_sec, 100.0);
    let top_held = RouteSweep {
        common: vec![point(1, 100.0, true, 1.0)],
        own: Vec::new(),
        ..none
    };
    assert_eq!(
        top_held.rung_that_set_the_max(1).unwrap().target_per_sec,
        100.0
    );
}

#[test]
fn over_rounds_a_rate_is_sustained_when_more_than_half_the_rounds_held_it() {
    // 400/s held in rounds 1 and 3, 800/s only in round 2, 1,000/s never run in round 3
    // (its ladder stopped early) and held once.
    let route = route(
        vec![
            point(1, 400.0, true, 5.0),
            point(1, 800.0, false, 60.0),
            point(1, 1000.0, true, 8.0),
            point(2, 400.0, false, 70.0),
            point(2, 800.0, true, 9.0),
            point(2, 1000.0, false, 90.0),
            point(3, 400.0, true, 4.0),
            point(3, 800.0, false, 99.0),
        ],
        Vec::new(),
    );
    assert_eq!(route.max_sustainable(3), Some(400.0));
    assert_eq!(
        route.max_sustainable_by_round(3),
        [Some(1000.0), Some(800.0), Some(400.0)]
    );
    let rungs = route.rungs();
    assert_eq!(rungs.len(), 3);
    assert_eq!(rungs[0].held(), 2);
    assert_eq!(rungs[2].runs.len(), 2);
    assert!(!rungs[2].sustained(3), "1 of 3 rounds, one not run");
    assert_eq!(rungs[1].median_run().latency_ms.p99, 60.0);
    assert_eq!(rungs[1].p99_range(), (9.0, 99.0));
    assert_eq!(
        rungs[2].median_run().latency_ms.p99,
        90.0,
        "higher middle of two"
    );
    // Two rounds: both must hold, and no rate was held in rounds 1 and 2.
    let two_rounds = RouteSweep {
        common: route
            .common
            .iter()
            .filter(|p| p.round <= 2)
            .cloned()
            .collect(),
        ..route.clone()
    };
    assert_eq!(two_rounds.max_sustainable(2), None);
    assert_eq!(two_rounds.max_sustainable(1), Some(1000.0));
}

#[test]
fn a_rate_is_sustained_only_when_most_rounds_held_it_generator_late_ones_included() {
    let late = |round: u32, rate: f64| RatePoint {
        generator_late: true,
        ..point(round, rate, false, 14.0)
    };
    // 600/s: held twice, generator-late once; 800/s: held once, generator-late twice;
    // 1,000/s: held once, missed by the app twice.
    let swept = route(
        vec![
            point(1, 600.0, true, 4.0),
            point(2, 600.0, true, 5.0),
            late(3, 600.0),
            point(1, 800.0, true, 5.0),
            late(2, 800.0),
            late(3, 800.0),
            point(1, 1000.0, true, 8.0),
            point(2, 1000.0, false, 30.0),
            point(3, 1000.0, false, 40.0),
        ],
        Vec::new(),
    );
    let rungs = swept.rungs();
    assert!(rungs[0].sustained(3), "held in 2 of 3 rounds");
    assert_eq!((rungs[1].held(), rungs[1].generator_late()), (1, 2));
    assert!(!rungs[1].sustained(3), "held in 1 of 3 rounds");
    assert!(
        rungs[1].generator_could_have_decided(3),
        "its two generator-late rounds could have held it"
    );
    assert!(
        !rungs[2].generator_could_have_decided(3),
        "the app missed it twice"
    );
    assert_eq!(swept.max_sustainable(3), Some(600.0));
    assert_eq!(
        swept.rung_that_set_the_max(3).unwrap().target_per_sec,
        800.0
    );
    let all_late = route(vec![late(1, 800.0), late(2, 800.0)], Vec::new());
    assert_eq!(all_late.max_sustainable(2), None, "no round held it");
}

#[test]
fn the_machine_is_bound_from_the_lowest_rate_its_floor_did_not_sustain() {
    let floor = |held: &[(f64, [bool; 3])]| Floor {
        route: "detail".to_owned(),
        body_bytes: 6_000,
        runs: (1..=3)
            .flat_map(|round| {
                held.iter().map(move |(rate, rounds)| {
                    let held = rounds[round as usize - 1];
                    point(round, *rate, held, if held { 2.0 } else { 80.0 })
                })
            })
            .collect(),
    };
    let missed_twice = floor(&[
        (1_000.0, [true; 3]),
        (2_000.0, [true, false, false]),
        (3_000.0, [true, true, false]),
    ]);
    assert_eq!(missed_twice.machine_bound_from(3), Some(2_000.0));
    let missed_once = floor(&[(1_000.0, [true; 3]), (2_000.0, [true, false, true])]);
    assert_eq!(missed_once.machine_bound_from(3), None);
    assert_eq!(missed_twice.at(2_500.0, 3), FloorAt::MachineBound);
    assert_eq!(missed_twice.at(800.0, 3), FloorAt::Held);
}

#[test]
fn a_rate_above_every_rate_the_floor_ran_is_not_known_to_be_the_app_s() {
    let held_to_2_000 = Floor {
        route: "detail".to_owned(),
        body_bytes: 6_000,
        runs: (1..=3)
            .flat_map(|round| {
                [
                    point(round, 1_000.0, true, 1.2),
                    point(round, 2_000.0, true, 1.3),
                ]
            })
            .collect(),
    };
    assert_eq!(held_to_2_000.machine_bound_from(3), None);
    assert_eq!(held_to_2_000.at(1_500.0, 3), FloorAt::Held);
    assert_eq!(held_to_2_000.at(2_000.0, 3), FloorAt::Held);
    assert_eq!(held_to_2_000.at(3_000.0, 3), FloorAt::NotMeasured);
}

#[test]
fn the_closed_loop_max_is_the_median_of_the_rounds_that_counted() {
    let mut route = route(Vec::new(), Vec::new());
    let run = |round, per_sec, not_counted: Option<&str>| ClosedLoopRound {
        round,
        per_sec,
        not_counted: not_counted.map(str::to_owned),
    };
    route.add_closed_loop_round(run(1, 500.0, Some("the app held 27 of 50 connections")));
    assert_eq!(route.closed_loop_per_sec, 0.0);
    assert!(!route.closed_loop_counted());
    for (round, per_sec) in [(2, 2401.0), (3, 7998.0), (4, 3925.0)] {
        route.add_closed_loop_round(run(round, per_sec, None));
    }
    assert_eq!(route.closed_loop_per_sec, 3925.0);
    assert!(route.closed_loop_counted());
}
