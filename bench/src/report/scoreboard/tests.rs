//! The page of a scoreboard made from the checked-in examples, each copied in as a part over
//! a group of apps, with a part left out by the budget and one interrupted.

use super::sources::Sources;
use super::{Block, Cell, ScoreTable, sections};
use crate::results::faults::FaultsRun;
use crate::results::idioms::Idioms;
use crate::results::scoreboard::{
    Attempt, BatchLengths, Outcome, PageRoundTrips, Part, PartKind, Plan, Scoreboard, Sitting,
    SweepLengths,
};
use crate::results::sweep::Sweep;
use crate::results::{AppStatus, Batch, RunKind, example_file};
use std::path::Path;

const BATCH: &str = "example-report-20261205042703";
const SWEEP: &str = "example-sweep-20261205125726";
const FAULTS: &str = "example-faults-20261205035816";
const IDIOMS: &str = "example-idioms-20261203074306";

/// Go first; fastapi is in none of the batch or sweep examples: its parts are the budget's
/// and the interrupted one.
const APPS: [&str; 8] = [
    "go",
    "gin",
    "axum-sqlx",
    "actix-sqlx",
    "warp",
    "hyper",
    "axum-postgres",
    "fastapi",
];

/// The run's id, which its folder under the part is named after, as the commands name it.
fn id(example: &str) -> &str {
    example.rsplit('-').next().unwrap()
}

fn strings(apps: &[&str]) -> Vec<String> {
    apps.iter().map(|app| app.to_string()).collect()
}

fn attempt(outcome: Outcome, folder: Option<String>) -> Attempt {
    Attempt {
        sitting: 1,
        started_at: "2026-12-06T00:00:00Z".to_owned(),
        finished_at: None,
        secs: None,
        folder,
        outcome,
    }
}

fn part(name: &str, kind: PartKind, apps: &[&str], attempts: Vec<Attempt>) -> Part {
    Part {
        name: name.to_owned(),
        kind,
        apps: strings(apps),
        args: Vec::new(),
        estimate_secs: 60.0,
        not_run: None,
        attempts,
    }
}

/// A part measured into `parts/<name>/<id>`, its results file written there by `save`.
fn measured(
    dir: &Path,
    name: &str,
    kind: PartKind,
    apps: &[&str],
    example: &str,
    save: impl FnOnce(&Path),
) -> Part {
    let folder = format!("parts/{name}/{}", id(example));
    std::fs::create_dir_all(dir.join(&folder)).unwrap();
    save(&dir.join(&folder));
    let outcome = Outcome::Measured { problems: false };
    part(name, kind, apps, vec![attempt(outcome, Some(folder))])
}

fn left_out(name: &str, kind: PartKind, apps: &[&str]) -> Part {
    Part {
        not_run: Some("budget".to_owned()),
        ..part(name, kind, apps, Vec::new())
    }
}

