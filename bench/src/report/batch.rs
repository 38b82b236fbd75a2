//! `report.md`: the reference report's tables for one batch. `report.html` is rendered from
//! this text, so both always say the same.

use super::charts::Chart;
use super::markdown::{Table, code_block, escape};
use super::measures::{ceilings, image, latency, memory_and_cpu, requests};
use super::numbers;
use super::ratios::{drift, null_check, ratio_to_go, summaries};
use super::routes::{self};
use super::sweep_charts;
use super::verdicts::RouteVerdicts;
use crate::results::{AppStatus, Batch, CpuSets, Machine, Parity, Settings, median};
use std::collections::BTreeMap;

/// The report; `idioms` is the section on the newest idioms page, shown after the
/// throughput; `verdicts` are the batch's, judged over `columns` (the routes it reports).
pub fn markdown(
    batch: &Batch,
    columns: &[String],
    verdicts: &[RouteVerdicts],
    charts: &[Chart],
    idioms: &str,
) -> String {
    [
        header(batch),
        ratio_to_go(batch, columns),
        summaries(columns, verdicts),
        null_check(batch, verdicts),
        drift(batch, columns),
        how_to_read(batch),
        apps(batch),
        requests(batch, columns, charts),
        idioms.to_owned(),
        latency(batch, columns, charts),
        memory_and_cpu(batch, columns, charts),
        ceilings(batch, columns),
        app_settings(batch, charts),
        deviations(batch),
        versions(batch),
        failures(batch),
    ]
    .into_iter()
    .filter(|section| !section.is_empty())
    .collect::<Vec<_>>()
    .join("\n")
}

fn header(batch: &Batch) -> String {
    let machine = &batch.header.machine;
    let sets = &batch.cpu_sets;
    let settings = &batch.settings;
    let finished = batch
        .header
        .finished_at
        .clone()
        .unwrap_or_else(|| "not finished (the batch was stopped)".to_owned());
    let quick = if settings.quick { " (quick mode)" } else { "" };
    let tools: Vec<String> = batch
        .tools
        .iter()
        .map(|(t, v)| format!("{t} {v}"))
        .collect();
    let pacer = match &batch.pacer {
        Some(pacer) => format!(
            "the Go reference ({}) on the app CPUs, {}; {}; environment {}",
            pacer.app,
            match pacer.per_visit {
                true => "started afresh with each visit",
                false => "started once per batch",
            },
            match (settings.slice_secs, settings.order_seed) {
                (Some(_), _) => "loaded in turn with the app, slice by slice".to_owned(),
                (None, seed) => format!(
                    "per route a {} s warm-up, then one {} s run {} each app run",
                    pacer.warmup_secs,
                    settings.duration_secs,
                    match seed {
                        Some(_) => "before or after",
                        None => "after",
                    }
                ),
            },
            environment(&pacer.env)
        ),
        None => "none: this batch ran no paired Go runs".to_owned(),
    };
    let mut table = Table::new(["setup", ""]);
    for (what, value) in [
        ("batch", batch.header.id.clone()),
        ("started", batch.header.started_at.clone()),
        ("finished", finished),
    ]
    .into_iter()
    .chain(machine_rows(machine, sets))
    .chain([
        (
            "load",
            format!(
                "{}, {} connections{quick}",
                settings.loadgen, settings.connections
            ),
        ),
        (
            "rounds",
            format!(
                "{}, each visiting every app once; {}",
                settings.rounds,
                run_shape(settings)
            ),
        ),
        ("order", visiting_order(settings.order_seed)),
        ("pacer", pacer),
        ("routes", settings.routes.join(", ")),
        ("tools", tools.join(" · ")),
        ("seed checksum", batch.seed_checksum.clone()),
        ("git commit", batch.header.git_commit.clone()),
    ]) {
        table.row(vec![what.to_owned(), value]);
    }
    format!(
        "# blogbench report: batch {}\n\n{}\nThe command:\n\n{}",
        escape(&batch.header.id),
        table.to_markdown(),
        code_block("sh", &batch.header.command)
    )
}

/// How the batch ordered its visits and pairs (docs/spec.md §5.5).
fn visiting_order(seed: Option<u64>) -> String {
    match seed {
        Some(seed) => format!(
            "apps shuffled in every round, each app's pairs alternating which side runs \
             first (seed {seed}; `blogbench bench --seed {seed}` draws the same order)"
        ),
        None => "rotated by one app per round, the app's run before its Go run in every pair \
                 (before seeded orders)"
            .to_owned(),
    }
}

