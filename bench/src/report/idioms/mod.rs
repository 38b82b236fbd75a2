//! The idioms page (`idioms.md`, and `idioms.html` rendered from it with the code
//! highlighted by syntect), built from a `blogbench idioms` folder's `idioms.json` alone, and
//! its summary table, which the benchmark report shows beside the throughput.

use super::markdown::{Table, code_block, escape};
use super::numbers;
use crate::results::idioms::{self, Concern, Excerpt, Idioms, Measurement, relative_path};
use std::path::Path;
use syntect::highlighting::{Theme, ThemeSet};
use syntect::parsing::SyntaxSet;

pub fn markdown(idioms: &Idioms) -> String {
    [
        header(idioms),
        format!(
            "## In short\n\n{}\n{SUMMARY_KEY}\n",
            summary(idioms).to_markdown()
        ),
        how_to_read(idioms),
        side_by_side(idioms),
        code_size(idioms),
        packages(idioms),
        build_cost(idioms),
        run_cost(idioms),
    ]
    .join("\n")
}

const SUMMARY_KEY: &str = "Lines: the app's own code (no blank lines, comments or tests); \
    packages: the third-party packages its build pulls in (npm: its production ones), with \
    the names in more than one version; binary: stripped (an app of an interpreted language, \
    or a Java app, has none: the size of the folder its install fills instead); rebuild: \
    `make build`'s command after a change to the app's route file, median; start-up: process \
    start to the first 200 on `/`, median; idle RSS: the process tree's resident memory 1 s \
    after that. A cell without a number says why.";

/// One row per app: lines, packages, binary, rebuild, start-up, idle RSS; a number or the
/// reason there is none.
pub fn summary(idioms: &Idioms) -> Table {
    let mut table = Table::new([
        "app",
        "lines of code",
        "packages",
        "binary, stripped (MiB)",
        "rebuild (s)",
        "start-up (ms)",
        "idle RSS (MiB)",
    ])
    .numbers(1..);
    for app in &idioms.apps {
        let lines = app.code_size.cell(|size| match &app.code_of {
            Some(code) => format!("{} (runs {code}'s code)", numbers::count(size.own.code)),
            None => numbers::count(size.own.code),
        });
        let packages = app.packages.cell(|packages| {
            let count = numbers::count(packages.third_party().count() as u64);
            let mut notes = Vec::new();
            if let n @ 1.. = packages.duplicates().len() {
                notes.push(format!("{n} in 2+ versions"));
            }
            if let Some(n @ 1..) = packages.dev_only {
                notes.push(format!("+ {n} dev-only"));
            }
            match notes.is_empty() {
                true => count,
                false => format!("{count} ({})", notes.join("; ")),
            }
        });
        let binary = match (&app.binary, installed(app)) {
            (Measurement::NotMeasured { .. }, Some(folder)) => format!(
                "no binary; {} installed: {}",
                folder.folder,
                mib(folder.bytes)
            ),
            (binary, _) => binary.cell(|b| mib(b.stripped_bytes)),
        };
        table.row(vec![
            app.name.clone(),
            lines,
            packages,
            binary,
            app.rebuild
                .cell(|r| r.median_secs().map_or_else(no_runs, seconds)),
            app.start_up
                .cell(|s| s.median_ms().map_or_else(no_runs, |ms| format!("{ms:.0}"))),
            app.start_up
                .cell(|s| s.median_idle_rss_mib().map_or_else(no_runs, numbers::mib)),
        ]);
    }
    table
}

/// The installed packages' folder of an app started by a command, when its install was timed.
fn installed(app: &idioms::AppIdioms) -> Option<&idioms::InstalledFolder> {
    app.install.value()?.installed.as_ref()
}

fn no_runs() -> String {
    "— no run".to_owned()
}

fn mib(bytes: u64) -> String {
    numbers::mib(bytes as f64 / 1024.0 / 1024.0)
}

fn seconds(secs: f64) -> String {
    format!("{secs:.1}")
}

