//! The sweep's cells: each app's max rate under the latency objective, its p99 and CPU cost at
//! a common rate, the machine's floor, as the sweep report computes them.

use super::Cell;
use super::cells::{Found, closed_loop_cpu, sweep_app};
use super::sources::Sources;
use crate::report::numbers;
use crate::report::sweep::{rung_marks, same_fraction};
use crate::results::median;
use crate::results::sweep::{AppSweep, Floor, Ladder, RatePoint, RouteSweep, Rung, Sweep};
use crate::stack::apps::GO;
use crate::statistics::RatioInterval;

/// The route of a sweep's app, or why it has none.
fn swept_route<'b>(app: &'b AppSweep, route: &str) -> Result<&'b RouteSweep, String> {
    let measured = app.routes.iter().find(|r| r.route == route);
    match (measured, &app.error) {
        (Some(measured), _) if !measured.rungs().is_empty() => Ok(measured),
        (Some(measured), _) if !measured.closed_loop_counted() => {
            Err("no rate run: its closed-loop max did not count".to_owned())
        }
        (_, Some(error)) => Err(format!("failed: {error}")),
        _ => Err(format!("not measured: the sweep did not run {route}")),
    }
}

/// `≥ 5,500 ‡ (1.2× Go; CI 5,100–6,000)`: the highest rate sustained in more than half of the
/// rounds, marked (and a floor, ≥) as the sweep report marks it, against Go's in the same
/// sweep, with the 95 % interval of the rounds' own maxima.
pub(super) fn max_rate(sources: &Sources, app: &str, route: &str) -> Cell {
    sweep_app(sources, app).map_or_else(Cell::plain, |found| {
        found.cell(max_rate_text(found.results, found.app, route).unwrap_or_else(|why| why))
    })
}

fn max_rate_text(sweep: &Sweep, app: &AppSweep, route: &str) -> Result<String, String> {
    let measured = swept_route(app, route)?;
    let rounds = sweep.settings.rounds;
    let marks = measured
        .rung_that_set_the_max(rounds)
        .map_or_else(String::new, |rung| {
            rung_marks(&rung, sweep.machine_bound_from(route))
        });
    let Some(max) = measured.max_sustainable(rounds) else {
        return Ok(format!("none sustained{marks}"));
    };
    let mut notes = Vec::new();
    let go_max = sweep
        .apps
        .iter()
        .find(|go| go.label == GO && go.label != app.label)
        .and_then(|go| swept_route(go, route).ok())
        .and_then(|go| go.max_sustainable(rounds))
        .filter(|go_max| *go_max > 0.0);
    if let Some(go_max) = go_max {
        notes.push(format!("{} Go", numbers::rough_times(max / go_max)));
    }
    let maxima: Vec<f64> = measured
        .max_sustainable_by_round(rounds)
        .into_iter()
        .flatten()
        .collect();
    // Rounds that all found the same rate have no spread to show, as in the sweep report.
    if let Some(interval) = RatioInterval::of(&maxima).filter(|i| i.relative_half_width() > 1e-9) {
        notes.push(format!(
            "CI {}–{}",
            numbers::per_sec(interval.low),
            numbers::per_sec(interval.high)
        ));
    }
    let floor = if marks.is_empty() { "" } else { "≥ " };
    let notes = match notes.is_empty() {
        true => String::new(),
        false => format!(" ({})", notes.join("; ")),
    };
    Ok(format!("{floor}{}{marks}{notes}", numbers::per_sec(max)))
}

/// The route's rate at `fraction` of Go's closed-loop max, with every round's run, or why
/// there is none.
fn common_rung(route: &RouteSweep, fraction: Option<f64>) -> Result<Rung<'_>, String> {
    let fraction = fraction.ok_or(NO_COMMON_RATE)?;
    let rung = route
        .rungs()
        .into_iter()
        .find(|rung| rung.ladder == Ladder::Common && same_fraction(rung.fraction, fraction));
    rung.ok_or_else(|| not_at(fraction))
}

const NO_COMMON_RATE: &str = "not measured: no common rate every app ran";

