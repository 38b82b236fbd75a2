//! The page in order: what it is, the headline table, one section per question, a card per
//! app, the parts.

use super::cells::{self, REFERENCE};
use super::rates;
use super::sources::{Loaded, Sources};
use super::{Block, Cell, ScoreTable, href, questions};
use crate::report::markdown::escape;
use crate::report::routes;
use crate::report::sweep::slo_ms;
use crate::results::scoreboard::Outcome;
use crate::statistics::CONFIDENCE;
use anyhow::Result;

/// The columns every table shares: the routes the batches ran, the routes the sweeps ran
/// with the common rate each is compared at, and where CPU per request is compared.
pub(super) struct Columns {
    pub routes: Vec<String>,
    pub swept: Vec<(String, Option<f64>)>,
    pub cpu_route: String,
    pub cpu_fraction: Option<f64>,
}

impl Columns {
    /// From the measured parts; before any is measured, from the plan.
    fn of(sources: &Sources) -> Columns {
        let measured_batches = sources
            .batches
            .iter()
            .filter_map(|l| l.results.as_ref().ok());
        let batch_routes: Vec<String> = measured_batches.flat_map(routes::columns).collect();
        let routes = match batch_routes.is_empty() {
            true => crate::routes::names()
                .into_iter()
                .map(str::to_owned)
                .collect(),
            false => routes::in_order(&batch_routes),
        };
        let measured_sweeps = sources
            .sweeps
            .iter()
            .filter_map(|l| l.results.as_ref().ok());
        let sweep_routes: Vec<String> = measured_sweeps
            .flat_map(|sweep| sweep.settings.routes.iter().cloned())
            .collect();
        let sweep_routes = match sweep_routes.is_empty() {
            true => routes::in_order(&sources.scoreboard.plan.sweep.routes),
            false => routes::in_order(&sweep_routes),
        };
        let swept: Vec<(String, Option<f64>)> = sweep_routes
            .into_iter()
            .map(|route| {
                let fraction = rates::common_fraction(sources, &route);
                (route, fraction)
            })
            .collect();
        // Detail's cost is the database page's, the one every app must do the same work for.
        let (cpu_route, cpu_fraction) = swept
            .iter()
            .find(|(route, _)| route == "detail")
            .or(swept.first())
            .cloned()
            .unwrap_or_else(|| ("detail".to_owned(), None));
        Columns {
            routes,
            swept,
            cpu_route,
            cpu_fraction,
        }
    }
}

pub(super) fn page(sources: &Sources) -> Result<Vec<Block>> {
    let columns = Columns::of(sources);
    let mut blocks = vec![header(sources), Block::Picker(sources.apps().to_vec())];
    blocks.extend(headline(sources, &columns));
    blocks.extend(questions::throughput(sources, &columns)?);
    blocks.extend(questions::latency(sources, &columns));
    blocks.extend(questions::cost(sources, &columns));
    blocks.extend(questions::memory(sources));
    blocks.extend(questions::reliability(sources));
    blocks.extend(questions::writes(sources));
    blocks.extend(questions::developer_cost(sources));
    blocks.push(questions::idioms(sources));
    blocks.extend(questions::round_trips(sources));
    blocks.extend(questions::cards(sources, &columns));
    blocks.extend(parts(sources));
    Ok(blocks)
}

/// `2 h 05 min`.
fn duration(secs: f64) -> String {
    let minutes = (secs / 60.0).round() as u64;
    match minutes / 60 {
        0 => format!("{minutes} min"),
        hours => format!("{hours} h {:02} min", minutes % 60),
    }
}

fn outcome(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Measured { problems: false } => "measured",
        Outcome::Measured { problems: true } => "measured, with failures",
        Outcome::Interrupted => "interrupted",
        Outcome::Failed { .. } => "failed",
        Outcome::Running { .. } => "running",
    }
}

