//! `blogbench idioms`: the same concerns in every app, side by side, with what each costs to
//! build and run. Stages, one module each: the regions each app marks in its own source, the
//! size of the code it owns, the packages it pulls in, its build cost, its run cost. Writes
//! `idioms/<id>/idioms.json` after every stage; the page is written from it
//! ([`crate::report::write_idioms`]).

pub mod build_cost;
pub mod code_size;
pub mod packages;
pub mod regions;
pub mod run_cost;

use crate::results::RunKind;
use crate::results::idioms::{
    AppIdioms, CodeSize, ColdBuild, ColdCompile, Concern, ConcernCode, Idioms, Language,
    Measurement, NO_INSTALL, NOT_REACHED, Packages, SharedCode, relative_path,
};
use crate::session::{self, Session, inventory};
use crate::stack::apps::{self, App, Kind};
use crate::stack::cpus;
use anyhow::{Context, Result, bail};
use packages::{CargoGraph, GoGraph};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

pub struct Options {
    pub apps: Vec<App>,
    /// Everything but the incremental rebuild, and fewer starts: for tests.
    pub quick: bool,
    /// Where the `<id>` folder is written.
    pub out_dir: PathBuf,
}

/// Starts per app: the median of 5 (3 with `--quick`).
const STARTS: u32 = 5;
const QUICK_STARTS: u32 = 3;
/// Timed rebuilds per app.
const REBUILDS: u32 = 3;

