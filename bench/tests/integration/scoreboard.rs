//! `blogbench scoreboard`: a sitting stopped by SIGTERM in the middle of a part records it
//! as interrupted and keeps what it measured; `--resume` measures only what is left, in a
//! second sitting, and refuses a scoreboard of other code.

use crate::common;
use bench::results::scoreboard::{Outcome, Scoreboard};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn load(folder: &Path) -> Scoreboard {
    Scoreboard::load(&folder.join("scoreboard.json")).unwrap()
}

/// `blogbench scoreboard --resume <id>` over the scoreboards in `results`.
fn resume(id: &str, results: &Path) -> Output {
    common::blogbench(
        &[
            "scoreboard",
            "--resume",
            id,
            "--results",
            &results.to_string_lossy(),
        ],
        &[],
    )
}

#[test]
fn a_scoreboard_stopped_by_sigterm_resumes_and_keeps_what_it_measured() {
    let _serial = common::serial();
    let results = tempfile::tempdir().unwrap();
    let mut first = Command::new(env!("CARGO_BIN_EXE_blogbench"))
        .args([
            "scoreboard",
            "--quick",
            "--budget",
            "10m",
            "--apps",
            "go,axum-sqlx",
            "--parts",
            "round-trips,batch",
            "--results",
        ])
        .arg(results.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("run blogbench scoreboard");
    // The batch part has begun once its own results file is there.
    let deadline = Instant::now() + Duration::from_secs(180);
    let folder = loop {
        let folder = common::run_folder(results.path(), "scoreboard.json");
        let batch_began = folder.as_ref().is_some_and(|folder| {
            std::fs::read_dir(folder.join("parts/batch-1")).is_ok_and(|mut runs| {
                runs.any(|run| run.is_ok_and(|r| r.path().join("results.json").is_file()))
            })
        });
        if batch_began {
            break folder.unwrap();
        }
        assert!(Instant::now() < deadline, "no batch part began in 180 s");
        assert!(
            first.try_wait().unwrap().is_none(),
            "the scoreboard ended early"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    // SAFETY: kill(2) on our own child's pid has no memory effects.
    unsafe { libc::kill(first.id() as libc::pid_t, libc::SIGTERM) };
    let status = first.wait().unwrap();
    assert!(
        !status.success(),
        "an interrupted scoreboard exits non-zero"
    );

    let stopped = load(&folder);
    let id = stopped.header.id.clone();
    let round_trips = stopped.part("round-trips").unwrap();
    assert!(round_trips.measured(), "{round_trips:?}");
    assert!(
        stopped
            .round_trips
            .iter()
            .any(|count| count.app == "axum-sqlx"),
        "{:?}",
        stopped.round_trips
    );
    let batch = stopped.part("batch-1").unwrap();
    assert_eq!(batch.attempts.len(), 1);
    assert_eq!(batch.attempts[0].outcome, Outcome::Interrupted);
    assert_eq!(stopped.sittings.len(), 1);
    assert_eq!(stopped.sittings[0].ended.as_deref(), Some("interrupted"));
    assert!(stopped.header.finished_at.is_none());
    assert!(stopped.part("faults-1").unwrap().not_run.is_some());

    let resumed = resume(&id, results.path());
    let text = common::text(&resumed);
    assert!(resumed.status.success(), "{text}");
    let finished = load(&folder);
    assert_eq!(finished.sittings.len(), 2, "{text}");
    assert!(finished.header.finished_at.is_some());
    // Measured in the first sitting, kept as it was.
    let round_trips = finished.part("round-trips").unwrap();
    assert_eq!(round_trips.attempts.len(), 1);
    assert_eq!(round_trips.attempts[0].sitting, 1);
    // Interrupted in the first, measured whole in the second, the first folder kept.
    let batch = finished.part("batch-1").unwrap();
    assert_eq!(batch.attempts.len(), 2);
    assert_eq!(batch.attempts[1].sitting, 2);
    assert!(batch.measured());
    let kept = batch.attempts[0].folder.as_ref().unwrap();
    assert!(folder.join(kept).join("results.json").is_file());
    assert!(folder.join("index.html").is_file() && folder.join("scoreboard.md").is_file());

    // A scoreboard of other code is not resumed.
    let mut other = finished.clone();
    other.code = "0000000000000000000000000000000000000000".to_owned();
    other.save(&folder).unwrap();
    let refused = resume(&id, results.path());
    let text = common::text(&refused);
    assert!(!refused.status.success(), "{text}");
    assert!(text.contains("never mixes code"), "{text}");
}