fn header(sources: &Sources) -> Block {
    let scoreboard = sources.scoreboard;
    let head = &scoreboard.header;
    let machine = &head.machine;
    let plan = &scoreboard.plan;
    let mut text = format!("# blogbench scoreboard {}\n\n", escape(&head.id));
    if plan.level == "quick" {
        text.push_str(
            "> **A smoke test, not a result.** This scoreboard ran at the quick level: every \
             part at its command's `--quick` size, below the minimums of docs/spec.md §5. \
             Nothing on this page may be quoted as a measurement.\n\n",
        );
    }
    text.push_str(
        "Every app measured on every question from one commit on one machine. Each part is an \
         ordinary results folder of its own `blogbench` command under `parts/`; every number \
         below links to the report it came from, and a cell without a number says why.\n\n",
    );
    let budget = plan.budget_secs.map_or_else(String::new, |secs| {
        format!(", within a budget of {}", duration(secs))
    });
    let left_out = match plan.left_out.is_empty() {
        true => String::new(),
        false => format!("; left out: {}", escape(&plan.left_out.join("; "))),
    };
    let finished = head.finished_at.as_deref().map_or_else(
        || "not finished".to_owned(),
        |at| format!("finished {}", escape(at)),
    );
    text.push_str(&format!(
        "- **Machine:** {}, {} cores, {}, {:.1} GiB, kernel {}\n\
         - **Commit:** {} (measured code {})\n\
         - **Plan:** {}{budget}, estimated at {}{left_out}\n\
         - **Started:** {}, {finished}\n\
         - **Sittings:**\n",
        escape(&machine.hostname),
        machine.cores,
        escape(&machine.cpu_model),
        machine.memory_gib,
        escape(&machine.kernel),
        escape(&head.git_commit),
        escape(&scoreboard.code),
        escape(&plan.level),
        duration(plan.estimate_secs),
        escape(&head.started_at),
    ));
    for sitting in &scoreboard.sittings {
        let parts: Vec<String> = scoreboard
            .parts
            .iter()
            .flat_map(|part| part.attempts.iter().map(move |a| (part, a)))
            .filter(|(_, attempt)| attempt.sitting == sitting.number)
            .map(|(part, attempt)| {
                format!("{} ({})", escape(&part.name), outcome(&attempt.outcome))
            })
            .collect();
        let parts = match parts.is_empty() {
            true => "no part".to_owned(),
            false => parts.join(", "),
        };
        text.push_str(&format!(
            "  - sitting {}, {} to {} ({}): {parts}\n",
            sitting.number,
            escape(&sitting.started_at),
            escape(sitting.finished_at.as_deref().unwrap_or("—")),
            escape(
                sitting
                    .ended
                    .as_deref()
                    .unwrap_or("running, or stopped without a word")
            ),
        ));
    }
    text.push_str(&format!(
        "\nOn this {}-core machine the app, PostgreSQL, Redis and the load generator share the \
         CPUs, so most differences between apps are unresolved: only a {} interval that \
         excludes 1 is a finding, and the noise-floor row shows how far Go strays from \
         itself.\n",
        machine.cores,
        crate::report::numbers::share(CONFIDENCE),
    ));
    let problems = scoreboard.problems();
    if !problems.is_empty() {
        text.push_str("\n**Not yet a whole result:**\n\n");
        for problem in problems {
            text.push_str(&format!("- {}\n", escape(&problem)));
        }
    }
    Block::Text(text)
}

/// `[batch-1](parts/batch-1/…/report.html) (20261205042703), batch-3 (not run: budget)`: the
/// parts of a kind, each linked to its report or with why it has none.
pub(super) fn part_links<T>(parts: &[Loaded<T>], id: impl Fn(&T) -> &str) -> String {
    if parts.is_empty() {
        return "no part of the plan".to_owned();
    }
    let each: Vec<String> = parts
        .iter()
        .map(|loaded| {
            let name = escape(&loaded.part.name);
            match (&loaded.results, loaded.report()) {
                (Ok(results), Some(report)) => {
                    format!("[{name}]({}) ({})", href(&report), escape(id(results)))
                }
                (Ok(results), None) => format!("{name} ({})", escape(id(results))),
                (Err(why), _) => format!("{name} ({})", escape(why)),
            }
        })
        .collect();
    each.join(", ")
}

/// `max rate detail, req/s (p99 ≤ 50 ms)`.
pub(super) fn max_rate_header(sources: &Sources, route: &str) -> String {
    let slo = sources
        .sweeps
        .iter()
        .filter_map(|l| l.results.as_ref().ok())
        .find_map(|sweep| slo_ms(sweep, route));
    match slo {
        Some(slo) => format!("max rate {route}, req/s (p99 ≤ {slo} ms)"),
        None => format!("max rate {route}, req/s (p99 within its SLO)"),
    }
}

/// `{route} at 0.5× Go's max`.
pub(super) fn at_fraction(route: &str, fraction: Option<f64>) -> String {
    match fraction {
        Some(fraction) => format!("{route} at {fraction}× Go's max"),
        None => format!("{route} at a common rate"),
    }
}

pub(super) const NOT_APPLICABLE: &str = "not applicable";

/// The first cell of the noise-floor row.
pub(super) const NOISE_FLOOR: &str = "noise floor";

