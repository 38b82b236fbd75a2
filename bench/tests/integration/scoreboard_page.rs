//! The scoreboard's page in headless Chromium, from `file://`: the headline table's *Copy as
//! Markdown* copies the table `scoreboard.md` has; after two apps are picked, it copies only
//! their rows and the noise floor's, and the other apps' rows are hidden. The page fetches
//! nothing.

use crate::common;
use crate::screenshot;
use bench::report;
use bench::results::faults::FaultsRun;
use bench::results::idioms::Idioms;
use bench::results::scoreboard::{
    Attempt, BatchLengths, Outcome, Part, PartKind, Plan, Scoreboard, Sitting, SweepLengths,
};
use bench::results::sweep::Sweep;
use bench::results::{Batch, RunKind};
use std::path::{Path, PathBuf};

const APPS: [&str; 7] = [
    "go",
    "gin",
    "axum-sqlx",
    "actix-sqlx",
    "warp",
    "hyper",
    "axum-postgres",
];
const PICKED: [&str; 2] = ["gin", "warp"];

fn example(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../docs")
        .join(path)
}

/// A part of `kind` measured into `parts/<name>/<id>`, where `save` writes its results.
fn part(dir: &Path, name: &str, kind: PartKind, id: &str, save: impl FnOnce(&Path)) -> Part {
    let folder = format!("parts/{name}/{id}");
    std::fs::create_dir_all(dir.join(&folder)).unwrap();
    save(&dir.join(&folder));
    Part {
        name: name.to_owned(),
        kind,
        apps: APPS.map(str::to_owned).into(),
        args: Vec::new(),
        estimate_secs: 60.0,
        not_run: None,
        attempts: vec![Attempt {
            sitting: 1,
            started_at: "2026-12-06T00:00:00Z".to_owned(),
            finished_at: Some("2026-12-06T01:00:00Z".to_owned()),
            secs: Some(3600.0),
            folder: Some(folder),
            outcome: Outcome::Measured { problems: false },
        }],
    }
}

/// A scoreboard of the checked-in examples, one part each.
fn scoreboard(dir: &Path) {
    let batch = Batch::load(&example("example-report-20261205042703/results.json")).unwrap();
    let sweep = Sweep::load(&example("example-sweep-20261205125726/sweep.json")).unwrap();
    let faults = FaultsRun::load(&example("example-faults-20261205035816/faults.json")).unwrap();
    let idioms = Idioms::load(&example("example-idioms-20261203074306/idioms.json")).unwrap();
    let parts = vec![
        part(dir, "idioms", PartKind::Idioms, &idioms.header.id, |f| {
            idioms.save(f).unwrap()
        }),
        part(dir, "batch-1", PartKind::Batch, &batch.header.id, |f| {
            batch.save(f).unwrap()
        }),
        part(dir, "sweep-1", PartKind::Sweep, &sweep.header.id, |f| {
            sweep.save(f).unwrap()
        }),
        part(dir, "faults-1", PartKind::Faults, &faults.header.id, |f| {
            faults.save(f).unwrap()
        }),
    ];
    let mut header = batch.header.clone();
    header.kind = Some(RunKind::Scoreboard);
    header.id = "20261206000000".to_owned();
    Scoreboard {
        header,
        code: "examples".to_owned(),
        apps: APPS.map(str::to_owned).into(),
        plan: Plan {
            level: "lean".to_owned(),
            budget_secs: None,
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
            left_out: Vec::new(),
            estimate_secs: 4.0 * 3600.0,
        },
        parts,
        sittings: vec![Sitting {
            number: 1,
            started_at: "2026-12-06T00:00:00Z".to_owned(),
            finished_at: Some("2026-12-06T04:00:00Z".to_owned()),
            command: "blogbench scoreboard".to_owned(),
            ended: Some("finished".to_owned()),
        }],
        round_trips: Vec::new(),
    }
    .save(dir)
    .unwrap();
}

/// Clicks the headline's *Copy as Markdown*, picks two apps, clicks it again; each copy is
/// recorded in an element of its own for the dumped DOM.
const CLICKS: &str = r#"<script>
(function () {
  var box = document.getElementById('headline');
  function record(id) {
    box.querySelector('button.copy').click();
    var out = document.createElement('pre');
    out.id = id;
    out.textContent = box.querySelector('textarea.copied').value;
    document.body.appendChild(out);
  }
  record('copied-all');
  PICKED.forEach(function (app) {
    document.querySelector('#pick input[value="' + app + '"]').click();
  });
  record('copied-picked');
})();
</script>
"#;

/// The page's DOM after its scripts ran, as headless Chromium dumps it.
fn dumped_dom(html: &Path) -> String {
    let output = tempfile::NamedTempFile::new().unwrap();
    screenshot::headless_chromium(
        &[
            "--virtual-time-budget=5000".to_owned(),
            "--dump-dom".to_owned(),
        ],
        html,
        output.reopen().unwrap().into(),
    );
    std::fs::read_to_string(output.path()).unwrap()
}

