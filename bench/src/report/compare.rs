//! Two batches side by side: req/s and p99 latency per app and route, flagged outside a
//! band, the larger of ±15 % and either batch's own spread for that app and route, so a
//! flag is worth a look. Batches measured differently are refused unless forced: their
//! numbers differ for reasons other than the code.

use super::markdown::{Table, escape};
use super::numbers;
use super::outcome::{self, Summary};
use super::routes;
use crate::results::{AppResult, Batch, Run};
use anyhow::{Result, bail};

/// The narrowest band: a relative change beyond it is flagged even for steady runs.
pub const BAND: f64 = 0.15;

#[derive(Debug)]
pub struct Comparison {
    /// How the two batches were measured differently, one line each; empty for like batches.
    pub differences: Vec<String>,
    /// The differences (when forced), then a Markdown table, readable as is in a terminal.
    pub text: String,
    /// No req/s or p99 change outside its band, and no number that appeared or vanished.
    pub within_band: bool,
}

impl Comparison {
    /// Fails, listing the differences, when the batches were measured differently and
    /// `force` is not set.
    pub fn of(before: &Batch, after: &Batch, force: bool) -> Result<Comparison> {
        let differences = differences(before, after);
        let listed: String = differences.iter().map(|d| format!("- {d}\n")).collect();
        if !differences.is_empty() && !force {
            bail!(
                "batches {} and {} were measured differently, so their numbers do not compare \
                 (--force compares them anyway):\n{listed}",
                before.header.id,
                after.header.id
            );
        }
        let forced = if differences.is_empty() {
            String::new()
        } else {
            format!(
                "The batches were measured differently; compared anyway (--force):\n\n{listed}\n"
            )
        };
        let (table, flagged) = table(before, after);
        let verdict = match flagged {
            0 => "Every change is within its band.".to_owned(),
            n => format!(
                "{n} app/route pair(s) changed by more than their band or lost or gained a \
                 number (marked !)."
            ),
        };
        Ok(Comparison {
            text: format!(
                "{forced}Batch {} (before) against batch {} (after); `!` marks a change outside \
                 its band: the larger of ±{:.0} % and the spread, (max − min) / median, of that \
                 app and route's valid runs in either batch.\n\n{table}\n{verdict}\n",
                escape(&before.header.id),
                escape(&after.header.id),
                BAND * 100.0,
            ),
            within_band: flagged == 0,
            differences,
        })
    }
}

/// What shaped the numbers and is not the same in both batches (docs/spec.md §5.11), one line each.
pub fn differences(before: &Batch, after: &Batch) -> Vec<String> {
    let (old, new) = (&before.settings, &after.settings);
    let seconds = |s: f64| format!("{s} s");
    let pacer_warmup = |b: &Batch| {
        b.pacer
            .as_ref()
            .map_or_else(|| "no pacer".to_owned(), |p| seconds(p.warmup_secs))
    };
    let pacer_started = |b: &Batch| {
        b.pacer.as_ref().map_or("no pacer", |p| match p.per_visit {
            true => "with each visit",
            false => "once per batch",
        })
    };
    let unpinned = |b: &Batch| {
        if b.cpu_sets.unpinned.is_empty() {
            "none".to_owned()
        } else {
            b.cpu_sets.unpinned.join(", ")
        }
    };
    let mode = |quick: bool| if quick { "quick" } else { "full" }.to_owned();
    let (a, b) = (&before.cpu_sets, &after.cpu_sets);
    let (m, n) = (&before.header.machine, &after.header.machine);
    [
        ("load generator", old.loadgen.clone(), new.loadgen.clone()),
        (
            "run length",
            seconds(old.duration_secs),
            seconds(new.duration_secs),
        ),
        (
            "app warm-up",
            seconds(old.warmup_secs),
            seconds(new.warmup_secs),
        ),
        ("pacer warm-up", pacer_warmup(before), pacer_warmup(after)),
        (
            "pacer started",
            pacer_started(before).to_owned(),
            pacer_started(after).to_owned(),
        ),
        (
            "connections",
            old.connections.to_string(),
            new.connections.to_string(),
        ),
        ("rounds", old.rounds.to_string(), new.rounds.to_string()),
        ("app CPUs", a.app.clone(), b.app.clone()),
        (
            "PostgreSQL and Redis CPUs",
            a.services.clone(),
            b.services.clone(),
        ),
        ("load generator CPUs", a.load.clone(), b.load.clone()),
        ("not pinned", unpinned(before), unpinned(after)),
        ("CPU model", m.cpu_model.clone(), n.cpu_model.clone()),
        ("cores", m.cores.to_string(), n.cores.to_string()),
        ("mode", mode(old.quick), mode(new.quick)),
    ]
    .into_iter()
    .filter(|(_, old, new)| old != new)
    .map(|(what, old, new)| format!("{what}: {old} (before) → {new} (after)"))
    .collect()
}