/// The scoreboard folder, with the example batch changed by `change` before it is split.
fn fixture(change: impl FnOnce(&mut Batch)) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let mut batch = Batch::load(&example_file(&format!("{BATCH}/results.json"))).unwrap();
    change(&mut batch);
    let sweep = Sweep::load(&example_file(&format!("{SWEEP}/sweep.json"))).unwrap();
    let batch_part = |name: &str, apps: &[&str]| {
        measured(root, name, PartKind::Batch, apps, BATCH, |folder| {
            let mut part = batch.clone();
            part.apps.retain(|app| apps.contains(&app.name.as_str()));
            part.save(folder).unwrap();
        })
    };
    let sweep_part = |name: &str, apps: &[&str]| {
        measured(root, name, PartKind::Sweep, apps, SWEEP, |folder| {
            let mut part = sweep.clone();
            part.apps.retain(|app| apps.contains(&app.label.as_str()));
            part.save(folder).unwrap();
        })
    };
    let parts = vec![
        part(
            "round-trips",
            PartKind::RoundTrips,
            &APPS,
            vec![attempt(Outcome::Measured { problems: false }, None)],
        ),
        measured(root, "idioms", PartKind::Idioms, &APPS, IDIOMS, |folder| {
            let idioms = Idioms::load(&example_file(&format!("{IDIOMS}/idioms.json"))).unwrap();
            idioms.save(folder).unwrap();
        }),
        batch_part("batch-1", &APPS[..4]),
        batch_part("batch-2", &APPS[4..7]),
        left_out("batch-3", PartKind::Batch, &APPS[7..]),
        sweep_part("sweep-1", &APPS[..4]),
        sweep_part("sweep-2", &["go", "warp", "hyper", "axum-postgres"]),
        part(
            "sweep-3",
            PartKind::Sweep,
            &["go", "fastapi"],
            vec![attempt(Outcome::Interrupted, None)],
        ),
        measured(
            root,
            "faults-1",
            PartKind::Faults,
            &["go", "fastapi"],
            FAULTS,
            |folder| {
                let faults = FaultsRun::load(&example_file(&format!("{FAULTS}/faults.json")));
                faults.unwrap().save(folder).unwrap();
            },
        ),
        left_out("faults-2", PartKind::Faults, &APPS[1..7]),
    ];
    let mut header = batch.header.clone();
    header.kind = Some(RunKind::Scoreboard);
    header.id = "20261206000000".to_owned();
    let scoreboard = Scoreboard {
        header,
        code: "fixture".to_owned(),
        apps: strings(&APPS),
        plan: Plan {
            level: "full".to_owned(),
            budget_secs: Some(6.0 * 3600.0),
            batch: BatchLengths {
                rounds: batch.settings.rounds,
                duration_secs: batch.settings.duration_secs,
                warmup_secs: batch.settings.warmup_secs,
            },
            sweep: SweepLengths {
                routes: sweep.settings.routes.clone(),
                rounds: sweep.settings.rounds,
                run_secs: sweep.settings.run_secs,
                warmup_secs: sweep.settings.warmup_secs,
                common: sweep.settings.common_fractions.clone(),
                own: sweep.settings.own_fractions.clone(),
                connection_levels: sweep.settings.connection_levels.clone(),
            },
            idioms_quick: false,
            left_out: vec!["batch-3, faults-2 (budget)".to_owned()],
            estimate_secs: 5.5 * 3600.0,
        },
        parts,
        sittings: vec![Sitting {
            number: 1,
            started_at: "2026-12-06T00:00:00Z".to_owned(),
            finished_at: Some("2026-12-06T05:00:00Z".to_owned()),
            command: "blogbench scoreboard --budget 6h".to_owned(),
            ended: Some("interrupted".to_owned()),
        }],
        round_trips: vec![PageRoundTrips {
            app: "axum-sqlx".to_owned(),
            page: "detail".to_owned(),
            statements: 3.0,
            round_trips: 4.0,
        }],
    };
    scoreboard.save(root).unwrap();
    dir
}

fn page(dir: &Path) -> Vec<Block> {
    let scoreboard = Scoreboard::load(&dir.join(RunKind::Scoreboard.file())).unwrap();
    sections::page(&Sources::load(dir, &scoreboard)).unwrap()
}

fn tables(blocks: &[Block]) -> Vec<&ScoreTable> {
    blocks
        .iter()
        .filter_map(|block| match block {
            Block::Table(table) => Some(table),
            _ => None,
        })
        .collect()
}

fn headline(blocks: &[Block]) -> &ScoreTable {
    tables(blocks)
        .into_iter()
        .find(|t| t.id == "headline")
        .expect("a headline table")
}

/// The cells of `app`'s row under the columns whose header passes `column`.
fn cells<'t>(table: &'t ScoreTable, app: &str, column: impl Fn(&str) -> bool) -> Vec<&'t Cell> {
    let row = table
        .rows
        .iter()
        .find(|row| row.cells[0].text == app)
        .unwrap_or_else(|| panic!("no row for {app}"));
    let picked: Vec<&Cell> = (table.header.iter().zip(&row.cells))
        .filter(|(header, _)| column(header))
        .map(|(_, cell)| cell)
        .collect();
    assert!(!picked.is_empty(), "no column picked");
    picked
}

fn ratio_column(header: &str) -> bool {
    header.ends_with("× Go")
}

#[test]
fn the_headline_has_a_row_per_app_and_the_noise_floor() {
    let dir = fixture(|_| {});
    let blocks = page(dir.path());
    let table = headline(&blocks);
    let markdown = table.markdown();
    let rows: Vec<&str> = markdown.lines().skip(2).collect();
    let names: Vec<String> = rows
        .iter()
        .map(|row| row.split('|').nth(1).unwrap().trim().to_owned())
        .collect();
    assert_eq!(names, [&APPS[..], &["noise floor"]].concat(), "{markdown}");
    let ratios = ["home × Go", "detail × Go", "cached-detail × Go"];
    assert_eq!(
        table.header[1..4],
        ratios,
        "the batch's routes, in report order"
    );
    // docs/benchmark.md's interval for axum-postgres on detail, and Go's own against its
    // pacer there; each from its own part, linked to that part's report.
    let detail = |app: &str| cells(table, app, |h| h == "detail × Go")[0].clone();
    assert_eq!(detail("axum-postgres").text, "1.58× (1.49–1.69) ‡");
    assert_eq!(
        detail("axum-postgres").link.as_deref(),
        Some(format!("parts/batch-2/{}/report.html", id(BATCH)).as_str())
    );
    assert_eq!(
        detail("gin").link,
        Some(format!("parts/batch-1/{}/report.html", id(BATCH)))
    );
    assert_eq!(detail("noise floor").text, "1.03× (0.92–1.17)");
    assert_eq!(detail("go").text, super::cells::REFERENCE);
    let max_rate = cells(table, "warp", |h| h.starts_with("max rate detail"))[0];
    assert_eq!(
        max_rate.link.as_deref(),
        Some(format!("parts/sweep-2/{}/sweep.html", id(SWEEP)).as_str())
    );
    assert!(max_rate.text.contains("× Go"), "{}", max_rate.text);
    let faults = cells(table, "fastapi", |h| h.starts_with("faults"))[0];
    assert_eq!(faults.text, "survived; 7/7 faults clean; 0 lost");
    let lines = cells(table, "warp", |h| h.starts_with("lines"))[0];
    assert_eq!(lines.text, "414");
}

