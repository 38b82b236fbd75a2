//! The parts' results as the page reads them: each part's results file, or why the page has
//! none from it, and for an app the part of a kind that measured it.

use crate::results::faults::FaultsRun;
use crate::results::idioms::Idioms;
use crate::results::scoreboard::{Outcome, Part, PartKind, Scoreboard};
use crate::results::sweep::Sweep;
use crate::results::{Batch, read_json};
use serde::de::DeserializeOwned;
use std::path::Path;

/// A part and its results, or the cell text saying why there are none.
pub(super) struct Loaded<'a, T> {
    pub part: &'a Part,
    pub results: Result<T, String>,
}

impl<T> Loaded<'_, T> {
    pub fn report(&self) -> Option<String> {
        report(self.part)
    }
}

/// The part's own report, relative to the scoreboard's folder.
pub(super) fn report(part: &Part) -> Option<String> {
    let folder = part.last()?.folder.as_deref()?;
    Some(format!("{folder}/{}", report_file(part.kind)?))
}

/// The report each command writes beside its results file.
fn report_file(kind: PartKind) -> Option<&'static str> {
    match kind {
        PartKind::Batch => Some("report.html"),
        PartKind::Sweep => Some("sweep.html"),
        PartKind::Faults => Some("reliability.md"),
        PartKind::Idioms => Some("idioms.html"),
        PartKind::RoundTrips => None,
    }
}

/// Why a part has no results yet, as its cells say it; `None` once measured.
pub(super) fn missing(part: &Part) -> Option<String> {
    if let Some(reason) = &part.not_run {
        return Some(format!("not run: {reason}"));
    }
    match part.last().map(|attempt| &attempt.outcome) {
        None => Some("not measured yet: not started".to_owned()),
        Some(Outcome::Running { .. }) => Some("not measured yet: running".to_owned()),
        Some(Outcome::Interrupted) => Some("not measured yet: interrupted".to_owned()),
        Some(Outcome::Failed { reason }) => {
            Some(format!("not measured yet: the part failed: {reason}"))
        }
        Some(Outcome::Measured { .. }) => None,
    }
}

/// The results files a kind of part leaves, by the app names they hold.
pub(super) trait Measures {
    fn measures(&self, app: &str) -> bool;
}

impl Measures for Batch {
    fn measures(&self, app: &str) -> bool {
        self.apps.iter().any(|a| a.name == app)
    }
}

impl Measures for Sweep {
    fn measures(&self, app: &str) -> bool {
        self.apps.iter().any(|a| a.label == app)
    }
}

impl Measures for FaultsRun {
    fn measures(&self, app: &str) -> bool {
        self.apps.iter().any(|a| a.label == app)
    }
}

impl Measures for Idioms {
    fn measures(&self, app: &str) -> bool {
        self.apps.iter().any(|a| a.name == app)
    }
}

pub(super) struct Sources<'a> {
    pub scoreboard: &'a Scoreboard,
    pub batches: Vec<Loaded<'a, Batch>>,
    pub sweeps: Vec<Loaded<'a, Sweep>>,
    pub faults: Vec<Loaded<'a, FaultsRun>>,
    pub idioms: Vec<Loaded<'a, Idioms>>,
}

impl<'a> Sources<'a> {
    /// Every part's results under the scoreboard folder `dir`.
    pub fn load(dir: &Path, scoreboard: &'a Scoreboard) -> Sources<'a> {
        Sources {
            scoreboard,
            batches: load(dir, scoreboard, PartKind::Batch),
            sweeps: load(dir, scoreboard, PartKind::Sweep),
            faults: load(dir, scoreboard, PartKind::Faults),
            idioms: load(dir, scoreboard, PartKind::Idioms),
        }
    }

    pub fn apps(&self) -> &'a [String] {
        &self.scoreboard.apps
    }
}

fn load<'a, T: DeserializeOwned>(
    dir: &Path,
    scoreboard: &'a Scoreboard,
    kind: PartKind,
) -> Vec<Loaded<'a, T>> {
    let file = kind.run_kind().map(|run| run.file());
    scoreboard
        .parts
        .iter()
        .filter(|part| part.kind == kind)
        .map(|part| {
            let folder = part.last().and_then(|a| a.folder.as_deref());
            let results = match (missing(part), folder, file) {
                (Some(why), _, _) => Err(why),
                (None, Some(folder), Some(file)) => read_json(&dir.join(folder).join(file))
                    .map_err(|err| format!("unreadable: {err:#}")),
                _ => Err("not measured: no results folder recorded".to_owned()),
            };
            Loaded { part, results }
        })
        .collect()
}

/// The part of `parts` that measured `app`, with its results: the first measured one that
/// lists the app (Go is in every sweep part) or, for an app no part lists, whose results
/// hold it; else why there is none.
pub(super) fn find<'p, 'a, T: Measures>(
    parts: &'p [Loaded<'a, T>],
    app: &str,
) -> Result<(&'p Loaded<'a, T>, &'p T), String> {
    let mut listed: Vec<&Loaded<T>> = parts
        .iter()
        .filter(|l| l.part.apps.iter().any(|a| a == app))
        .collect();
    if listed.is_empty() {
        listed = parts
            .iter()
            .filter(|l| l.results.as_ref().is_ok_and(|r| r.measures(app)))
            .collect();
    }
    let measured = listed.iter().find_map(|loaded| {
        let results = loaded.results.as_ref().ok()?;
        results.measures(app).then_some((*loaded, results))
    });
    match (measured, listed.first()) {
        (Some(found), _) => Ok(found),
        (None, None) => Err("not run: no part of the plan has it".to_owned()),
        (None, Some(first)) => match &first.results {
            Err(why) => Err(why.clone()),
            Ok(_) => Err(format!(
                "not measured: {} has no results for it",
                first.part.name
            )),
        },
    }
}
