//! The report's ratios to Go and what they support: the ratio table, the verdicts and their
//! letters ("In short"), the A/A check, the machine's drift and its steal time.

use super::markdown::{Table, escape};
use super::numbers;
use super::outcome::{self, Summary};
use super::routes::{self, Group};
use super::verdicts::{NullCheck, Ranked, RouteVerdicts};
use crate::results::sweep::{SERVICE_BOUND_BUSY, STEAL_MARK, Taken};
use crate::results::{AppResult, Batch, Run};
use crate::statistics::{self, RatioInterval, Verdict};

/// The app that pairs with the pacer, the same program: its ratio is the noise floor.
pub(super) fn is_go_reference(batch: &Batch, app: &AppResult) -> bool {
    let reference = batch.pacer.as_ref().map_or("go", |p| p.app.as_str());
    app.name == reference
}

/// `2.00× (1.90–2.10; CI 1.75–2.28)`: the median, the rounds' range and the 95 % confidence
/// interval of the geometric mean, with the rounds counted when not all of them paired or
/// when the batch asked for a `precision`, and whether the interval reached it.
pub(super) fn ratio_cell(
    ratio: &Summary,
    interval: Option<&RatioInterval>,
    precision: Option<f64>,
) -> String {
    let mut notes = Vec::new();
    if ratio.valid > 1 {
        notes.push(format!("{:.2}–{:.2}", ratio.min, ratio.max));
    }
    if let Some(interval) = interval {
        notes.push(format!("CI {:.2}–{:.2}", interval.low, interval.high));
    }
    if ratio.valid < ratio.runs {
        notes.push(format!("{}/{} rounds", ratio.valid, ratio.runs));
    } else if ratio.valid == 1 {
        notes.push("1 round".to_owned());
    } else if precision.is_some() {
        notes.push(format!("{} rounds", ratio.valid));
    }
    if let Some(precision) = precision
        && !interval.is_some_and(|i| i.relative_half_width() <= precision)
    {
        notes.push(format!("not within ±{}", numbers::percent(precision)));
    }
    format!("{} ({})", numbers::times(ratio.median), notes.join("; "))
}

pub(super) fn ratio_to_go(batch: &Batch, columns: &[String]) -> String {
    let mut table =
        Table::new(std::iter::once("app").chain(columns.iter().map(String::as_str))).numbers(1..);
    for app in &batch.apps {
        let name = if is_go_reference(batch, app) {
            format!("{} (noise floor)", app.name)
        } else {
            app.name.clone()
        };
        let mut row = vec![name];
        row.extend(columns.iter().map(|route| {
            let service_bound = outcome::route(app, route).is_ok_and(|m| m.mostly_service_bound());
            let stolen = outcome::route(app, route).is_ok_and(|m| m.any_run_stolen());
            outcome::ratio_to_go(app, route).map_or_else(
                |missing| missing.long(),
                |ratio| {
                    let interval = app
                        .routes
                        .iter()
                        .find(|r| &r.route == route)
                        .and_then(|r| RatioInterval::of(&r.ratios_to_pacer()));
                    let cell = ratio_cell(&ratio, interval.as_ref(), batch.settings.precision);
                    let marks = [(service_bound, " ‡"), (stolen, " §")]
                        .into_iter()
                        .filter_map(|(marked, mark)| marked.then_some(mark))
                        .collect::<String>();
                    format!("{cell}{marks}")
                },
            )
        }));
        table.row(row);
    }
    let precision = match (batch.settings.precision, batch.settings.max_rounds) {
        (Some(precision), Some(max_rounds)) => {
            let band = numbers::percent(precision);
            let revisited = match batch.settings.precision_every_app {
                true => format!(
                    "the routes where some app's interval was wider than ±{band}, every app \
                     running them"
                ),
                false => format!("only the app/route cells whose interval was wider than ±{band}"),
            };
            format!(
                " After {} rounds, rounds went on for {revisited}, up to {max_rounds}: each \
                 cell says how many rounds it took, and \"not within\" where its interval \
                 never got that narrow.",
                batch.settings.rounds,
            )
        }
        _ => String::new(),
    };
    let (started, warmup, without_pacer) = match &batch.pacer {
        Some(pacer) => (
            match pacer.per_visit {
                true => "started afresh with each visit as the app is",
                false => "started once per batch",
            },
            format!(" after its own {} s warm-up", pacer.warmup_secs),
            "",
        ),
        None => (
            "",
            String::new(),
            " This batch ran without the pacer, so no cell has a ratio.",
        ),
    };
    format!(
        "## Ratio to Go\n\n\
         Each app run was paired with a run of the Go reference on the same route, seconds \
         before or after it and on the same CPUs: the pacer, a second Go process {started}, \
         idle while the app is loaded, and run for as long as the app{warmup}. A \
         cell is app req/s ÷ Go req/s, the median over the rounds in which both runs counted, \
         then the min–max of those rounds' ratios, then the 95 % confidence interval of their \
         geometric mean (CI, docs/spec.md §5.12; none over a single round). Whatever drifts \
         between rounds moves both runs of a pair, so it cancels in the ratio. Above 1.00× the app served more requests per second than Go. The Go \
         reference's own row pairs two identical programs: its distance from 1.00× is the \
         method's noise floor. ‡: most of the app's valid runs had the CPUs PostgreSQL, Redis \
         and the load generator share at least {busy} busy, so those set the pace of the \
         pair, not only the app. §: in at least one of the cell's runs, the app's or Go's, the \
         hypervisor stole more than {steal} of a CPU set's time.{precision}{without_pacer}\n\n{}",
        table.to_markdown(),
        busy = numbers::share(SERVICE_BOUND_BUSY),
        steal = numbers::percent(STEAL_MARK),
    )
}