#[test]
fn a_part_the_budget_left_out_says_not_run() {
    let dir = fixture(|_| {});
    let blocks = page(dir.path());
    let table = headline(&blocks);
    for cell in cells(table, "fastapi", ratio_column) {
        assert_eq!(cell.text, "not run: budget");
    }
    let gin_faults = cells(table, "gin", |h| h.starts_with("faults"))[0];
    assert_eq!(gin_faults.text, "not run: budget");
}

#[test]
fn an_interrupted_part_is_not_measured_yet() {
    let dir = fixture(|_| {});
    let blocks = page(dir.path());
    let table = headline(&blocks);
    let swept = |h: &str| h.starts_with("max rate") || h.starts_with("p99");
    for cell in cells(table, "fastapi", swept) {
        assert_eq!(cell.text, "not measured yet: interrupted");
    }
}

#[test]
fn a_failed_app_says_at_which_stage() {
    let dir = fixture(|batch| {
        let gin = batch.apps.iter_mut().find(|app| app.name == "gin").unwrap();
        gin.status = AppStatus::Failed {
            stage: "parity".to_owned(),
            reason: "3 of 214 pages differ".to_owned(),
        };
        gin.routes.clear();
    });
    let blocks = page(dir.path());
    let table = headline(&blocks);
    let failed = |h: &str| ratio_column(h) || h.starts_with("RSS");
    for cell in cells(table, "gin", failed) {
        assert_eq!(cell.text, "failed: parity");
    }
}

#[test]
fn no_cell_is_empty() {
    let dir = fixture(|_| {});
    let blocks = page(dir.path());
    let tables = tables(&blocks);
    assert!(tables.len() > 5, "a table per question");
    for table in tables {
        for row in &table.rows {
            assert_eq!(row.cells.len(), table.header.len(), "{}", table.id);
            for (header, cell) in table.header.iter().zip(&row.cells) {
                assert!(
                    !cell.text.trim().is_empty(),
                    "{}: {}'s {header} is empty",
                    table.id,
                    row.cells[0].text
                );
            }
        }
    }
}

#[test]
fn the_files_say_the_same() {
    let dir = fixture(|_| {});
    super::write(dir.path()).unwrap();
    let markdown = std::fs::read_to_string(dir.path().join(super::MARKDOWN_FILE)).unwrap();
    let html = std::fs::read_to_string(dir.path().join(super::HTML_FILE)).unwrap();
    let blocks = page(dir.path());
    for table in tables(&blocks) {
        assert!(markdown.contains(&table.markdown()), "{}", table.id);
    }
    assert!(dir.path().join(super::chart::FILE).is_file());
    assert!(html.contains("<svg"), "the chart inline");
    for external in ["src=\"http", "href=\"http", "src='http", "href='http"] {
        assert!(!html.contains(external), "{external}");
    }
}

#[test]
fn a_quick_scoreboard_before_its_first_part_says_why_everywhere() {
    let dir = fixture(|_| {});
    let mut scoreboard = Scoreboard::load(&dir.path().join(RunKind::Scoreboard.file())).unwrap();
    scoreboard.plan.level = "quick".to_owned();
    for part in &mut scoreboard.parts {
        part.attempts.clear();
    }
    scoreboard.save(dir.path()).unwrap();
    let blocks = page(dir.path());
    let Block::Text(header) = &blocks[0] else {
        panic!("the page starts with its header");
    };
    assert!(header.contains("A smoke test, not a result"), "{header}");
    let table = headline(&blocks);
    let why = ["not measured yet: not started", "not run: budget"];
    for app in &APPS[1..] {
        for cell in cells(table, app, |h| h != "app") {
            assert!(why.contains(&cell.text.as_str()), "{app}: {}", cell.text);
        }
    }
    super::write(dir.path()).unwrap();
}
