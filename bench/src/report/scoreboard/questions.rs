//! One section per question, each with how to read it and the parts behind it, and a card per
//! app.

use super::cells::{self, Ratio, batch_app, missing_text};
use super::chart;
use super::rates;
use super::sections::{Columns, NOISE_FLOOR, at_fraction, max_rate_header, part_links};
use super::sources::Sources;
use super::{Block, Cell, ScoreTable};
use crate::probe::roundtrips::PAGES;
use crate::report::line_chart::tick;
use crate::report::markdown::escape;
use crate::report::numbers;
use crate::report::{ratios, routes, verdicts};
use crate::results::faults::AppFaults;
use crate::results::idioms::Concern;
use crate::results::sweep::{DELIVERED_MIN, SERVICE_BOUND_BUSY};
use crate::stack::apps::GO;
use crate::statistics::CONFIDENCE;
use anyhow::Result;
use std::ops::Range;

/// A table with a row per app: its name, then `cells` of it.
fn per_app(
    sources: &Sources,
    id: &str,
    header: Vec<String>,
    numbers: Range<usize>,
    cells: impl Fn(&str) -> Vec<Cell>,
) -> ScoreTable {
    let mut table = ScoreTable::new(id, header, numbers);
    for app in sources.apps() {
        let row = std::iter::once(Cell::plain(app.clone())).chain(cells(app));
        table.row(Some(app), row.collect());
    }
    table
}

fn header<S: Into<String>>(columns: impl IntoIterator<Item = S>) -> Vec<String> {
    std::iter::once("app".to_owned())
        .chain(columns.into_iter().map(Into::into))
        .collect()
}

fn confidence() -> String {
    numbers::share(CONFIDENCE)
}

pub(super) fn throughput(sources: &Sources, columns: &Columns) -> Result<Vec<Block>> {
    let mut blocks = vec![Block::Text(format!(
        "## Throughput\n\n\
         **How to read this.** Each batch part paired every run of an app with a run of the Go \
         reference (its pacer) seconds before or after it, on the same CPUs; a cell is app \
         req/s ÷ Go req/s: the median over the rounds in which both runs counted, the lowest \
         and highest of those rounds, then the {confidence} confidence interval of their \
         geometric mean (CI), as the batch report's *Ratio to Go* gives them. Drift of the \
         machine moves both runs of a pair, so it cancels. Above 1.00× the app served more \
         than Go. Only an interval that excludes 1 is a difference, and one inside the \
         noise-floor row's spread (Go against its own pacer, two identical programs) is \
         barely one. The chart draws each app's interval as a whisker around its geometric \
         mean, the noise floor as the grey band. ‡: most runs service-bound ({busy} busy \
         CPUs of PostgreSQL, Redis and the load generator); §: steal time marked a run.\n\n\
         Raw results: {}.\n",
        part_links(&sources.batches, |b| &b.header.id),
        confidence = confidence(),
        busy = numbers::share(SERVICE_BOUND_BUSY),
    ))];
    match chart::throughput(&panels(sources, columns))? {
        Some(chart) => blocks.push(Block::Chart(chart)),
        None => blocks.push(Block::Text(
            "No ratio to Go has an interval yet, so there is no chart.\n".to_owned(),
        )),
    }
    let mut table = per_app(
        sources,
        "throughput",
        header(columns.routes.iter().map(|r| format!("{r} × Go"))),
        1..columns.routes.len() + 1,
        |app| {
            (columns.routes.iter())
                .map(|route| match app == GO {
                    true => Cell::plain(cells::REFERENCE),
                    false => ratio_in_full(sources, app, route),
                })
                .collect()
        },
    );
    let floor = (columns.routes.iter()).map(|route| ratio_in_full(sources, GO, route));
    table.row(
        None,
        std::iter::once(Cell::plain(NOISE_FLOOR))
            .chain(floor)
            .collect(),
    );
    blocks.push(Block::Table(table));
    blocks.push(Block::Text(verdict_letters(sources)));
    Ok(blocks)
}