/// The text of the element that starts with `open`, its entities undone.
fn element_text(dom: &str, open: &str, close: &str) -> String {
    let start = dom
        .find(open)
        .unwrap_or_else(|| panic!("no {open} in the DOM"))
        + open.len();
    let end = start + dom[start..].find(close).unwrap();
    dom[start..end]
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&nbsp;", "\u{a0}")
        .replace("&amp;", "&")
}

/// The headline table of `scoreboard.md`: the first table after its heading.
fn headline_markdown(markdown: &str) -> String {
    let after = &markdown[markdown.find("## The headline").expect("the headline")..];
    let lines: Vec<&str> = after
        .lines()
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'))
        .collect();
    lines.iter().map(|line| format!("{line}\n")).collect()
}

/// The cells of a pipe-table line, split at the pipes Markdown does not escape.
fn cells(line: &str) -> Vec<String> {
    assert!(
        line.starts_with('|') && line.ends_with('|'),
        "not a table line: {line}"
    );
    let mut cells = vec![String::new()];
    let mut escaped = false;
    for c in line[1..line.len() - 1].chars() {
        match c {
            '|' if !escaped => cells.push(String::new()),
            _ => cells.last_mut().unwrap().push(c),
        }
        escaped = c == '\\' && !escaped;
    }
    cells.iter().map(|cell| cell.trim().to_owned()).collect()
}

/// The first cell of each row of a valid pipe table: a header, a rule, rows of as many cells.
fn row_names(table: &str) -> Vec<String> {
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines.len() >= 3, "a header, a rule and rows:\n{table}");
    let columns = cells(lines[0]).len();
    let rule = cells(lines[1]);
    assert_eq!(rule.len(), columns, "{table}");
    assert!(
        rule.iter()
            .all(|cell| cell.contains('-') && cell.chars().all(|c| c == '-' || c == ':')),
        "{table}"
    );
    lines[2..]
        .iter()
        .map(|line| {
            let row = cells(line);
            assert_eq!(row.len(), columns, "{line}");
            assert!(
                row.iter().all(|cell| !cell.is_empty()),
                "an empty cell: {line}"
            );
            row[0].clone()
        })
        .collect()
}

#[test]
fn the_headline_copies_as_markdown_and_picks_apps() {
    let _serial = common::serial();
    let dir = tempfile::tempdir().unwrap();
    scoreboard(dir.path());
    report::write_scoreboard(dir.path()).unwrap();
    let markdown = std::fs::read_to_string(dir.path().join("scoreboard.md")).unwrap();
    let html = std::fs::read_to_string(dir.path().join("index.html")).unwrap();

    for attribute in ["src", "href"] {
        for quote in ['"', '\''] {
            let external = format!("{attribute}={quote}http");
            assert!(!html.contains(&external), "the page fetches: {external}");
        }
    }
    assert!(!html.contains("<link") && !html.contains("<script src"));

    let picked = format!("{:?}", PICKED);
    let clicks = CLICKS.replace("PICKED", &picked);
    let clicked = dir.path().join("clicked.html");
    std::fs::write(
        &clicked,
        html.replace("</body>", &format!("{clicks}</body>")),
    )
    .unwrap();
    let dom = dumped_dom(&clicked);

    let noise_floor = "noise floor".to_owned();
    let headline = headline_markdown(&markdown);
    let every_row: Vec<String> = APPS
        .iter()
        .map(|app| app.to_string())
        .chain([noise_floor.clone()])
        .collect();
    assert_eq!(
        row_names(&headline),
        every_row,
        "scoreboard.md:\n{headline}"
    );
    let box_start = dom.find("id=\"headline\"").expect("the headline table");
    let table = &dom[box_start..box_start + dom[box_start..].find("</table>").unwrap()];
    for app in APPS {
        assert!(
            table.contains(&format!("data-app=\"{app}\"")),
            "{app}'s row"
        );
    }

    let all = element_text(&dom, "<pre id=\"copied-all\">", "</pre>");
    assert_eq!(all, headline, "the first copy is scoreboard.md's headline");

    let some = element_text(&dom, "<pre id=\"copied-picked\">", "</pre>");
    let picked_rows: Vec<String> = PICKED
        .iter()
        .map(|app| app.to_string())
        .chain([noise_floor])
        .collect();
    assert_eq!(row_names(&some), picked_rows, "{some}");
    assert!(
        headline.starts_with(
            &some
                .lines()
                .take(2)
                .map(|l| format!("{l}\n"))
                .collect::<String>()
        ),
        "the same header"
    );

    for row in table.split("<tr").skip(1) {
        let tag = &row[..row.find('>').unwrap()];
        let hidden = tag.contains("hidden") && tag.contains("display: none");
        let shown = match tag.split("data-app=\"").nth(1) {
            Some(rest) => PICKED.contains(&&rest[..rest.find('"').unwrap()]),
            // The header's row and the noise floor's.
            None => true,
        };
        assert_eq!(hidden, !shown, "<tr{tag}>");
    }
}
