//! Each cell's number, taken from the part that measured the app with the functions its own
//! report uses, or the reason there is none.

use super::Cell;
use super::sources::{Loaded, Measures, Sources, find};
use crate::report::line_chart::tick;
use crate::report::numbers;
use crate::report::outcome::{self, Missing, Summary};
use crate::results::faults::{AppFaults, FaultsRun};
use crate::results::idioms::{AppIdioms, Idioms, Measurement};
use crate::results::scoreboard::PartKind;
use crate::results::sweep::{AppSweep, Sweep};
use crate::results::{AppResult, AppStatus, Batch};
use crate::stack::apps::GO;
use crate::statistics::RatioInterval;

/// An app's results in the part that measured it.
pub(super) struct Found<'p, T, A> {
    pub from: &'p Loaded<'p, T>,
    pub results: &'p T,
    pub app: &'p A,
}

impl<T, A> Found<'_, T, A> {
    /// `text`, linked to the part's report.
    pub fn cell(&self, text: impl Into<String>) -> Cell {
        Cell::linked(text, self.from.report())
    }
}

/// `app`'s entry, picked by `pick`, in the part of `parts` that measured it ([`find`]).
fn found<'p, T: Measures, A>(
    parts: &'p [Loaded<'p, T>],
    app: &str,
    pick: impl Fn(&'p T) -> Option<&'p A>,
) -> Result<Found<'p, T, A>, String> {
    let (from, results) = find(parts, app)?;
    let app = pick(results).expect("find returns results that measure the app");
    Ok(Found { from, results, app })
}

pub(super) fn batch_app<'p>(
    sources: &'p Sources,
    app: &str,
) -> Result<Found<'p, Batch, AppResult>, String> {
    found(&sources.batches, app, |b: &Batch| {
        b.apps.iter().find(|a| a.name == app)
    })
}

pub(super) fn sweep_app<'p>(
    sources: &'p Sources,
    app: &str,
) -> Result<Found<'p, Sweep, AppSweep>, String> {
    found(&sources.sweeps, app, |s: &Sweep| {
        s.apps.iter().find(|a| a.label == app)
    })
}

pub(super) fn faults_app<'p>(
    sources: &'p Sources,
    app: &str,
) -> Result<Found<'p, FaultsRun, AppFaults>, String> {
    found(&sources.faults, app, |f: &FaultsRun| {
        f.apps.iter().find(|a| a.label == app)
    })
}

pub(super) fn idioms_app<'p>(
    sources: &'p Sources,
    app: &str,
) -> Result<Found<'p, Idioms, AppIdioms>, String> {
    found(&sources.idioms, app, |i: &Idioms| {
        i.apps.iter().find(|a| a.name == app)
    })
}

/// Why an app's route has no number in its batch.
pub(super) fn missing_text(missing: &Missing, long: bool) -> String {
    match missing {
        Missing::NotRun => "not run: the batch ended before it".to_owned(),
        Missing::NotMeasured => "not measured: not among its batch's routes".to_owned(),
        other if long => other.long(),
        other => other.short(),
    }
}

/// Why an app of a batch has no run at all.
fn without_runs(app: &AppResult) -> String {
    match &app.status {
        AppStatus::Failed { stage, .. } => format!("failed: {stage}"),
        AppStatus::Pending => missing_text(&Missing::NotRun, false),
        AppStatus::Ok => "not measured: no run".to_owned(),
    }
}

/// An app's ratio to its paired Go runs on a route (docs/spec.md §5.7).
pub(super) struct Ratio {
    pub summary: Summary,
    /// The geometric mean of the rounds' ratios and its 95 % interval; `None` over one round.
    pub interval: Option<RatioInterval>,
    /// The batch report's: ‡ service-bound, § stolen.
    pub marks: String,
}

impl Ratio {
    pub fn of<'b>(app: &'b AppResult, route: &str) -> Result<Ratio, Missing<'b>> {
        let summary = outcome::ratio_to_go(app, route)?;
        let measured = outcome::route(app, route)?;
        let interval = app
            .routes
            .iter()
            .find(|r| r.route == route)
            .and_then(|r| RatioInterval::of(&r.ratios_to_pacer()));
        let marks = [
            (measured.mostly_service_bound(), " ‡"),
            (measured.any_run_stolen(), " §"),
        ]
        .into_iter()
        .filter_map(|(marked, mark)| marked.then_some(mark))
        .collect();
        Ok(Ratio {
            summary,
            interval,
            marks,
        })
    }

    /// `1.42× (1.30–1.55)`.
    pub fn short(&self) -> String {
        match &self.interval {
            Some(i) => format!(
                "{} ({:.2}–{:.2}){}",
                numbers::times(i.geometric_mean),
                i.low,
                i.high,
                self.marks
            ),
            None => {
                let rounds = match self.summary.valid {
                    1 => "1 round".to_owned(),
                    n => format!("{n} rounds"),
                };
                format!(
                    "{} ({rounds}, no interval){}",
                    numbers::times(self.summary.median),
                    self.marks
                )
            }
        }
    }
}

