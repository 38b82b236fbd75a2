//! The sweep report's stress sections: the connection sweep, the overload and its recovery,
//! and the connection sweep inside a memory limit.

use super::*;
use crate::report::charts::Chart;
use crate::report::markdown::{Table, escape};
use crate::report::numbers;
use crate::report::sweep_charts;
use crate::results::sweep::{AppSweep, ConnectionLevel, MemoryLimited, Overload, Sweep};

pub(super) fn connections(sweep: &Sweep, charts: &[Chart]) -> String {
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

pub(super) fn overload(sweep: &Sweep, charts: &[Chart]) -> String {
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

pub(super) fn memory_limited(sweep: &Sweep) -> String {
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

pub(super) fn memory_level(level: &ConnectionLevel) -> Vec<String> {
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
