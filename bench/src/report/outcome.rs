//! What the report can say about one app's route: the numbers of its valid runs, or why
//! there are none. Every table and chart goes through here, so none prints a number that
//! no valid run backs.

use crate::results::{AppResult, AppStatus, RouteResult, Run, median};

/// Why a route of an app has no number.
#[derive(Debug, Clone, PartialEq)]
pub enum Missing<'a> {
    /// Runs were made and none counted (SPEC §5 admission).
    NoValidRun { runs: usize, reasons: Vec<&'a str> },
    /// The app stopped before this route (build, start, parity…).
    AppFailed { stage: &'a str },
    /// The batch ended before this app.
    NotRun,
    /// The app ran but this route was not measured.
    NotMeasured,
}

impl Missing<'_> {
    /// For charts and secondary tables.
    pub fn short(&self) -> String {
        match self {
            Missing::NoValidRun { .. } => "— no valid run".to_owned(),
            Missing::AppFailed { stage } => format!("failed: {stage}"),
            Missing::NotRun => "not run".to_owned(),
            Missing::NotMeasured => "— not measured".to_owned(),
        }
    }

    /// With the reason, for the main table.
    pub fn long(&self) -> String {
        match self {
            Missing::NoValidRun { runs, reasons } => {
                format!("— {runs}/{runs} runs invalid: {}", reasons.join("; "))
            }
            other => other.short(),
        }
    }
}

/// A route with at least one valid run, so each of its medians exists.
#[derive(Debug, Clone, Copy)]
pub struct Measured<'a>(&'a RouteResult);

impl Measured<'_> {
    pub fn spread(&self, pick: impl Fn(&Run) -> f64) -> Spread {
        Spread::of(self.0, pick).expect("a measured route has a valid run")
    }

    pub fn median(&self, pick: impl Fn(&Run) -> f64) -> f64 {
        self.spread(pick).median
    }
}

/// `app`'s route named `route` when at least one of its runs is valid.
pub fn route<'a>(app: &'a AppResult, route: &str) -> Result<Measured<'a>, Missing<'a>> {
    match app.routes.iter().find(|r| r.route == route) {
        Some(result) if result.valid_runs().next().is_some() => Ok(Measured(result)),
        Some(result) if !result.runs.is_empty() => Err(Missing::NoValidRun {
            runs: result.runs.len(),
            reasons: distinct_reasons(&result.runs),
        }),
        _ => Err(not_measured(app)),
    }
}

/// The first run of the home page, during which the runner samples the app's RSS (SPEC §5),
/// valid or not: memory is measured either way.
pub fn first_home_run(app: &AppResult) -> Result<&Run, Missing<'_>> {
    app.routes
        .iter()
        .find(|r| r.route == "home")
        .and_then(|r| r.runs.iter().min_by_key(|run| run.index))
        .ok_or_else(|| not_measured(app))
}

fn not_measured(app: &AppResult) -> Missing<'_> {
    match &app.status {
        AppStatus::Failed { stage, .. } => Missing::AppFailed { stage },
        AppStatus::Pending => Missing::NotRun,
        AppStatus::Ok => Missing::NotMeasured,
    }
}

fn distinct_reasons(runs: &[Run]) -> Vec<&str> {
    let mut reasons: Vec<&str> = Vec::new();
    for run in runs.iter().filter(|r| !r.valid) {
        let reason = run
            .invalid_reason
            .as_deref()
            .unwrap_or("no reason recorded");
        if !reasons.contains(&reason) {
            reasons.push(reason);
        }
    }
    reasons
}

/// One number over a route's valid runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub valid: usize,
    pub runs: usize,
}

impl Spread {
    fn of(route: &RouteResult, pick: impl Fn(&Run) -> f64) -> Option<Spread> {
        let values = || route.valid_runs().map(&pick);
        let (median, valid) = median(values())?;
        Some(Spread {
            median,
            min: values().fold(f64::INFINITY, f64::min),
            max: values().fold(f64::NEG_INFINITY, f64::max),
            valid,
            runs: route.runs.len(),
        })
    }
}
