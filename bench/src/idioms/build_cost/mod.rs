//! What an app costs to build: its binary as built and stripped, the incremental rebuild
//! after a change to its route file (`make build`'s command, timed), and its share of a cold
//! workspace build, from cargo's timings report. An app started by a command (JavaScript,
//! Python, PHP; Java, which that command compiles) has none of these: its install (its
//! manifest's `[build]` command, from an empty dependency folder) is timed instead, and the
//! folder it fills is measured.

use super::packages::PackageKey;
use crate::results::idioms::{
    BinarySize, ColdBuild, ColdCompile, Install, InstalledFolder, Rebuild, cargo_build_args,
    cargo_build_command,
};
use crate::stack::apps::{self, App, Kind};
use anyhow::{Context, Result, bail};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Instant, SystemTime};

/// The binary's size, and a stripped copy's (the built file is never touched).
pub fn binary_size(binary: &Path) -> Result<BinarySize> {
    let built_bytes = std::fs::metadata(binary)
        .map_err(|err| {
            anyhow::anyhow!(
                "no binary at {} ({err}); build it with `make build`",
                binary.display()
            )
        })?
        .len();
    let copy = std::env::temp_dir().join(format!(
        "blogbench-strip-{}-{}",
        std::process::id(),
        binary.file_name().unwrap_or_default().to_string_lossy()
    ));
    std::fs::copy(binary, &copy).with_context(|| format!("copy {}", binary.display()))?;
    let stripped = strip(&copy).and_then(|()| Ok(std::fs::metadata(&copy)?.len()));
    let _ = std::fs::remove_file(&copy);
    Ok(BinarySize {
        built_bytes,
        stripped_bytes: stripped?,
    })
}

/// `strip`, else `objcopy --strip-all`, in place on `file`.
fn strip(file: &Path) -> Result<()> {
    for (tool, args) in [("strip", &[][..]), ("objcopy", &["--strip-all"][..])] {
        if let Ok(status) = Command::new(tool).args(args).arg(file).status()
            && status.success()
        {
            return Ok(());
        }
    }
    bail!("neither strip nor objcopy could strip {}", file.display())
}

