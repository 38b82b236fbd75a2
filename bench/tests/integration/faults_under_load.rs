//! `blogbench faults --quick` end to end on actix-sqlx (its pool shards are the hardest case
//! for a restart): the real PostgreSQL and Redis are stopped and started under load (root,
//! `make services` first). Every app meets the same outages through a relay in `faults.rs`.
//! Nothing else may run while PostgreSQL is down (`common::serial`).

use crate::common;
use bench::results::faults::{FaultOutcome, FaultsRun};
use std::path::Path;
use std::process::Command;

#[test]
fn services_restarted_under_load_cost_nothing_once_they_are_back() {
    let _serial = common::serial();
    let results = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_blogbench"))
        .args(["faults", "--quick", "--apps", "actix-sqlx", "--results"])
        .arg(results.path())
        .output()
        .expect("run blogbench faults");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "faults failed:\n{text}");
    let dir = common::run_folder(results.path(), "faults.json").expect("a faults-<id> folder");
    let run = FaultsRun::load(&dir.join("faults.json")).unwrap();
    assert!(run.header.finished_at.is_some() && run.quick);
    assert!(run.problems().is_empty(), "{:?}", run.problems());
    let labels: Vec<&str> = run.apps.iter().map(|a| a.label.as_str()).collect();
    assert_eq!(labels, ["actix-sqlx"]);
    for app in &run.apps {
        let name = &app.label;
        assert!(
            app.error.is_none() && app.survived,
            "{name}: {:?}",
            app.error
        );
        let faults: Vec<&str> = app.faults.iter().map(|f| f.fault.as_str()).collect();
        assert_eq!(
            faults,
            [
                "redis restart",
                "database stall 1 s",
                "database stall 5 s",
                "postgres restart",
                "postgres restart while idle",
                "redis restart during mixed",
                "postgres restart during write"
            ],
            "{name}"
        );
        let restart = &app.faults[3];
        // The outage was real: requests failed while PostgreSQL was down, with 503s only.
        assert!(restart.failed_during > 0, "{name}: {restart:?}");
        assert_eq!(
            restart.answers.get("503").copied(),
            Some(restart.failed_during + restart.failed_after),
            "{name}: {restart:?}"
        );
        assert_eq!(restart.failed_after, 0, "{name}: {restart:?}");
        // Once PostgreSQL answered again, no request failed: connections the restart left
        // dead in an idle pool are pinged (idle for over 1 s) and replaced, not handed out.
        let idle = &app.faults[4];
        assert!(idle.requests > 0, "{name}: {idle:?}");
        assert_eq!(idle.failed_after, 0, "{name}: {idle:?}");
        let redis = &app.faults[0];
        assert_eq!(redis.failed_during + redis.failed_after, 0, "{name}");
        assert!(redis.requests > 0 && redis.outage_secs >= 2.0, "{name}");
        // Writes: with Redis down a comment is still stored (303) and every read shows its
        // client's last one; with PostgreSQL down 503s, and every 303 is in the database.
        let redis_writes = &app.faults[5];
        assert!(
            redis_writes.answers.get("303").is_some_and(|&n| n > 0),
            "{name}: {redis_writes:?}"
        );
        assert_eq!(
            redis_writes.failed_during + redis_writes.failed_after,
            0,
            "{name}: {redis_writes:?}"
        );
        assert_eq!(redis_writes.comments_lost, Some(0), "{name}");
        let postgres_writes = &app.faults[6];
        assert!(
            postgres_writes.failed_during > 0,
            "{name}: {postgres_writes:?}"
        );
        assert_eq!(
            postgres_writes.answers.get("503").copied(),
            Some(postgres_writes.failed_during + postgres_writes.failed_after),
            "{name}: {postgres_writes:?}"
        );
        assert_eq!(postgres_writes.comments_lost, Some(0), "{name}");
        for probe in &app.bad_input {
            assert!(probe.problem.is_none(), "{name}: {probe:?}");
        }
        let percent_00 = app
            .bad_input
            .iter()
            .find(|p| p.request == "GET /posts/%00")
            .expect("the NUL probe");
        assert_eq!(percent_00.status, Some(404), "{name}");
        for fault in &app.faults {
            assert_eq!(
                recomputed_split(&dir, fault),
                (fault.failed_during, fault.failed_after)
            );
        }
        let flood = app.flood.as_ref().expect("a flood");
        assert!(
            flood.requests > 0 && flood.answered == flood.requests,
            "{name}: {flood:?}"
        );
    }
    let table = std::fs::read_to_string(dir.join("reliability.md")).unwrap();
    assert!(table.contains("| actix-sqlx |") && table.contains("postgres restart"));
}

/// The failed requests sent during and after the outage, recomputed from the run's request
/// records and its fault and return times: during = answered after the fault began and sent
/// before the service was back; after = sent once it was back.
fn recomputed_split(dir: &Path, fault: &FaultOutcome) -> (u64, u64) {
    let fault_at = fault.fault_at_ms.expect("the fault's time");
    let back_at = fault.back_at_ms.expect("the return's time");
    let file = fault.records.as_ref().expect("the records");
    let csv = std::fs::read_to_string(dir.join(file)).unwrap();
    let (mut during, mut after) = (0, 0);
    for line in csv.lines().skip(1) {
        let fields: Vec<&str> = line.splitn(4, ',').collect();
        let sent: f64 = fields[1].parse().unwrap();
        let done = sent + fields[2].parse::<f64>().unwrap();
        if matches!(fields[3], "200" | "303") {
            continue;
        }
        if sent >= back_at {
            after += 1;
        } else if done >= fault_at {
            during += 1;
        }
    }
    (during, after)
}
