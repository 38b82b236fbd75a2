//! `blogbench sweep --quick` end to end on Go and axum-sqlx, on two routes in two rounds, with
//! the memory-limited sweep (root: a memory cgroup) and Go's `GOMEMLIMIT` variant. It runs
//! alone (`common::serial`), as it times latencies.

use crate::common;
use bench::results::sweep::{Rung, Sweep, verdict_open};
use std::process::Command;

#[test]
fn a_quick_sweep_measures_every_part_for_two_apps() {
    let _serial = common::serial();
    let results = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_blogbench"))
        .args(["sweep", "--quick", "--apps", "axum-sqlx"])
        // The routes the connection sweep and the overload run use; the others are swept
        // by the same code.
        .args(["--routes", "detail,cached-detail"])
        .args(["--memory-limit", "512MiB"])
        .args(["--memory-variants", "go+GOMEMLIMIT=384MiB", "--results"])
        .arg(results.path())
        .output()
        .expect("run blogbench sweep");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let dir = common::run_folder(results.path(), "sweep.json")
        .unwrap_or_else(|| panic!("no sweep-<id> folder:\n{text}"));
    let sweep = Sweep::load(&dir.join("sweep.json")).unwrap();
    assert!(sweep.header.finished_at.is_some() && sweep.settings.quick);
    assert_eq!(sweep.settings.rounds, 2);
    let problems = sweep.problems();
    assert!(problems.is_empty(), "{problems:?}\n{text}");
    assert!(output.status.success(), "{text}");
    assert!(sweep.generator_ceiling.as_ref().unwrap().per_sec > 1000.0);
    let labels: Vec<&str> = sweep.apps.iter().map(|a| a.label.as_str()).collect();
    // Go first even when not asked for: the common rates are fractions of its max.
    assert_eq!(labels, ["go", "axum-sqlx", "go+GOMEMLIMIT=384MiB"]);
    // The machine's floor: the static server at each of Go's common rates of each route in
    // round 1, and at each rate that decided an app's max where the common rates said nothing;
    // every answer the static page.
    let common_rates = sweep.settings.common_fractions.len();
    for floor in &sweep.floor {
        let go = sweep.apps[0].routes.iter().find(|r| r.route == floor.route);
        let go_max = go.unwrap().closed_loop_per_sec;
        let go_rates: Vec<f64> = sweep
            .settings
            .common_fractions
            .iter()
            .map(|fraction| (go_max * fraction).round())
            .collect();
        let first_round: Vec<f64> = floor
            .runs
            .iter()
            .filter(|p| p.round == 1)
            .map(|p| p.target_per_sec)
            .collect();
        assert_eq!(
            first_round[..common_rates],
            go_rates[..],
            "{}: the common rates first",
            floor.route
        );
        let deciding: Vec<f64> = sweep
            .apps
            .iter()
            .filter_map(|app| app.routes.iter().find(|r| r.route == floor.route))
            .filter_map(|swept| swept.rung_that_set_the_max(2))
            .map(|rung| rung.target_per_sec)
            .collect();
        for rung in floor.rungs() {
            assert!(
                go_rates.contains(&rung.target_per_sec) || deciding.contains(&rung.target_per_sec),
                "{}: the floor ran {} req/s, neither a common rate nor a deciding one",
                floor.route,
                rung.target_per_sec
            );
            later_rounds_only_where_open(&rung, &floor.route);
        }
        assert!(
            floor
                .runs
                .iter()
                .all(|p| p.wrong_bodies == 0 && p.completed > 0)
        );
    }
    let go_detail = sweep.apps[0].routes.iter().find(|r| r.route == "detail");
    let go_detail_max = go_detail.unwrap().closed_loop_per_sec;
    for app in &sweep.apps[..2] {
        let name = &app.label;
        assert!(app.error.is_none(), "{name}: {:?}", app.error);
        let routes: Vec<&str> = app.routes.iter().map(|r| r.route.as_str()).collect();
        assert_eq!(routes, ["detail", "cached-detail"], "{name}");
        for route in &app.routes {
            assert!(route.closed_loop_per_sec > 0.0, "{name} {}", route.route);
            assert_eq!(route.closed_loop_rounds.len(), 2, "{name} {}", route.route);
            // Two rates per ladder, each in round 1 and in round 2 where round 1 left its
            // verdict open.
            let rungs = route.rungs();
            assert_eq!(rungs.len(), 4, "{name} {}", route.route);
            for rung in &rungs {
                later_rounds_only_where_open(rung, &format!("{name} {}", route.route));
            }
            for point in route.common.iter().chain(&route.own) {
                assert_eq!(point.bookkeeping, None, "{name} {}", route.route);
                assert!(dir.join(&point.histogram).is_file());
                assert!(
                    point.app_cpu_us_per_request.is_some_and(|cpu| cpu > 0.0),
                    "{name} {}",
                    route.route
                );
            }
            // A quarter of Go's max is well within every app's reach on this machine: every
            // run valid, every answer right.
            for first in rungs[0].runs.iter() {
                assert_eq!(first.fraction, 0.25);
                assert!(
                    first.valid && first.answers.keys().all(|a| a == "200"),
                    "{name} {} at {:.0}/s, round {}: {:?}",
                    route.route,
                    first.target_per_sec,
                    first.round,
                    first.invalid_reason
                );
                let busy = first.cpu_busy.expect("CPU shares recorded");
                assert!(busy.app > 0.0 && busy.services_and_load > 0.0, "{busy:?}");
                assert!(first.connection_wait_ms.is_some());
            }
        }
        let detail = app.routes.iter().find(|r| r.route == "detail").unwrap();
        // The common rates are Go's, for every app.
        assert_eq!(
            detail.common[0].target_per_sec,
            (go_detail_max * 0.25).round()
        );
        // Two 2 s runs per rate: stalls on a 2-core machine can sink every detail rate
        // (docs/spec.md §8.7), but not every rate of every route.
        assert!(
            app.routes.iter().any(|r| r.max_sustainable(2).is_some()),
            "{name}: no route sustained any rate"
        );
        let levels: Vec<u32> = app.connections.iter().map(|l| l.connections).collect();
        assert_eq!(levels, [16, 256], "{name}");
        for level in &app.connections {
            assert!(
                level.valid && level.connections_held == level.connections,
                "{name}: {level:?}"
            );
        }
        let rounds: Vec<u32> = app.overloads.iter().map(|o| o.round).collect();
        assert_eq!(rounds, [1, 2], "{name}: an overload in each round");
        for overload in &app.overloads {
            assert!(overload.survived, "{name}");
            assert_eq!(overload.seconds.len(), 10, "{name}");
            assert!(overload.overload_per_sec > overload.base_per_sec);
        }
    }
    for app in &sweep.apps {
        let memory = app.memory_limited.as_ref().expect("memory-limited levels");
        assert_eq!(memory.limit_bytes, 512 * 1024 * 1024);
        assert_eq!(memory.levels.len(), 2, "{}", app.label);
        for level in &memory.levels {
            assert_eq!(level.oom_kills, Some(0), "{}", app.label);
            assert!(level.valid, "{}: {level:?}", app.label);
        }
    }
    assert!(dir.join("sweep.md").is_file() && dir.join("sweep.html").is_file());
}

/// A rate ran in round 1, and in each later round exactly when the earlier rounds left its
/// verdict (held in most of the sweep's 2 rounds) open.
fn later_rounds_only_where_open(rung: &Rung<'_>, what: &str) {
    let rounds: Vec<u32> = rung.runs.iter().map(|run| run.round).collect();
    let held_in_round_1 = rung.runs[0].within_slo as usize;
    let expected: &[u32] = match verdict_open(held_in_round_1, 2, 2) {
        true => &[1, 2],
        false => &[1],
    };
    assert_eq!(rounds, expected, "{what} at {} req/s", rung.target_per_sec);
}
