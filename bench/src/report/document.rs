//! `report.md`: the reference report's tables for one batch. `report.html` is rendered from
//! this text, so both always say the same.

use super::charts::{self, Chart};
use super::markdown::{Table, code_block, escape};
use super::numbers;
use super::outcome::{self, Measured};
use super::routes::{self, Group};
use crate::results::{AppResult, AppStatus, Batch, Run};

pub fn markdown(batch: &Batch, charts: &[Chart]) -> String {
    let columns = routes::columns(batch);
    [
        header(batch),
        how_to_read(batch),
        apps(batch),
        requests(batch, &columns, charts),
        latency(batch, &columns, charts),
        memory_and_cpu(batch, &columns, charts),
        ceilings(batch, &columns),
        app_settings(batch),
        deviations(batch),
        versions(batch),
        failures(batch),
    ]
    .join("\n")
}

fn header(batch: &Batch) -> String {
    let machine = &batch.machine;
    let sets = &batch.cpu_sets;
    let settings = &batch.settings;
    let finished = batch
        .finished_at
        .clone()
        .unwrap_or_else(|| "not finished (the batch was stopped)".to_owned());
    let quick = if settings.quick { " (quick mode)" } else { "" };
    let tools: Vec<String> = batch
        .tools
        .iter()
        .map(|(t, v)| format!("{t} {v}"))
        .collect();
    let mut table = Table::new(["setup", ""]);
    for (what, value) in [
        ("batch", batch.id.clone()),
        ("started", batch.started_at.clone()),
        ("finished", finished),
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
        (
            "load",
            format!(
                "{}, {} connections; per route a {} s warm-up, then {} × {} s runs{quick}",
                settings.loadgen,
                settings.connections,
                settings.warmup_secs,
                settings.runs,
                settings.duration_secs
            ),
        ),
        ("routes", settings.routes.join(", ")),
        ("tools", tools.join(" · ")),
        ("seed checksum", batch.seed_checksum.clone()),
        ("git commit", batch.git_commit.clone()),
    ] {
        table.row(vec![what.to_owned(), value]);
    }
    format!(
        "# blogbench report: batch {}\n\n{}\nThe command:\n\n{}",
        escape(&batch.id),
        table.to_markdown(),
        code_block("sh", &batch.command)
    )
}

fn how_to_read(batch: &Batch) -> String {
    let s = &batch.settings;
    format!(
        "**How to read this.** Every number is the median of a route's valid runs \
         ({runs} × {duration} s at {connections} connections after a {warmup} s warm-up); \
         \"n/N valid\" marks a route where only n of its N runs counted, and the range of \
         the valid runs follows the medians. A run counts when the load generator reached all its \
         connections and saw no error and only 200 responses. Invalid runs are listed under \
         *Failures and invalid runs*, never dropped. A cell without a number says why: \
         \"—\" and the reason when no run counted, \"failed: stage\" when the app stopped \
         before the route, \"not run\" when the batch ended before the app. Settings some \
         apps could not level are under *Deviations*.\n",
        runs = s.runs,
        duration = s.duration_secs,
        connections = s.connections,
        warmup = s.warmup_secs,
    )
}

fn apps(batch: &Batch) -> String {
    let mut table = Table::new(["app", "stack", "status", "parity with the Go reference"]);
    for app in &batch.apps {
        let status = match &app.status {
            AppStatus::Ok => "ok".to_owned(),
            AppStatus::Pending => "not run".to_owned(),
            AppStatus::Failed { stage, .. } => format!("failed: {stage}"),
        };
        let parity = match &app.parity {
            None => "not checked".to_owned(),
            Some(p) if p.mismatches == 0 => format!("{} pages identical", p.pages),
            Some(p) => format!("{} of {} pages differ", p.mismatches, p.pages),
        };
        table.row(vec![app.name.clone(), app.stack.clone(), status, parity]);
    }
    format!("## Apps\n\n{}", table.to_markdown())
}

/// `![title](file)` for a chart the batch has.
fn image(charts: &[Chart], file_name: &str) -> String {
    charts
        .iter()
        .find(|c| c.file_name == file_name)
        .map(|c| format!("![{}]({})\n\n", escape(&c.title), c.file_name))
        .unwrap_or_default()
}

