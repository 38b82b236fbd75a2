//! `sweep.md`: the report of a `blogbench sweep`, from its `sweep.json` alone: each app's
//! highest rate within the latency objective, what equal load costs, latency against
//! throughput, the connection sweep, the overload and its recovery, the memory-limited
//! sweep. `sweep.html` is rendered from this text, so both always say the same.

use super::charts::Chart;
use super::document::machine_rows;
use super::markdown::{Table, code_block, escape};
use super::numbers;
use super::sweep_charts;
use crate::results::sweep::{
    AppSweep, CLIENT_BOUND_FRACTION, ConnectionLevel, Ladder, MemoryLimited, Overload, RatePoint,
    RouteSweep, Rung, SERVICE_BOUND_BUSY, Sweep,
};
use crate::results::{Latency, median};
use crate::stack::apps::GO;
use crate::statistics::RatioInterval;
use std::collections::BTreeMap;

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
    let machine = &sweep.machine;
    let sets = &sweep.cpu_sets;
    let s = &sweep.settings;
    let finished = sweep
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
        ("sweep", sweep.id.clone()),
        ("started", sweep.started_at.clone()),
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
        ("git commit", sweep.git_commit.clone()),
    ]) {
        table.row(vec![what.to_owned(), value]);
    }
    format!(
        "# blogbench sweep {}\n\n{}\nThe command:\n\n{}\n{}",
        escape(&sweep.id),
        table.to_markdown(),
        code_block("sh", &sweep.command),
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
         limit) and its p99 was within the route's SLO, and *sustained* when more than half of the {rounds} rounds that judged it held it; a \
         run that missed the SLO is *generator-late* (◊) when the generator's own lateness \
         (late to send, late to read the answer) could have decided it, and judges neither \
         way; a \
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
        cores = sweep.machine.cores,
    )
}

fn max_rates(sweep: &Sweep) -> String {
    let routes = &sweep.settings.routes;
    let go = sweep.apps.iter().find(|a| a.label == GO);
    let mut max = Table::new(
        std::iter::once("app".to_owned()).chain(routes.iter().map(|r| route_with_slo(sweep, r))),
    )
    .numbers(1..);
    let mut closed_loop =
        Table::new(std::iter::once("app").chain(routes.iter().map(String::as_str))).numbers(1..);
    for app in &sweep.apps {
        let mut max_row = vec![app.label.clone()];
        let mut closed_loop_row = vec![app.label.clone()];
        for route in routes {
            let machine_bound_from = sweep.machine_bound_from(route);
            max_row.push(max_rate_cell(
                app,
                go,
                route,
                sweep.settings.rounds,
                machine_bound_from,
            ));
            closed_loop_row.push(find_route(app, route).map_or_else(
                || "—".to_owned(),
                |r| closed_loop_cell(r, sweep.settings.rounds),
            ));
        }
        max.row(max_row);
        closed_loop.row(closed_loop_row);
    }
    format!(
        "## Max rate under the SLO\n\n\
         Per app and route, the highest rate of either ladder that was sustained, in req/s; \
         in parentheses the ratio to Go's, to one decimal, and the next rate up, which was \
         not sustained: the app's own max lies between the two, so it is known only to the \
         ladders' step (10–25 %); then each round's own highest held rate in round \
         order (how far one round can mislead) and the 95 % confidence interval of their \
         geometric mean (over the rounds that sustained a rate; docs/spec.md §5.12); \
         \"n lower missed\": that many lower rates \
         were not sustained (a stall sank runs, or the app has a bad patch below its max: see \
         the latency chart). \"none\": no rate was sustained; \"—\": the route was not \
         measured (see *Failures*). † or ‡ is the mark of the rate that set the max (the \
         lowest rate above it, all failed; the max itself when the ladders ended there): it \
         ran client-bound (†) or service-bound (‡), so the limit may not be the app's and the \
         max is a floor (≥); ◊: a round of it was generator-late (the generator's own \
         lateness could have decided the run, which then counted neither way), so the max \
         is a floor too; ⊥: at that rate the machine itself, a static page server in the \
         app's place, did not sustain the SLO (*The machine's floor*): machine-bound, the \
         max a floor as well.\n\n{}\n\
         The closed-loop max each app's own ladder is a fraction of (Go's is the common \
         ladder's), req/s: the median of the rounds whose run counted, then each round's (a \
         run that does not count is listed under *Failures*).\n\n{}",
        max.to_markdown(),
        closed_loop.to_markdown()
    )
}

