//! `sweep.md`: the report of a `blogbench sweep`, from its `sweep.json` alone: each app's
//! highest rate within the latency objective, what equal load costs, latency against
//! throughput, the connection sweep, the overload and its recovery, the memory-limited
//! sweep. `sweep.html` is rendered from this text, so both always say the same.

mod rates;
mod stress;

use super::batch::machine_rows;
use super::charts::Chart;
use super::markdown::{Table, code_block, escape};
use super::numbers;
use crate::results::sweep::{
    AppSweep, CLIENT_BOUND_FRACTION, RatePoint, RouteSweep, Rung, SERVICE_BOUND_BUSY, Sweep,
};
use rates::{equal_load, latency_against_throughput, machine_floor, max_rates};
pub(super) use rates::{rung_marks, same_fraction};
use std::collections::BTreeMap;
use stress::{connections, memory_limited, overload};

pub fn markdown(sweep: &Sweep, charts: &[Chart]) -> String {
    [
        header(sweep),
        max_rates(sweep),
        machine_floor(sweep),
        equal_load(sweep),
        latency_against_throughput(sweep, charts),
        connections(sweep, charts),
        overload(sweep, charts),
        memory_limited(sweep),
        generator_ceiling(sweep),
        failures(sweep),
        raw_data(sweep),
    ]
    .join("\n")
}

/// A route's rates of both ladders, each its median round's run, in order of target rate:
/// one curve of latency against rate.
pub fn ladder(route: &RouteSweep) -> Vec<&RatePoint> {
    let mut points: Vec<&RatePoint> = route.rungs().iter().map(Rung::median_run).collect();
    points.sort_by(|a, b| a.target_per_sec.total_cmp(&b.target_per_sec));
    points
}

/// ` †` when client-bound, ` ‡` when service-bound, both, or nothing.
fn bound_marks(point: &RatePoint) -> String {
    let mut marks = String::new();
    if point.client_bound {
        marks.push_str(" †");
    }
    if point.service_bound() {
        marks.push_str(" ‡");
    }
    marks
}

/// Right answers per second: the share of the requests sent that was delivered, over the
/// run's length.
pub fn delivered_per_sec(point: &RatePoint) -> f64 {
    point.delivered_ratio * point.sent as f64 / point.duration_secs
}

/// The route's latency objective (p99, ms): the settings', else the one its runs recorded.
pub fn slo_ms(sweep: &Sweep, route: &str) -> Option<f64> {
    sweep.settings.slo_ms.get(route).copied().or_else(|| {
        sweep
            .apps
            .iter()
            .flat_map(|a| &a.routes)
            .find(|r| r.route == route)
            .map(|r| r.slo_ms)
    })
}

fn find_route<'a>(app: &'a AppSweep, route: &str) -> Option<&'a RouteSweep> {
    app.routes.iter().find(|r| r.route == route)
}

/// `detail (p99 ≤ 50 ms)`.
fn route_with_slo(sweep: &Sweep, route: &str) -> String {
    match slo_ms(sweep, route) {
        Some(slo) => format!("{route} (p99 ≤ {slo} ms)"),
        None => route.to_owned(),
    }
}

/// Every answer that was not a 200: other statuses and failures.
fn errors(answers: &BTreeMap<String, u64>) -> u64 {
    answers
        .iter()
        .filter(|(answer, _)| answer.as_str() != "200")
        .map(|(_, n)| n)
        .sum()
}

/// `200: 9000, error: over the latency limit: 12`.
fn answers(answers: &BTreeMap<String, u64>) -> String {
    let each: Vec<String> = answers.iter().map(|(a, n)| format!("{a}: {n}")).collect();
    each.join(", ")
}

fn valid(valid: bool, reason: Option<&str>) -> String {
    if valid {
        "yes".to_owned()
    } else {
        format!("no: {}", reason.unwrap_or("no reason recorded"))
    }
}

fn yes_no(value: bool) -> String {
    if value { "yes" } else { "no" }.to_owned()
}

/// `0.1, 0.25, 0.5`.
fn fractions(fractions: &[f64]) -> String {
    let each: Vec<String> = fractions.iter().map(f64::to_string).collect();
    each.join(", ")
}

/// `![title](file)` for a chart the sweep has.
fn image(charts: &[Chart], file_name: &str) -> String {
    charts
        .iter()
        .find(|c| c.file_name == file_name)
        .map(|c| format!("![{}]({})\n\n", escape(&c.title), c.file_name))
        .unwrap_or_default()
}