fn header(idioms: &Idioms) -> String {
    let machine = &idioms.header.machine;
    let mode = if idioms.quick {
        format!(
            "quick (--quick): no incremental rebuild, {} starts per app",
            idioms.starts
        )
    } else {
        format!(
            "full: {} rebuilds and {} starts per app",
            idioms.rebuilds, idioms.starts
        )
    };
    let tools: Vec<String> = idioms.tools.values().cloned().collect();
    let env: Vec<String> = idioms.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let mut table = Table::new(["setup", ""]);
    for (what, value) in [
        ("run", idioms.header.id.clone()),
        ("started", idioms.header.started_at.clone()),
        (
            "finished",
            idioms
                .header
                .finished_at
                .clone()
                .unwrap_or_else(|| "not finished (the run was stopped)".to_owned()),
        ),
        (
            "machine",
            format!(
                "{}: {} cores, {}, {:.1} GiB; kernel {}",
                machine.hostname,
                machine.cores,
                machine.cpu_model,
                machine.memory_gib,
                machine.kernel
            ),
        ),
        ("mode", mode),
        ("tools", tools.join(" · ")),
        ("environment of every start", env.join(" ")),
        ("git commit", idioms.header.git_commit.clone()),
    ] {
        table.row(vec![what.to_owned(), value]);
    }
    format!(
        "# blogbench idioms: {}\n\nThe same concerns in every app, each in its own idiom, and \
         what each app costs to build and to run.\n\n{}\nThe command:\n\n{}",
        escape(&idioms.header.id),
        table.to_markdown(),
        code_block("sh", &idioms.header.command)
    )
}

fn how_to_read(idioms: &Idioms) -> String {
    let concerns: Vec<String> = Concern::ALL
        .iter()
        .map(|c| format!("`{}` ({})", c.id(), c.title().to_lowercase()))
        .collect();
    format!(
        "## How to read this\n\n\
         **The code side by side.** Every app marks its own code for each concern with a pair \
         of line comments, `// region: <concern>` and `// endregion` (in Python, \
         `# region: <concern>` and `# endregion`), in its own folder: {concerns}. A concern may take several regions, shown in file order, each with its \
         file and lines, linked. What every app takes from the workspace's shared crates (the \
         SQL text and row types, the page cache of the sqlx apps, the templates, the workload \
         rules; go-shared for the Go apps) is not repeated here: the excerpts are the code \
         that differs. A build variant with no code of its own says whose code it runs.\n\n\
         **Lines of code** count the lines holding code in the app's own folder: no blank \
         line, no comment line, no test (Rust items under `#[cfg(test)]`, `tests/` and \
         `benches/` folders; Go `_test.go` files; JavaScript `*.test.js` and `test/`; \
         Python `test_*.py` and `tests/`; Java's `src/test/`; PHP `*Test.php` and `tests/`), \
         no installed package (`node_modules/`, `.venv/`, `vendor/`), no file a framework \
         generates (Laravel's `storage/` and `bootstrap/cache/`). \
         A Python docstring (a string that is a statement by itself) counts as a comment, as \
         Rust's `///` and Go's doc comments do; any other string counts on every line it \
         spans. Beside them, the same count for each workspace crate (Go: go-shared package) \
         the app builds on. Templates (HTML, Eta, Jinja2, Blade) are not counted.\n\n\
         **Packages** are the unique packages (name and version) of the app's dependency \
         graph: for Rust, `cargo metadata --filter-platform <host>` walked from the app's \
         crate over normal and build dependencies (dev-dependencies build only tests); for \
         Go, the modules of `go list -deps`, the standard library left out. The workspace's \
         own crates and modules are counted apart; a name in more than one version is listed \
         as duplicated (Go's minimal version selection builds one version of a module). For \
         an app of another language, its lock file: npm's `package-lock.json`, every \
         installed package (a name in several folders at one version once) but those only \
         development needs (`\"dev\": true`, counted apart, as Cargo's dev-dependencies are \
         not counted) and the optional ones for other platforms; pip's `requirements.txt`, \
         its `name==version` pins (pip-compile pins everything the app's requirements pull \
         in; development tools are pinned in another file); Maven's resolved artifacts \
         (`mvn dependency:list`, which the app's build writes), those of scope `compile` and \
         `runtime` (`test` and `provided` counted apart); a list of Debian packages, the \
         packages it names, at their installed versions (what they depend on, the runtime \
         and the system's libraries among it, is not counted).\n\n\
         **The binary** is the `{profile}` profile's build, as built (with line tables, for profiles) \
         and as a stripped copy. An app of an interpreted language (JavaScript, Python, PHP) \
         has none — the runtime runs its source — and a Java app neither — the JVM runs the \
         classes its install compiled — so the folder its install fills (`node_modules`, \
         `.venv`, `target`) is measured instead, after its install: what it needs \
         beside its own code and the runtime (development tools included when its install \
         puts them there).\n\n\
         **The rebuild** is the wall time of `make build`'s command (`{build}`, or `go build` \
         in the app's folder) after a change to the \
         file holding the app's `detail-page` region, median of {rebuilds} after one untimed \
         build; Rust files are touched (cargo rebuilds by time), Go files get blank \
         lines before line 1 (Go rebuilds by content), put back byte for byte after. A Rust \
         rebuild recompiles and relinks every crate that depends on the file's crate.\n\n\
         **The cold compile** is taken from cargo's timings report of a cold build of the \
         whole workspace (`{cold}`; the newest report with every member and most of its \
         units compiled; after `make lint`, as in CI, the build scripts and proc macros \
         that clippy built in the same profile count zero): an app's share is \
         the sum of the durations of the units only it needs (no other app, nor the harness, \
         needs their package) and of its own crate's units (lib, bin, tests, their link). \
         Units run in parallel, so these are compile seconds, not wall time; what two apps \
         or more need is counted once, as shared, below the table.\n\n\
         **The install** takes the cold compile's place for an app of an interpreted \
         language, which compiles nothing ahead, and for a Java app, which its install \
         compiles: the wall time of its manifest's `[build]` command (`npm ci`; a venv and \
         `pip install`; `mvn package`), run in its folder after the folder it \
         fills (`node_modules`, `.venv`) was removed, so every package is installed again as \
         on a fresh checkout. The package manager's local cache is kept, so packages may come \
         from it rather than the network: this is install time, not download time. Such an \
         app has no rebuild either: the runtime reads a changed file at its next start (a \
         Java app is compiled anew only by its install).\n\n\
         **Start-up** is the time from the process's start (on a free loopback port, \
         PostgreSQL and Redis up, the data loaded) to its first 200 on `/`, median of {starts} \
         starts; **idle RSS** is the resident memory of its process tree {idle} s after that \
         first 200, median of the same starts.\n",
        concerns = concerns.join(", "),
        rebuilds = if idioms.quick {
            "its runs (none here: `--quick`)".to_owned()
        } else {
            format!("{} runs", idioms.rebuilds)
        },
        profile = idioms.profile,
        build = idioms::cargo_build_command(&idioms.profile),
        cold = idioms::cold_build_command(&idioms.profile),
        starts = idioms.starts,
        idle = idioms.idle_after_secs,
    )
}

