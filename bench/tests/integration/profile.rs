//! `blogbench profile` end to end under load, on the detail page: round trips per page at
//! the protocol level (Go 3, axum-sqlx 4 with sqlx's release ping, 5 with the acquire ping
//! on), queries per page from pg_stat_statements (3 for all: a ping is no query), and the
//! other probes filled in or declared unavailable with a reason. Needs `make services`.

use crate::common;

use crate::common::{blogbench, text};
use bench::results::profile::Profile;
use std::path::Path;

fn profiles(dir: &Path) -> Vec<Profile> {
    let runs: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    assert_eq!(runs.len(), 1, "one profile folder per run");
    Profile::load_all(&runs[0].path()).unwrap()
}

fn find<'a>(profiles: &'a [Profile], app: &str, route: &str) -> &'a Profile {
    profiles
        .iter()
        .find(|p| p.app == app && p.route == route)
        .unwrap_or_else(|| panic!("no profile of {app} {route}: {profiles:#?}"))
}

fn assert_near(what: &str, value: f64, expected: f64) {
    assert!(
        (value - expected).abs() < 0.05,
        "{what}: {value}, expected {expected}"
    );
}

#[test]
fn profile_counts_round_trips_queries_and_probes_under_load() {
    let _serial = common::serial();
    let out = tempfile::tempdir().unwrap();
    let output = blogbench(
        &[
            "profile",
            "--apps",
            "go,axum-sqlx,axum-sqlx+PING_ON_ACQUIRE=always",
            "--routes",
            "detail",
            "--duration",
            "3s",
            "--warmup",
            "1s",
            "--tool-window",
            "2s",
            "--out",
            out.path().to_str().unwrap(),
        ],
        &[],
    );
    assert!(output.status.success(), "{}", text(&output));
    let profiles = profiles(out.path());
    assert_eq!(profiles.len(), 3, "{profiles:#?}");

    for (app, round_trips) in [
        ("go", 3.0),
        ("axum-sqlx", 4.0),
        ("axum-sqlx+PING_ON_ACQUIRE=always", 5.0),
    ] {
        let p = find(&profiles, app, "detail");
        assert!(p.requests > 100 && p.not_ok == 0, "{app}: {p:#?}");
        let pg = &p.postgres_per_page;
        assert_eq!(
            pg.connections_opened, 0,
            "{app}: the warm-up filled the pool"
        );
        assert_near(&format!("{app} round trips"), pg.round_trips, round_trips);
        assert_near(&format!("{app} statements"), pg.statements_sent, 3.0);
        let queries = pg
            .queries_executed
            .unwrap_or_else(|| panic!("{app}: no pg_stat_statements: {:?}", p.unavailable));
        assert_near(&format!("{app} queries"), queries, 3.0);

        let cpu = &p.cpu_us_per_request;
        assert!(cpu.app > 0.0 && cpu.postgres > 0.0, "{app}: {cpu:?}");
        assert!(
            p.context_switches_per_request.voluntary > 0.0,
            "{app}: {p:#?}"
        );
        // The uncached page never touches Redis.
        assert!(p.redis_commands_per_request.is_empty(), "{app}: {p:#?}");
        match &p.syscalls_per_request {
            Some(calls) => assert!(calls["total"] > 1.0, "{app}: {calls:?}"),
            None => assert!(p.unavailable.contains_key("syscalls"), "{app}: {p:#?}"),
        }
        match &p.flamegraph {
            Some(svg) => {
                let path = profiles_dir(out.path()).join(svg);
                let graph = std::fs::read_to_string(&path).unwrap();
                assert!(graph.contains("<svg"), "{}", path.display());
            }
            None => assert!(p.unavailable.contains_key("flame graph"), "{app}: {p:#?}"),
        }
        assert_eq!(p.go_gc.is_some(), app == "go", "{app}: GC only for Go");
    }
}

#[test]
fn a_cached_page_is_one_redis_get_and_no_postgres() {
    let _serial = common::serial();
    let out = tempfile::tempdir().unwrap();
    let output = blogbench(
        &[
            "profile",
            "--apps",
            "go",
            "--routes",
            "cached-detail",
            "--duration",
            "2s",
            "--warmup",
            "1s",
            "--tool-window",
            "0s",
            "--out",
            out.path().to_str().unwrap(),
        ],
        &[],
    );
    assert!(output.status.success(), "{}", text(&output));
    let profiles = profiles(out.path());
    let p = find(&profiles, "go", "cached-detail");
    assert_eq!(p.redis_commands_per_request.len(), 1, "{p:#?}");
    assert_near("GETs", p.redis_commands_per_request["get"], 1.0);
    assert_near("round trips", p.postgres_per_page.round_trips, 0.0);
    assert!(p.syscalls_per_request.is_none() && p.flamegraph.is_none());
}

fn profiles_dir(out: &Path) -> std::path::PathBuf {
    std::fs::read_dir(out)
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path()
}