/// The fractions of Go's max each swept app was run at on `route`, in any round, each with
/// whether the app sustained it.
fn common_fractions(sources: &Sources, route: &str) -> Vec<Vec<(f64, bool)>> {
    sources
        .apps()
        .iter()
        .filter_map(|app| sweep_app(sources, app).ok())
        .filter_map(|found| {
            let rounds = found.results.settings.rounds;
            let rungs = swept_route(found.app, route).ok()?.rungs();
            let common = rungs.iter().filter(|rung| rung.ladder == Ladder::Common);
            Some(
                common
                    .map(|rung| (rung.fraction, rung.sustained(rounds)))
                    .collect(),
            )
        })
        .collect()
}

/// The common rate the headline compares latency and cost at, as a fraction of Go's max on
/// `route`: the highest every swept app sustained, so the p99s compare apps below their
/// limits rather than their queues; when no rate was, the lowest every app was run at.
pub(super) fn common_fraction(sources: &Sources, route: &str) -> Option<f64> {
    let ladders = common_fractions(sources, route);
    let in_every = |fraction: f64, sustained: bool| {
        ladders.iter().all(|ladder| {
            (ladder.iter()).any(|(f, held)| same_fraction(*f, fraction) && (*held || !sustained))
        })
    };
    let fractions = all_fractions(sources, route);
    let sustained = fractions.iter().copied().filter(|f| in_every(*f, true));
    let run = fractions.iter().copied().filter(|f| in_every(*f, false));
    sustained
        .max_by(f64::total_cmp)
        .or(run.min_by(f64::total_cmp))
}

/// Every fraction of Go's max any swept app was run at on `route`, lowest first.
pub(super) fn all_fractions(sources: &Sources, route: &str) -> Vec<f64> {
    let mut fractions: Vec<f64> = Vec::new();
    for (fraction, _) in common_fractions(sources, route).into_iter().flatten() {
        if !fractions.iter().any(|f| same_fraction(*f, fraction)) {
            fractions.push(fraction);
        }
    }
    fractions.sort_by(f64::total_cmp);
    fractions
}

/// `8.52 (CI 7.10–10.21)`: the p99 (ms) of the rate's median round, the 95 % interval over
/// its rounds (as the sweep report's *Cost at equal load*), and its marks.
fn p99_text(rung: &Rung, machine_bound_from: Option<f64>) -> String {
    let p99s: Vec<f64> = rung.runs.iter().map(|run| run.latency_ms.p99).collect();
    let p99 = numbers::ms(rung.median_run().latency_ms.p99);
    let marks = rung_marks(rung, machine_bound_from);
    match RatioInterval::of(&p99s) {
        Some(i) => format!(
            "{p99} (CI {}–{}){marks}",
            numbers::ms(i.low),
            numbers::ms(i.high)
        ),
        None => format!("{p99}{marks}"),
    }
}

fn not_at(fraction: f64) -> String {
    format!("not run at {fraction}× Go's max: its ladder stopped lower")
}

/// The app's p99 on `route` at `fraction` of Go's max.
pub(super) fn p99_at(sources: &Sources, app: &str, route: &str, fraction: Option<f64>) -> Cell {
    sweep_app(sources, app).map_or_else(Cell::plain, |found| {
        let text = swept_route(found.app, route).and_then(|swept| {
            let rung = common_rung(swept, fraction)?;
            Ok(p99_text(&rung, found.results.machine_bound_from(route)))
        });
        found.cell(text.unwrap_or_else(|why| why))
    })
}

/// The machine's floor on `route` from the first measured sweep that has one.
fn floor<'p>(sources: &'p Sources, route: &str) -> Result<Found<'p, Sweep, Floor>, String> {
    let measured = sources
        .sweeps
        .iter()
        .filter_map(|loaded| Some((loaded, loaded.results.as_ref().ok()?)));
    let found = measured.clone().find_map(|(from, results)| {
        let app = results.floor.iter().find(|floor| floor.route == route)?;
        Some(Found { from, results, app })
    });
    match (found, measured.count(), sources.sweeps.first()) {
        (Some(found), _, _) => Ok(found),
        (None, 0, Some(first)) => Err(first.results.as_ref().err().cloned().unwrap_or_default()),
        (None, 0, None) => Err("not run: no sweep part in the plan".to_owned()),
        (None, _, _) => Err(format!(
            "not measured: no sweep measured the floor on {route}"
        )),
    }
}