/// `≥ 4,500 ‡ (1.12×; rounds 4,500 / 6,000 / 2,000; 1 lower missed)`, `none (rounds …)`,
/// or `—`; `machine_bound_from`: the lowest rate the machine's floor did not sustain.
fn max_rate_cell(
    app: &AppSweep,
    go: Option<&AppSweep>,
    route: &str,
    rounds: u32,
    machine_bound_from: Option<f64>,
) -> String {
    let Some(measured) = find_route(app, route).filter(|r| !ladder(r).is_empty()) else {
        return "—".to_owned();
    };
    let mut notes = Vec::new();
    // The rate above the max decided it (or the ladders' end did): when that rate ran
    // client- or service-bound, the app may well hold more, so the max is only a floor.
    let set_by = measured.rung_that_set_the_max(rounds);
    let marks = set_by.as_ref().map_or_else(String::new, |rung| {
        let mut marks = bound_marks(rung.median_run());
        if rung.generator_late() > 0 {
            marks.push_str(" ◊");
        }
        if machine_bound_from.is_some_and(|from| rung.target_per_sec >= from) {
            marks.push_str(" ⊥");
        }
        marks
    });
    let mut cell = match measured.max_sustainable(rounds) {
        Some(max) => {
            let go_max = go
                .filter(|go| go.label != app.label)
                .and_then(|go| find_route(go, route))
                .and_then(|go| go.max_sustainable(rounds))
                .filter(|go_max| *go_max > 0.0);
            if let Some(go_max) = go_max {
                notes.push(numbers::rough_times(max / go_max));
            }
            if let Some(next) = set_by.filter(|rung| rung.target_per_sec > max) {
                let next = numbers::per_sec(next.target_per_sec);
                notes.push(format!("next {next} not sustained"));
            }
            let floor = if marks.is_empty() { "" } else { "≥ " };
            format!("{floor}{}{marks}", numbers::per_sec(max))
        }
        None => format!("none{marks}"),
    };
    if rounds > 1 {
        let by_round = measured.max_sustainable_by_round(rounds);
        let each: Vec<String> = by_round
            .iter()
            .map(|max| max.map_or_else(|| "none".to_owned(), numbers::per_sec))
            .collect();
        notes.push(format!("rounds {}", each.join(" / ")));
        // Rounds that all found the same rung say nothing the rounds do not: no interval.
        let maxima: Vec<f64> = by_round.into_iter().flatten().collect();
        if let Some(interval) =
            RatioInterval::of(&maxima).filter(|i| i.relative_half_width() > 1e-9)
        {
            notes.push(format!(
                "CI {}–{}",
                numbers::per_sec(interval.low),
                numbers::per_sec(interval.high)
            ));
        }
    }
    let misses = measured.misses_below_max(rounds);
    if misses > 0 {
        notes.push(format!("{misses} lower missed"));
    }
    if !notes.is_empty() {
        cell.push_str(&format!(" ({})", notes.join("; ")));
    }
    cell
}