/// The batch report's ratio cell: median (range; CI; rounds), with its marks.
fn ratio_in_full(sources: &Sources, app: &str, route: &str) -> Cell {
    batch_app(sources, app).map_or_else(Cell::plain, |found| {
        found.cell(match Ratio::of(found.app, route) {
            Ok(ratio) => format!(
                "{}{}",
                ratios::ratio_cell(
                    &ratio.summary,
                    ratio.interval.as_ref(),
                    found.results.settings.precision
                ),
                ratio.marks
            ),
            Err(missing) => missing_text(&missing, true),
        })
    })
}

/// Per route, every app but Go with its interval, and Go's own as the noise band; routes
/// without any interval are left out.
fn panels(sources: &Sources, columns: &Columns) -> Vec<chart::Panel> {
    columns
        .routes
        .iter()
        .map(|route| {
            let interval = |app: &str| {
                let found = batch_app(sources, app)?;
                let ratio = Ratio::of(found.app, route).map_err(|m| missing_text(&m, false))?;
                ratio
                    .interval
                    .ok_or_else(|| "no interval: a single round".to_owned())
            };
            let rows = (sources.apps().iter().enumerate())
                .filter(|(_, app)| *app != GO)
                .map(|(colour, app)| chart::Whisker {
                    app: app.clone(),
                    colour,
                    interval: interval(app),
                })
                .collect();
            chart::Panel {
                route: route.clone(),
                noise: interval(GO).ok(),
                rows,
            }
        })
        .filter(|panel| panel.rows.iter().any(|row| row.interval.is_ok()))
        .collect()
}

/// Each measured batch part's verdicts in letters, as its report's *In short* gives them.
fn verdict_letters(sources: &Sources) -> String {
    let mut text = format!(
        "Per batch part and route, the apps as the part's report gives them. {}\n\n",
        ratios::rule()
    );
    for loaded in &sources.batches {
        let part = part_links(std::slice::from_ref(loaded), |b| &b.header.id);
        let Ok(batch) = &loaded.results else {
            text.push_str(&format!("- {part}\n"));
            continue;
        };
        let columns = routes::columns(batch);
        let verdicts = verdicts::of(batch, &columns);
        let sentences: Vec<String> = verdicts.iter().map(ratios::route_summary).collect();
        text.push_str(&format!("- {part}: {}\n", sentences.join(" ")));
    }
    text
}

pub(super) fn latency(sources: &Sources, columns: &Columns) -> Vec<Block> {
    let mut blocks = vec![Block::Text(format!(
        "## Latency at a given load\n\n\
         **How to read this.** Open loop: requests fall due at a fixed rate whatever the app \
         does, and each latency runs from the moment its request fell due, so an app that \
         falls behind shows its queue. A rate is sustained when more than half of the rounds \
         held it: every answer right, at least {delivered} of the requests delivered, p99 \
         within the route's objective. *Max rate* is the highest rate of either ladder \
         sustained, then its ratio to Go's in the same sweep part (to one decimal: a max is \
         known only to the ladder's step) and the {confidence} interval of the rounds' own \
         maxima. The p99 columns put every app at the same rate, a fraction of Go's \
         closed-loop max in the app's sweep part: the p99 (ms) of the median round and its \
         {confidence} interval over the rounds. The noise-floor row is the machine's floor: \
         a static page server in the app's place, loaded the same way; from the rate it no \
         longer holds, every app is machine-bound (⊥). † client-bound, ‡ service-bound, \
         ◊ generator-late, ≥ a floor: the sweep report's marks.\n\n\
         Raw results: {}.\n",
        part_links(&sources.sweeps, |s| &s.header.id),
        delivered = numbers::share(DELIVERED_MIN),
        confidence = confidence(),
    ))];
    for (route, _) in &columns.swept {
        let fractions = rates::all_fractions(sources, route);
        let mut head = vec![max_rate_header(sources, route)];
        head.extend(
            (fractions.iter()).map(|f| format!("p99 ms, {}", at_fraction(route, Some(*f)))),
        );
        let mut table = per_app(
            sources,
            &format!("latency-{route}"),
            header(head),
            1..fractions.len() + 2,
            |app| {
                std::iter::once(rates::max_rate(sources, app, route))
                    .chain((fractions.iter()).map(|f| rates::p99_at(sources, app, route, Some(*f))))
                    .collect()
            },
        );
        let floor = std::iter::once(rates::floor_max_rate(sources, route))
            .chain((fractions.iter()).map(|f| rates::floor_p99_at(sources, route, Some(*f))));
        table.row(
            None,
            std::iter::once(Cell::plain(NOISE_FLOOR))
                .chain(floor)
                .collect(),
        );
        blocks.push(Block::Text(format!("### {}\n", escape(route))));
        blocks.push(Block::Table(table));
    }
    blocks
}