fn side_by_side(idioms: &Idioms) -> String {
    let mut text = "## The same concerns, side by side\n\n".to_owned();
    for concern in Concern::ALL {
        text.push_str(&format!("### {} (`{}`)\n\n", concern.title(), concern.id()));
        for app in &idioms.apps {
            text.push_str(&format!("#### {}\n\n", escape(&app.name)));
            let excerpts = app
                .concerns
                .iter()
                .find(|c| c.concern == concern)
                .map_or(&[][..], |c| &c.excerpts[..]);
            if excerpts.is_empty() {
                text.push_str(&format!(
                    "No region for `{}` was recorded for this app.\n\n",
                    concern.id()
                ));
            }
            match &app.code_of {
                Some(code) => {
                    let links: Vec<String> = excerpts.iter().map(|e| link(idioms, e)).collect();
                    text.push_str(&format!(
                        "Same code as {}: {}.\n\n",
                        escape(code),
                        links.join(", ")
                    ));
                }
                None => {
                    for excerpt in excerpts {
                        text.push_str(&format!(
                            "{}\n\n{}\n",
                            link(idioms, excerpt),
                            code_block(app.language.fence(), &excerpt.code)
                        ));
                    }
                }
            }
        }
    }
    text
}

/// `[file, lines a–b](<to the workspace>/file#La-Lb)`.
fn link(idioms: &Idioms, excerpt: &Excerpt) -> String {
    let target = if excerpt.file.starts_with('/') {
        format!("file://{}", excerpt.file)
    } else {
        format!("{}/{}", idioms.workspace_link, excerpt.file)
    };
    format!(
        "[{}, lines {}–{}]({}#L{}-L{})",
        escape(&excerpt.file),
        excerpt.first_line,
        excerpt.last_line,
        target.replace(' ', "%20"),
        excerpt.first_line,
        excerpt.last_line
    )
}