/// One paragraph per route group: per route, the apps with their letters (docs/spec.md
/// §5.12), every route's pairs judged together.
pub(super) fn summaries(columns: &[String], verdicts: &[RouteVerdicts]) -> String {
    let paragraphs: Vec<String> = Group::ALL
        .into_iter()
        .filter_map(|group| {
            let group_routes = routes::in_group(columns, group);
            let sentences: Vec<String> = verdicts
                .iter()
                .filter(|v| group_routes.iter().any(|r| r == v.route))
                .map(route_summary)
                .collect();
            (!sentences.is_empty())
                .then(|| format!("**{}.** {}", group.title(), sentences.join(" ")))
        })
        .collect();
    format!("## In short\n\n{}\n\n{}\n", rule(), paragraphs.join("\n\n"))
}

/// How the verdicts are reached and read, for the report's *In short* and the scoreboard.
pub(super) fn rule() -> String {
    format!(
        "Per route, the apps by ratio to Go, highest first (the geometric mean of the rounds' \
         ratios, with its 95 % confidence interval), each with letters: two apps that share a \
         letter are not told apart, two that share none are. Two apps are compared over the \
         rounds both have, on the logarithm of their ratio per round: the paired t-test, told \
         apart when it is a discovery at a {fdr} false discovery rate over all of this batch's \
         comparisons (Benjamini–Hochberg), which is when the interval of their ratio at the \
         confidence those discoveries leave (Benjamini–Yekutieli) lies wholly on one side of \
         1; they tie when its 95 % interval lies within ±{band}. Under {min} common rounds no \
         verdict is made (docs/spec.md §5.12).",
        fdr = numbers::share(statistics::FALSE_DISCOVERY_RATE),
        band = numbers::share(statistics::TIE_BAND),
        min = statistics::MIN_ROUNDS,
    )
}

/// For a batch of Go and its twins only: how often the method found a difference where
/// there is none.
pub(super) fn null_check(batch: &Batch, verdicts: &[RouteVerdicts]) -> String {
    let Some(check) = NullCheck::of(batch, verdicts) else {
        return String::new();
    };
    let share = |count: usize, of: usize| match of {
        0 => "—".to_owned(),
        _ => numbers::percent(count as f64 / of as f64),
    };
    format!(
        "## The A/A check\n\n\
         Every app of this batch is the Go reference under another label, so every difference \
         found is false (docs/spec.md §5.12). {} of {} intervals of a ratio to Go exclude 1 \
         ({}; a calibrated 95 % interval does so in 5 % of cases, more here when the pairs \
         have an order effect); {} of {} pairs were told apart ({}; the verdicts allow a \
         {} false discovery rate).\n",
        check.excluding_one,
        check.intervals,
        share(check.excluding_one, check.intervals),
        check.told_apart,
        check.pairs,
        share(check.told_apart, check.pairs),
        numbers::share(statistics::FALSE_DISCOVERY_RATE),
    )
}