/// Go's cells in the ratio columns: every ratio is to it.
pub(super) const REFERENCE: &str = "1× (the reference)";

/// An app's ratio to Go on `route` in its batch, as `short` or the reason there is none.
pub(super) fn throughput(sources: &Sources, app: &str, route: &str) -> Cell {
    if app == GO {
        return Cell::plain(REFERENCE);
    }
    ratio_cell(sources, app, route)
}

/// Go's own ratio to its pacer on `route`: the A/A spread, the method's noise floor.
pub(super) fn noise_floor(sources: &Sources, route: &str) -> Cell {
    ratio_cell(sources, GO, route)
}

fn ratio_cell(sources: &Sources, app: &str, route: &str) -> Cell {
    batch_app(sources, app).map_or_else(Cell::plain, |found| {
        found.cell(Ratio::of(found.app, route).map_or_else(
            |missing| missing_text(&missing, false),
            |ratio| ratio.short(),
        ))
    })
}

/// The routes on which `app`'s interval of its ratio to Go excludes 1, each as
/// `leads Go on detail: 1.31× (1.13–1.53)`.
pub(super) fn resolved(sources: &Sources, app: &str, routes: &[String]) -> Vec<String> {
    let Ok(found) = batch_app(sources, app) else {
        return Vec::new();
    };
    routes
        .iter()
        .filter_map(|route| {
            let ratio = Ratio::of(found.app, route).ok()?;
            let interval = ratio.interval?;
            let side = match (interval.low > 1.0, interval.high < 1.0) {
                (true, _) => "leads",
                (_, true) => "trails",
                _ => return None,
            };
            Some(format!("{side} Go on {route}: {}", ratio.short()))
        })
        .collect()
}

/// `412 (closed loop's load)`: app CPU ÷ req/s, the median of the batch's valid runs.
pub(super) fn closed_loop_cpu(sources: &Sources, app: &str, route: &str) -> Result<Cell, String> {
    let found = batch_app(sources, app)?;
    let measured = outcome::route(found.app, route).map_err(|m| missing_text(&m, false))?;
    let cost = measured.median(|run| run.app_cpu_percent / 100.0 * 1e6 / run.requests_per_sec);
    Ok(found.cell(format!("{cost:.0} (closed loop's load)")))
}

/// The most resident memory the app's process tree had in any of its batch runs, MiB.
pub(super) fn rss_under_load(sources: &Sources, app: &str) -> Cell {
    batch_app(sources, app).map_or_else(Cell::plain, |found| {
        let runs = found.app.routes.iter().flat_map(|route| &route.runs);
        let peak = runs.map(|run| run.app_rss_max_mib).reduce(f64::max);
        found.cell(peak.map_or_else(|| without_runs(found.app), numbers::mib))
    })
}

/// `survived; 7/7 faults clean; 0 lost`: whether the process lived through every fault, how
/// many faults broke no rule, and what the app lost by itself (requests failed once the
/// service was back, comments answered 303 and not stored).
pub(super) fn faults(sources: &Sources, app: &str) -> Cell {
    faults_app(sources, app).map_or_else(Cell::plain, |found| found.cell(faults_text(found.app)))
}

fn faults_text(app: &AppFaults) -> String {
    if let Some(error) = &app.error
        && app.faults.is_empty()
    {
        return format!("failed: {error}");
    }
    let clean = app.faults.iter().filter(|f| f.problems.is_empty()).count();
    let lost: u64 = app
        .faults
        .iter()
        .map(|f| f.failed_after + f.comments_lost.unwrap_or(0))
        .sum();
    let survived = if app.survived { "survived" } else { "died" };
    format!(
        "{survived}; {clean}/{} faults clean; {lost} lost",
        app.faults.len()
    )
}