/// Runs `command` in `dir`; its output is shown only when it fails.
fn run(command: &mut Command, what: &str) -> Result<()> {
    let output = command.output().with_context(|| format!("run {what}"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(30).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        bail!("{what} failed ({}):\n{}", output.status, tail.join("\n"));
    }
    Ok(())
}

/// `make build`'s cargo command, less `--timings`: a report of a one-crate rebuild would only
/// pile up beside the cold build's.
fn cargo_build(workspace: &Path) -> Result<()> {
    run(
        Command::new("cargo")
            .args(cargo_build_args(apps::PROFILE))
            .current_dir(workspace),
        "cargo build",
    )
}

/// `go build` as `make build` runs it: in the app's folder, into the profile's folder.
fn go_build(app: &App) -> Result<()> {
    run(
        Command::new("go")
            .args(["build", "-o"])
            .arg(app.binary_path())
            .arg(".")
            .current_dir(&app.dir),
        "go build",
    )
}

/// Brings the release build up to date, untimed, so each timed run rebuilds only what its
/// change touches.
pub fn prepare(app: &App, workspace: &Path) -> Result<()> {
    match app.kind {
        Kind::Cargo => cargo_build(workspace),
        Kind::Go => go_build(app),
        Kind::Command => app.ensure_built(),
    }
}

/// `runs` timed rebuilds of `app` after a change to `file` (the file of its `detail-page`
/// region). Rust: the file touched, then `make build`'s cargo command (cargo rebuilds by
/// modification time). Go: `k` blank lines put before line 1 on run `k` — shifting every
/// line, as an edit above would, so the package compiles and the binary links anew, and a
/// different count each run, as Go would find an earlier run's result in its cache — then
/// `go build`; the file is put back byte for byte after each run, even on an error or
/// Ctrl-C, and the binary rebuilt from it.
pub fn rebuild(
    app: &App,
    workspace: &Path,
    file: &Path,
    runs: u32,
    interrupted: &AtomicBool,
) -> Result<Rebuild> {
    let shown = file.strip_prefix(workspace).unwrap_or(file).display();
    let how = match app.kind {
        Kind::Cargo => format!(
            "{shown} touched, then `{}` in the workspace",
            cargo_build_command(apps::PROFILE)
        ),
        Kind::Go => format!(
            "blank lines put before line 1 of {shown} (put back after), then `go build -o <{}>/{} .` in {}",
            apps::PROFILE,
            app.binary(),
            app.dir
                .strip_prefix(workspace)
                .unwrap_or(&app.dir)
                .display()
        ),
        Kind::Command => bail!("{}: {NO_REBUILD}", app.name),
    };
    let mut runs_secs = Vec::new();
    for run in 1..=runs {
        if interrupted.load(Ordering::SeqCst) {
            bail!("interrupted");
        }
        let seconds = match app.kind {
            Kind::Cargo => {
                std::fs::File::options()
                    .write(true)
                    .open(file)
                    .and_then(|f| f.set_modified(SystemTime::now()))
                    .with_context(|| format!("touch {}", file.display()))?;
                timed(|| cargo_build(workspace))?
            }
            Kind::Go => {
                let _changed = Prepended::blank_lines(file, run as usize)?;
                timed(|| go_build(app))?
            }
            Kind::Command => bail!("{}: {NO_REBUILD}", app.name),
        };
        runs_secs.push(seconds);
    }
    if app.kind == Kind::Go {
        go_build(app)?;
    }
    Ok(Rebuild {
        file: shown.to_string(),
        how,
        runs_secs,
    })
}

/// Why an app started by a command has no rebuild time.
pub const NO_REBUILD: &str =
    "not applicable: no build step, the runtime reads a changed file at its next start";

/// Why it has no binary.
pub const NO_BINARY: &str = "not applicable: no binary, the runtime runs the source";

/// Why it has no cold compile.
pub const NO_COMPILE: &str =
    "not applicable: nothing is compiled ahead; its install is timed instead";

/// Why a Java app, which its `[build]` command compiles (`mvn package`), has no binary, no
/// rebuild and no cold compile of its own: that command is timed whole, from nothing, as its
/// install, and the folder it fills (`target/`, the classes and the jar) is measured.
pub const JAVA_NO_BINARY: &str =
    "not applicable: the JVM runs its compiled classes; the folder its install fills is measured";

pub const JAVA_NO_REBUILD: &str =
    "not measured: its build command compiles it, timed whole as its install";

pub const JAVA_NO_COMPILE: &str =
    "not applicable: its build command compiles it, timed whole as its install";

/// The app's manifest's `[build]` command, timed in its folder after the folder it fills
/// (`node_modules`, `.venv`: [`installed_folder`]) was removed, so that everything is
/// installed again, as on a fresh checkout; then that folder's size. The package manager's
/// local cache (`~/.npm`, `~/.cache/pip`) is left alone: downloads may come from it.
pub fn install(app: &App) -> Result<Install> {
    let build = app
        .manifest
        .build
        .as_ref()
        .context("no [build] in its bench.toml")?;
    let folder = installed_folder(app, build);
    if let Some(folder) = folder.as_ref().filter(|f| f.exists()) {
        std::fs::remove_dir_all(folder)
            .with_context(|| format!("remove {} before the install", folder.display()))?;
    }
    let secs = timed(|| app.install(build))?;
    let name = |folder: &Path| {
        folder
            .strip_prefix(&app.dir)
            .unwrap_or(folder)
            .display()
            .to_string()
    };
    let installed = match &folder {
        Some(folder) => {
            let (bytes, files) = folder_size(folder)?;
            Some(InstalledFolder {
                folder: name(folder),
                bytes,
                files,
            })
        }
        None => None,
    };
    Ok(Install {
        command: build.command.join(" "),
        emptied: folder.as_deref().map(name),
        secs,
        installed,
    })
}

/// The folder the install fills: the first component of the manifest's `creates`
/// (`node_modules/.package-lock.json`, `.venv/bin/uvicorn`) when that is a folder inside
/// the app's that git ignores — a build's output, never source — else None.
fn installed_folder(app: &App, build: &crate::stack::manifest::Build) -> Option<PathBuf> {
    let mut components = Path::new(&build.creates).components();
    let first = match (components.next(), components.next()) {
        (Some(std::path::Component::Normal(first)), Some(_)) => first,
        _ => return None,
    };
    let folder = app.dir.join(first);
    if folder.exists() && !folder.is_dir() {
        return None;
    }
    let ignored = Command::new("git")
        .args(["check-ignore", "--quiet", "--"])
        .arg(first)
        .current_dir(&app.dir)
        .status()
        .is_ok_and(|s| s.success());
    ignored.then_some(folder)
}

/// The regular files under `folder`: their sizes added up (apparent sizes) and their count;
/// symbolic links are not followed (a venv's `python` points at the system's).
fn folder_size(folder: &Path) -> Result<(u64, u64)> {
    let (mut bytes, mut files) = (0, 0);
    let mut folders = vec![folder.to_owned()];
    while let Some(folder) = folders.pop() {
        for entry in
            std::fs::read_dir(&folder).with_context(|| format!("read {}", folder.display()))?
        {
            let entry = entry?;
            let kind = entry.file_type()?;
            if kind.is_dir() {
                folders.push(entry.path());
            } else if kind.is_file() {
                bytes += entry.metadata()?.len();
                files += 1;
            }
        }
    }
    Ok((bytes, files))
}

fn timed(build: impl FnOnce() -> Result<()>) -> Result<f64> {
    let started = Instant::now();
    build()?;
    Ok(started.elapsed().as_secs_f64())
}

/// A source file with blank lines put before its first line, put back byte for byte when
/// dropped: after the build, on an error, or when Ctrl-C ends the build (the harness catches
/// Ctrl-C, so it returns through here). Should someone save the file meanwhile, only the
/// blank lines are taken out again, so their edit is kept.
struct Prepended {
    path: PathBuf,
    original: Vec<u8>,
    blank_lines: usize,
}

impl Prepended {
    fn blank_lines(path: &Path, count: usize) -> Result<Prepended> {
        let original = std::fs::read(path).with_context(|| format!("read {}", path.display()))?;
        let changed = Prepended {
            path: path.to_owned(),
            original,
            blank_lines: count,
        };
        let mut file =
            std::fs::File::create(path).with_context(|| format!("write {}", path.display()))?;
        file.write_all(&b"\n".repeat(count))?;
        file.write_all(&changed.original)?;
        Ok(changed)
    }

    /// What to write back given what the file holds now: the original when it is as this
    /// left it, else the file less the blank lines, else nothing (it is someone else's now).
    fn restored(&self, now: &[u8]) -> Option<Vec<u8>> {
        let prefix = b"\n".repeat(self.blank_lines);
        let rest = now.strip_prefix(&prefix[..])?;
        Some(if rest == self.original {
            self.original.clone()
        } else {
            rest.to_vec()
        })
    }
}

impl Drop for Prepended {
    fn drop(&mut self) {
        let restored = std::fs::read(&self.path)
            .map_err(|err| err.to_string())
            .and_then(|now| {
                self.restored(&now)
                    .ok_or_else(|| "it changed and no longer starts with the blank lines".into())
            })
            .and_then(|bytes| std::fs::write(&self.path, bytes).map_err(|err| err.to_string()));
        if let Err(err) = restored {
            eprintln!(
                "blogbench idioms: COULD NOT PUT BACK {} ({err}): it should start without the \
                 {} blank lines blogbench put there",
                self.path.display(),
                self.blank_lines
            );
        }
    }
}

/// One unit of cargo's timings report: a package's lib, bin, test, build script….
#[derive(Debug, Clone, Deserialize)]
pub struct Unit {
    pub name: String,
    pub version: String,
    /// Seconds.
    pub duration: f64,
}

/// The `UNIT_DATA` array of a `cargo build --timings` report.
pub fn parse_units(html: &str) -> Result<Vec<Unit>> {
    const START: &str = "UNIT_DATA = ";
    let start = html.find(START).context("no UNIT_DATA in the report")? + START.len();
    serde_json::Deserializer::from_str(&html[start..])
        .into_iter::<Vec<Unit>>()
        .next()
        .context("UNIT_DATA is empty")?
        .context("parse UNIT_DATA")
}

/// The newest `cargo-timing-*.html` in `<target>/cargo-timings` of a cold build of the whole
/// workspace: a unit for every one of `members`, and most of its units compiled (a rebuild
/// of every member lists the fresh dependencies too, at zero seconds; after `make lint`
/// the build scripts and proc macros that clippy built in the same profile are fresh, a
/// minority).
pub fn cold_report(
    target_dir: &Path,
    profile: &str,
    members: &[&str],
) -> Result<Option<(PathBuf, Vec<Unit>)>> {
    // Cargo writes every profile's report into one folder; its summary table names the profile.
    let profile_row = format!("<td>Profile:</td><td>{profile}</td>");
    let Ok(entries) = std::fs::read_dir(target_dir.join("cargo-timings")) else {
        return Ok(None);
    };
    let mut reports: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("cargo-timing-") && n.ends_with(".html"))
        })
        .collect();
    // The name holds the build's UTC time: newest first.
    reports.sort();
    for report in reports.into_iter().rev() {
        let html = std::fs::read_to_string(&report)
            .with_context(|| format!("read {}", report.display()))?;
        if !html.contains(&profile_row) {
            continue;
        }
        let Ok(units) = parse_units(&html) else {
            continue;
        };
        let compiled = units.iter().filter(|u| u.duration > 0.0).count();
        if members.iter().all(|m| units.iter().any(|u| u.name == *m)) && compiled * 2 > units.len()
        {
            return Ok(Some((report, units)));
        }
    }
    Ok(None)
}

