//! The report's per-route measurements beside the ratios: requests per second, latency,
//! memory and CPU, and each route against the machine's ceilings.

use super::charts::{self, Chart};
use super::markdown::{Table, escape};
use super::numbers;
use super::outcome::{self, Measured};
use super::routes::{self, Group};
use crate::results::sweep::SERVICE_BOUND_BUSY;
use crate::results::{AppResult, Batch, Ceiling, Run};

/// `![title](file)` for a chart the batch has.
pub(super) fn image(charts: &[Chart], file_name: &str) -> String {
    charts
        .iter()
        .find(|c| c.file_name == file_name)
        .map(|c| format!("![{}]({})\n\n", escape(&c.title), c.file_name))
        .unwrap_or_default()
}

/// A table with one row per app and one column per route.
pub(super) fn per_route_table(
    batch: &Batch,
    columns: &[String],
    cell: impl Fn(&AppResult, &str) -> String,
) -> String {
    let mut table =
        Table::new(std::iter::once("app").chain(columns.iter().map(String::as_str))).numbers(1..);
    for app in &batch.apps {
        let mut row = vec![app.name.clone()];
        row.extend(columns.iter().map(|route| cell(app, route)));
        table.row(row);
    }
    table.to_markdown()
}

/// The cell of a valid route, or the short reason why there is none.
pub(super) fn measured_or_short(
    app: &AppResult,
    route: &str,
    cell: impl Fn(Measured) -> String,
) -> String {
    outcome::route(app, route).map_or_else(|missing| missing.short(), cell)
}

pub(super) fn requests(batch: &Batch, columns: &[String], charts: &[Chart]) -> String {
    let mut text = "## Requests per second\n\n\
                    Each bar is the median of the valid runs; its whisker spans the lowest and \
                    highest valid run.\n\n"
        .to_owned();
    for group in Group::ALL {
        if !routes::in_group(columns, group).is_empty() {
            text.push_str(&format!(
                "### {}\n\n{}.\n\n",
                group.title(),
                group.description()
            ));
            text.push_str(&image(charts, &charts::requests_file(group)));
        }
    }
    text.push_str(&format!(
        "Every route, median req/s of the valid runs (‡: most of them had the CPUs \
         PostgreSQL, Redis and the load generator share at least {} busy, so those set the \
         pace there, not only the app):\n\n",
        numbers::share(SERVICE_BOUND_BUSY)
    ));
    text.push_str(&per_route_table(
        batch,
        columns,
        |app, route| match outcome::route(app, route) {
            Err(missing) => missing.long(),
            Ok(measured) => {
                let summary = measured.summary(|r| r.requests_per_sec);
                let mut median = numbers::per_sec(summary.median);
                if measured.mostly_service_bound() {
                    median.push_str(" ‡");
                }
                if summary.valid < summary.runs {
                    format!("{median} ({}/{} valid)", summary.valid, summary.runs)
                } else {
                    median
                }
            }
        },
    ));
    text.push_str("\nThe range of those runs, min–max req/s:\n\n");
    text.push_str(&per_route_table(batch, columns, |app, route| {
        measured_or_short(app, route, |measured| {
            let summary = measured.summary(|r| r.requests_per_sec);
            format!(
                "{}–{}",
                numbers::per_sec(summary.min),
                numbers::per_sec(summary.max)
            )
        })
    }));
    text
}

pub(super) fn latency(batch: &Batch, columns: &[String], charts: &[Chart]) -> String {
    let table = per_route_table(batch, columns, |app, route| {
        measured_or_short(app, route, |measured| {
            let p50 = measured.median(|r| r.latency_ms.p50);
            let p99 = measured.median(|r| r.latency_ms.p99);
            let mark = if measured.mostly_service_bound() {
                " ‡"
            } else {
                ""
            };
            format!("{} / {}{mark}", numbers::ms(p50), numbers::ms(p99))
        })
    });
    format!(
        "## Latency\n\n{}p50 / p99 in ms, medians of the valid runs, as the load generator \
         measured them: in a closed loop ({connections} connections, each sending its next \
         request once the last is answered), so a stall delays requests that were never sent \
         and hardly shows in these percentiles (coordinated omission). Compare tails with the \
         sweep's open-loop latencies (`make sweep`, docs/spec.md §8), whose clock starts when \
         a request falls due. ‡: most valid runs had the CPUs PostgreSQL, Redis and the load \
         generator share at least {busy} busy, so they set the pace there, not only the \
         app.\n\n{table}",
        image(charts, charts::LATENCY_FILE),
        connections = batch.settings.connections,
        busy = numbers::share(SERVICE_BOUND_BUSY),
    )
}