/// The setup rows every report starts with: the machine, its kernel, the CPU sets and
/// whether everything was pinned.
pub(super) fn machine_rows(machine: &Machine, sets: &CpuSets) -> [(&'static str, String); 4] {
    let pinning = if sets.unpinned.is_empty() {
        "every process pinned with taskset".to_owned()
    } else {
        format!("NOT pinned: {}", sets.unpinned.join(", "))
    };
    [
        (
            "machine",
            format!(
                "{}: {} cores, {}, {:.1} GiB",
                machine.hostname, machine.cores, machine.cpu_model, machine.memory_gib
            ),
        ),
        ("kernel", machine.kernel.clone()),
        (
            "CPU sets",
            format!(
                "app {} · PostgreSQL and Redis {} · load generator {} ({})",
                sets.app, sets.services, sets.load, sets.note
            ),
        ),
        ("pinning", pinning),
    ]
}

/// `WORKERS=1 POOL_MAX=16`, or that the harness set nothing.
fn environment(env: &BTreeMap<String, String>) -> String {
    if env.is_empty() {
        return "none recorded".to_owned();
    }
    let pairs: Vec<String> = env.iter().map(|(k, v)| format!("{k}={v}")).collect();
    pairs.join(" ")
}

fn how_to_read(batch: &Batch) -> String {
    let s = &batch.settings;
    format!(
        "**How to read this.** A run counts only if the load generator saw no error, every \
         response was a 200, every body had the expected length (the page the parity gate \
         fetched for that path), and the server held all {connections} connections through the \
         measured window; on `write` and `mixed` (the harness's own client) a stored comment's \
         303 counts too, and every read had to show its connection's last comment (no stale \
         read). Medians and min–max ranges are over the rounds, {runs} in this batch: {shape}. \
         \"n/N valid\" marks a route where only n of its N runs counted. Invalid runs, the \
         app's and the paired Go runs', are listed under *Failures and invalid runs*, never \
         dropped and never in a median or a ratio. A cell without a number says why: \"—\" and \
         the reason when no run counted, \"failed: stage\" when the app stopped before the \
         route, \"not run\" when the batch ended before the app. Settings some apps could not \
         level are under *Deviations*.\n",
        runs = s.rounds,
        shape = run_shape(s),
        connections = s.connections,
    )
}

/// What one app's round on one route is: whole runs, or slices (docs/spec.md §5.5).
fn run_shape(settings: &Settings) -> String {
    let (warmup, duration) = (settings.warmup_secs, settings.duration_secs);
    match settings.slice_secs {
        Some(slice) => format!(
            "per app and route, on the routes that read, the app and its Go pacer loaded in turn \
             by the harness's client in {slice} s slices, {warmup} s of warm-up slices then \
             {duration} s of counted slices each (a side's run is the mean of its slices' \
             rates); on the routes that write, a {warmup} s warm-up then one {duration} s run each"
        ),
        None => format!("per app and route a {warmup} s warm-up, then one {duration} s run each"),
    }
}

fn apps(batch: &Batch) -> String {
    let mut table = Table::new([
        "app",
        "stack",
        "status",
        "parity with the Go reference",
        "parity after load",
    ]);
    for app in &batch.apps {
        let status = match &app.status {
            AppStatus::Ok => "ok".to_owned(),
            AppStatus::Pending => "not run".to_owned(),
            AppStatus::Failed { stage, .. } => format!("failed: {stage}"),
        };
        table.row(vec![
            app.name.clone(),
            app.stack.clone(),
            status,
            parity(app.parity.as_ref()),
            parity(app.parity_after_load.as_ref()),
        ]);
    }
    format!("## Apps\n\n{}", table.to_markdown())
}

fn parity(parity: Option<&Parity>) -> String {
    match parity {
        None => "not checked".to_owned(),
        Some(p) if p.mismatches == 0 => format!("{} pages identical", p.pages),
        Some(p) => format!("{} of {} pages differ", p.mismatches, p.pages),
    }
}

/// What each app runs with, from its manifest and the harness: the settings a fair
/// comparison has to show.
fn app_settings(batch: &Batch, charts: &[Chart]) -> String {
    let mut table = Table::new([
        "app",
        "pool max/min",
        "ping on acquire / release",
        "statements home/post/tag/comment",
        "connection per request",
        "page cache",
        "environment set by the harness",
    ]);
    let yes_no = |b: bool| if b { "yes" } else { "no" };
    for app in &batch.apps {
        let manifest = match &app.settings {
            Some(s) => vec![
                format!("{}/{}", s.pool_max, s.pool_min),
                format!("{} / {}", s.ping_on_acquire, yes_no(s.ping_on_release)),
                match s.queries.comment {
                    Some(comment) => format!(
                        "{}/{}/{}/{comment}",
                        s.queries.home, s.queries.post, s.queries.tag
                    ),
                    None => format!("{}/{}/{}", s.queries.home, s.queries.post, s.queries.tag),
                },
                s.connection.clone(),
                s.cache.clone(),
            ],
            None => vec!["— not in the manifest".to_owned(); 5],
        };
        table.row(
            [
                vec![app.name.clone()],
                manifest,
                vec![environment(&app.env)],
            ]
            .concat(),
        );
    }
    let warmed: Vec<String> = batch
        .apps
        .iter()
        .filter_map(|app| {
            let warmup = app.settings.as_ref()?.warmup.as_deref()?;
            Some(format!("{} ({warmup})", app.name))
        })
        .collect();
    let pacer = match batch.pacer.as_ref().is_some_and(|p| p.per_visit) {
        true => "the Go pacer, started with the app, is loaded as long in the same way",
        false => "the Go pacer runs from the batch's start and is warm",
    };
    let warmups = match warmed.is_empty() {
        true => String::new(),
        false => format!(
            " Start-up warm-up: {} loaded that long after each start, the time shared among \
             the routes that read, before its first measured run (its manifest's `warmup`: a \
             JIT reaches its steady speed only after that much load); {pacer}.",
            warmed.join(", ")
        ),
    };
    format!(
        "## App settings\n\nFrom each app's manifest (`bench.toml`), and the environment the \
         harness set on top of the app's own defaults; the Go reference is the yardstick.\
         {warmups}\n\n{}{}",
        table.to_markdown(),
        start_up_warmups(batch, charts)
    )
}

/// Whether each start-up warm-up was long enough: for each route's part, the right answers
/// of its first and last second (medians over the rounds) against the median of the app's
/// measured runs on that route. A last second well below the measured runs would say the
/// app was still getting faster when the warm-up ended.
fn start_up_warmups(batch: &Batch, charts: &[Chart]) -> String {
    let mut text = String::new();
    for app in batch.apps.iter().filter(|a| !a.start_up_warmups.is_empty()) {
        let mut table = Table::new([
            "route",
            "first second, req/s",
            "last second, req/s",
            "measured runs, median req/s",
            "last second ÷ measured",
        ])
        .numbers(1..);
        let mut routes: Vec<&str> = Vec::new();
        for part in &app.start_up_warmups {
            if !routes.contains(&part.route.as_str()) {
                routes.push(&part.route);
            }
        }
        for route in routes {
            let parts = app.start_up_warmups.iter().filter(|p| p.route == route);
            let second = |pick: fn(&[u32]) -> Option<&u32>| {
                median(
                    parts
                        .clone()
                        .filter_map(|p| pick(&p.right_per_sec))
                        .map(|&n| f64::from(n)),
                )
                .map(|(m, _)| m)
            };
            let (first, last) = (second(<[u32]>::first), second(<[u32]>::last));
            let measured = app
                .routes
                .iter()
                .find(|r| r.route == route)
                .and_then(|r| r.median_requests_per_sec())
                .map(|(m, _)| m);
            let cell = |value: Option<f64>| value.map_or("—".to_owned(), numbers::per_sec);
            table.row(vec![
                route.to_owned(),
                cell(first),
                cell(last),
                cell(measured),
                match (last, measured) {
                    (Some(last), Some(measured)) if measured > 0.0 => {
                        format!("{:.2}", last / measured)
                    }
                    _ => "—".to_owned(),
                },
            ]);
        }
        text.push_str(&format!(
            "\n### {}: start-up warm-up\n\n{}The warm-up's load is the harness's closed-loop \
             client, the measured runs' is the batch's load generator: a last second below the \
             runs may be the two generators' difference as well as a runtime still getting \
             faster, so read the curve's shape first (flat at its end: warm).\n\n{}",
            app.name,
            image(charts, &sweep_charts::start_up_warmup_file(&app.name)),
            table.to_markdown()
        ));
    }
    text
}

/// One row per setting and reason, with every app that declared it, as the reference report
/// prints them.
fn deviations(batch: &Batch) -> String {
    struct Row<'a> {
        setting: &'a str,
        reason: &'a str,
        values: Vec<(&'a str, &'a str)>,
    }
    let mut rows: Vec<Row> = Vec::new();
    for app in &batch.apps {
        for (setting, value, reason) in &app.deviations {
            match rows
                .iter_mut()
                .find(|r| r.setting == setting && r.reason == reason)
            {
                Some(row) => row.values.push((value, &app.name)),
                None => rows.push(Row {
                    setting,
                    reason,
                    values: vec![(value, &app.name)],
                }),
            }
        }
    }
    if rows.is_empty() {
        return "## Deviations\n\nNo app declared a deviation.\n".to_owned();
    }
    let mut table = Table::new(["setting", "value", "app(s)", "reason"]);
    for row in rows {
        let apps: Vec<&str> = row.values.iter().map(|(_, app)| *app).collect();
        let first = row.values[0].0;
        let value = if row.values.iter().all(|(v, _)| *v == first) {
            first.to_owned()
        } else {
            let each: Vec<String> = row
                .values
                .iter()
                .map(|(v, a)| format!("{v} ({a})"))
                .collect();
            each.join("; ")
        };
        table.row(vec![
            row.setting.to_owned(),
            value,
            apps.join(", "),
            row.reason.to_owned(),
        ]);
    }
    format!(
        "## Deviations\n\nSettings an app could not level, from its manifest (`bench.toml`):\n\n{}",
        table.to_markdown()
    )
}