/// Per route and common rate, the static server's p99 beside each app's (docs/spec.md §8.9):
/// the tail the machine adds whatever the app.
fn machine_floor(sweep: &Sweep) -> String {
    let mut text = "## The machine's floor\n\n".to_owned();
    if sweep.floor.is_empty() {
        text.push_str("This sweep did not measure the machine's floor.\n");
        return text;
    }
    let rounds = sweep.settings.rounds;
    text.push_str(
        "In every round, before the apps, a static page server (the generator ceiling's) ran \
         in the app's place, on the app's CPUs, with a page of the route's size, loaded open \
         loop at each common rate as the apps were. Its p99 is the tail this machine adds \
         to any app here: the generator, the kernel and the scheduler, with no framework, \
         database or cache. Per rate, the floor's p99 (its median round, then the lowest and \
         highest of the rounds) and the rounds it held the SLO in; then each app's p99 in its \
         median round. A rate the floor did not sustain is machine-bound for every app: a \
         miss there says nothing of the app.\n\n",
    );
    for floor in &sweep.floor {
        let mut table = Table::new(
            ["rate", "machine floor"]
                .into_iter()
                .map(str::to_owned)
                .chain(sweep.apps.iter().map(|app| app.label.clone())),
        )
        .numbers(0..);
        for rung in floor.rungs() {
            let (low, high) = rung.p99_range();
            let mut row = vec![
                format!(
                    "{} ({}× Go's max)",
                    numbers::per_sec(rung.target_per_sec),
                    rung.fraction
                ),
                format!(
                    "{} ({}–{}), held {} of {rounds}",
                    numbers::ms(rung.median_run().latency_ms.p99),
                    numbers::ms(low),
                    numbers::ms(high),
                    rung.held()
                ),
            ];
            for app in &sweep.apps {
                let p99 = find_route(app, &floor.route)
                    .and_then(|route| {
                        route.rungs().into_iter().find(|r| {
                            r.ladder == Ladder::Common && r.target_per_sec == rung.target_per_sec
                        })
                    })
                    .map_or_else(
                        || "—".to_owned(),
                        |r| numbers::ms(r.median_run().latency_ms.p99),
                    );
                row.push(p99);
            }
            table.row(row);
        }
        text.push_str(&format!(
            "### {}, p99 ms\n\n{}\n",
            route_with_slo(sweep, &floor.route),
            table.to_markdown()
        ));
        if let Some(from) = floor.machine_bound_from(rounds) {
            text.push_str(&format!(
                "From {} req/s the floor itself did not sustain the SLO: every app's run there \
                 is machine-bound (⊥).\n\n",
                numbers::per_sec(from)
            ));
        }
    }
    text
}

/// `4,200 (3,900 / not counted / 4,800)`: the median of the rounds that counted, then each
/// round's.
fn closed_loop_cell(route: &RouteSweep, rounds: u32) -> String {
    let median = if route.closed_loop_counted() {
        numbers::per_sec(route.closed_loop_per_sec)
    } else {
        "not counted".to_owned()
    };
    if rounds < 2 || route.closed_loop_rounds.is_empty() {
        return median;
    }
    let each: Vec<String> = route
        .closed_loop_rounds
        .iter()
        .map(|run| match run.not_counted {
            None => numbers::per_sec(run.per_sec),
            Some(_) => "not counted".to_owned(),
        })
        .collect();
    format!("{median} ({})", each.join(" / "))
}

/// The common ladder's fraction every app is compared at: 0.5 when the sweep ran it, else
/// the ladder's middle one.
fn equal_load_fraction(common: &[f64]) -> Option<f64> {
    if common.iter().any(|f| same_fraction(*f, 0.5)) {
        return Some(0.5);
    }
    let mut sorted = common.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted.get(sorted.len() / 2).copied()
}

