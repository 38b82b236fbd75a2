//! `reliability.md` of a `blogbench faults` run, from its `faults.json` alone: one row per app
//! (what a PostgreSQL restart cost, Redis outages, stalls, bad input, floods) beside the pool
//! settings behind it, then each fault in full and every bad-input answer.

use super::markdown::Table;
use crate::results::faults::{AppFaults, FaultOutcome, FaultsRun};
use std::fmt::Write;

pub fn markdown(run: &FaultsRun) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# blogbench reliability: faults run {}\n",
        run.header.id
    );
    let _ = writeln!(
        out,
        "`{}` at commit `{}` on {} ({} cores, {:.0} GiB, kernel {}), {} → {}. {}Closed-loop \
         load at {} connections: {} s before each fault, {} s after the service is back. \
         Nothing is pinned: these runs measure behaviour, not speed. The method is \
         docs/spec.md §7.\n",
        run.header.command,
        run.header.git_commit,
        run.header.machine.cpu_model,
        run.header.machine.cores,
        run.header.machine.memory_gib,
        run.header.machine.kernel,
        run.header.started_at,
        run.header.finished_at.as_deref().unwrap_or("(unfinished)"),
        if run.quick { "Quick run. " } else { "" },
        run.connections,
        run.baseline_secs,
        run.after_secs,
    );
    out.push_str("## Reliability\n\n");
    out.push_str(&summary(run).to_markdown());
    out.push_str(
        "\nFailed requests are split at the moment the service answered again: *during* \
         were sent before it, *after* were sent once it was back (what the app lost by \
         itself). *Errors for* runs from the return to the last failed answer; *p99 back* \
         is when p99 stayed within twice the baseline (and 5 ms) with no failure, in 0.5 s \
         windows. *While idle*: the app idles through the restart, then light traffic (8 \
         clients, 100 ms apart) resumes: what a pool does with connections the restart left \
         dead. A stall holds `ACCESS EXCLUSIVE` on `posts`; the long one outlasts the 3 s \
         pool acquire timeout. *Writes*: a Redis restart under `mixed` and a PostgreSQL \
         restart under `write`; a comment answered 303 must be stored (*lost* otherwise), \
         and a read must show its client's last comment.\n\n",
    );
    out.push_str("## Each fault\n\n");
    out.push_str(&faults(run).to_markdown());
    out.push_str("\n## Bad input and floods\n\n");
    out.push_str(&bad_input(run).to_markdown());
    out.push('\n');
    out.push_str(&floods(run).to_markdown());
    let problems = run.problems();
    out.push_str("\n## Broken rules\n\n");
    if problems.is_empty() {
        out.push_str("None: no wrong page, no answer the contract does not allow, no hang, no process died.\n");
    } else {
        for problem in problems {
            let _ = writeln!(out, "- {problem}");
        }
    }
    out
}

fn find<'a>(app: &'a AppFaults, fault: &str) -> Option<&'a FaultOutcome> {
    app.faults.iter().find(|f| f.fault == fault)
}

fn mib(bytes: u64) -> String {
    format!("{:.0}", bytes as f64 / 1024.0 / 1024.0)
}