fn versions(batch: &Batch) -> String {
    let mut apps = Table::new(["app", "key packages"]);
    for app in &batch.apps {
        let versions: Vec<String> = app
            .versions
            .iter()
            .map(|(p, v)| format!("{p} {v}"))
            .collect();
        apps.row(vec![app.name.clone(), versions.join(", ")]);
    }
    format!(
        "## Versions\n\nThe tools' versions are in the setup table above; each app's key \
         packages, resolved from its lock file:\n\n{}",
        apps.to_markdown()
    )
}

fn failures(batch: &Batch) -> String {
    let mut text = "## Failures and invalid runs\n\n".to_owned();
    for app in &batch.apps {
        let AppStatus::Failed { stage, reason } = &app.status else {
            continue;
        };
        text.push_str(&format!(
            "### {} failed: {}\n\n{}\n\n",
            escape(&app.name),
            escape(stage),
            escape(reason)
        ));
        for (parity, when) in [
            (&app.parity, "Before load"),
            (
                &app.parity_after_load,
                "After load, pages changed under load",
            ),
        ] {
            let Some(parity) = parity.as_ref().filter(|p| p.mismatches > 0) else {
                continue;
            };
            text.push_str(&format!(
                "{when}: {} of {} pages differ from the Go reference's.",
                parity.mismatches, parity.pages
            ));
            match &parity.first_diff {
                Some(diff) => text.push_str(&format!(
                    " The first differing page, Go reference against {}:\n\n{}\n",
                    escape(&app.name),
                    code_block("diff", diff)
                )),
                None => text.push_str("\n\n"),
            }
        }
    }

    let mut invalid = Table::new(["app", "route", "run", "round", "req/s", "reason"]).numbers(3..5);
    for app in &batch.apps {
        for route in &app.routes {
            let app_runs = route.runs.iter().map(|run| ("app", run));
            let pacer_runs = route
                .pacer_runs
                .iter()
                .map(|run| ("paired Go run (pacer)", run));
            for (whose, run) in app_runs.chain(pacer_runs).filter(|(_, run)| !run.valid) {
                invalid.row(vec![
                    app.name.clone(),
                    route.route.clone(),
                    whose.to_owned(),
                    run.index.to_string(),
                    numbers::per_sec(run.requests_per_sec),
                    run.invalid_reason
                        .clone()
                        .unwrap_or_else(|| "no reason recorded".to_owned()),
                ]);
            }
        }
    }
    if !invalid.is_empty() {
        text.push_str(&format!(
            "### Invalid runs\n\nKept and shown, left out of the medians and the ratios; a \
             paired Go run is the pacer's run right after the app's in the same round:\n\n{}\n",
            invalid.to_markdown()
        ));
    }

    let mut ceilings = Table::new(["ceiling", "reason"]);
    for (name, ceiling) in routes::named_ceilings(batch) {
        for reason in &ceiling.invalid {
            ceilings.row(vec![name.clone(), reason.clone()]);
        }
    }
    if !ceilings.is_empty() {
        text.push_str(&format!(
            "### Invalid ceiling runs\n\nLeft out of the ceilings' medians and ranges:\n\n{}\n",
            ceilings.to_markdown()
        ));
    }

    if batch.problems().is_empty() && ceilings.is_empty() {
        text.push_str("None: every app ran and every run counted.\n");
    }
    text
}