fn same_fraction(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

fn equal_load(sweep: &Sweep) -> String {
    let rounds = sweep.settings.rounds;
    let mut text = "## Cost at equal load\n\n".to_owned();
    let Some(fraction) = equal_load_fraction(&sweep.settings.common_fractions) else {
        text.push_str("This sweep ran no common rates.\n");
        return text;
    };
    text.push_str(&format!(
        "Every app at the same rate, {fraction} × Go's closed-loop max on the route, its \
         median round: its latency (p99 with the lowest and highest of the rounds, and the \
         95 % confidence interval of their geometric mean, docs/spec.md §5.12), the CPU \
         time per request of the app, PostgreSQL and Redis (µs: the median of the rounds, \
         then their lowest and highest), and the app's peak memory. Delivered is the share of \
         the requests sent answered right by the SLO after the run's end. Two parts of the latency \
         are the generator's, not the app's: the send delay, from a request's due time to \
         when the generator took it up, and the connection wait, from then to when it had a \
         connection (an idle one, or one it opened, at most {connections}); a third is the \
         read delay, how long the answer waited in the generator's socket before it was read. \
         *Services CPU \
         busy* is how busy the CPUs that PostgreSQL, Redis and the generator share were \
         (‡: service-bound). *Held* counts the rounds whose run was within the SLO (◊: \
         generator-late runs, which judge neither way). —: not \
         recorded in this sweep, or not run; †: client-bound.\n\n",
        connections = sweep.settings.max_connections,
    ));
    for route in &sweep.settings.routes {
        let rungs: Vec<(&AppSweep, Option<Rung<'_>>)> = sweep
            .apps
            .iter()
            .map(|app| {
                let rung = find_route(app, route).and_then(|r| {
                    r.rungs().into_iter().find(|rung| {
                        rung.ladder == Ladder::Common && same_fraction(rung.fraction, fraction)
                    })
                });
                (app, rung)
            })
            .collect();
        match rungs.iter().find_map(|(_, rung)| rung.as_ref()) {
            Some(rung) => text.push_str(&format!(
                "### {} at {} req/s{}\n\n",
                escape(route),
                numbers::per_sec(rung.target_per_sec),
                if rung.runs.iter().any(|run| run.client_bound) {
                    " †"
                } else {
                    ""
                }
            )),
            None => text.push_str(&format!("### {}\n\n", escape(route))),
        }
        let mut table = Table::new([
            "app",
            "delivered",
            "p50 ms",
            "p99 ms (rounds)",
            "send delay p99 ms",
            "connection wait p99 ms",
            "read delay p99 ms",
            "app CPU µs/req",
            "PostgreSQL µs/req",
            "Redis µs/req",
            "RSS MiB",
            "services CPU busy",
            "held",
        ])
        .numbers(1..12);
        for (app, rung) in rungs {
            let Some(rung) = rung else {
                let mut row = vec![app.label.clone()];
                row.extend(std::iter::repeat_n("—".to_owned(), 12));
                table.row(row);
                continue;
            };
            let p = rung.median_run();
            let (low, high) = rung.p99_range();
            let p99s: Vec<f64> = rung.runs.iter().map(|run| run.latency_ms.p99).collect();
            let p99 = match RatioInterval::of(&p99s) {
                Some(interval) => format!(
                    "{} ({}–{}; CI {}–{})",
                    numbers::ms(p.latency_ms.p99),
                    numbers::ms(low),
                    numbers::ms(high),
                    numbers::ms(interval.low),
                    numbers::ms(interval.high)
                ),
                None => numbers::ms(p.latency_ms.p99),
            };
            let generator_p99 = |latency: Option<&Latency>| {
                latency.map_or("—".to_owned(), |latency| numbers::ms(latency.p99))
            };
            let busy = p.cpu_busy.map_or("—".to_owned(), |busy| {
                let mark = if p.service_bound() { " ‡" } else { "" };
                format!("{}{mark}", numbers::percent(busy.services_and_load))
            });
            table.row(vec![
                app.label.clone(),
                numbers::percent(p.delivered_ratio),
                numbers::ms(p.latency_ms.p50),
                p99,
                generator_p99(p.send_delay_ms.as_ref()),
                generator_p99(p.connection_wait_ms.as_ref()),
                generator_p99(p.read_delay_ms.as_ref()),
                cpu_over_rounds(&rung, |run| run.app_cpu_us_per_request),
                cpu_over_rounds(&rung, |run| run.postgres_cpu_us_per_request),
                cpu_over_rounds(&rung, |run| run.redis_cpu_us_per_request),
                numbers::mib(p.app_rss_max_mib),
                busy,
                match rung.generator_late() {
                    0 => format!("{} of {rounds}", rung.held()),
                    late => format!("{} of {rounds} ({late} ◊)", rung.held()),
                },
            ]);
        }
        text.push_str(&table.to_markdown());
        text.push('\n');
    }
    text
}

/// CPU µs per request over the rounds: the median, then the lowest and highest, in whole µs.
/// Finer would be noise: one clock tick (10 ms) is 1.6 µs a request in a 3 s run at
/// 2,000 req/s, and rounds differ by tens of percent on a shared machine. A run that answered
/// nothing has no cost per request (older sweep files store its whole CPU time there).
fn cpu_over_rounds(rung: &Rung<'_>, cost: impl Fn(&RatePoint) -> Option<f64>) -> String {
    let costs: Vec<f64> = rung
        .runs
        .iter()
        .filter(|run| run.completed > 0)
        .filter_map(|run| cost(run))
        .collect();
    let Some((median, n)) = median(costs.iter().copied()) else {
        return "—".to_owned();
    };
    if n == 1 {
        return format!("{median:.0}");
    }
    let low = costs.iter().copied().fold(f64::INFINITY, f64::min);
    let high = costs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    format!("{median:.0} ({low:.0}–{high:.0})")
}

fn latency_against_throughput(sweep: &Sweep, charts: &[Chart]) -> String {
    let mut text = "## Latency against throughput\n\n\
                    Per route, each app's runs of both ladders in order of target rate: across, \
                    the rate delivered (right answers per second); up, the latency from the due \
                    time on a log scale. p99 is the solid line with a dot per run, p50 the \
                    dashed one; × marks an invalid run (see *Failures*); the grey dashed line is \
                    the route's SLO. Where a curve turns up, requests started to queue; where it \
                    bends back left, the app delivered less than it was sent.\n\n"
        .to_owned();
    for route in &sweep.settings.routes {
        let chart = image(charts, &sweep_charts::latency_file(route));
        if chart.is_empty() {
            text.push_str(&format!("{}: no app has a run.\n\n", escape(route)));
        } else {
            text.push_str(&chart);
        }
    }
    text
}

fn connections(sweep: &Sweep, charts: &[Chart]) -> String {
    let mut text = "## Connection sweep\n\n".to_owned();
    if sweep.apps.iter().all(|a| a.connections.is_empty()) {
        text.push_str("Not run in this sweep.\n");
        return text;
    }
    text.push_str(&format!(
        "Closed loop with the harness's client on `{}` at each level, bodies checked. Open-file \
         limit {} (the harness's and so the app's). Held: the fewest \
         connections the app held at once in the measured window. Errors: every answer that \
         was not a 200. RSS/connection: (RSS at the level − idle RSS) ÷ connections held.\n\n",
        sweep.settings.connection_route, sweep.settings.open_files_limit
    ));
    let mut table = Table::new([
        "app",
        "connections",
        "held",
        "req/s",
        "p50 ms",
        "p99 ms",
        "p99.9 ms",
        "errors",
        "RSS MiB",
        "RSS/connection KiB",
        "valid",
    ])
    .numbers(1..10);
    for app in &sweep.apps {
        for level in &app.connections {
            table.row(vec![
                app.label.clone(),
                level.connections.to_string(),
                level.connections_held.to_string(),
                numbers::per_sec(level.requests_per_sec),
                numbers::ms(level.latency_ms.p50),
                numbers::ms(level.latency_ms.p99),
                numbers::ms(level.latency_ms.p999),
                errors(&level.answers).to_string(),
                numbers::mib(level.app_rss_max_mib),
                format!("{:.1}", level.rss_per_connection_kib),
                valid(level.valid, level.invalid_reason.as_deref()),
            ]);
        }
    }
    text.push_str(&table.to_markdown());
    text.push('\n');
    text.push_str(&image(charts, sweep_charts::CONNECTIONS_RATE_FILE));
    text.push_str(&image(charts, sweep_charts::CONNECTIONS_RSS_FILE));
    text
}

fn overload(sweep: &Sweep, charts: &[Chart]) -> String {
    let plan = &sweep.settings.overload;
    let mut text = format!(
        "## Overload and recovery\n\n\
         One open-loop schedule per app and round on one route, the app started fresh for \
         it: {before} s at {base} × the app's max sustainable rate, {over_secs} s at {over} ×, \
         then {after} s at {base} × again. *Recovered after* counts from the end of the \
         overload until {back}; it has {within} s. *Survived*: the app was alive after the \
         schedule. One run shows that an app can come back, not how reliably: a stall of the \
         shared machine lands in some runs and not others, so an app *recovers* when it came \
         back in more than half of the rounds.\n\n",
        before = plan.before_secs,
        base = plan.base_fraction,
        over_secs = plan.overload_secs,
        over = plan.overload_fraction,
        after = plan.after_secs,
        within = plan.recover_within_secs,
        back = match sweep.apps.iter().find_map(|a| a.overloads.first()) {
            Some(Overload {
                back_p99_bound_ms: None,
                ..
            }) => "every later second was back within the baseline (p99 ≤ max(2 × baseline, \
                   baseline + 5 ms), right answers ≥ 95 % of the base rate, no failures)"
                .to_owned(),
            _ => "the first of three seconds in a row that were back: p99 within the route's \
                  SLO, right answers ≥ 95 % of the base rate, no failures"
                .to_owned(),
        },
    );
    let mut table = Table::new([
        "app",
        "round",
        "route",
        "max sustainable req/s",
        "base → overload req/s",
        "peak RSS MiB",
        "baseline p99 ms",
        "answers during the overload",
        "recovered after",
        "survived",
    ])
    .numbers(3..7);
    let mut verdicts = Vec::new();
    for app in &sweep.apps {
        if app.overloads.is_empty() {
            let mut row = vec![app.label.clone(), "—".to_owned(), "not run".to_owned()];
            row.extend(std::iter::repeat_n("—".to_owned(), 7));
            table.row(row);
        }
        if app.overloads.len() > 1 {
            let (recovered, rounds) = app.overloads_recovered();
            let verdict = if 2 * recovered > rounds {
                "recovers"
            } else {
                "does not recover"
            };
            verdicts.push(format!(
                "- {}: {verdict} (back within {} s in {recovered} of {rounds} rounds)",
                app.label, plan.recover_within_secs
            ));
        }
        for o in &app.overloads {
            let mut during = answers(&o.answers_during);
            if o.wrong_bodies > 0 {
                during.push_str(&format!(", wrong bodies: {}", o.wrong_bodies));
            }
            let recovered = match (o.recovered, o.recovered_after_secs) {
                (true, Some(secs)) => format!("{secs:.1} s"),
                (false, Some(secs)) => format!(
                    "{secs:.1} s, over the {} s allowed",
                    plan.recover_within_secs
                ),
                (_, None) => format!("not within {} s", plan.recover_within_secs),
            };
            table.row(vec![
                app.label.clone(),
                o.round.to_string(),
                o.route.clone(),
                numbers::per_sec(o.max_sustainable_per_sec),
                format!(
                    "{} → {}",
                    numbers::per_sec(o.base_per_sec),
                    numbers::per_sec(o.overload_per_sec)
                ),
                numbers::mib(o.peak_rss_mib),
                numbers::ms(o.baseline_p99_ms),
                during,
                recovered,
                yes_no(o.survived),
            ]);
        }
    }
    text.push_str(&table.to_markdown());
    text.push('\n');
    if !verdicts.is_empty() {
        text.push_str(&verdicts.join("\n"));
        text.push_str("\n\n");
    }
    for app in &sweep.apps {
        for o in &app.overloads {
            text.push_str(&image(
                charts,
                &sweep_charts::overload_file(&app.label, o.round),
            ));
        }
    }
    text
}

fn memory_limited(sweep: &Sweep) -> String {
    let mut text = "## Memory-limited\n\n".to_owned();
    let limited: Vec<(&AppSweep, &MemoryLimited)> = sweep
        .apps
        .iter()
        .filter_map(|a| Some((a, a.memory_limited.as_ref()?)))
        .collect();
    if limited.is_empty() {
        text.push_str("Not run in this sweep.\n");
        return text;
    }
    text.push_str(
        "The connection sweep again with the app in a memory cgroup: what each level held, and \
         whether the kernel killed the app for memory.\n\n",
    );
    for (app, memory) in limited {
        let mut table = Table::new([
            "connections",
            "held",
            "req/s",
            "p99 ms",
            "errors",
            "RSS MiB",
            "OOM kills",
            "survived",
            "valid",
        ])
        .numbers(..7);
        for level in &memory.levels {
            table.row(memory_level(level));
        }
        text.push_str(&format!(
            "### {}: {} MiB limit ({})\n\n{}\n",
            escape(&app.label),
            numbers::mib(mib(memory.limit_bytes)),
            escape(&memory.mechanism),
            table.to_markdown()
        ));
    }
    let not_run: Vec<String> = sweep
        .apps
        .iter()
        .filter(|a| a.memory_limited.is_none())
        .map(|a| escape(&a.label))
        .collect();
    if !not_run.is_empty() {
        text.push_str(&format!("Not run for: {}.\n", not_run.join(", ")));
    }
    text
}

fn memory_level(level: &ConnectionLevel) -> Vec<String> {
    vec![
        level.connections.to_string(),
        level.connections_held.to_string(),
        numbers::per_sec(level.requests_per_sec),
        numbers::ms(level.latency_ms.p99),
        errors(&level.answers).to_string(),
        numbers::mib(level.app_rss_max_mib),
        level
            .oom_kills
            .map_or_else(|| "—".to_owned(), |kills| kills.to_string()),
        yes_no(level.survived),
        valid(level.valid, level.invalid_reason.as_deref()),
    ]
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

#[cfg(test)]
mod tests {
    use super::{cpu_over_rounds, equal_load_fraction};
    use crate::results::sweep::{Ladder, Sweep};
    use std::path::Path;

    /// FastAPI and Laravel answered nothing in some runs at half Go's cached-detail max in
    /// docs/example-sweep-20261205010548, whose file stored those runs' whole CPU time as
    /// their cost per request.
    #[test]
    fn a_run_that_answered_nothing_has_no_cost_per_request() {
        let sweep =
            Sweep::load(Path::new("../docs/example-sweep-20261205010548/sweep.json")).unwrap();
        let cost_at_half = |label: &str| {
            let app = sweep.apps.iter().find(|a| a.label == label).unwrap();
            let route = app
                .routes
                .iter()
                .find(|r| r.route == "cached-detail")
                .unwrap();
            let rungs = route.rungs();
            let rung = rungs
                .iter()
                .find(|r| r.ladder == Ladder::Common && r.target_per_sec == 11_761.0)
                .unwrap();
            cpu_over_rounds(rung, |run| run.app_cpu_us_per_request)
        };
        assert_eq!(cost_at_half("fastapi"), "558");
        assert_eq!(cost_at_half("laravel"), "—");
        assert_eq!(cost_at_half("go"), "66 (66–68)");
    }

    #[test]
    fn equal_load_is_at_half_or_else_the_middle_common_rate() {
        assert_eq!(equal_load_fraction(&[0.1, 0.25, 0.5, 0.75, 0.9]), Some(0.5));
        assert_eq!(equal_load_fraction(&[0.9, 0.1, 0.3]), Some(0.3));
        assert_eq!(equal_load_fraction(&[0.25, 0.75]), Some(0.75));
        assert_eq!(equal_load_fraction(&[]), None);
    }
}