fn summary(run: &FaultsRun) -> Table {
    let mut table = Table::new([
        "app",
        "ping on acquire",
        "PostgreSQL restart: failed during / after",
        "errors for, p99 back (s)",
        "restart while idle: failed after",
        "Redis restart: failed",
        "short stall: failed, max latency",
        "long stall: 503s, max latency",
        "writes: failed, comments lost",
        "bad input: 5xx or wrong",
        "flood: served",
        "survived",
        "RSS MiB before → after",
    ]);
    for app in &run.apps {
        if let Some(error) = &app.error
            && app.faults.is_empty()
        {
            let mut row = vec![app.label.clone(), ping(app)];
            row.push(format!("not tested: {error}"));
            row.extend(std::iter::repeat_n("—".to_owned(), 10));
            table.row(row);
            continue;
        }
        let restart = find(app, "postgres restart");
        let stalls: Vec<&FaultOutcome> = app
            .faults
            .iter()
            .filter(|f| f.fault.starts_with("database stall"))
            .collect();
        let writes: Vec<&FaultOutcome> = app
            .faults
            .iter()
            .filter(|f| f.comments_lost.is_some())
            .collect();
        let dash = || "—".to_owned();
        table.row(vec![
            app.label.clone(),
            ping(app),
            restart.map_or_else(dash, |f| {
                format!("{} / {}", f.failed_during, f.failed_after)
            }),
            restart.map_or_else(dash, |f| {
                format!(
                    "{:.1}, {}",
                    f.errors_for_secs,
                    f.p99_back_after_secs
                        .map_or("not within the run".to_owned(), |s| format!("{s:.1}"))
                )
            }),
            find(app, "postgres restart while idle")
                .map_or_else(dash, |f| f.failed_after.to_string()),
            find(app, "redis restart")
                .map_or_else(dash, |f| (f.failed_during + f.failed_after).to_string()),
            stalls.first().map_or_else(dash, |f| {
                format!(
                    "{}, {:.2} s",
                    f.failed_during + f.failed_after,
                    f.max_latency_ms / 1000.0
                )
            }),
            stalls.get(1).map_or_else(dash, |f| {
                format!(
                    "{}, {:.2} s",
                    f.answers.get("503").copied().unwrap_or(0),
                    f.max_latency_ms / 1000.0
                )
            }),
            if writes.is_empty() {
                dash()
            } else {
                format!(
                    "{}, {}",
                    writes
                        .iter()
                        .map(|f| f.failed_during + f.failed_after)
                        .sum::<u64>(),
                    writes.iter().filter_map(|f| f.comments_lost).sum::<u64>()
                )
            },
            app.bad_input
                .iter()
                .filter(|p| p.problem.is_some())
                .count()
                .to_string(),
            app.flood
                .as_ref()
                .map_or_else(dash, |f| format!("{}/{}", f.answered, f.requests)),
            if app.survived { "yes" } else { "no" }.to_owned(),
            format!(
                "{} → {}",
                mib(app.rss_before_bytes),
                mib(app.rss_after_bytes)
            ),
        ]);
    }
    table
}

fn ping(app: &AppFaults) -> String {
    let rule = app
        .settings
        .as_ref()
        .map_or("?".to_owned(), |s| s.ping_on_acquire.clone());
    match app.env.get("PING_ON_ACQUIRE") {
        Some(value) => format!("PING_ON_ACQUIRE={value} (default: {rule})"),
        None => rule,
    }
}

fn faults(run: &FaultsRun) -> Table {
    let mut table = Table::new([
        "app",
        "fault",
        "route",
        "outage s",
        "requests",
        "failed during",
        "failed after",
        "answers",
        "p99 baseline ms",
        "max latency ms",
        "comments lost / stored without a 303",
    ])
    .numbers(3..7);
    for app in &run.apps {
        for f in &app.faults {
            table.row(vec![
                app.label.clone(),
                f.fault.clone(),
                f.route.clone(),
                format!("{:.1}", f.outage_secs),
                f.requests.to_string(),
                f.failed_during.to_string(),
                f.failed_after.to_string(),
                f.answers
                    .iter()
                    .map(|(answer, n)| format!("{answer}: {n}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                format!("{:.1}", f.p99_baseline_ms),
                format!("{:.0}", f.max_latency_ms),
                match (f.comments_lost, f.comments_stored_unanswered) {
                    (Some(lost), Some(unanswered)) => format!("{lost} / {unanswered}"),
                    _ => "—".to_owned(),
                },
            ]);
        }
    }
    table
}

/// One row per bad request, one column per app: the status each app answered.
fn bad_input(run: &FaultsRun) -> Table {
    let mut header = vec!["request".to_owned()];
    header.extend(run.apps.iter().map(|a| a.label.clone()));
    let mut table = Table::new(header);
    let Some(first) = run.apps.iter().find(|a| !a.bad_input.is_empty()) else {
        return table;
    };
    for (i, request) in first.bad_input.iter().enumerate() {
        let mut row = vec![request.request.clone()];
        for app in &run.apps {
            row.push(app.bad_input.get(i).map_or("—".to_owned(), |p| {
                let status = p.status.map_or("no answer".to_owned(), |s| s.to_string());
                if p.problem.is_some() {
                    format!("{status} ✗")
                } else {
                    status
                }
            }));
        }
        table.row(row);
    }
    table
}

fn floods(run: &FaultsRun) -> Table {
    let mut table = Table::new([
        "app",
        "idle + slow connections",
        "held s",
        "served",
        "max latency ms",
        "flood connections the app closed",
    ]);
    for app in &run.apps {
        if let Some(f) = &app.flood {
            table.row(vec![
                app.label.clone(),
                format!("{} + {}", f.idle_connections, f.slow_connections),
                format!("{:.0}", f.held_secs),
                format!("{}/{}", f.answered, f.requests),
                f.max_latency_ms
                    .map_or("—".to_owned(), |ms| format!("{ms:.1}")),
                f.closed_by_app.to_string(),
            ]);
        }
    }
    table
}