pub(super) fn cost(sources: &Sources, columns: &Columns) -> Vec<Block> {
    let mut head: Vec<String> = (columns.swept.iter())
        .map(|(route, fraction)| {
            format!(
                "app / PostgreSQL / Redis µs/req, {}",
                at_fraction(route, *fraction)
            )
        })
        .collect();
    head.push(format!("app µs/req, {}, closed loop", columns.cpu_route));
    let table = per_app(
        sources,
        "cost",
        header(head),
        1..columns.swept.len() + 2,
        |app| {
            (columns.swept.iter())
                .map(|(route, fraction)| rates::costs_at(sources, app, route, *fraction))
                .chain(std::iter::once(
                    cells::closed_loop_cpu(sources, app, &columns.cpu_route)
                        .unwrap_or_else(Cell::plain),
                ))
                .collect()
        },
    );
    vec![
        Block::Text(format!(
            "## Cost: CPU per request\n\n\
             **How to read this.** CPU time per answered request, in µs, of the app and of \
             the PostgreSQL and Redis it drove: at equal load, every app at the same fraction \
             of Go's closed-loop max in its sweep part, the median of the rounds (a run that \
             answered nothing has no cost per request). The last column is the batch's closed \
             loop, where each app runs as fast as it can: app CPU ÷ req/s, the median of the \
             valid runs, so a faster app is measured at a higher load there. The headline \
             takes the equal-load figure, and the closed loop's where the sweep has none.\n\n\
             Raw results: {}; {}.\n",
            part_links(&sources.sweeps, |s| &s.header.id),
            part_links(&sources.batches, |b| &b.header.id),
        )),
        Block::Table(table),
    ]
}

pub(super) fn memory(sources: &Sources) -> Vec<Block> {
    let table = per_app(
        sources,
        "memory",
        header([
            "RSS under load, MiB (most in any batch run)",
            "RSS at rest in the sweep, MiB",
            "RSS after start-up, MiB (idioms)",
        ]),
        1..4,
        |app| {
            vec![
                cells::rss_under_load(sources, app),
                rates::idle_rss_sweep(sources, app),
                cells::idioms_figure(sources, app, cells::idle_rss),
            ]
        },
    );
    vec![
        Block::Text(format!(
            "## Memory\n\n\
             **How to read this.** The resident memory of the app's whole process tree: the \
             most sampled during any of its batch runs (under load), at rest in its sweep \
             after start-up and before any measured load, and the median of the idioms \
             page's starts, just after the first answer.\n\n\
             Raw results: {}; {}; {}.\n",
            part_links(&sources.batches, |b| &b.header.id),
            part_links(&sources.sweeps, |s| &s.header.id),
            part_links(&sources.idioms, |i| &i.header.id),
        )),
        Block::Table(table),
    ]
}