fn code_size(idioms: &Idioms) -> String {
    let mut table = Table::new([
        "app",
        "own files",
        "own lines of code",
        "lines it builds on",
        "workspace code it builds on (lines)",
    ])
    .numbers(1..4);
    for app in &idioms.apps {
        let cells = match &app.code_size {
            Measurement::Measured(size) => {
                let shared: Vec<String> = size
                    .builds_on
                    .iter()
                    .map(|s| format!("{} {}", s.name, numbers::count(s.lines.code)))
                    .collect();
                vec![
                    numbers::count(size.own.files.into()),
                    numbers::count(size.own.code),
                    numbers::count(size.shared_lines()),
                    if shared.is_empty() {
                        "none".to_owned()
                    } else {
                        shared.join(", ")
                    },
                ]
            }
            missing => vec![missing.reason().unwrap_or_default(); 4],
        };
        table.row([vec![app.name.clone()], cells].concat());
    }
    format!(
        "## Size of the code you write\n\nLines holding code (no blank lines, comments, \
         docstrings or tests), in the app's own folder and in the workspace's crates (Go: \
         go-shared's packages) it builds on:\n\n{}",
        table.to_markdown()
    )
}

fn packages(idioms: &Idioms) -> String {
    let mut table = Table::new([
        "app",
        "third-party packages",
        "the workspace's own",
        "dev-only, not counted",
        "names in more than one version",
    ])
    .numbers(1..4);
    for app in &idioms.apps {
        let cells = match &app.packages {
            Measurement::Measured(packages) => {
                let duplicates: Vec<String> = packages
                    .duplicates()
                    .iter()
                    .map(|d| format!("{} {}", d.name, d.versions.join(" / ")))
                    .collect();
                vec![
                    numbers::count(packages.third_party().count() as u64),
                    numbers::count(packages.packages.iter().filter(|p| p.local).count() as u64),
                    packages
                        .dev_only
                        .map_or_else(|| "—".to_owned(), |n| numbers::count(n.into())),
                    if duplicates.is_empty() {
                        "none".to_owned()
                    } else {
                        duplicates.join(", ")
                    },
                ]
            }
            missing => vec![missing.reason().unwrap_or_default(); 4],
        };
        table.row([vec![app.name.clone()], cells].concat());
    }
    format!(
        "## What it pulls in\n\nThe unique packages of each app's dependency graph (Rust: \
         normal and build dependencies on this host; Go: modules, the standard library left \
         out; npm: the lock file's installed packages but the dev-only ones, counted apart; \
         pip: the lock file's pins; — where the lock file marks no dev-only \
         packages):\n\n{}",
        table.to_markdown()
    )
}

