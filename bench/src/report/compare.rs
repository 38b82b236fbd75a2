//! Two batches side by side: req/s and p99 latency per app and route, flagged outside a
//! ±15 % band, wider than the run-to-run spread the reference report saw on one machine, so
//! a flag is worth a look.

use super::markdown::{Table, escape};
use super::numbers;
use super::outcome;
use super::routes;
use crate::results::{AppResult, Batch};

/// The relative change beyond which a number is flagged.
pub const BAND: f64 = 0.15;

pub struct Comparison {
    /// A Markdown table, readable as is in a terminal.
    pub text: String,
    /// No req/s or p99 change outside [`BAND`], and no number that appeared or vanished.
    pub within_band: bool,
}

impl Comparison {
    pub fn of(before: &Batch, after: &Batch) -> Comparison {
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
            "p99 ms before → after",
            "change",
        ])
        .numbers(2..);
        let mut flagged = 0;
        let only_in = |which: &str| {
            vec![
                which.to_owned(),
                String::new(),
                String::new(),
                String::new(),
            ]
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
                    table.row([vec![name.to_owned(), "all".to_owned()], only_in(which)].concat());
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
                    table.row([vec![name.to_owned(), route.clone()], only_in(which)].concat());
                    continue;
                }
                let requests = Change::between(
                    requests_per_sec(old, route),
                    requests_per_sec(new, route),
                    numbers::per_sec,
                );
                let p99 = Change::between(p99(old, route), p99(new, route), numbers::ms);
                if requests.flagged || p99.flagged {
                    flagged += 1;
                }
                table.row(vec![
                    name.to_owned(),
                    route.clone(),
                    requests.values,
                    requests.change,
                    p99.values,
                    p99.change,
                ]);
            }
        }
        let verdict = match flagged {
            0 => format!("Every change is within ±{:.0} %.", BAND * 100.0),
            n => format!(
                "{n} app/route pair(s) changed by more than ±{:.0} % or lost or gained a number (marked !).",
                BAND * 100.0
            ),
        };
        Comparison {
            text: format!(
                "Batch {} (before) against batch {} (after); `!` marks a change outside ±{:.0} %.\n\n{}\n{verdict}\n",
                escape(&before.id),
                escape(&after.id),
                BAND * 100.0,
                table.to_markdown()
            ),
            within_band: flagged == 0,
        }
    }
}

fn find_app<'a>(batch: &'a Batch, name: &str) -> Option<&'a AppResult> {
    batch.apps.iter().find(|a| a.name == name)
}

fn requests_per_sec(app: &AppResult, route: &str) -> Result<f64, String> {
    let measured = outcome::route(app, route).map_err(|m| m.short())?;
    Ok(measured.median(|r| r.requests_per_sec))
}

fn p99(app: &AppResult, route: &str) -> Result<f64, String> {
    let measured = outcome::route(app, route).map_err(|m| m.short())?;
    Ok(measured.median(|r| r.latency_ms.p99))
}

/// One number in both batches: `before → after` and the change, or why there is none.
struct Change {
    values: String,
    change: String,
    flagged: bool,
}

impl Change {
    fn between(
        before: Result<f64, String>,
        after: Result<f64, String>,
        format: fn(f64) -> String,
    ) -> Change {
        let shown = |value: &Result<f64, String>| match value {
            Ok(number) => format(*number),
            Err(why) => why.clone(),
        };
        let values = format!("{} → {}", shown(&before), shown(&after));
        let (change, flagged) = match (before, after) {
            (Ok(old), Ok(new)) if old > 0.0 => {
                let ratio = new / old - 1.0;
                let flagged = ratio.abs() > BAND;
                let mark = if flagged { " !" } else { "" };
                (format!("{}{mark}", numbers::change(ratio)), flagged)
            }
            // Neither batch has a number: nothing changed that a number could show.
            (Err(_), Err(_)) => (String::new(), false),
            // A number appeared or vanished (or there was nothing to divide by).
            _ => ("!".to_owned(), true),
        };
        Change {
            values,
            change,
            flagged,
        }
    }
}