/// One figure of an app's faults run, or why the app has none.
pub(super) fn fault_figure(
    sources: &Sources,
    app: &str,
    figure: impl Fn(&AppFaults) -> String,
) -> Cell {
    faults_app(sources, app).map_or_else(Cell::plain, |found| match &found.app.error {
        Some(error) if found.app.faults.is_empty() => found.cell(format!("failed: {error}")),
        _ => found.cell(figure(found.app)),
    })
}

/// One figure of an app's idioms page, or why the app has none.
pub(super) fn idioms_figure(
    sources: &Sources,
    app: &str,
    figure: impl Fn(&AppIdioms) -> String,
) -> Cell {
    idioms_app(sources, app).map_or_else(Cell::plain, |found| found.cell(figure(found.app)))
}

pub(super) fn lines_of_code(app: &AppIdioms) -> String {
    app.code_size.cell(|size| numbers::count(size.own.code))
}

pub(super) fn packages(app: &AppIdioms) -> String {
    app.packages
        .cell(|packages| numbers::count(packages.third_party().count() as u64))
}

/// Seconds: the app's share of a cold workspace build, or for an app started by a command,
/// its install.
pub(super) fn cold_build(app: &AppIdioms) -> String {
    match (&app.cold_compile, &app.install) {
        (Measurement::Measured(compile), _) => format!("{:.1}", compile.secs),
        (_, Measurement::Measured(install)) => format!("{:.1} (install)", install.secs),
        (compile, _) => compile.reason().unwrap_or_default(),
    }
}

/// Process start to the first 200, median, ms.
pub(super) fn start_up(app: &AppIdioms) -> String {
    app.start_up.cell(|start_up| {
        start_up
            .median_ms()
            .map_or_else(|| "— no run".to_owned(), |ms| format!("{ms:.0}"))
    })
}

/// The process tree's RSS just after start-up, median, MiB.
pub(super) fn idle_rss(app: &AppIdioms) -> String {
    app.start_up.cell(|start_up| {
        start_up
            .median_idle_rss_mib()
            .map_or_else(|| "— no run".to_owned(), numbers::mib)
    })
}

/// `deviation: pool acquire timeout; HEAD`: the settings the app's manifest says it could
/// not level (each in full on its card).
pub(super) fn deviations(sources: &Sources, app: &str) -> Cell {
    batch_app(sources, app).map_or_else(Cell::plain, |found| {
        let settings: Vec<&str> = found
            .app
            .deviations
            .iter()
            .map(|(setting, _, _)| setting.as_str())
            .collect();
        found.cell(match settings.is_empty() {
            true => "none declared".to_owned(),
            false => format!("deviation: {}", settings.join("; ")),
        })
    })
}

/// Reads that lacked their connection's last comment, over the app's runs on `route`.
pub(super) fn stale_reads(sources: &Sources, app: &str, route: &str) -> Cell {
    batch_app(sources, app).map_or_else(Cell::plain, |found| {
        let text = match outcome::route(found.app, route) {
            Err(missing) => missing_text(&missing, false),
            Ok(_) => {
                let runs = found.app.routes.iter().filter(|r| r.route == route);
                let counted: Vec<u64> = runs
                    .flat_map(|r| &r.runs)
                    .filter_map(|run| run.stale_reads)
                    .collect();
                match counted.is_empty() {
                    true => "not recorded in this batch".to_owned(),
                    false => numbers::count(counted.iter().sum()),
                }
            }
        };
        found.cell(text)
    })
}

/// Why the scoreboard has no round trips yet; `None` once it counted them.
pub(super) fn round_trips_missing(sources: &Sources) -> Option<String> {
    let part = sources
        .scoreboard
        .parts
        .iter()
        .find(|part| part.kind == PartKind::RoundTrips);
    match part {
        None => Some("not run: no round-trips part in the plan".to_owned()),
        Some(part) => super::sources::missing(part),
    }
}

/// `4 (3 statements)`: the round trips the scoreboard counted for one page of an app.
pub(super) fn round_trips(sources: &Sources, app: &str, page: &str) -> Cell {
    if let Some(why) = round_trips_missing(sources) {
        return Cell::plain(why);
    }
    let counted = sources
        .scoreboard
        .round_trips
        .iter()
        .find(|count| count.app == app && count.page == page);
    Cell::plain(counted.map_or_else(
        || "not measured: no count for this page".to_owned(),
        |count| {
            format!(
                "{} ({} statements)",
                tick(count.round_trips),
                tick(count.statements)
            )
        },
    ))
}