fn build_cost(idioms: &Idioms) -> String {
    let mut table = Table::new([
        "app",
        "binary as built (MiB)",
        "stripped (MiB)",
        "rebuild, median (s)",
        "rebuild runs (s)",
        "changed file",
        "cold compile, own (s)",
        "own units",
    ])
    .numbers(1..);
    for app in &idioms.apps {
        let rebuild = |show: &dyn Fn(&idioms::Rebuild) -> String| app.rebuild.cell(show);
        let runs = |r: &idioms::Rebuild| {
            let runs: Vec<String> = r.runs_secs.iter().map(|s| seconds(*s)).collect();
            runs.join(", ")
        };
        table.row(vec![
            app.name.clone(),
            app.binary.cell(|b| mib(b.built_bytes)),
            app.binary.cell(|b| mib(b.stripped_bytes)),
            rebuild(&|r| r.median_secs().map_or_else(no_runs, seconds)),
            rebuild(&runs),
            rebuild(&|r| r.file.clone()),
            app.cold_compile.cell(|c| seconds(c.secs)),
            app.cold_compile.cell(|c| numbers::count(c.units.into())),
        ]);
    }
    let cold = match &idioms.cold_build {
        Measurement::Measured(build) => {
            let unknown = if build.unknown_units > 0 {
                format!(
                    "; {} units ({} s) of packages not in the current dependency graph (an \
                     older Cargo.lock)",
                    build.unknown_units,
                    seconds(build.unknown_secs)
                )
            } else {
                String::new()
            };
            format!(
                "From {}: {} units, {} compile seconds in all. Shared (needed by two apps or \
                 more, or by an app and the harness), counted once: {} units, {} s. Needed by \
                 no app's build (the harness, the seed tool, tests' dev-dependencies): {} \
                 units, {} s{unknown}.",
                escape(&build.report),
                numbers::count(build.units.into()),
                seconds(build.total_secs),
                numbers::count(build.shared_units.into()),
                seconds(build.shared_secs),
                numbers::count(build.harness_units.into()),
                seconds(build.harness_secs),
            )
        }
        missing => {
            let reason = escape(&missing.reason().unwrap_or_default());
            match reason.get(..1) {
                Some(first) => first.to_uppercase() + &reason[1..] + ".",
                None => reason,
            }
        }
    };
    let rebuild_how: Vec<String> = idioms
        .apps
        .iter()
        .filter_map(|a| Some(format!("{}: {}", a.name, a.rebuild.value()?.how)))
        .collect();
    let how = if rebuild_how.is_empty() {
        String::new()
    } else {
        format!(
            "\nEach rebuild, as run:\n\n{}\n",
            code_block("text", &rebuild_how.join("\n"))
        )
    };
    format!(
        "## Build cost\n\n{}\n**The cold build.** {cold}\n{how}{}",
        table.to_markdown(),
        installs(idioms),
    )
}

/// The installs of the apps started by a command, timed in place of a cold compile; empty
/// when the page has none.
fn installs(idioms: &Idioms) -> String {
    let apps: Vec<&idioms::AppIdioms> = idioms
        .apps
        .iter()
        .filter(|a| a.install.reason().as_deref() != Some(idioms::NO_INSTALL))
        .collect();
    if apps.is_empty() {
        return String::new();
    }
    let mut table = Table::new([
        "app",
        "command timed, in the app's folder",
        "removed first",
        "installed folder",
        "install (s)",
        "its size (MiB)",
        "its files",
    ])
    .numbers(4..);
    for app in apps {
        let cells = match &app.install {
            Measurement::Measured(install) => {
                let folder = |show: &dyn Fn(&idioms::InstalledFolder) -> String| {
                    install
                        .installed
                        .as_ref()
                        .map_or_else(|| "—".to_owned(), show)
                };
                vec![
                    install.command.clone(),
                    install.emptied.clone().map_or_else(
                        || "nothing (no ignored folder in its creates)".to_owned(),
                        |f| f.clone(),
                    ),
                    folder(&|f| f.folder.clone()),
                    seconds(install.secs),
                    folder(&|f| mib(f.bytes)),
                    folder(&|f| numbers::count(f.files)),
                ]
            }
            missing => vec![missing.reason().unwrap_or_default(); 6],
        };
        table.row([vec![app.name.clone()], cells].concat());
    }
    format!(
        "\n**The install** of each app started by a command, in place of a cold compile (an \
         interpreted app compiles nothing ahead; a Java app's install compiles it): its \
         manifest's `[build]` command, wall time, after the \
         folder it fills was removed, so every package is installed again. The package \
         manager's local cache (`~/.npm`, pip's `~/.cache/pip`, Maven's `~/.m2`) is kept: packages may come \
         from it rather than the network, so this is install time, not download time. The \
         installed folder stands in for a binary: what the app needs beside its own code and \
         the runtime.\n\n{}",
        table.to_markdown()
    )
}

fn run_cost(idioms: &Idioms) -> String {
    let mut table = Table::new([
        "app",
        "start-up, median (ms)",
        "start-up runs (ms)",
        "idle RSS, median (MiB)",
        "idle RSS runs (MiB)",
    ])
    .numbers(1..);
    for app in &idioms.apps {
        let list = |values: &[f64], show: fn(f64) -> String| {
            let shown: Vec<String> = values.iter().map(|v| show(*v)).collect();
            shown.join(", ")
        };
        let ms = |v: f64| format!("{v:.0}");
        table.row(vec![
            app.name.clone(),
            app.start_up
                .cell(|s| s.median_ms().map_or_else(no_runs, ms)),
            app.start_up.cell(|s| list(&s.runs_ms, ms)),
            app.start_up
                .cell(|s| s.median_idle_rss_mib().map_or_else(no_runs, numbers::mib)),
            app.start_up.cell(|s| list(&s.idle_rss_mib, numbers::mib)),
        ]);
    }
    format!(
        "## Run cost at rest\n\nEach start on a free loopback port with the environment above \
         (the fair run's), stopped after its memory was read:\n\n{}",
        table.to_markdown()
    )
}