/// A build's root: an app's package, or a workspace member no other member builds on (the
/// harness), with every package its build needs (itself included).
pub struct Root {
    pub name: String,
    pub app: bool,
    pub package: PackageKey,
    pub needs: BTreeSet<PackageKey>,
}

/// Each unit to one app when only that app needs its package (or it is the app's own
/// crate: lib, bin, tests, their link), else to "shared" when apps need it (with other apps
/// or the harness), else to the harness (its crates, tests' dev-dependencies). `known` is
/// every package of the current graph: a unit outside it (an older Cargo.lock) is counted
/// apart.
pub fn attribute(
    report: String,
    units: &[Unit],
    roots: &[Root],
    known: &BTreeSet<PackageKey>,
) -> (BTreeMap<String, ColdCompile>, ColdBuild) {
    let mut apps: BTreeMap<String, ColdCompile> = roots
        .iter()
        .filter(|r| r.app)
        .map(|r| {
            (
                r.name.clone(),
                ColdCompile {
                    secs: 0.0,
                    units: 0,
                },
            )
        })
        .collect();
    let mut build = ColdBuild {
        report,
        total_secs: 0.0,
        units: 0,
        shared_secs: 0.0,
        shared_units: 0,
        harness_secs: 0.0,
        harness_units: 0,
        unknown_secs: 0.0,
        unknown_units: 0,
    };
    for unit in units {
        build.total_secs += unit.duration;
        build.units += 1;
        let key = (unit.name.clone(), unit.version.clone());
        let owner = roots.iter().find(|r| r.app && r.package == key);
        let users: Vec<&Root> = roots.iter().filter(|r| r.needs.contains(&key)).collect();
        let only_app = match (owner, users.as_slice()) {
            (Some(app), _) => Some(app),
            (None, [only]) if only.app => Some(*only),
            _ => None,
        };
        let (secs, count) = if let Some(app) = only_app {
            let cell = apps.get_mut(&app.name).expect("every app root has a cell");
            (&mut cell.secs, &mut cell.units)
        } else if users.iter().any(|r| r.app) {
            (&mut build.shared_secs, &mut build.shared_units)
        } else if known.contains(&key) {
            (&mut build.harness_secs, &mut build.harness_units)
        } else {
            (&mut build.unknown_secs, &mut build.unknown_units)
        };
        *secs += unit.duration;
        *count += 1;
    }
    (apps, build)
}

#[cfg(test)]
mod tests;