pub(super) fn route_summary(verdicts: &RouteVerdicts) -> String {
    let route = escape(verdicts.route);
    let shown = |ranked: &Ranked| match &ranked.interval {
        Some(interval) => format!(
            "{} {} (CI {:.2}–{:.2})",
            escape(ranked.app),
            numbers::times(ranked.geometric_mean),
            interval.low,
            interval.high
        ),
        None => format!(
            "{} {} (1 round)",
            escape(ranked.app),
            numbers::times(ranked.geometric_mean)
        ),
    };
    let fewest = verdicts.fewest_common_rounds().unwrap_or(0);
    match verdicts.apps.as_slice() {
        [] => format!("{route}: no app has a paired round."),
        [only] => format!("{route}: only {} has a paired round.", shown(only)),
        apps if fewest < statistics::MIN_ROUNDS && verdicts.one_letter() => format!(
            "{route}: no verdict, some pairs having only {fewest} common rounds of the {} a \
             verdict needs; highest {}.",
            statistics::MIN_ROUNDS,
            shown(&apps[0]),
        ),
        apps if verdicts.one_letter() => {
            let ties = verdicts
                .judged
                .iter()
                .filter(|j| j.verdict == Verdict::Tie)
                .count();
            let ties = match ties {
                0 => String::new(),
                n => format!(" ({n} of the pairs tie)"),
            };
            format!(
                "{route}: no two of the {} apps told apart, over at least {fewest} common \
                 rounds per pair{ties}; highest {}.",
                apps.len(),
                shown(&apps[0]),
            )
        }
        apps => {
            let apps: Vec<String> = apps
                .iter()
                .map(|ranked| format!("{} [{}]", shown(ranked), ranked.letters))
                .collect();
            format!("{route}: {}.", apps.join(", "))
        }
    }
}

/// The pacer's valid runs per route, every app's together: how far the machine itself moved.
pub(super) fn drift(batch: &Batch, columns: &[String]) -> String {
    let title = "## How much the machine drifted during the batch\n\n";
    let pacer_runs = |route: &str| -> Vec<&Run> {
        batch
            .apps
            .iter()
            .flat_map(|a| &a.routes)
            .filter(|r| r.route == route)
            .flat_map(|r| &r.pacer_runs)
            .collect()
    };
    if columns.iter().all(|route| pacer_runs(route).is_empty()) {
        return format!(
            "{title}This batch recorded no paired Go runs, so its drift was not measured.\n"
        );
    }
    let mut table =
        Table::new(["route", "valid Go runs", "min", "median", "max", "spread"]).numbers(1..);
    for route in columns {
        let runs = pacer_runs(route);
        let valid = runs.iter().filter(|r| r.valid).map(|r| r.requests_per_sec);
        let count = format!(
            "{} of {}",
            runs.iter().filter(|r| r.valid).count(),
            runs.len()
        );
        let cells = match Summary::of(valid, runs.len()) {
            Some(s) => vec![
                numbers::per_sec(s.min),
                numbers::per_sec(s.median),
                numbers::per_sec(s.max),
                numbers::percent(s.spread()),
            ],
            None => vec!["— no valid Go run".to_owned(); 4],
        };
        table.row([vec![route.clone(), count], cells].concat());
    }
    format!(
        "{title}The pacer ran every route beside every app run: the same Go program on the same \
         CPUs each time, so its req/s moves only with the machine. Per route, its valid runs \
         over the whole batch (every app's pairs together), in req/s; spread = (max − min) / \
         median. The ratios above cancel this drift pair by pair; the req/s tables below do not, \
         so a difference between apps there smaller than the route's spread is not a measured \
         difference.\n\n{}\n{}\n",
        table.to_markdown(),
        steal(batch)
    )
}

/// The most steal time any run of the batch saw (docs/spec.md §5.6), and how many runs
/// passed the mark.
pub(super) fn steal(batch: &Batch) -> String {
    let taken: Vec<(&Taken, bool)> = batch
        .apps
        .iter()
        .flat_map(|app| &app.routes)
        .flat_map(|route| route.runs.iter().chain(&route.pacer_runs))
        .filter_map(|run| {
            let busy = run.cpu_busy.as_ref()?;
            Some((busy.taken.as_ref()?, busy.stolen()))
        })
        .collect();
    if taken.is_empty() {
        return "Steal time: not recorded in this batch (it predates the measurement).".to_owned();
    }
    let most = taken
        .iter()
        .map(|(t, _)| t.steal_app.max(t.steal_services_and_load))
        .fold(0.0, f64::max);
    let marked = taken.iter().filter(|(_, stolen)| *stolen).count();
    format!(
        "Steal time (the hypervisor running something else on this machine's virtual CPUs): at \
         most {} of a CPU set's time in any of the {} runs; {marked} above the {} mark (§ in \
         the ratio table).",
        numbers::percent(most),
        taken.len(),
        numbers::percent(STEAL_MARK)
    )
}