/// The source files under `dir` (`.rs`, `.go`, `.js`, `.py`, `.java`, `.php`:
/// [`code_size::language_of`]), in path order; with `recursive`, its sub-folders' too, but
/// for build output, installed packages (`node_modules`, `vendor`; `.venv` is hidden), files
/// a framework generates (Laravel's compiled Blade views in `storage/`, its
/// `bootstrap/cache/`), tests' and benchmarks' folders, test data and hidden folders, which
/// are never read.
pub fn source_files(dir: &Path, recursive: bool) -> Result<Vec<PathBuf>> {
    const SKIPPED: [&str; 12] = [
        "target",
        "tests",
        "test",
        "benches",
        "examples",
        "testdata",
        "vendor",
        "node_modules",
        "__pycache__",
        "venv",
        "storage",
        "bootstrap/cache",
    ];
    let mut files = Vec::new();
    let mut folders = vec![dir.to_owned()];
    while let Some(folder) = folders.pop() {
        for entry in
            std::fs::read_dir(&folder).with_context(|| format!("read {}", folder.display()))?
        {
            let path = entry?.path();
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            if path.is_dir() {
                if recursive
                    && !name.starts_with('.')
                    && !SKIPPED.iter().any(|skipped| path.ends_with(skipped))
                {
                    folders.push(path);
                }
            } else if code_size::language_of(&path).is_some() {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// The app whose source `app` runs: itself, or for a build variant its manifest's `code`.
pub fn code_app(app: &App) -> Result<App> {
    match &app.manifest.code {
        None => apps::find(&app.name),
        Some(code) => {
            let code_app = apps::find(code)
                .with_context(|| format!("{}: its manifest's code = {code:?}", app.name))?;
            if code_app.manifest.code.is_some() {
                bail!(
                    "{}: code = {code:?} is itself a build variant; name the app with the code",
                    app.name
                );
            }
            Ok(code_app)
        }
    }
}

/// The app's language: Rust or Go by its kind, else its manifest's `language`.
pub fn language(app: &App) -> Result<Language> {
    match app.kind {
        Kind::Cargo => Ok(Language::Rust),
        Kind::Go => Ok(Language::Go),
        Kind::Command => {
            let name = app.manifest.language.as_deref().unwrap_or_default();
            Language::parse(name).with_context(|| {
                let known: Vec<&str> = Language::OF_MANIFESTS.iter().map(|l| l.fence()).collect();
                format!(
                    "{}: language = {name:?} in its bench.toml; blogbench reads {}",
                    app.name,
                    known.join(", ")
                )
            })
        }
    }
}

/// Where `blogbench idioms` writes by default: `<workspace>/idioms`.
pub fn default_dir() -> PathBuf {
    apps::workspace_dir().join("idioms")
}

/// Collects everything for `options.apps`; returns the folder. An app lacking a region for
/// a concern stops the run before anything is written.
pub fn run(options: &Options, interrupted: &AtomicBool) -> Result<PathBuf> {
    let workspace = apps::workspace_dir()
        .canonicalize()
        .context("the workspace folder")?;
    let mut collected = Vec::new();
    let mut problems = Vec::new();
    let mut route_files = BTreeMap::new();
    for app in &options.apps {
        let code = code_app(app)?;
        let language = language(&code)?;
        match regions::of_app(&workspace, &code.dir.canonicalize()?, language) {
            Ok(concerns) => {
                route_files.insert(app.name.clone(), workspace.join(route_file(&concerns)));
                collected.push(AppIdioms {
                    name: app.name.clone(),
                    language,
                    stack: app.manifest.stack.clone(),
                    dir: shown(&workspace, &app.dir),
                    code_of: app.manifest.code.clone(),
                    concerns,
                    code_size: Measurement::not_measured(NOT_REACHED),
                    packages: Measurement::not_measured(NOT_REACHED),
                    binary: Measurement::not_measured(NOT_REACHED),
                    rebuild: Measurement::not_measured(NOT_REACHED),
                    cold_compile: Measurement::not_measured(NOT_REACHED),
                    install: Measurement::not_measured(NOT_REACHED),
                    start_up: Measurement::not_measured(NOT_REACHED),
                });
            }
            Err(errors) => problems.extend(errors.iter().map(|e| format!("{}: {e}", app.name))),
        }
    }
    if !problems.is_empty() {
        bail!(
            "every app marks every concern in its own source (`// region: <concern>` … `// endregion`, in Python `# region: <concern>` … `# endregion`; docs/idioms.md):\n{}",
            problems.join("\n")
        );
    }

    let Session { header, dir } = Session::start(&options.out_dir, RunKind::Idioms)?;
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let env = apps::harness_env(&cpus::default_split(cores).app);
    let mut idioms = Idioms {
        header,
        tools: tools(),
        profile: apps::PROFILE.to_owned(),
        quick: options.quick,
        workspace_link: relative_path(&dir.canonicalize()?, &workspace)
            .display()
            .to_string(),
        starts: if options.quick { QUICK_STARTS } else { STARTS },
        rebuilds: if options.quick { 0 } else { REBUILDS },
        idle_after_secs: run_cost::IDLE_AFTER.as_secs_f64(),
        env: env.clone(),
        cold_build: Measurement::not_measured(NOT_REACHED),
        apps: collected,
    };
    idioms.save(&dir)?;

    let cargo = options
        .apps
        .iter()
        .any(|a| a.kind == Kind::Cargo)
        .then(|| CargoGraph::load(&workspace));
    let cargo = cargo.transpose()?;
    println!("idioms: code size and packages");
    for (app, entry) in options.apps.iter().zip(&mut idioms.apps) {
        let (code_size, packages) = match (&cargo, app.kind) {
            (Some(graph), Kind::Cargo) => cargo_sizes(graph, app),
            (_, Kind::Command) => command_sizes(app, entry.language),
            _ => go_sizes(app, &workspace),
        };
        entry.code_size = code_size.into();
        entry.packages = packages.into();
    }
    idioms.save(&dir)?;

    println!("idioms: binaries");
    for (app, entry) in options.apps.iter().zip(&mut idioms.apps) {
        entry.binary = match app.kind {
            Kind::Command if entry.language == Language::Java => {
                Measurement::not_measured(build_cost::JAVA_NO_BINARY)
            }
            Kind::Command => Measurement::not_measured(build_cost::NO_BINARY),
            Kind::Cargo | Kind::Go => build_cost::binary_size(&app.binary_path()).into(),
        };
    }
    idioms.save(&dir)?;

    println!("idioms: cold compile times");
    cold_compile(&mut idioms, cargo.as_ref());
    idioms.save(&dir)?;

    for (app, entry) in options.apps.iter().zip(&mut idioms.apps) {
        if app.kind != Kind::Command {
            entry.install = Measurement::not_measured(NO_INSTALL);
        }
    }
    for (index, app) in options.apps.iter().enumerate() {
        if app.kind != Kind::Command {
            continue;
        }
        if interrupted.load(Ordering::SeqCst) {
            break;
        }
        println!("idioms: {}: install", app.name);
        idioms.apps[index].install = build_cost::install(app).into();
        idioms.save(&dir)?;
    }
    add_runtimes(&mut idioms.tools, &options.apps);

    let env = apps::env_pairs(&env);
    for (index, app) in options.apps.iter().enumerate() {
        if interrupted.load(Ordering::SeqCst) {
            break;
        }
        println!("idioms: {}: {} starts", app.name, idioms.starts);
        idioms.apps[index].start_up =
            run_cost::start_up(app, &env, idioms.starts, interrupted).into();
        idioms.save(&dir)?;
    }

    for (app, entry) in options.apps.iter().zip(&mut idioms.apps) {
        if app.kind == Kind::Command && entry.language == Language::Java {
            entry.rebuild = Measurement::not_measured(build_cost::JAVA_NO_REBUILD);
        } else if app.kind == Kind::Command {
            entry.rebuild = Measurement::not_measured(build_cost::NO_REBUILD);
        } else if options.quick {
            entry.rebuild = Measurement::not_measured("not measured (--quick)");
        }
    }
    if !options.quick {
        rebuilds(
            &mut idioms,
            options,
            &workspace,
            &route_files,
            interrupted,
            &dir,
        )?;
    }
    if !interrupted.load(Ordering::SeqCst) {
        session::finish(&mut idioms.header);
    }
    idioms.save(&dir)?;
    Ok(dir)
}

/// The app's route file: of the files holding its `detail-page` regions, the one with the
/// most of their lines (the handler's, rather than an extractor's; a Rust crate or a Go
/// package rebuilds whole, so the choice within one changes nothing but the page's text).
fn route_file(concerns: &[ConcernCode]) -> &str {
    let detail = concerns
        .iter()
        .find(|c| c.concern == Concern::DetailPage)
        .map_or(&[][..], |c| &c.excerpts[..]);
    let mut lines: BTreeMap<&str, usize> = BTreeMap::new();
    for excerpt in detail {
        *lines.entry(&excerpt.file).or_default() += excerpt.last_line + 1 - excerpt.first_line;
    }
    // The first file among the largest, in path order.
    lines
        .into_iter()
        .rev()
        .max_by_key(|(_, count)| *count)
        .map_or("", |(file, _)| file)
}

/// The timed rebuilds, after one untimed build per kind brings everything up to date.
fn rebuilds(
    idioms: &mut Idioms,
    options: &Options,
    workspace: &Path,
    route_files: &BTreeMap<String, PathBuf>,
    interrupted: &AtomicBool,
    dir: &Path,
) -> Result<()> {
    let mut cargo_prepared = false;
    for (index, app) in options.apps.iter().enumerate() {
        if interrupted.load(Ordering::SeqCst) {
            break;
        }
        if app.kind == Kind::Command {
            // No build step: recorded as not applicable above.
            continue;
        }
        println!("idioms: {}: {} rebuilds", app.name, REBUILDS);
        let prepared = if app.kind == Kind::Cargo && cargo_prepared {
            Ok(())
        } else {
            build_cost::prepare(app, workspace)
        };
        cargo_prepared |= app.kind == Kind::Cargo && prepared.is_ok();
        idioms.apps[index].rebuild = prepared
            .and_then(|()| {
                build_cost::rebuild(
                    app,
                    workspace,
                    &route_files[&app.name],
                    REBUILDS,
                    interrupted,
                )
            })
            .into();
        idioms.save(dir)?;
    }
    Ok(())
}

/// Lines and packages of a crate: its own folder, and the workspace crates it builds on.
fn cargo_sizes(graph: &CargoGraph, app: &App) -> (Result<CodeSize>, Result<Packages>) {
    let Ok(id) = graph.member(app.binary()) else {
        let missing = || anyhow::anyhow!("{} is not a workspace member", app.binary());
        return (Err(missing()), Err(missing()));
    };
    let size = || -> Result<CodeSize> {
        let own = code_size::lines_in(&app.dir, Language::Rust, true)?;
        let mut builds_on = Vec::new();
        for (name, dir) in graph.local_dependencies(id) {
            builds_on.push(SharedCode {
                name,
                lines: code_size::lines_in(&dir, Language::Rust, true)?,
            });
        }
        Ok(CodeSize { own, builds_on })
    };
    (size(), Ok(graph.packages_of(id)))
}

/// Lines and packages of an app started by a command: its own folder (it builds on no
/// workspace code), and its lock file's packages.
fn command_sizes(app: &App, language: Language) -> (Result<CodeSize>, Result<Packages>) {
    let size = code_size::lines_in(&app.dir, language, true).map(|own| CodeSize {
        own,
        builds_on: Vec::new(),
    });
    let packages = app
        .manifest
        .build
        .as_ref()
        .context("no [build] in its bench.toml")
        .and_then(|build| packages::lock_packages(&app.dir.join(&build.lock)));
    (size, packages)
}

/// Lines and packages of a Go module: its own folder, and the workspace's packages it
/// imports (go-shared's).
fn go_sizes(app: &App, workspace: &Path) -> (Result<CodeSize>, Result<Packages>) {
    let graph: Result<GoGraph> = packages::go_graph(&app.dir);
    let size = |graph: &GoGraph| -> Result<CodeSize> {
        let own = code_size::lines_in(&app.dir, Language::Go, true)?;
        let mut builds_on = Vec::new();
        for (_, dir) in &graph.local_packages {
            builds_on.push(SharedCode {
                name: shown(workspace, dir),
                lines: code_size::lines_in(dir, Language::Go, false)?,
            });
        }
        builds_on.sort_by(|a, b| a.name.cmp(&b.name));
        builds_on.dedup_by(|a, b| a.name == b.name);
        Ok(CodeSize { own, builds_on })
    };
    match graph {
        Ok(graph) => (size(&graph), Ok(graph.packages)),
        Err(err) => (Err(anyhow::anyhow!("{err:#}")), Err(err)),
    }
}

/// Each Rust app's share of the newest timings report of a cold workspace build, or why there is none.
fn cold_compile(idioms: &mut Idioms, graph: Option<&CargoGraph>) {
    let not_go = "not applicable: a Go app (`go build` is not in cargo's timings report)";
    for entry in &mut idioms.apps {
        match entry.language {
            Language::Rust => {}
            Language::Go => entry.cold_compile = Measurement::not_measured(not_go),
            Language::JavaScript | Language::Python | Language::Php => {
                entry.cold_compile = Measurement::not_measured(build_cost::NO_COMPILE);
            }
            Language::Java => {
                entry.cold_compile = Measurement::not_measured(build_cost::JAVA_NO_COMPILE);
            }
        }
    }
    let result = graph
        .context("no Rust app selected")
        .and_then(cold_compile_of);
    match result {
        Ok(Some((per_app, build))) => {
            for entry in idioms
                .apps
                .iter_mut()
                .filter(|a| a.language == Language::Rust)
            {
                entry.cold_compile = per_app.get(&entry.name).cloned().map_or_else(
                    || Measurement::not_measured("not in the timings report"),
                    Measurement::Measured,
                );
            }
            idioms.cold_build = Measurement::Measured(build);
        }
        Ok(None) => {
            let reason = format!(
                "no timings report of a cold build in {}/cargo-timings; make one with `{}`",
                apps::target_dir().display(),
                crate::results::idioms::cold_build_command(apps::PROFILE)
            );
            for entry in idioms
                .apps
                .iter_mut()
                .filter(|a| a.language == Language::Rust)
            {
                entry.cold_compile = Measurement::not_measured(reason.clone());
            }
            idioms.cold_build = Measurement::not_measured(reason);
        }
        Err(err) => {
            for entry in idioms
                .apps
                .iter_mut()
                .filter(|a| a.language == Language::Rust)
            {
                entry.cold_compile = Measurement::Failed {
                    error: format!("{err:#}"),
                };
            }
            idioms.cold_build = Measurement::Failed {
                error: format!("{err:#}"),
            };
        }
    }
}

type PerApp = BTreeMap<String, ColdCompile>;

/// Roots are every Rust app of the workspace (selected or not: "only this app needs it" is
/// about all of them) and the members nothing else builds on (the harness).
fn cold_compile_of(graph: &CargoGraph) -> Result<Option<(PerApp, ColdBuild)>> {
    let members = graph.member_names();
    let Some((report, units)) =
        build_cost::cold_report(&apps::target_dir(), apps::PROFILE, &members)?
    else {
        return Ok(None);
    };
    let mut roots = Vec::new();
    let mut app_packages = BTreeMap::new();
    for app in apps::all()?.into_iter().filter(|a| a.kind == Kind::Cargo) {
        if let Ok(id) = graph.member(app.binary()) {
            app_packages.insert(id.to_owned(), app.name.clone());
        }
    }
    let top_level = graph.top_level_members();
    let ids: Vec<&str> = app_packages
        .keys()
        .map(String::as_str)
        .chain(
            top_level
                .into_iter()
                .filter(|id| !app_packages.contains_key(*id)),
        )
        .collect();
    for id in ids {
        let Some(package) = graph.key(id) else {
            continue;
        };
        let app = app_packages.get(id);
        roots.push(build_cost::Root {
            name: app.cloned().unwrap_or_else(|| package.0.clone()),
            app: app.is_some(),
            package,
            needs: graph
                .closure(id)
                .into_iter()
                .filter_map(|dep| graph.key(dep))
                .collect(),
        });
    }
    let (per_app, build) =
        build_cost::attribute(report.display().to_string(), &units, &roots, &graph.keys());
    Ok(Some((per_app, build)))
}

/// rustc, cargo and go, as they name themselves.
fn tools() -> BTreeMap<String, String> {
    [
        ("rustc", "rustc", &["--version"][..]),
        ("cargo", "cargo", &["--version"][..]),
        ("go", "go", &["version"][..]),
    ]
    .into_iter()
    .map(|(name, program, args)| {
        let version =
            inventory::command_line(program, args).unwrap_or_else(|| "unknown".to_owned());
        (name.to_owned(), version)
    })
    .collect()
}

/// The runtime of each app started by a command (its manifest's `[run]` `runtime`, run in
/// its folder once it is installed: `node`, the venv's `python`, `java`), under the app's
/// name.
fn add_runtimes(tools: &mut BTreeMap<String, String>, apps: &[App]) {
    for app in apps {
        let Some(run) = &app.manifest.run else {
            continue;
        };
        let version = app
            .runtime(run)
            .unwrap_or_else(|err| format!("unknown ({err:#})"));
        tools.insert(
            format!("{} runtime", app.name),
            format!("{}: {version}", run.runtime.join(" ")),
        );
    }
}

/// `path` relative to the workspace when inside it.
fn shown(workspace: &Path, path: &Path) -> String {
    let path = path.canonicalize().unwrap_or_else(|_| path.to_owned());
    path.strip_prefix(workspace)
        .unwrap_or(&path)
        .display()
        .to_string()
}

#[cfg(test)]
mod tests {
    use crate::results::idioms::{Concern, ConcernCode, Excerpt};
    use std::path::PathBuf;

    #[test]
    fn the_route_file_holds_most_of_the_detail_page() {
        let excerpt = |file: &str, first_line, last_line| Excerpt {
            file: file.to_owned(),
            first_line,
            last_line,
            code: String::new(),
        };
        let concerns = [ConcernCode {
            concern: Concern::DetailPage,
            excerpts: vec![
                excerpt("src/db.rs", 10, 25),
                excerpt("src/routes.rs", 1, 10),
                excerpt("src/routes.rs", 40, 49),
            ],
        }];
        assert_eq!(super::route_file(&concerns), "src/routes.rs");
        let tie = [ConcernCode {
            concern: Concern::DetailPage,
            excerpts: vec![excerpt("b.go", 1, 5), excerpt("a.go", 1, 5)],
        }];
        assert_eq!(super::route_file(&tie), "a.go");
    }

    #[test]
    fn source_files_skip_tests_folders_and_build_output() {
        let dir = tempfile::tempdir().unwrap();
        for file in [
            "src/main.rs",
            "src/a/b.rs",
            "tests/it.rs",
            "target/x.rs",
            "main.go",
            "README.md",
        ] {
            let path = dir.path().join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        let files: Vec<String> = super::source_files(dir.path(), true)
            .unwrap()
            .iter()
            .map(|f| f.strip_prefix(dir.path()).unwrap().display().to_string())
            .collect();
        assert_eq!(files, ["main.go", "src/a/b.rs", "src/main.rs"]);
        let top: Vec<PathBuf> = super::source_files(dir.path(), false).unwrap();
        assert_eq!(top.len(), 1);
    }
}