fn header(sweep: &Sweep) -> String {
    let machine = &sweep.header.machine;
    let sets = &sweep.cpu_sets;
    let s = &sweep.settings;
    let finished = sweep
        .header
        .finished_at
        .clone()
        .unwrap_or_else(|| "not finished (the sweep was stopped)".to_owned());
    let routes: Vec<String> = s.routes.iter().map(|r| route_with_slo(sweep, r)).collect();
    let rounds = match s.rounds {
        1 => "1 round".to_owned(),
        n => format!("{n} interleaved rounds (the apps in a rotated order each round)"),
    };
    let quick = if s.quick { " (quick mode)" } else { "" };
    let levels: Vec<String> = s.connection_levels.iter().map(u32::to_string).collect();
    let plan = &s.overload;
    let mut table = Table::new(["setup", ""]);
    for (what, value) in [
        ("sweep", sweep.header.id.clone()),
        ("started", sweep.header.started_at.clone()),
        ("finished", finished),
    ]
    .into_iter()
    .chain(machine_rows(machine, sets))
    .chain([
        ("routes and SLOs", routes.join(", ")),
        (
            "rate ladders",
            format!(
                "{rounds} of the closed-loop maxima, then as many of the ladders; common: {} × \
                 Go's closed-loop max; own: {} × the app's own; {} arrivals; per rate a {} s \
                 warm-up, then a {} s run{quick}",
                fractions(&s.common_fractions),
                fractions(&s.own_fractions),
                s.arrivals,
                s.warmup_secs,
                s.run_secs
            ),
        ),
        ("closed-loop max", s.closed_loop.clone()),
        (
            "open-loop generator",
            format!(
                "at most {} connections; a request unanswered {} ms after it fell due is given up",
                s.max_connections, s.latency_limit_ms
            ),
        ),
        ("start-up warm-up", start_up_warmups(sweep)),
        ("connection levels", levels.join(", ")),
        (
            "overload",
            format!(
                "{} s at {} × the max sustainable rate, {} s at {} ×, {} s at {} × again; \
                 recovery within {} s",
                plan.before_secs,
                plan.base_fraction,
                plan.overload_secs,
                plan.overload_fraction,
                plan.after_secs,
                plan.base_fraction,
                plan.recover_within_secs
            ),
        ),
        (
            "memory limit",
            s.memory_limit_bytes.map_or_else(
                || "none: the memory-limited sweep was not run".to_owned(),
                |bytes| format!("{} MiB", numbers::mib(mib(bytes))),
            ),
        ),
        ("open files limit", s.open_files_limit.to_string()),
        ("git commit", sweep.header.git_commit.clone()),
    ]) {
        table.row(vec![what.to_owned(), value]);
    }
    format!(
        "# blogbench sweep {}\n\n{}\nThe command:\n\n{}\n{}",
        escape(&sweep.header.id),
        table.to_markdown(),
        code_block("sh", &sweep.header.command),
        how_to_read(sweep)
    )
}

/// Which apps got load after each start before anything was measured, and how long.
fn start_up_warmups(sweep: &Sweep) -> String {
    let warmed: Vec<String> = sweep
        .apps
        .iter()
        .filter_map(|app| Some(format!("{} {} s", app.label, app.start_up_warmup_secs?)))
        .collect();
    match warmed.is_empty() {
        true => "none".to_owned(),
        false => format!(
            "{}: loaded after each start, the time shared among the routes, before anything \
             is measured (its manifest's `warmup`: a JIT reaches its steady speed only after \
             that much load)",
            warmed.join(", ")
        ),
    }
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / 1024.0 / 1024.0
}

fn how_to_read(sweep: &Sweep) -> String {
    format!(
        "**How to read this.** Open loop: requests fall due at a fixed rate whatever the app \
         does, and each request's latency runs from the moment it fell due, so an app that \
         falls behind shows its queue in its percentiles (no coordinated omission). A rate is \
         *held* in a round when that round's run was valid (every answer right, the \
         generator's records agreeing with its counters, nothing over the {limit} ms latency \
         limit) and its p99 was within the route's SLO, and *sustained* when more than half of \
         the {rounds} rounds held it (a round that did not run it did not hold it); a run \
         that missed the SLO is *generator-late* (◊) when its latency less the generator's \
         own lateness (late to send, late to read the answer) was within the SLO: it did not \
         hold the rate, and it is not the app's miss; a \
         rate's figures are its median round's (the run with the median p99). Rates above \
         {share} of the open-loop generator's own ceiling measure the generator too: they are \
         marked client-bound (†). Runs during which the CPUs of the services and the \
         generator were at least {busy} busy are marked service-bound (‡): PostgreSQL, Redis \
         or the generator set the pace there, not only the app. This machine has {cores} \
         cores shared by the app, PostgreSQL, Redis and the generator, so runs are noisy: \
         compare apps within this sweep, not across sweeps.\n",
        limit = sweep.settings.latency_limit_ms,
        rounds = sweep.settings.rounds,
        share = numbers::share(CLIENT_BOUND_FRACTION),
        busy = numbers::share(SERVICE_BOUND_BUSY),
        cores = sweep.header.machine.cores,
    )
}

