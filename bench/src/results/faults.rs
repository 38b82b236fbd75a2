//! `results/faults-<id>/faults.json`: what `blogbench faults` found (docs/spec.md §7), per
//! app: each fault under load, the bad-input answers and the idle-connection flood. Written
//! atomically after every app; the reliability table is built from this file alone.

use super::app_settings::Settings;
use super::{RunHeader, RunKind};
use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FaultsRun {
    /// The folder is `faults-<id>`.
    #[serde(flatten)]
    pub header: RunHeader,
    pub quick: bool,
    /// The load generator's connections during every fault (the fair run's).
    pub connections: u32,
    /// Load before each fault, whose p99 is the baseline.
    pub baseline_secs: f64,
    /// Load after the service is back.
    pub after_secs: f64,
    pub apps: Vec<AppFaults>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AppFaults {
    /// The app's name, or `name+KEY=VALUE` for a variant.
    pub label: String,
    pub settings: Option<Settings>,
    /// The variables the harness set.
    pub env: BTreeMap<String, String>,
    /// Why the app could not be tested at all (start-up, pages differing from Go's).
    pub error: Option<String>,
    pub faults: Vec<FaultOutcome>,
    pub bad_input: Vec<BadInputAnswer>,
    pub flood: Option<FloodOutcome>,
    /// Whether the process was still running after the last fault.
    pub survived: bool,
    pub rss_before_bytes: u64,
    pub rss_after_bytes: u64,
}

/// One fault injected while the app was under closed-loop load.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FaultOutcome {
    /// `postgres restart`, `redis restart`, `database stall 1.5 s`, …
    pub fault: String,
    pub route: String,
    /// From the fault's start until the service answered again (the stall's length).
    pub outage_secs: f64,
    /// When the fault started and when a poller of the harness's own first had an answer
    /// from the service again, ms from the load's start: where `records` splits.
    #[serde(default)]
    pub fault_at_ms: Option<f64>,
    #[serde(default)]
    pub back_at_ms: Option<f64>,
    /// Every request of the run, a CSV file in the run's folder (client, sent and latency
    /// in ms from the load's start, answer), from which the split can be recomputed.
    #[serde(default)]
    pub records: Option<String>,
    pub requests: u64,
    /// Failed requests sent before the service was back (none may fail before the fault).
    pub failed_during: u64,
    /// Failed requests sent once the service was back: what the app lost by itself.
    pub failed_after: u64,
    /// Every answer of the run, by status (`200`, `503`) or error (`error: timeout`).
    pub answers: BTreeMap<String, u64>,
    /// 200s whose body was not the parity page.
    pub wrong_bodies: u64,
    /// From the service's return to the last failed request's answer; 0 when none failed.
    pub errors_for_secs: f64,
    pub p99_baseline_ms: f64,
    /// From the service's return until p99 stayed within twice the baseline (and 5 ms);
    /// `None` when it did not within the run.
    pub p99_back_after_secs: Option<f64>,
    pub max_latency_ms: f64,
    /// On a route that writes: comments answered 303 that are not in the database.
    #[serde(default)]
    pub comments_lost: Option<u64>,
    /// On a route that writes: comments in the database whose POST got no 303 (the commit
    /// went through, the answer did not).
    #[serde(default)]
    pub comments_stored_unanswered: Option<u64>,
    /// Broken rules of docs/spec.md (wrong content, answers it does not allow, hangs).
    pub problems: Vec<String>,
}

/// One odd request and what the app answered.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BadInputAnswer {
    pub request: String,
    /// `None`: the app closed the connection or sent no status line within the timeout.
    pub status: Option<u16>,
    pub problem: Option<String>,
}

/// Connections that send nothing, or a header byte a second, held while another client
/// asks for pages.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FloodOutcome {
    pub idle_connections: u32,
    pub slow_connections: u32,
    pub held_secs: f64,
    /// Requests another client sent during the flood, each on a new connection.
    pub requests: u32,
    pub answered: u32,
    pub max_latency_ms: Option<f64>,
    /// Flood connections the app had closed by the end.
    pub closed_by_app: u32,
    pub problem: Option<String>,
}

impl FaultsRun {
    pub fn load(path: &Path) -> Result<FaultsRun> {
        super::read_json(path)
    }

    /// Writes `faults.json` in `dir` through a temporary file and a rename.
    pub fn save(&self, dir: &Path) -> Result<()> {
        super::write_json(&dir.join(RunKind::Faults.file()), self)
    }