/// The table of changes and how many app/route pairs it flags.
fn table(before: &Batch, after: &Batch) -> (String, usize) {
    let before_routes = routes::columns(before);
    let after_routes = routes::columns(after);
    let all_routes = routes::in_order(before_routes.iter().chain(&after_routes));
    let mut names: Vec<&str> = after.apps.iter().map(|a| a.name.as_str()).collect();
    for app in &before.apps {
        if !names.contains(&app.name.as_str()) {
            names.push(&app.name);
        }
    }

    let mut table = Table::new([
        "app",
        "route",
        "req/s before → after",
        "change",
        "band",
        "p99 ms before → after",
        "change",
        "band",
    ])
    .numbers(2..);
    let mut flagged = 0;
    let only_in = |name: &str, route: &str, which: &str| {
        let mut row = vec![name.to_owned(), route.to_owned(), which.to_owned()];
        row.resize(8, String::new());
        row
    };
    for name in names {
        let (old, new) = match (find_app(before, name), find_app(after, name)) {
            (Some(old), Some(new)) => (old, new),
            (old, _) => {
                let which = if old.is_some() {
                    "only in before"
                } else {
                    "only in after"
                };
                table.row(only_in(name, "all", which));
                continue;
            }
        };
        for route in &all_routes {
            let which = match (before_routes.contains(route), after_routes.contains(route)) {
                (true, true) => None,
                (true, false) => Some("only in before"),
                _ => Some("only in after"),
            };
            if let Some(which) = which {
                table.row(only_in(name, route, which));
                continue;
            }
            let requests_per_sec = |r: &Run| r.requests_per_sec;
            let p99 = |r: &Run| r.latency_ms.p99;
            let requests = Change::between(
                summary(old, route, requests_per_sec),
                summary(new, route, requests_per_sec),
                numbers::per_sec,
            );
            let p99 = Change::between(
                summary(old, route, p99),
                summary(new, route, p99),
                numbers::ms,
            );
            if requests.flagged || p99.flagged {
                flagged += 1;
            }
            table.row(vec![
                name.to_owned(),
                route.clone(),
                requests.values,
                requests.change,
                requests.band,
                p99.values,
                p99.change,
                p99.band,
            ]);
        }
    }
    (table.to_markdown(), flagged)
}

fn find_app<'a>(batch: &'a Batch, name: &str) -> Option<&'a AppResult> {
    batch.apps.iter().find(|a| a.name == name)
}

fn summary(app: &AppResult, route: &str, pick: impl Fn(&Run) -> f64) -> Result<Summary, String> {
    let measured = outcome::route(app, route).map_err(|m| m.short())?;
    Ok(measured.summary(pick))
}

/// One number in both batches: `before → after`, the change, the band it was held to, or
/// why there is no change.
struct Change {
    values: String,
    change: String,
    band: String,
    flagged: bool,
}

impl Change {
    fn between(
        before: Result<Summary, String>,
        after: Result<Summary, String>,
        format: fn(f64) -> String,
    ) -> Change {
        let shown = |value: &Result<Summary, String>| match value {
            Ok(summary) => format(summary.median),
            Err(why) => why.clone(),
        };
        let values = format!("{} → {}", shown(&before), shown(&after));
        let (change, band, flagged) = match (before, after) {
            (Ok(old), Ok(new)) if old.median > 0.0 => {
                let ratio = new.median / old.median - 1.0;
                let band = BAND.max(old.spread()).max(new.spread());
                let flagged = ratio.abs() > band;
                let mark = if flagged { " !" } else { "" };
                (
                    format!("{}{mark}", numbers::change(ratio)),
                    format!("±{}", numbers::percent(band)),
                    flagged,
                )
            }
            // Neither batch has a number: nothing changed that a number could show.
            (Err(_), Err(_)) => (String::new(), String::new(), false),
            // A number appeared or vanished (or there was nothing to divide by).
            _ => ("!".to_owned(), String::new(), true),
        };
        Change {
            values,
            change,
            band,
            flagged,
        }
    }
}
