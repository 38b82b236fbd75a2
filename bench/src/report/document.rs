//! `report.md`: the reference report's tables for one batch. `report.html` is rendered from
//! this text, so both always say the same.

use super::charts::{self, Chart};
use super::markdown::{Table, code_block, escape};
use super::numbers;
use super::outcome::{self, Measured, Summary};
use super::routes::{self, Group};
use super::sweep_charts;
use super::verdicts::{NullCheck, Ranked, RouteVerdicts};
use crate::results::sweep::{SERVICE_BOUND_BUSY, STEAL_MARK, Taken};
use crate::results::{AppResult, AppStatus, Batch, Ceiling, CpuSets, Machine, Parity, Run, median};
use crate::statistics::{self, RatioInterval, Verdict};
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
    let pacer = match &batch.pacer {
        Some(pacer) => format!(
            "the Go reference ({}) on the app CPUs, {}; per route a {} s warm-up, then one {} s \
             run {} each app run; environment {}",
            pacer.app,
            match pacer.per_visit {
                true => "started afresh with each visit",
                false => "started once per batch",
            },
            pacer.warmup_secs,
            settings.duration_secs,
            match settings.order_seed {
                Some(_) => "before or after",
                None => "after",
            },
            environment(&pacer.env)
        ),
        None => "none: this batch ran no paired Go runs".to_owned(),
    };
    let mut table = Table::new(["setup", ""]);
    for (what, value) in [
        ("batch", batch.id.clone()),
        ("started", batch.started_at.clone()),
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
                "{}, each visiting every app once; per app and route a {} s warm-up, then one {} s run",
                settings.rounds, settings.warmup_secs, settings.duration_secs
            ),
        ),
        ("order", visiting_order(settings.order_seed)),
        ("pacer", pacer),
        ("routes", settings.routes.join(", ")),
        ("tools", tools.join(" · ")),
        ("seed checksum", batch.seed_checksum.clone()),
        ("git commit", batch.git_commit.clone()),
    ]) {
        table.row(vec![what.to_owned(), value]);
    }
    format!(
        "# blogbench report: batch {}\n\n{}\nThe command:\n\n{}",
        escape(&batch.id),
        table.to_markdown(),
        code_block("sh", &batch.command)
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

/// The app that pairs with the pacer, the same program: its ratio is the noise floor.
fn is_go_reference(batch: &Batch, app: &AppResult) -> bool {
    let reference = batch.pacer.as_ref().map_or("go", |p| p.app.as_str());
    app.name == reference
}

/// `2.00× (1.90–2.10; CI 1.75–2.28)`: the median, the rounds' range and the 95 % confidence
/// interval of the geometric mean, with the rounds counted when not all of them paired or
/// when the batch asked for a `precision`, and whether the interval reached it.
fn ratio_cell(ratio: &Summary, interval: Option<&RatioInterval>, precision: Option<f64>) -> String {
    let mut notes = Vec::new();
    if ratio.valid > 1 {
        notes.push(format!("{:.2}–{:.2}", ratio.min, ratio.max));
    }
    if let Some(interval) = interval {
        notes.push(format!("CI {:.2}–{:.2}", interval.low, interval.high));
    }
    if ratio.valid < ratio.runs {
        notes.push(format!("{}/{} rounds", ratio.valid, ratio.runs));
    } else if ratio.valid == 1 {
        notes.push("1 round".to_owned());
    } else if precision.is_some() {
        notes.push(format!("{} rounds", ratio.valid));
    }
    if let Some(precision) = precision
        && !interval.is_some_and(|i| i.relative_half_width() <= precision)
    {
        notes.push(format!("not within ±{}", numbers::percent(precision)));
    }
    format!("{} ({})", numbers::times(ratio.median), notes.join("; "))
}

fn ratio_to_go(batch: &Batch, columns: &[String]) -> String {
    let mut table =
        Table::new(std::iter::once("app").chain(columns.iter().map(String::as_str))).numbers(1..);
    for app in &batch.apps {
        let name = if is_go_reference(batch, app) {
            format!("{} (noise floor)", app.name)
        } else {
            app.name.clone()
        };
        let mut row = vec![name];
        row.extend(columns.iter().map(|route| {
            let service_bound = outcome::route(app, route).is_ok_and(|m| m.mostly_service_bound());
            let stolen = outcome::route(app, route).is_ok_and(|m| m.any_run_stolen());
            outcome::ratio_to_go(app, route).map_or_else(
                |missing| missing.long(),
                |ratio| {
                    let interval = app
                        .routes
                        .iter()
                        .find(|r| &r.route == route)
                        .and_then(|r| RatioInterval::of(&r.ratios_to_pacer()));
                    let cell = ratio_cell(&ratio, interval.as_ref(), batch.settings.precision);
                    let marks = [(service_bound, " ‡"), (stolen, " §")]
                        .into_iter()
                        .filter_map(|(marked, mark)| marked.then_some(mark))
                        .collect::<String>();
                    format!("{cell}{marks}")
                },
            )
        }));
        table.row(row);
    }
    let precision = match (batch.settings.precision, batch.settings.max_rounds) {
        (Some(precision), Some(max_rounds)) => {
            let band = numbers::percent(precision);
            let revisited = match batch.settings.precision_every_app {
                true => format!(
                    "the routes where some app's interval was wider than ±{band}, every app \
                     running them"
                ),
                false => format!("only the app/route cells whose interval was wider than ±{band}"),
            };
            format!(
                " After {} rounds, rounds went on for {revisited}, up to {max_rounds}: each \
                 cell says how many rounds it took, and \"not within\" where its interval \
                 never got that narrow.",
                batch.settings.rounds,
            )
        }
        _ => String::new(),
    };
    let (started, warmup, without_pacer) = match &batch.pacer {
        Some(pacer) => (
            match pacer.per_visit {
                true => "started afresh with each visit as the app is",
                false => "started once per batch",
            },
            format!(" after its own {} s warm-up", pacer.warmup_secs),
            "",
        ),
        None => (
            "",
            String::new(),
            " This batch ran without the pacer, so no cell has a ratio.",
        ),
    };
    format!(
        "## Ratio to Go\n\n\
         Each app run was paired with a run of the Go reference on the same route, seconds \
         before or after it and on the same CPUs: the pacer, a second Go process {started}, \
         idle while the app is loaded, and run for as long as the app{warmup}. A \
         cell is app req/s ÷ Go req/s, the median over the rounds in which both runs counted, \
         then the min–max of those rounds' ratios, then the 95 % confidence interval of their \
         geometric mean (CI, docs/spec.md §5.12; none over a single round). Whatever drifts \
         between rounds moves both runs of a pair, so it cancels in the ratio. Above 1.00× the app served more requests per second than Go. The Go \
         reference's own row pairs two identical programs: its distance from 1.00× is the \
         method's noise floor. ‡: most of the app's valid runs had the CPUs PostgreSQL, Redis \
         and the load generator share at least {busy} busy, so those set the pace of the \
         pair, not only the app. §: in at least one of the cell's runs, the app's or Go's, the \
         hypervisor stole more than {steal} of a CPU set's time.{precision}{without_pacer}\n\n{}",
        table.to_markdown(),
        busy = numbers::share(SERVICE_BOUND_BUSY),
        steal = numbers::percent(STEAL_MARK),
    )
}

/// One paragraph per route group: per route, the apps in tiers (docs/spec.md §5.12), every
/// route's pairs judged together.
fn summaries(columns: &[String], verdicts: &[RouteVerdicts]) -> String {
    let paragraphs: Vec<String> = Group::ALL
        .into_iter()
        .filter_map(|group| {
            let group_routes = routes::in_group(columns, group);
            let sentences: Vec<String> = verdicts
                .iter()
                .filter(|v| group_routes.iter().any(|r| r == v.route))
                .map(route_summary)
                .collect();
            (!sentences.is_empty())
                .then(|| format!("**{}.** {}", group.title(), sentences.join(" ")))
        })
        .collect();
    format!(
        "## In short\n\n\
         Per route, the apps in tiers, highest ratio to Go first (the geometric mean of the \
         rounds' ratios, with its 95 % confidence interval). Two apps are told apart when the \
         paired signed-rank test over their common rounds is a discovery at a {fdr} false \
         discovery rate over all of this batch's comparisons (Benjamini–Hochberg) and the 95 % \
         interval of their ratio lies wholly on one side of 1; they tie when that interval lies \
         within ±{band}. A new tier starts at the first app its tier's leader is told apart \
         from. Under 6 common rounds the test cannot tell two apps apart, so no claim is made \
         (docs/spec.md §5.12).\n\n{}\n",
        paragraphs.join("\n\n"),
        fdr = numbers::share(statistics::FALSE_DISCOVERY_RATE),
        band = numbers::share(statistics::TIE_BAND),
    )
}

/// For a batch of Go and its twins only: how often the method found a difference where
/// there is none.
fn null_check(batch: &Batch, verdicts: &[RouteVerdicts]) -> String {
    let Some(check) = NullCheck::of(batch, verdicts) else {
        return String::new();
    };
    let share = |count: usize, of: usize| match of {
        0 => "—".to_owned(),
        _ => numbers::percent(count as f64 / of as f64),
    };
    format!(
        "## The A/A check\n\n\
         Every app of this batch is the Go reference under another label, so every difference \
         found is false (docs/spec.md §5.12). {} of {} intervals of a ratio to Go exclude 1 \
         ({}; a calibrated 95 % interval does so in 5 % of cases, more here when the pairs \
         have an order effect); {} of {} pairs were told apart ({}; the verdicts allow a \
         {} false discovery rate).\n",
        check.excluding_one,
        check.intervals,
        share(check.excluding_one, check.intervals),
        check.told_apart,
        check.pairs,
        share(check.told_apart, check.pairs),
        numbers::share(statistics::FALSE_DISCOVERY_RATE),
    )
}

fn route_summary(verdicts: &RouteVerdicts) -> String {
    let route = escape(verdicts.route);
    let shown = |ranked: &Ranked| match &ranked.interval {
        Some(interval) => format!(
            "{} {} (CI {:.2}–{:.2})",
            escape(ranked.app),
            numbers::times(ranked.geometric_mean),
            interval.low,
            interval.high
        ),
        None => format!(
            "{} {} (1 round)",
            escape(ranked.app),
            numbers::times(ranked.geometric_mean)
        ),
    };
    match (verdicts.apps.as_slice(), verdicts.tiers.as_slice()) {
        ([], _) => format!("{route}: no app has a paired round."),
        ([only], _) => format!("{route}: only {} has a paired round.", shown(only)),
        (apps, [_]) => {
            let ties = verdicts
                .judged
                .iter()
                .filter(|j| j.verdict == Verdict::Tie)
                .count();
            let ties = match ties {
                0 => String::new(),
                n => format!(" ({n} of the pairs tie)"),
            };
            format!(
                "{route}: one tier, no two of the {} apps told apart over {} common rounds{ties}; \
                 highest {}.",
                apps.len(),
                verdicts.fewest_common_rounds().unwrap_or(0),
                shown(&apps[0]),
            )
        }
        (_, tiers) => {
            let tiers: Vec<String> = tiers
                .iter()
                .enumerate()
                .map(|(i, tier)| {
                    let apps: Vec<String> = tier
                        .iter()
                        .filter_map(|app| verdicts.apps.iter().find(|r| r.app == *app))
                        .map(&shown)
                        .collect();
                    format!("tier {}: {}", i + 1, apps.join(", "))
                })
                .collect();
            format!("{route}: {}.", tiers.join("; "))
        }
    }
}

/// The pacer's valid runs per route, every app's together: how far the machine itself moved.
fn drift(batch: &Batch, columns: &[String]) -> String {
    let title = "## How much the machine drifted during the batch\n\n";
    let pacer_runs = |route: &str| -> Vec<&Run> {
        batch
            .apps
            .iter()
            .flat_map(|a| &a.routes)
            .filter(|r| r.route == route)
            .flat_map(|r| &r.pacer_runs)
            .collect()
    };
    if columns.iter().all(|route| pacer_runs(route).is_empty()) {
        return format!(
            "{title}This batch recorded no paired Go runs, so its drift was not measured.\n"
        );
    }
    let mut table =
        Table::new(["route", "valid Go runs", "min", "median", "max", "spread"]).numbers(1..);
    for route in columns {
        let runs = pacer_runs(route);
        let valid = runs.iter().filter(|r| r.valid).map(|r| r.requests_per_sec);
        let count = format!(
            "{} of {}",
            runs.iter().filter(|r| r.valid).count(),
            runs.len()
        );
        let cells = match Summary::of(valid, runs.len()) {
            Some(s) => vec![
                numbers::per_sec(s.min),
                numbers::per_sec(s.median),
                numbers::per_sec(s.max),
                numbers::percent(s.spread()),
            ],
            None => vec!["— no valid Go run".to_owned(); 4],
        };
        table.row([vec![route.clone(), count], cells].concat());
    }
    format!(
        "{title}The pacer ran every route beside every app run: the same Go program on the same \
         CPUs each time, so its req/s moves only with the machine. Per route, its valid runs \
         over the whole batch (every app's pairs together), in req/s; spread = (max − min) / \
         median. The ratios above cancel this drift pair by pair; the req/s tables below do not, \
         so a difference between apps there smaller than the route's spread is not a measured \
         difference.\n\n{}\n{}\n",
        table.to_markdown(),
        steal(batch)
    )
}

/// The most steal time any run of the batch saw (docs/spec.md §5.6), and how many runs
/// passed the mark.
fn steal(batch: &Batch) -> String {
    let taken: Vec<(&Taken, bool)> = batch
        .apps
        .iter()
        .flat_map(|app| &app.routes)
        .flat_map(|route| route.runs.iter().chain(&route.pacer_runs))
        .filter_map(|run| {
            let busy = run.cpu_busy.as_ref()?;
            Some((busy.taken.as_ref()?, busy.stolen()))
        })
        .collect();
    if taken.is_empty() {
        return "Steal time: not recorded in this batch (it predates the measurement).".to_owned();
    }
    let most = taken
        .iter()
        .map(|(t, _)| t.steal_app.max(t.steal_services_and_load))
        .fold(0.0, f64::max);
    let marked = taken.iter().filter(|(_, stolen)| *stolen).count();
    format!(
        "Steal time (the hypervisor running something else on this machine's virtual CPUs): at \
         most {} of a CPU set's time in any of the {} runs; {marked} above the {} mark (§ in \
         the ratio table).",
        numbers::percent(most),
        taken.len(),
        numbers::percent(STEAL_MARK)
    )
}

fn how_to_read(batch: &Batch) -> String {
    let s = &batch.settings;
    format!(
        "**How to read this.** A run counts only if the load generator saw no error, every \
         response was a 200, every body had the expected length (the page the parity gate \
         fetched for that path), and the server held all {connections} connections through the \
         measured window; on `write` and `mixed` (the harness's own client) a stored comment's \
         303 counts too, and every read had to show its connection's last comment (no stale \
         read). Medians and min–max ranges are over the rounds: one {duration} s run \
         per app, route and round, after a {warmup} s warm-up, {runs} rounds in this batch. \
         \"n/N valid\" marks a route where only n of its N runs counted. Invalid runs, the \
         app's and the paired Go runs', are listed under *Failures and invalid runs*, never \
         dropped and never in a median or a ratio. A cell without a number says why: \"—\" and \
         the reason when no run counted, \"failed: stage\" when the app stopped before the \
         route, \"not run\" when the batch ended before the app. Settings some apps could not \
         level are under *Deviations*.\n",
        runs = s.rounds,
        duration = s.duration_secs,
        connections = s.connections,
        warmup = s.warmup_secs,
    )
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

fn latency(batch: &Batch, columns: &[String], charts: &[Chart]) -> String {
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
fn against_ceiling(median: f64, name: &str, ceiling: &Ceiling) -> String {
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