/// A table with one row per app and one column per route.
fn per_route_table(
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
fn measured_or_short(app: &AppResult, route: &str, cell: impl Fn(Measured) -> String) -> String {
    outcome::route(app, route).map_or_else(|missing| missing.short(), cell)
}

fn requests(batch: &Batch, columns: &[String], charts: &[Chart]) -> String {
    let mut text = "## Requests per second\n\n".to_owned();
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
    text.push_str("Every route, median req/s of the valid runs:\n\n");
    text.push_str(&per_route_table(
        batch,
        columns,
        |app, route| match outcome::route(app, route) {
            Err(missing) => missing.long(),
            Ok(measured) => {
                let spread = measured.spread(|r| r.requests_per_sec);
                let median = numbers::per_sec(spread.median);
                if spread.valid < spread.runs {
                    format!("{median} ({}/{} valid)", spread.valid, spread.runs)
                } else {
                    median
                }
            }
        },
    ));
    text.push_str("\nThe range of those runs, min–max req/s:\n\n");
    text.push_str(&per_route_table(batch, columns, |app, route| {
        measured_or_short(app, route, |measured| {
            let spread = measured.spread(|r| r.requests_per_sec);
            format!(
                "{}–{}",
                numbers::per_sec(spread.min),
                numbers::per_sec(spread.max)
            )
        })
    }));
    text
}

fn latency(batch: &Batch, columns: &[String], charts: &[Chart]) -> String {
    let table = per_route_table(batch, columns, |app, route| {
        measured_or_short(app, route, |measured| {
            let p50 = measured.median(|r| r.latency_ms.p50);
            let p99 = measured.median(|r| r.latency_ms.p99);
            format!("{} / {}", numbers::ms(p50), numbers::ms(p99))
        })
    });
    format!(
        "## Latency\n\n{}p50 / p99 in ms, medians of the valid runs:\n\n{table}",
        image(charts, charts::LATENCY_FILE)
    )
}

fn memory_and_cpu(batch: &Batch, columns: &[String], charts: &[Chart]) -> String {
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

fn ceilings(batch: &Batch, columns: &[String]) -> String {
    let mut table = Table::new(["ceiling", "per second", "how"]).numbers(1..2);
    if let Some(http) = &batch.ceilings.http {
        table.row(vec![
            "HTTP: the load generator against a static page".to_owned(),
            numbers::per_sec(http.per_sec),
            http.how.clone(),
        ]);
    }
    for (page, ceiling) in &batch.ceilings.database {
        table.row(vec![
            format!("DB: {page} page's queries (pgbench)"),
            numbers::per_sec(ceiling.per_sec),
            ceiling.how.clone(),
        ]);
    }
    let intro = "What limits a route before the app does, measured in the same batch, and each \
                 app's median as a share of it: the database ceiling of the page for uncached \
                 pages (when measured), the HTTP ceiling otherwise. Near 100 % the client or the \
                 database, not the app, was the limit.";
    let shares = per_route_table(batch, columns, |app, route| {
        measured_or_short(app, route, |measured| {
            let median = measured.median(|r| r.requests_per_sec);
            match routes::ceiling(batch, route) {
                Some((name, ceiling)) if ceiling.per_sec > 0.0 => {
                    format!("{} of {name}", numbers::share(median / ceiling.per_sec))
                }
                _ => "— no ceiling measured".to_owned(),
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

/// What each app runs with, from its manifest: the settings a fair comparison has to show.
fn app_settings(batch: &Batch) -> String {
    let mut table = Table::new([
        "app",
        "pool max/min",
        "ping on acquire / release",
        "queries home/post/tag",
        "connection per request",
        "page cache",
    ]);
    let yes_no = |b: bool| if b { "yes" } else { "no" };
    for app in &batch.apps {
        let Some(s) = &app.settings else { continue };
        table.row(vec![
            app.name.clone(),
            format!("{}/{}", s.pool_max, s.pool_min),
            format!(
                "{} / {}",
                yes_no(s.ping_on_acquire),
                yes_no(s.ping_on_release)
            ),
            format!("{}/{}/{}", s.queries.home, s.queries.post, s.queries.tag),
            s.connection.clone(),
            s.cache.clone(),
        ]);
    }
    format!(
        "## App settings\n\nFrom each app's manifest (`bench.toml`); the Go reference is the yardstick.\n\n{}",
        table.to_markdown()
    )
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
        if let AppStatus::Failed { stage, reason } = &app.status {
            text.push_str(&format!(
                "### {} failed: {}\n\n{}\n\n",
                escape(&app.name),
                escape(stage),
                escape(reason)
            ));
            if let Some(diff) = app.parity.as_ref().and_then(|p| p.first_diff.as_deref()) {
                text.push_str(&format!(
                    "The first differing page, Go reference against {}:\n\n{}\n",
                    escape(&app.name),
                    code_block("diff", diff)
                ));
            }
        }
    }
    let mut invalid = Table::new(["app", "route", "run", "req/s", "reason"]).numbers(2..4);
    for app in &batch.apps {
        for route in &app.routes {
            for run in route.runs.iter().filter(|r| !r.valid) {
                invalid.row(vec![
                    app.name.clone(),
                    route.route.clone(),
                    run.index.to_string(),
                    numbers::per_sec(run.requests_per_sec),
                    run.invalid_reason
                        .clone()
                        .unwrap_or_else(|| "no reason recorded".to_owned()),
                ]);
            }
        }
    }
    let any_failed = batch
        .apps
        .iter()
        .any(|a| matches!(a.status, AppStatus::Failed { .. }));
    if !invalid.is_empty() {
        text.push_str(&format!(
            "### Invalid runs\n\nKept and shown, left out of the medians:\n\n{}",
            invalid.to_markdown()
        ));
    } else if !any_failed {
        text.push_str("None: every app ran and every run counted.\n");
    }
    text
}