pub(super) fn reliability(sources: &Sources) -> Vec<Block> {
    let figures: [fn(&AppFaults) -> String; 7] = [
        |app| if app.survived { "survived" } else { "died" }.to_owned(),
        |app| {
            let clean = app.faults.iter().filter(|f| f.problems.is_empty()).count();
            format!("{clean}/{}", app.faults.len())
        },
        |app| numbers::count(app.faults.iter().map(|f| f.failed_during).sum()),
        |app| numbers::count(app.faults.iter().map(|f| f.failed_after).sum()),
        |app| {
            let lost: Vec<u64> = app.faults.iter().filter_map(|f| f.comments_lost).collect();
            match lost.is_empty() {
                true => "no write under a fault".to_owned(),
                false => numbers::count(lost.iter().sum()),
            }
        },
        |app| {
            let wrong = app.bad_input.iter().filter(|a| a.problem.is_some()).count();
            format!("{wrong}/{}", app.bad_input.len())
        },
        |app| {
            app.flood.as_ref().map_or_else(
                || "not run".to_owned(),
                |flood| format!("{}/{}", flood.answered, flood.requests),
            )
        },
    ];
    let table = per_app(
        sources,
        "reliability",
        header([
            "process",
            "faults that broke no rule",
            "failed during the outages",
            "failed after, lost by the app",
            "comments lost",
            "bad input answered wrong",
            "flood: served",
        ]),
        2..7,
        |app| {
            (figures.iter())
                .map(|figure| cells::fault_figure(sources, app, figure))
                .collect()
        },
    );
    vec![
        Block::Text(format!(
            "## Reliability: faults\n\n\
             **How to read this.** Each app under closed-loop load while PostgreSQL and Redis \
             restart and the database stalls, then bad input and an idle-connection flood \
             (docs/spec.md §7; nothing pinned: behaviour, not speed). *Process*: alive after \
             the last fault. A fault broke a rule when the app answered wrong content, an \
             answer the contract does not allow, or hung. Failed requests are split where the \
             service answered again: *during* were sent before, *after* once it was back, \
             what the app lost by itself. *Comments lost*: answered 303 and not stored. The \
             headline's *lost* is *after* and *comments lost* together.\n\n\
             Raw results: {}.\n",
            part_links(&sources.faults, |f| &f.header.id),
        )),
        Block::Table(table),
    ]
}

pub(super) fn writes(sources: &Sources) -> Vec<Block> {
    let writing: Vec<&str> = crate::routes::names()
        .into_iter()
        .filter(|route| crate::routes::writes(route))
        .collect();
    let mut head: Vec<String> = writing.iter().map(|r| format!("{r} × Go")).collect();
    head.extend(writing.iter().map(|r| format!("stale reads, {r}")));
    let table = per_app(
        sources,
        "writes",
        header(head),
        1..2 * writing.len() + 1,
        |app| {
            (writing.iter())
                .map(|route| cells::throughput(sources, app, route))
                .chain((writing.iter()).map(|route| cells::stale_reads(sources, app, route)))
                .collect()
        },
    );
    vec![
        Block::Text(format!(
            "## Writes and stale reads\n\n\
             **How to read this.** The routes that store comments, loaded by the harness's own \
             client: `write` posts comments, `mixed` reads cached pages and posts one request \
             in ten; ratios to Go as under *Throughput*. A stale read is a page that lacked \
             the comment its connection had just posted: a cache the write did not clear. Any \
             stale read makes a run invalid, so the counts are over every run.\n\n\
             Raw results: {}.\n",
            part_links(&sources.batches, |b| &b.header.id),
        )),
        Block::Table(table),
    ]
}

pub(super) fn developer_cost(sources: &Sources) -> Vec<Block> {
    let figures = [
        cells::lines_of_code,
        cells::packages,
        cells::cold_build,
        cells::start_up,
    ];
    let table = per_app(
        sources,
        "developer-cost",
        header([
            "lines of code (own)",
            "third-party packages",
            "cold build, s",
            "start-up, ms",
        ]),
        1..5,
        |app| {
            (figures.iter())
                .map(|figure| cells::idioms_figure(sources, app, figure))
                .collect()
        },
    );
    vec![
        Block::Text(format!(
            "## Developer cost\n\n\
             **How to read this.** From the idioms page: the app's own code (no blank lines, \
             comments or tests; code shared with other apps is not counted), the third-party \
             packages its build pulls in, its share of a cold workspace build (for an app \
             started by a command, its install), and process start to the first 200 on `/`, \
             the median of its starts.\n\n\
             Raw results: {}.\n",
            part_links(&sources.idioms, |i| &i.header.id),
        )),
        Block::Table(table),
    ]
}

