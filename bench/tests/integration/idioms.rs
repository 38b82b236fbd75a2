//! `blogbench idioms --quick` end to end on every app: every concern of every app on the page
//! with its file, lines and link; every summary cell a number or a stated reason; the
//! benchmark report's section showing the same table; and the HTML's code highlighted in a
//! real browser. Starts every app three times: needs the release build and the services. An
//! app of an interpreted language is installed again (its install timed) and has no binary
//! and no rebuild, each said so.

use crate::common;
use crate::screenshot;

use bench::idioms::build_cost::{JAVA_NO_BINARY, JAVA_NO_REBUILD, NO_BINARY, NO_REBUILD};
use bench::results::idioms::Language;
use bench::results::idioms::{Concern, FILE, Idioms, Measurement, NO_INSTALL};
use bench::stack::apps::{self, Kind};
use std::path::{Path, PathBuf};

/// The cells of the first Markdown table after `heading` in `markdown`, header row first.
fn table_after(markdown: &str, heading: &str) -> Vec<Vec<String>> {
    let start = markdown
        .find(heading)
        .unwrap_or_else(|| panic!("no {heading:?} in the page"));
    markdown[start..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .filter(|l| !l.starts_with("|-"))
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_owned())
                .collect()
        })
        .collect()
}

fn is_number(cell: &str) -> bool {
    cell.starts_with(|c: char| c.is_ascii_digit())
}