pub(super) fn memory_and_cpu(batch: &Batch, columns: &[String], charts: &[Chart]) -> String {
    let mut memory = Table::new([
        "app",
        "RSS under load, MiB (first home run)",
        "peak RSS, any run, MiB",
    ])
    .numbers(1..);
    for app in &batch.apps {
        let first_home = match outcome::first_home_run(app) {
            Ok(run) if run.valid => numbers::mib(run.app_rss_max_mib),
            Ok(run) => format!("{} (run invalid)", numbers::mib(run.app_rss_max_mib)),
            Err(missing) => missing.short(),
        };
        let peak = app
            .routes
            .iter()
            .flat_map(|r| &r.runs)
            .map(|r| r.app_rss_max_mib)
            .reduce(f64::max)
            .map_or_else(|| "—".to_owned(), numbers::mib);
        memory.row(vec![app.name.clone(), first_home, peak]);
    }
    let cpu = per_route_table(batch, columns, |app, route| {
        measured_or_short(app, route, |measured| {
            let median = |pick: fn(&Run) -> f64| numbers::cpu_percent(measured.median(pick));
            format!(
                "{} / {} / {}",
                median(|r| r.app_cpu_percent),
                median(|r| r.postgres_cpu_percent),
                median(|r| r.redis_cpu_percent)
            )
        })
    });
    format!(
        "## Memory and CPU\n\n{}The app's resident memory (whole process tree), max of the \
         samples:\n\n{}\nCPU %, app / PostgreSQL / Redis (100 = one core), medians of the \
         valid runs:\n\n{cpu}",
        image(charts, charts::MEMORY_FILE),
        memory.to_markdown()
    )
}

pub(super) fn ceilings(batch: &Batch, columns: &[String]) -> String {
    let mut table =
        Table::new(["ceiling", "median per second", "range", "valid runs", "how"]).numbers(1..4);
    for (name, ceiling) in routes::named_ceilings(batch) {
        let made = ceiling.runs.len() + ceiling.invalid.len();
        let (median, range, valid) = if ceiling.runs.is_empty() && ceiling.invalid.is_empty() {
            // A batch recorded before ceilings kept their runs: one number, no range.
            (
                numbers::per_sec(ceiling.per_sec),
                "— runs not recorded".to_owned(),
                "—".to_owned(),
            )
        } else if ceiling.runs.is_empty() {
            let none = "— no valid run".to_owned();
            (none.clone(), none, format!("0 of {made}"))
        } else {
            let (min, max) = ceiling.range();
            (
                numbers::per_sec(ceiling.per_sec),
                format!("{}–{}", numbers::per_sec(min), numbers::per_sec(max)),
                format!("{} of {made}", ceiling.runs.len()),
            )
        };
        table.row(vec![name, median, range, valid, ceiling.how.clone()]);
    }
    let intro = "What limits a route before the app does, measured in the same batch, and each \
                 app's median as a share of it: the database ceiling of the page for uncached \
                 pages (when measured), the HTTP client ceiling otherwise. Near 100 % the client \
                 or the database, not the app, was the limit. An app median above the ceiling's \
                 median but not above its highest run is \"at the ceiling\"; above its highest \
                 run, the ceiling did not hold, and the cell says so instead of a share above \
                 100 %.";
    let shares = per_route_table(batch, columns, |app, route| {
        measured_or_short(app, route, |measured| {
            let median = measured.median(|r| r.requests_per_sec);
            match routes::ceiling(batch, route) {
                Some((name, ceiling)) => against_ceiling(median, name, ceiling),
                None => "— no ceiling measured".to_owned(),
            }
        })
    });
    let measured = if batch.ceilings.http.is_none() && batch.ceilings.database.is_empty() {
        "No ceiling was measured in this batch.\n".to_owned()
    } else {
        table.to_markdown()
    };
    format!("## Ceilings\n\n{intro}\n\n{measured}\n{shares}")
}

/// An app's median against a ceiling: a share of it, at it, or beyond what its runs reached.
pub(super) fn against_ceiling(median: f64, name: &str, ceiling: &Ceiling) -> String {
    if ceiling.per_sec <= 0.0 {
        return format!("— no valid run of the {name}");
    }
    let (_, max) = ceiling.range();
    if median > max {
        format!("above the {name}'s range: the ceiling did not hold")
    } else if median > ceiling.per_sec {
        format!("at the {name}")
    } else {
        format!("{} of the {name}", numbers::share(median / ceiling.per_sec))
    }
}