    /// Every broken rule, one line each: the command exits non-zero when there is any.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        for app in &self.apps {
            let label = &app.label;
            if let Some(error) = &app.error {
                problems.push(format!("{label}: {error}"));
            }
            if app.error.is_none() && !app.survived {
                problems.push(format!("{label}: the process died"));
            }
            for fault in &app.faults {
                for problem in &fault.problems {
                    problems.push(format!("{label}: {}: {problem}", fault.fault));
                }
            }
            for answer in &app.bad_input {
                if let Some(problem) = &answer.problem {
                    problems.push(format!("{label}: {}: {problem}", answer.request));
                }
            }
            if let Some(problem) = app.flood.as_ref().and_then(|f| f.problem.as_ref()) {
                problems.push(format!("{label}: idle-connection flood: {problem}"));
            }
        }
        problems
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::example_file;

    /// docs/faults.md's sentence on the 8 s database stall in docs/example-faults-20261201014554.
    #[test]
    fn the_example_faults_run_s_eight_second_stall() {
        let run =
            FaultsRun::load(&example_file("example-faults-20261201014554/faults.json")).unwrap();
        let stalls: Vec<(&str, u64, f64)> = run
            .apps
            .iter()
            .filter_map(|app| {
                let stall = app
                    .faults
                    .iter()
                    .find(|f| f.fault == "database stall 8 s")?;
                let answered_503 = stall.answers.get("503").copied().unwrap_or(0);
                let slowest_secs = (stall.max_latency_ms / 100.0).round() / 10.0;
                Some((app.label.as_str(), answered_503, slowest_secs))
            })
            .collect();
        assert_eq!(stalls[0], ("go", 0, 8.0));
        let (cot, others): (Vec<&(&str, u64, f64)>, Vec<_>) =
            stalls[1..].iter().partition(|s| s.0 == "cot");
        assert_eq!(cot, [&("cot", 50, 5.0)]);
        assert!(others.iter().all(|s| s.1 == 68), "{others:?}");
        let slowest = others.iter().map(|s| s.2);
        let range = (
            slowest.clone().fold(f64::MAX, f64::min),
            slowest.fold(0.0, f64::max),
        );
        assert_eq!(range, (8.0, 8.1));
    }

    /// docs/faults.md's sentences on the six camps' faults run and FastAPI's rerun.
    #[test]
    fn the_six_camps_faults_runs() {
        let answered = |run: &FaultsRun, label: &str, fault: &str, answer: &str| {
            let app = run.apps.iter().find(|a| a.label == label).unwrap();
            let fault = app.faults.iter().find(|f| f.fault == fault).unwrap();
            fault.answers.get(answer).copied().unwrap_or(0)
        };
        let six =
            FaultsRun::load(&example_file("example-faults-20261205004639/faults.json")).unwrap();
        assert!(six.apps.iter().all(|app| app.survived));
        let lost: u64 = six
            .apps
            .iter()
            .flat_map(|app| &app.faults)
            .filter_map(|fault| fault.comments_lost)
            .sum();
        assert_eq!(lost, 0);
        let broke: Vec<&str> = six
            .apps
            .iter()
            .filter(|app| app.faults.iter().any(|f| !f.problems.is_empty()))
            .map(|app| app.label.as_str())
            .collect();
        assert_eq!(broke, ["fastapi"]);
        assert_eq!(answered(&six, "fastapi", "postgres restart", "500"), 5);
        assert_eq!(
            answered(&six, "fastapi", "postgres restart during write", "500"),
            1
        );
        let stall_503s: Vec<(&str, u64)> = six
            .apps
            .iter()
            .map(|app| {
                let label = app.label.as_str();
                (label, answered(&six, label, "database stall 8 s", "503"))
            })
            .collect();
        assert_eq!(
            stall_503s,
            [
                ("go", 0),
                ("gin", 0),
                ("axum-sqlx", 68),
                ("actix-sqlx", 68),
                ("fastify", 68),
                ("fastapi", 68),
                ("spring-webflux", 68),
                ("laravel", 0)
            ]
        );
        let rerun =
            FaultsRun::load(&example_file("example-faults-20261205035816/faults.json")).unwrap();
        assert!(rerun.problems().is_empty(), "{:?}", rerun.problems());
        let fastapi = rerun.apps.iter().find(|a| a.label == "fastapi").unwrap();
        let mut kinds: Vec<&str> = fastapi
            .faults
            .iter()
            .flat_map(|f| f.answers.keys().map(String::as_str))
            .collect();
        kinds.sort();
        kinds.dedup();
        assert_eq!(kinds, ["200", "303", "503"]);
    }
}