#[test]
fn a_quick_page_shows_every_concern_of_every_app_and_what_each_costs() {
    let _serial = common::serial();
    let out = tempfile::tempdir().unwrap();
    let output = common::blogbench(
        &["idioms", "--quick", "--out", out.path().to_str().unwrap()],
        &[],
    );
    let text = common::text(&output);
    assert!(output.status.success(), "blogbench idioms failed:\n{text}");
    let folders: Vec<PathBuf> = std::fs::read_dir(out.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(folders.len(), 1, "{folders:?}");
    let dir = &folders[0];
    let page = Idioms::load(&dir.join(FILE)).unwrap();
    assert!(page.quick && page.header.finished_at.is_some());
    assert_eq!(page.starts, 3);
    let markdown = std::fs::read_to_string(dir.join("idioms.md")).unwrap();
    let workspace = apps::workspace_dir().canonicalize().unwrap();
    assert_eq!(
        dir.canonicalize()
            .unwrap()
            .join(&page.workspace_link)
            .canonicalize()
            .unwrap(),
        workspace
    );

    let all = apps::all().unwrap();
    assert_eq!(page.apps.len(), all.len());
    for (app, measured) in all.iter().zip(&page.apps) {
        assert_eq!(app.name, measured.name, "the apps' order");
        let order: Vec<Concern> = measured.concerns.iter().map(|c| c.concern).collect();
        assert_eq!(order, Concern::ALL, "{}", app.name);
        for code in &measured.concerns {
            assert!(
                !code.excerpts.is_empty(),
                "{}: no {}",
                app.name,
                code.concern.id()
            );
            for excerpt in &code.excerpts {
                // The lines cited are the file's, and the page links them.
                let file = std::fs::read_to_string(workspace.join(&excerpt.file)).unwrap();
                let lines: Vec<&str> = file.lines().collect();
                let cited = &lines[excerpt.first_line - 1..excerpt.last_line];
                let first_code = excerpt.code.lines().next().unwrap();
                assert_eq!(cited[0].trim(), first_code.trim(), "{}", excerpt.file);
                let link = format!(
                    "]({}/{}#L{}-L{})",
                    page.workspace_link, excerpt.file, excerpt.first_line, excerpt.last_line
                );
                assert!(markdown.contains(&link), "{}: no link {link}", app.name);
            }
        }
        match &app.manifest.code {
            Some(code) => assert!(
                markdown.contains(&format!("#### {}\n\nSame code as {code}: [", app.name)),
                "{}",
                app.name
            ),
            None => assert!(measured.code_of.is_none()),
        }
        let interpreted = app.kind == Kind::Command;
        let language = bench::idioms::language(app).unwrap();
        let rebuild = match (interpreted, language) {
            (true, Language::Java) => JAVA_NO_REBUILD,
            (true, _) => NO_REBUILD,
            (false, _) => "not measured (--quick)",
        };
        assert_eq!(measured.rebuild, Measurement::not_measured(rebuild));
        let start_up = measured.start_up.value().expect("started");
        assert_eq!(start_up.runs_ms.len(), 3, "{}", app.name);
        assert!(start_up.idle_rss_mib.iter().all(|&mib| mib > 1.0));
        let size = measured.code_size.value().expect("counted");
        assert!(size.own.code > 0 && size.own.files > 0, "{}", app.name);
        assert!(
            !measured
                .packages
                .value()
                .expect("counted")
                .packages
                .is_empty()
        );
        if interpreted {
            let no_binary = match language {
                Language::Java => JAVA_NO_BINARY,
                _ => NO_BINARY,
            };
            assert_eq!(measured.binary.reason().as_deref(), Some(no_binary));
            let install = measured.install.value().expect("installed");
            assert!(install.secs > 0.0, "{}", app.name);
            match install.installed.as_ref() {
                Some(folder) => {
                    assert!(folder.bytes > 0, "{}", app.name);
                    assert_eq!(
                        install.emptied.as_ref(),
                        Some(&folder.folder),
                        "{}",
                        app.name
                    );
                }
                // The system's packages are the whole install (Debian's PHP and Laravel).
                None => assert_eq!(language, Language::Php, "{}: its folder", app.name),
            }
        } else {
            let binary = measured.binary.value().expect("measured");
            assert!(binary.stripped_bytes < binary.built_bytes, "{}", app.name);
            assert_eq!(measured.install, Measurement::not_measured(NO_INSTALL));
        }
    }

    let summary = table_after(&markdown, "## In short");
    assert_eq!(
        summary[0],
        [
            "app",
            "lines of code",
            "packages",
            "binary, stripped (MiB)",
            "rebuild (s)",
            "start-up (ms)",
            "idle RSS (MiB)"
        ]
    );
    assert_eq!(summary.len(), all.len() + 1);
    for (app, row) in all.iter().zip(&summary[1..]) {
        assert_eq!(row[0], app.name);
        let interpreted = app.kind == Kind::Command;
        for (column, cell) in summary[0].iter().zip(row).skip(1) {
            let reason = cell.starts_with("not measured")
                || cell.starts_with("failed:")
                || (interpreted
                    && (cell.starts_with("not applicable") || cell.starts_with("no binary; ")));
            assert!(
                is_number(cell) || reason,
                "{} {column}: {cell:?} is neither a number nor a reason",
                app.name
            );
        }
        if interpreted {
            let language = bench::idioms::language(app).unwrap();
            let rebuild = match language {
                Language::Java => JAVA_NO_REBUILD,
                _ => NO_REBUILD,
            };
            assert_eq!(row[4], rebuild);
            assert!(
                row[3].starts_with("no binary; ")
                    || (language == Language::Php && row[3] == NO_BINARY),
                "{}: {}",
                app.name,
                row[3]
            );
        } else {
            assert_eq!(row[4], "not measured (--quick)");
            assert!(is_number(&row[3]), "{}: {:?}", app.name, row[3]);
        }
        for cell in [&row[1], &row[2], &row[5], &row[6]] {
            assert!(is_number(cell), "{}: {cell:?}", app.name);
        }
    }

    // The benchmark report shows the same table, linked to the page.
    let batch_dir = tempfile::tempdir().unwrap();
    let section = bench::report::idioms_section(batch_dir.path(), out.path());
    assert!(
        section.contains(&format!("/{}/idioms.md)", page.header.id)),
        "{section}"
    );
    let in_report = table_after(&section, "## Idioms and developer cost");
    assert_eq!(in_report, summary);

    // Chromium draws the code in the syntax's colours: InspiredGitHub's keyword magenta
    // (#a71d5d) is on the page only where syntect put it.
    let png = Path::new(env!("CARGO_TARGET_TMPDIR")).join("idioms.png");
    let colours = screenshot::coloured_pixels(&dir.join("idioms.html"), &png, 4000);
    let near_keyword = colours
        .iter()
        .filter(|(rgb, _)| {
            let [r, g, b] = rgb.map(i32::from);
            (r - 0xa7).abs() + (g - 0x1d).abs() + (b - 0x5d).abs() < 60
        })
        .map(|(_, n)| n)
        .sum::<usize>();
    assert!(
        near_keyword > 500,
        "the screenshot {} shows no highlighted code: {near_keyword} keyword-coloured pixels",
        png.display()
    );
}