fn generator_ceiling(sweep: &Sweep) -> String {
    let text = match &sweep.generator_ceiling {
        Some(ceiling) => {
            let client_bound = sweep
                .apps
                .iter()
                .flat_map(|a| &a.routes)
                .flat_map(RouteSweep::runs)
                .filter(|(_, p)| p.client_bound)
                .count();
            format!(
                "{} req/s: {}. Rates above {} of it ({} req/s) are marked client-bound (†); \
                 client-bound runs in this sweep: {}.\n",
                numbers::per_sec(ceiling.per_sec),
                escape(&ceiling.how),
                numbers::share(CLIENT_BOUND_FRACTION),
                numbers::per_sec(ceiling.per_sec * CLIENT_BOUND_FRACTION),
                client_bound
            )
        }
        None => "Not measured: no rate of this sweep was checked against the generator's own \
                 ceiling, so none is marked client-bound.\n"
            .to_owned(),
    };
    format!("## Generator ceiling\n\n{text}")
}

fn failures(sweep: &Sweep) -> String {
    let mut text = "## Failures\n\n".to_owned();
    let problems = sweep.problems();
    for problem in &problems {
        text.push_str(&format!("- {}\n", escape(problem)));
    }
    if !problems.is_empty() {
        text.push('\n');
    }
    let mut invalid =
        Table::new(["app", "route", "ladder", "round", "target req/s", "reason"]).numbers(3..5);
    for app in &sweep.apps {
        for route in &app.routes {
            for (ladder, point) in route.runs().filter(|(_, p)| !p.valid) {
                invalid.row(vec![
                    app.label.clone(),
                    route.route.clone(),
                    ladder.name().to_owned(),
                    point.round.to_string(),
                    numbers::per_sec(point.target_per_sec),
                    point
                        .invalid_reason
                        .clone()
                        .unwrap_or_else(|| "no reason recorded".to_owned()),
                ]);
            }
        }
    }
    if !invalid.is_empty() {
        text.push_str(&format!(
            "Rates an app could not hold: findings, kept and shown, never counted as \
             sustained.\n\n{}",
            invalid.to_markdown()
        ));
    }
    if problems.is_empty() && invalid.is_empty() {
        text.push_str("None: every app was swept and every run at a fixed rate was valid.\n");
    }
    text
}

fn raw_data(sweep: &Sweep) -> String {
    let mut table =
        Table::new(["app", "route", "run", "round", "target req/s", "histogram"]).numbers(3..5);
    for app in &sweep.apps {
        for route in &app.routes {
            for (ladder, point) in route.runs().filter(|(_, p)| !p.histogram.is_empty()) {
                table.row(vec![
                    app.label.clone(),
                    route.route.clone(),
                    ladder.name().to_owned(),
                    point.round.to_string(),
                    numbers::per_sec(point.target_per_sec),
                    point.histogram.clone(),
                ]);
            }
        }
        for o in app.overloads.iter().filter(|o| !o.histogram.is_empty()) {
            table.row(vec![
                app.label.clone(),
                o.route.clone(),
                "overload".to_owned(),
                o.round.to_string(),
                format!(
                    "{} → {}",
                    numbers::per_sec(o.base_per_sec),
                    numbers::per_sec(o.overload_per_sec)
                ),
                o.histogram.clone(),
            ]);
        }
    }
    let files = if table.is_empty() {
        "This sweep recorded no histogram.\n".to_owned()
    } else {
        table.to_markdown()
    };
    format!(
        "## Raw data\n\n\
         Every open-loop run kept its latencies: an HdrHistogram interval log (V2, compressed), \
         one interval per second of due time, values in µs from each request's due time, paths \
         relative to this folder. To recompute any percentile of any stretch of a run, use \
         HdrHistogram's `HistogramLogProcessor -i FILE -outputValueUnitRatio 1000` (ms; `-start` \
         and `-end` pick the seconds), or the Rust `hdrhistogram` crate: read the file with \
         `serialization::interval_log::IntervalLogIterator`, decode each interval's base64 \
         `encoded_histogram()` with `serialization::Deserializer`, add the intervals into one \
         histogram and ask it for `value_at_quantile(0.99)` (µs).\n\n{files}"
    )
}