/// The rate from which the machine's floor, a static server in the app's place, no longer
/// held the SLO: no app's max above it is the app's alone.
pub(super) fn floor_max_rate(sources: &Sources, route: &str) -> Cell {
    floor(sources, route).map_or_else(Cell::plain, |found| {
        let text = match found.app.machine_bound_from(found.results.settings.rounds) {
            Some(from) => format!("machine-bound from {}", numbers::per_sec(from)),
            None => {
                let rungs = found.app.rungs();
                let highest = rungs.iter().map(|r| r.target_per_sec).fold(0.0, f64::max);
                format!("held every rate, up to {}", numbers::per_sec(highest))
            }
        };
        found.cell(text)
    })
}

/// The machine floor's p99 at `fraction` of Go's max.
pub(super) fn floor_p99_at(sources: &Sources, route: &str, fraction: Option<f64>) -> Cell {
    floor(sources, route).map_or_else(Cell::plain, |found| {
        let Some(fraction) = fraction else {
            return Cell::plain(NO_COMMON_RATE);
        };
        let rungs = found.app.rungs();
        let rung = rungs
            .iter()
            .find(|rung| same_fraction(rung.fraction, fraction));
        found.cell(rung.map_or_else(|| not_at(fraction), |rung| p99_text(rung, None)))
    })
}

/// The median CPU µs per request over the rate's rounds that answered something (a run that
/// answered nothing has no cost per request, as in the sweep report).
fn median_cost(rung: &Rung, cost: impl Fn(&RatePoint) -> Option<f64>) -> Option<f64> {
    let costs = rung.runs.iter().filter(|run| run.completed > 0);
    median(costs.filter_map(|run| cost(run))).map(|(m, _)| m)
}

/// App / PostgreSQL / Redis CPU µs per request at `fraction` of Go's max (equal load).
pub(super) fn costs_at(sources: &Sources, app: &str, route: &str, fraction: Option<f64>) -> Cell {
    sweep_app(sources, app).map_or_else(Cell::plain, |found| {
        let text = swept_route(found.app, route).and_then(|swept| {
            let rung = common_rung(swept, fraction)?;
            let picks: [fn(&RatePoint) -> Option<f64>; 3] = [
                |run| run.app_cpu_us_per_request,
                |run| run.postgres_cpu_us_per_request,
                |run| run.redis_cpu_us_per_request,
            ];
            let each: Vec<String> = picks
                .into_iter()
                .map(|pick| {
                    median_cost(&rung, pick)
                        .map_or_else(|| "not recorded".to_owned(), |cost| format!("{cost:.0}"))
                })
                .collect();
            Ok(each.join(" / "))
        });
        found.cell(text.unwrap_or_else(|why| why))
    })
}

/// The app's CPU µs per request: at `fraction` of Go's max on `route` in its sweep (equal
/// load) when recorded there, else in its batch's closed loop on `route`.
pub(super) fn cpu(sources: &Sources, app: &str, route: &str, fraction: Option<f64>) -> Cell {
    let open_loop = || -> Result<Cell, String> {
        let found = sweep_app(sources, app)?;
        let rung = common_rung(swept_route(found.app, route)?, fraction)?;
        let cost = median_cost(&rung, |run| run.app_cpu_us_per_request)
            .ok_or_else(|| "not recorded at equal load".to_owned())?;
        Ok(found.cell(format!("{cost:.0}")))
    };
    open_loop()
        .unwrap_or_else(|why| closed_loop_cpu(sources, app, route).unwrap_or(Cell::plain(why)))
}

/// The app's RSS at rest in its sweep, after start-up and before any measured load, MiB.
pub(super) fn idle_rss_sweep(sources: &Sources, app: &str) -> Cell {
    sweep_app(sources, app).map_or_else(Cell::plain, |found| {
        found.cell(found.app.idle_rss_mib.map_or_else(
            || match &found.app.error {
                Some(error) => format!("failed: {error}"),
                None => "not recorded in this sweep".to_owned(),
            },
            numbers::mib,
        ))
    })
}