pub(super) fn idioms(sources: &Sources) -> Block {
    let concerns: Vec<String> = Concern::ALL
        .iter()
        .map(|c| c.title().to_lowercase())
        .collect();
    Block::Text(format!(
        "## Idioms\n\n\
         **How to read this.** The idioms page sets each app's own code for the same concerns \
         side by side ({}), highlighted, with the methods behind its figures; it is the place \
         to judge how each framework reads, which no number here says.\n\n\
         The page: {}.\n",
        concerns.join("; "),
        part_links(&sources.idioms, |i| &i.header.id),
    ))
}

pub(super) fn round_trips(sources: &Sources) -> Vec<Block> {
    let mut pages: Vec<&str> = PAGES.iter().map(|(page, _)| *page).collect();
    for count in &sources.scoreboard.round_trips {
        if !pages.contains(&count.page.as_str()) {
            pages.push(&count.page);
        }
    }
    let table = per_app(
        sources,
        "round-trips",
        header(pages.iter().copied()),
        1..pages.len() + 1,
        |app| {
            (pages.iter())
                .map(|page| cells::round_trips(sources, app, page))
                .collect()
        },
    );
    vec![
        Block::Text(
            "## Round trips per page\n\n\
             **How to read this.** Counted by the scoreboard itself at the protocol level: the \
             app talks to PostgreSQL through a counting relay, requests are sent one at a time \
             after a warm-up, and the counts are divided by the requests. A cell is the round \
             trips one page costs (exchanges the app waits on, connection start-up excluded) \
             and the SQL statements among them: a pool that pings a connection it takes or \
             gives back shows here as more round trips than statements. The counts are in \
             `scoreboard.json`.\n"
                .to_owned(),
        ),
        Block::Table(table),
    ]
}

/// Per app: its stack and versions, round trips, deviations, and where it differs from Go
/// beyond the noise.
pub(super) fn cards(sources: &Sources, columns: &Columns) -> Vec<Block> {
    let mut blocks = vec![Block::Text("## Each app\n".to_owned())];
    for app in sources.apps() {
        let mut text = format!("### {}\n\n", escape(app));
        match batch_app(sources, app) {
            Ok(found) => {
                let versions: Vec<String> = (found.app.versions.iter())
                    .map(|(package, version)| format!("{package} {version}"))
                    .collect();
                let from = part_links(std::slice::from_ref(found.from), |b| &b.header.id);
                text.push_str(&format!(
                    "- **Stack:** {} ({})\n- **Versions:** {}\n",
                    escape(&found.app.stack),
                    from,
                    escape(&versions.join(", "))
                ));
                match found.app.deviations.is_empty() {
                    true => text.push_str("- **Deviations:** none declared\n"),
                    false => {
                        text.push_str("- **Deviations:**\n");
                        for (setting, value, reason) in &found.app.deviations {
                            text.push_str(&format!(
                                "  - {}: {}. {}\n",
                                escape(setting),
                                escape(value),
                                escape(reason)
                            ));
                        }
                    }
                }
            }
            Err(why) => text.push_str(&format!(
                "- **Stack, versions, deviations:** {}\n",
                escape(&why)
            )),
        }
        let counts: Vec<String> = (sources.scoreboard.round_trips.iter())
            .filter(|count| &count.app == app)
            .map(|count| {
                format!(
                    "{} {} ({} statements)",
                    escape(&count.page),
                    tick(count.round_trips),
                    tick(count.statements)
                )
            })
            .collect();
        let counts = match counts.is_empty() {
            true => escape(
                &cells::round_trips_missing(sources)
                    .unwrap_or_else(|| "not measured: no page counted for it".to_owned()),
            ),
            false => counts.join(", "),
        };
        text.push_str(&format!("- **Round trips per page:** {counts}\n"));
        let against = match app == GO {
            true => "the reference: every ratio is to it, and its own pairs with its pacer \
                     are the noise floor"
                .to_owned(),
            false => {
                let resolved = cells::resolved(sources, app, &columns.routes);
                match resolved.is_empty() {
                    true => "no difference resolved".to_owned(),
                    false => escape(&resolved.join("; ")),
                }
            }
        };
        text.push_str(&format!("- **Against Go, beyond the noise:** {against}\n"));
        blocks.push(Block::Card {
            app: app.clone(),
            text,
        });
    }
    blocks
}
