//! The sweep report's rates: each app's highest rate within the objective, the machine's
//! floor, what equal load costs, and latency against throughput.

use super::*;
use crate::report::charts::Chart;
use crate::report::markdown::{Table, escape};
use crate::report::numbers;
use crate::report::sweep_charts;
use crate::results::sweep::{AppSweep, Ladder, OpenAbove, RatePoint, RouteSweep, Rung, Sweep};
use crate::results::{Latency, median};
use crate::stack::apps::GO;
use crate::statistics::RatioInterval;

pub(super) fn max_rates(sweep: &Sweep) -> String {
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
            max_row.push(max_rate_cell(sweep, app, go, route));
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
         Per app and route, the highest rate of either ladder that was sustained (held in \
         more than half of the {rounds} rounds), in req/s; in parentheses the ratio to Go's, to \
         one decimal, and the next rate up, which was not sustained: the app's own max lies \
         between the two, so it is known only to the ladders' step (10–25 %); then each \
         round's own highest held rate in round order (how far one round can mislead; —: the \
         round did not run the max, as the rounds before it had decided it: a round runs \
         only the rates whose verdict is still open) and \
         the 95 % confidence interval of their geometric mean (over the rounds that held a \
         rate; docs/spec.md §5.12); \"n lower missed\": that many lower rates were not \
         sustained (a stall sank runs, or the app has a bad patch below its max: see the \
         latency chart). \"none\": no rate was sustained; \"—\": the route was not measured \
         (see *Failures*). A max without ≥ is the app's: it held it, and missed the next rate \
         up by itself. ≥ marks a max the app held that is only a lower bound, because \
         nothing above it was run, or because of the marks of the next rate up (the rate \
         that decided it; for \"none\", the lowest rate): † it ran client-bound, ‡ \
         service-bound, so the limit may not be the app's; ◊ its generator-late rounds (the \
         app's share of the latency within the SLO, the generator's lateness over it) could \
         have changed its verdict; ⊥ the machine itself, a static page server in the app's \
         place, did not sustain the SLO there (*The machine's floor*): machine-bound; ? the \
         machine's floor was not measured at that rate or above, so it may be \
         machine-bound.\n\n{}\n\
         The closed-loop max each app's own ladder is a fraction of (Go's is the common \
         ladder's), req/s: the median of the rounds whose run counted, then each round's (a \
         run that does not count is listed under *Failures*).\n\n{}",
        max.to_markdown(),
        closed_loop.to_markdown(),
        rounds = sweep.settings.rounds,
    )
}

/// ` † ◊ ?`: the marks of why a max is only a lower bound ([`OpenAbove`]).
fn open_above_marks(open: &OpenAbove) -> String {
    [
        (open.client_bound, " †"),
        (open.service_bound, " ‡"),
        (open.generator, " ◊"),
        (open.machine_bound, " ⊥"),
        (open.floor_not_measured, " ?"),
    ]
    .into_iter()
    .filter(|(set, _)| *set)
    .map(|(_, mark)| mark)
    .collect()
}

/// `≥ 4,500 ‡ (1.1×; next 5,000 not sustained; rounds 4,500 / 6,000 / 2,000; 1 lower
/// missed)`, `none ◊ (rounds …)`, or `—`.
pub(super) fn max_rate_cell(
    sweep: &Sweep,
    app: &AppSweep,
    go: Option<&AppSweep>,
    route: &str,
) -> String {
    let rounds = sweep.settings.rounds;
    let Some(measured) = find_route(app, route).filter(|r| !ladder(r).is_empty()) else {
        return "—".to_owned();
    };
    let mut notes = Vec::new();
    let open = sweep.open_above(measured);
    let marks = open_above_marks(&open);
    let set_by = measured.rung_that_set_the_max(rounds);
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
            match set_by.filter(|rung| rung.target_per_sec > max) {
                Some(next) => {
                    let next = numbers::per_sec(next.target_per_sec);
                    notes.push(format!("next {next} not sustained"));
                }
                None => notes.push("the ladders' top".to_owned()),
            }
            let floor = if open.any() { "≥ " } else { "" };
            format!("{floor}{}{marks}", numbers::per_sec(max))
        }
        None => format!("none{marks}"),
    };
    if rounds > 1 {
        let by_round = measured.max_sustainable_by_round(rounds);
        let each: Vec<String> = (1..)
            .zip(&by_round)
            .map(|(round, max)| match max {
                Some(max) => numbers::per_sec(*max),
                None if measured.passed_over_the_max(round, rounds) => "—".to_owned(),
                None => "none".to_owned(),
            })
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
pub(super) fn machine_floor(sweep: &Sweep) -> String {
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
         median round (at a rate of either ladder). After the ladders, the floor also ran at \
         every rate that decided an app's max above the common rates. A rate the floor did \
         not sustain, and every rate above it, is machine-bound for every app: a miss there \
         says nothing of the app; a rate above every rate the floor held is not known to be \
         the app's (?).\n\n",
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
                    // A deciding rate's fraction is Go's max's, not one of the ladders'.
                    (rung.fraction * 100.0).round() / 100.0
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
                        route
                            .rungs()
                            .into_iter()
                            .find(|r| r.target_per_sec == rung.target_per_sec)
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
pub(super) fn closed_loop_cell(route: &RouteSweep, rounds: u32) -> String {
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
pub(super) fn equal_load_fraction(common: &[f64]) -> Option<f64> {
    if common.iter().any(|f| same_fraction(*f, 0.5)) {
        return Some(0.5);
    }
    let mut sorted = common.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted.get(sorted.len() / 2).copied()
}

/// The marks of a rate over its rounds: its median run's client- (†) and service-bound (‡)
/// marks, ◊ when a round's generator ran late, ⊥ when the machine's floor did not hold it.
pub(in crate::report) fn rung_marks(rung: &Rung<'_>, machine_bound_from: Option<f64>) -> String {
    let mut marks = bound_marks(rung.median_run());
    if rung.generator_late() > 0 {
        marks.push_str(" ◊");
    }
    if machine_bound_from.is_some_and(|from| rung.target_per_sec >= from) {
        marks.push_str(" ⊥");
    }
    marks
}

pub(in crate::report) fn same_fraction(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

pub(super) fn equal_load(sweep: &Sweep) -> String {
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
         generator-late runs, not held and not the app's misses). —: not \
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
pub(super) fn cpu_over_rounds(rung: &Rung<'_>, cost: impl Fn(&RatePoint) -> Option<f64>) -> String {
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

pub(super) fn latency_against_throughput(sweep: &Sweep, charts: &[Chart]) -> String {
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