fn headline(sources: &Sources, columns: &Columns) -> Vec<Block> {
    let mut header = vec!["app".to_owned()];
    header.extend(columns.routes.iter().map(|route| format!("{route} × Go")));
    for (route, _) in &columns.swept {
        header.push(max_rate_header(sources, route));
    }
    for (route, fraction) in &columns.swept {
        header.push(format!("p99 ms, {}", at_fraction(route, *fraction)));
    }
    header.push(format!(
        "CPU µs/req, {}",
        at_fraction(&columns.cpu_route, columns.cpu_fraction)
    ));
    let figures = [
        "RSS under load, MiB",
        "faults: survived; clean; lost",
        "lines of code (own)",
        "cold build, s",
        "start-up, ms",
        "deviations",
    ];
    header.extend(figures.map(str::to_owned));
    let last = header.len() - 1;
    let mut table = ScoreTable::new("headline", header, 1..last);
    for app in sources.apps() {
        let mut row = vec![Cell::plain(app.clone())];
        row.extend((columns.routes.iter()).map(|route| cells::throughput(sources, app, route)));
        row.extend((columns.swept.iter()).map(|(route, _)| rates::max_rate(sources, app, route)));
        row.extend(
            (columns.swept.iter())
                .map(|(route, fraction)| rates::p99_at(sources, app, route, *fraction)),
        );
        row.push(rates::cpu(
            sources,
            app,
            &columns.cpu_route,
            columns.cpu_fraction,
        ));
        row.push(cells::rss_under_load(sources, app));
        row.push(cells::faults(sources, app));
        row.push(cells::idioms_figure(sources, app, cells::lines_of_code));
        row.push(cells::idioms_figure(sources, app, cells::cold_build));
        row.push(cells::idioms_figure(sources, app, cells::start_up));
        row.push(cells::deviations(sources, app));
        table.row(Some(app), row);
    }
    let mut floor = vec![Cell::plain(NOISE_FLOOR)];
    floor.extend((columns.routes.iter()).map(|route| cells::noise_floor(sources, route)));
    floor.extend((columns.swept.iter()).map(|(route, _)| rates::floor_max_rate(sources, route)));
    floor.extend(
        (columns.swept.iter())
            .map(|(route, fraction)| rates::floor_p99_at(sources, route, *fraction)),
    );
    floor.extend(std::iter::repeat_n(
        Cell::plain(NOT_APPLICABLE),
        figures.len() + 1,
    ));
    table.row(None, floor);

    let intro = format!(
        "## The headline\n\n\
         One row per app, Go first. *× Go*: the app's requests per second ÷ Go's, paired round \
         by round in its batch part, the geometric mean and its {confidence} interval (Go's own \
         row reads {REFERENCE}). *Max rate*: the highest open-loop rate sustained within the \
         route's latency objective, against Go's in the same sweep part. *p99* and *CPU*: every \
         app at the same rate, a fraction of Go's closed-loop max in its sweep part, the \
         highest every app sustained (so the p99s compare apps below their limits, not their \
         queues; *Latency* has every rate); CPU falls back to the batch's closed loop, where \
         each app runs as fast as it can, when the sweep has no figure. *RSS*: the most \
         resident memory in any batch run. *Faults*: whether the process lived through them \
         all; faults that broke no rule; requests and comments the app lost by itself. *Lines, \
         cold build, start-up*: the idioms page. The **noise floor** row is Go against its own \
         pacer (two identical programs: the method's spread) and the machine's floor of the \
         sweep (a static page server in the app's place).\n",
        confidence = crate::report::numbers::share(CONFIDENCE),
    );
    let from = format!(
        "From: ratios, RSS and deviations: {}. Max rate, p99 and CPU: {}. Faults: {}. Lines, \
         cold build and start-up: {}.\n\n\
         Marks as in the parts' own reports: ‡ service-bound (the CPUs PostgreSQL, Redis and \
         the load generator share were nearly saturated: they set the pace, not only the app); \
         § the hypervisor stole a visible share of a run; † client-bound; ◊ generator-late; \
         ⊥ machine-bound; ≥ the max is a floor, the app may hold more.\n",
        part_links(&sources.batches, |b| &b.header.id),
        part_links(&sources.sweeps, |s| &s.header.id),
        part_links(&sources.faults, |f| &f.header.id),
        part_links(&sources.idioms, |i| &i.header.id),
    );
    vec![Block::Text(intro), Block::Table(table), Block::Text(from)]
}

/// Every part: its apps, its attempts, how the last one ended, its results.
fn parts(sources: &Sources) -> Vec<Block> {
    let mut table = ScoreTable::new(
        "parts",
        ["part", "apps", "attempts", "last attempt", "results"]
            .map(str::to_owned)
            .into(),
        2..3,
    );
    for part in &sources.scoreboard.parts {
        let mut sittings: Vec<String> = Vec::new();
        for attempt in &part.attempts {
            let sitting = attempt.sitting.to_string();
            if !sittings.contains(&sitting) {
                sittings.push(sitting);
            }
        }
        let attempts = match (part.attempts.len(), sittings.len()) {
            (0, _) => "none".to_owned(),
            (n, 1) => format!("{n} (sitting {})", sittings[0]),
            (n, _) => format!("{n} (sittings {})", sittings.join(", ")),
        };
        let last = super::sources::missing(part).unwrap_or_else(|| {
            part.last()
                .map_or_else(String::new, |a| outcome(&a.outcome).to_owned())
        });
        let results = match part.last().and_then(|a| a.folder.clone()) {
            Some(folder) => Cell::linked(folder, super::sources::report(part)),
            None if part.measured() => Cell::plain("in scoreboard.json"),
            None => Cell::plain("none yet"),
        };
        table.row(
            None,
            vec![
                Cell::plain(part.name.clone()),
                Cell::plain(part.apps.join(", ")),
                Cell::plain(attempts),
                Cell::plain(last),
                results,
            ],
        );
    }
    vec![
        Block::Text(
            "## The parts\n\nEach part of the plan, its apps, its attempts (the last one \
             counts) and its results folder, relative to this page's.\n"
                .to_owned(),
        ),
        Block::Table(table),
    ]
}
