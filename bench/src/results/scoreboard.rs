//! `scoreboard/<id>/scoreboard.json`: what a scoreboard planned, which parts it measured (each
//! part a results folder of its own command under `parts/`), in which sitting, and the round
//! trips per page it counted itself. Saved atomically after every change, so an interrupted
//! scoreboard resumes from it. The page is built from this file and the parts' own files.

use super::{RunHeader, RunKind, read_json, write_json};
use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::path::Path;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Scoreboard {
    #[serde(flatten)]
    pub header: RunHeader,
    /// The measured code: a hash of every tracked file at the commit but the documentation,
    /// CI, the harness's tests and its report writers (with the diff of uncommitted changes,
    /// `-dirty`), so a sitting after a commit to those may resume and one after a change to
    /// an app or to how the harness measures may not.
    pub code: String,
    /// The apps, Go first.
    pub apps: Vec<String>,
    /// The plan, fixed when the scoreboard starts; a resumed sitting keeps it.
    pub plan: Plan,
    pub parts: Vec<Part>,
    pub sittings: Vec<Sitting>,
    /// Counted by the scoreboard itself (the part `round-trips`), per app and page.
    #[serde(default)]
    pub round_trips: Vec<PageRoundTrips>,
}

/// What the scoreboard measures, and how long it expects that to take.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// `full`, `lean` (shorter runs, idioms without the timed rebuilds) or `quick` (a smoke
    /// test below docs/spec.md §5's minimums: not a result).
    pub level: String,
    /// The budget given, in seconds, if any.
    pub budget_secs: Option<f64>,
    pub batch: BatchLengths,
    pub sweep: SweepLengths,
    /// The idioms page without its timed incremental rebuilds.
    pub idioms_quick: bool,
    /// What the plan does not measure, and why (a budget, `--parts`).
    pub left_out: Vec<String>,
    /// Every part's estimate, summed.
    pub estimate_secs: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BatchLengths {
    pub rounds: u32,
    pub duration_secs: f64,
    pub warmup_secs: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepLengths {
    pub routes: Vec<String>,
    pub rounds: u32,
    pub run_secs: f64,
    pub warmup_secs: f64,
    /// Fractions of Go's max every app is run at.
    pub common: Vec<f64>,
    /// Fractions of each app's own max.
    pub own: Vec<f64>,
    pub connection_levels: Vec<u32>,
}

/// One step of the plan: a command over some apps, or the round trips.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Part {
    /// `round-trips`, `idioms`, `batch-1`, `sweep-2`, …: also its folder under `parts/`.
    pub name: String,
    pub kind: PartKind,
    pub apps: Vec<String>,
    /// The `blogbench` arguments it runs with (none for the round trips, counted in-process).
    pub args: Vec<String>,
    pub estimate_secs: f64,
    /// Why the plan does not run it, when it does not.
    #[serde(default)]
    pub not_run: Option<String>,
    /// Each try, in order; the last one is what counts.
    #[serde(default)]
    pub attempts: Vec<Attempt>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PartKind {
    RoundTrips,
    Idioms,
    Batch,
    Sweep,
    Faults,
}

impl PartKind {
    /// The results file a part of this kind leaves in its folder.
    pub fn run_kind(self) -> Option<RunKind> {
        match self {
            PartKind::RoundTrips => None,
            PartKind::Idioms => Some(RunKind::Idioms),
            PartKind::Batch => Some(RunKind::Batch),
            PartKind::Sweep => Some(RunKind::Sweep),
            PartKind::Faults => Some(RunKind::Faults),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Attempt {
    pub sitting: u32,
    pub started_at: String,
    #[serde(default)]
    pub finished_at: Option<String>,
    #[serde(default)]
    pub secs: Option<f64>,
    /// Its results folder, relative to the scoreboard's.
    #[serde(default)]
    pub folder: Option<String>,
    pub outcome: Outcome,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// Still running in process `pid` (or its sitting died without saying otherwise).
    Running { pid: u32 },
    /// Finished, its results file complete; `problems` when the command found failures
    /// (they are in its own results and reach the page as such).
    Measured { problems: bool },
    /// Stopped by Ctrl-C or a signal; measured again by `--resume`.
    Interrupted,
    /// Ended without a complete results file.
    Failed { reason: String },
}

/// One `blogbench scoreboard` process: the first, or a `--resume`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Sitting {
    pub number: u32,
    pub started_at: String,
    #[serde(default)]
    pub finished_at: Option<String>,
    pub command: String,
    /// How it ended: `finished`, `interrupted`, or empty while it runs (or if it crashed).
    #[serde(default)]
    pub ended: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PageRoundTrips {
    pub app: String,
    pub page: String,
    pub statements: f64,
    pub round_trips: f64,
}

impl Part {
    pub fn last(&self) -> Option<&Attempt> {
        self.attempts.last()
    }

    /// Whether its last attempt left a complete results folder (or counted its round trips).
    pub fn measured(&self) -> bool {
        matches!(
            self.last().map(|a| &a.outcome),
            Some(Outcome::Measured { .. })
        )
    }

    /// Whether a sitting still has to run it.
    pub fn pending(&self) -> bool {
        self.not_run.is_none() && !self.measured()
    }
}

impl Scoreboard {
    pub fn load(path: &Path) -> Result<Scoreboard> {
        read_json(path)
    }

    pub fn save(&self, dir: &Path) -> Result<()> {
        write_json(&dir.join(RunKind::Scoreboard.file()), self)
    }

    /// The measured part named `name`.
    pub fn part(&self, name: &str) -> Option<&Part> {
        self.parts.iter().find(|p| p.name == name)
    }

    /// What is not (yet) a result: parts pending or measured with problems.
    pub fn problems(&self) -> Vec<String> {
        self.parts
            .iter()
            .filter_map(|part| match part.last().map(|a| &a.outcome) {
                _ if part.not_run.is_some() => None,
                Some(Outcome::Measured { problems: false }) => None,
                Some(Outcome::Measured { problems: true }) => Some(format!(
                    "{}: measured, with failures (see its own report)",
                    part.name
                )),
                Some(Outcome::Failed { reason }) => {
                    Some(format!("{}: failed: {reason}", part.name))
                }
                Some(Outcome::Interrupted | Outcome::Running { .. }) => {
                    Some(format!("{}: interrupted", part.name))
                }
                None => Some(format!("{}: not run yet", part.name)),
            })
            .collect()
    }
}