/// Turns the page's fenced Rust, Go, JavaScript, Python, Java and PHP blocks into HTML
/// coloured by syntect.
pub struct Highlighter {
    syntaxes: SyntaxSet,
    theme: Theme,
}

impl Highlighter {
    pub fn new() -> Highlighter {
        let mut themes = ThemeSet::load_defaults();
        Highlighter {
            syntaxes: SyntaxSet::load_defaults_newlines(),
            theme: themes
                .themes
                .remove("InspiredGitHub")
                .expect("syntect's default themes include InspiredGitHub"),
        }
    }

    /// `None` for a language it does not highlight.
    pub fn html(&self, language: &str, code: &str) -> Option<String> {
        let by_extension = |extension| self.syntaxes.find_syntax_by_extension(extension);
        let syntax = match language {
            "rust" => by_extension("rs"),
            "go" => by_extension("go"),
            "javascript" => by_extension("js"),
            "python" => by_extension("py"),
            "java" => by_extension("java"),
            // An excerpt has no `<?php` before it: `.php`'s syntax would read it as HTML.
            "php" => self.syntaxes.find_syntax_by_name("PHP Source"),
            _ => None,
        }?;
        syntect::html::highlighted_html_for_string(code, &self.syntaxes, syntax, &self.theme).ok()
    }
}

impl Default for Highlighter {
    fn default() -> Self {
        Highlighter::new()
    }
}

/// The page's own CSS: a wider page, the excerpts in a grid of cards.
pub const STYLE: &str = "
main { max-width: 1500px; }
.side-by-side { display: grid; grid-template-columns: repeat(auto-fill, minmax(460px, 1fr));
                gap: 0 1.25rem; align-items: start; }
.card { min-width: 0; }
.card h4 { margin: 1rem 0 .25rem; font-size: 1rem; }
.card p { margin: .25rem 0; font-size: .85em; }
.card pre { white-space: pre; word-break: normal; tab-size: 4; font-size: .82em;
            border: 1px solid #ddd; padding: .5rem .75rem; margin: .25rem 0 .5rem; }
";

/// The benchmark report's section: the newest idioms page under `root`, linked from the
/// batch folder `batch_dir`, and its summary table; or how to make one.
pub fn report_section(batch_dir: &Path, root: &Path) -> String {
    let title = "## Idioms and developer cost\n\n";
    let Some(dir) = idioms::newest(root) else {
        return format!(
            "{title}No idioms page yet: `make idioms` (or `blogbench idioms`) writes one under \
             `idioms/`, and the next report shows its summary here.\n"
        );
    };
    let page = match Idioms::load(&dir.join(idioms::FILE)) {
        Ok(page) => page,
        Err(err) => {
            return format!(
                "{title}The newest idioms page, {}, could not be read: {}\n",
                escape(&dir.display().to_string()),
                escape(&format!("{err:#}"))
            );
        }
    };
    let from = batch_dir
        .canonicalize()
        .unwrap_or_else(|_| batch_dir.to_owned());
    let to = dir.canonicalize().unwrap_or_else(|_| dir.clone());
    let relative = relative_path(&from, &to).display().to_string();
    let quick = if page.quick { ", quick" } else { "" };
    format!(
        "{title}What each app costs to write, build and run, from the newest idioms page, \
         [{id}]({relative}/idioms.md) ([HTML]({relative}/idioms.html); {started}, commit \
         {commit}{quick}), where each app's code for the same concerns is side by side and \
         the methods are stated. {SUMMARY_KEY}\n\n{}",
        summary(&page).to_markdown(),
        id = escape(&page.header.id),
        started = escape(&page.header.started_at),
        commit = escape(&page.header.git_commit),
    )
}

#[cfg(test)]
mod tests;
