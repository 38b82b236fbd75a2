//! What the report can say about one app's route: the numbers of its valid runs, or why
//! there are none. Every table and chart goes through here, so none prints a number that
//! no valid run backs.

use crate::results::{AppResult, AppStatus, RouteResult, Run, median};

/// Why a route of an app has no number.
#[derive(Debug, Clone, PartialEq)]
pub enum Missing<'a> {
    /// Runs were made and none counted (docs/spec.md §5 admission).
    NoValidRun { runs: usize, reasons: Vec<&'a str> },
    /// The app's runs counted, but in no round did the paired Go run count too.
    NoPairedGoRun {
        go_runs: usize,
        reasons: Vec<&'a str>,
    },
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
            Missing::NoPairedGoRun { .. } => "— no valid paired Go run".to_owned(),
            Missing::AppFailed { stage } => format!("failed: {stage}"),
            Missing::NotRun => "not run".to_owned(),
            Missing::NotMeasured => "— not measured".to_owned(),
        }
    }

    /// With the reason, for the main tables.
    pub fn long(&self) -> String {
        match self {
            Missing::NoValidRun { runs, reasons } => {
                format!("— {runs}/{runs} runs invalid: {}", reasons.join("; "))
            }
            Missing::NoPairedGoRun { go_runs: 0, .. } => {
                "— no Go run was paired with it".to_owned()
            }
            Missing::NoPairedGoRun { reasons, .. } if reasons.is_empty() => {
                "— no round in which both runs counted".to_owned()
            }
            Missing::NoPairedGoRun { reasons, .. } => format!(
                "— no round in which both runs counted; Go runs invalid: {}",
                reasons.join("; ")
            ),
            other => other.short(),
        }
    }
}

/// A route with at least one valid run, so each of its medians exists.
#[derive(Debug, Clone, Copy)]
pub struct Measured<'a>(&'a RouteResult);

impl Measured<'_> {
    pub fn summary(&self, pick: impl Fn(&Run) -> f64) -> Summary {
        Summary::of(self.0.valid_runs().map(pick), self.0.runs.len())
            .expect("a measured route has a valid run")
    }

    pub fn median(&self, pick: impl Fn(&Run) -> f64) -> f64 {
        self.summary(pick).median
    }

    /// A valid run of the app's or of its paired Go runs lost more than the mark to steal
    /// (docs/spec.md §5.6).
    pub fn any_run_stolen(&self) -> bool {
        self.0
            .valid_runs()
            .chain(self.0.pacer_runs.iter().filter(|r| r.valid))
            .any(|run| run.cpu_busy.is_some_and(|busy| busy.stolen()))
    }

    /// More than half of the valid runs were service-bound ([`Run::service_bound`]).
    pub fn mostly_service_bound(&self) -> bool {
        let valid: Vec<&Run> = self.0.valid_runs().collect();
        valid.iter().filter(|r| r.service_bound()).count() * 2 > valid.len()
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

/// App req/s ÷ paired Go req/s over the rounds in which both runs counted (docs/spec.md §5.7);
/// `runs` of the summary is the app's runs on the route.
pub fn ratio_to_go<'a>(app: &'a AppResult, route: &str) -> Result<Summary, Missing<'a>> {
    let measured = self::route(app, route)?;
    let ratios = measured.0.ratios_to_pacer();
    Summary::of(ratios, measured.0.runs.len()).ok_or_else(|| Missing::NoPairedGoRun {
        go_runs: measured.0.pacer_runs.len(),
        reasons: distinct_reasons(&measured.0.pacer_runs),
    })
}

/// The first run of the home page, during which the runner samples the app's RSS (docs/spec.md §5),
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

/// One number over a set of valid runs: median, min and max.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// How many values the summary is over.
    pub valid: usize,
    /// How many runs were made, counted or not.
    pub runs: usize,
}

impl Summary {
    /// `None` without a value.
    pub fn of(values: impl IntoIterator<Item = f64>, runs: usize) -> Option<Summary> {
        let values: Vec<f64> = values.into_iter().collect();
        let (median, valid) = median(values.iter().copied())?;
        Some(Summary {
            median,
            min: values.iter().copied().fold(f64::INFINITY, f64::min),
            max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            valid,
            runs,
        })
    }

    /// docs/spec.md §5.1's spread: (max − min) / median.
    pub fn spread(&self) -> f64 {
        if self.median > 0.0 {
            (self.max - self.min) / self.median
        } else {
            0.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_and_spread() {
        let a = Summary::of([90.0, 110.0, 100.0], 3).unwrap();
        assert_eq!((a.median, a.min, a.max, a.valid), (100.0, 90.0, 110.0, 3));
        assert!((a.spread() - 0.2).abs() < 1e-12);
        assert_eq!(Summary::of([], 3), None);
    }
}
