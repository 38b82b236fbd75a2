//! `idioms/<id>/idioms.json`: what `blogbench idioms` collected per app — its own source for
//! each concern, the code it owns and the workspace code it builds on, the packages it pulls
//! in, what it costs to build and to start. Written atomically after every stage; the page
//! (`idioms.md`, `idioms.html`) is built from this file alone.

use super::{RunHeader, median, read_json, write_json};
use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Idioms {
    #[serde(flatten)]
    pub header: RunHeader,
    /// rustc, cargo, go.
    pub tools: BTreeMap<String, String>,
    /// The cargo profile of the binaries, the rebuilds and the cold build (`release` but for
    /// `make test`'s `ci`).
    #[serde(default = "release")]
    pub profile: String,
    /// `--quick`: no incremental rebuild, fewer starts.
    pub quick: bool,
    /// From the page's folder to the workspace (`../..`): the sources' links start with it.
    pub workspace_link: String,
    /// Starts per app for the start-up time and the idle RSS.
    pub starts: u32,
    /// Timed rebuilds per app (0 with `--quick`).
    pub rebuilds: u32,
    /// How long after its first 200 an app's memory was read.
    pub idle_after_secs: f64,
    /// The environment the harness set for every start (the fair run's).
    pub env: BTreeMap<String, String>,
    /// The cold build whose timings the per-app compile times come from.
    pub cold_build: Measurement<ColdBuild>,
    pub apps: Vec<AppIdioms>,
}

/// A measurement, or why there is none: a page never silently shows less.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Measurement<T> {
    Measured(T),
    /// Left out on purpose or not possible here (`--quick`, a Go app in cargo's report, a
    /// stage the run did not reach).
    NotMeasured {
        reason: String,
    },
    /// Tried, and it went wrong.
    Failed {
        error: String,
    },
}

impl<T> Measurement<T> {
    pub fn not_measured(reason: impl Into<String>) -> Self {
        Measurement::NotMeasured {
            reason: reason.into(),
        }
    }

    pub fn value(&self) -> Option<&T> {
        match self {
            Measurement::Measured(value) => Some(value),
            _ => None,
        }
    }

    /// Why there is no value, as a cell shows it.
    pub fn reason(&self) -> Option<String> {
        match self {
            Measurement::Measured(_) => None,
            Measurement::NotMeasured { reason } => Some(reason.clone()),
            Measurement::Failed { error } => Some(format!("failed: {error}")),
        }
    }

    /// The measured value shown by `show`, else the reason.
    pub fn cell(&self, show: impl FnOnce(&T) -> String) -> String {
        match self {
            Measurement::Measured(value) => show(value),
            _ => self.reason().unwrap_or_default(),
        }
    }
}

impl<T> From<Result<T>> for Measurement<T> {
    fn from(result: Result<T>) -> Self {
        result.map_or_else(
            |err| Measurement::Failed {
                error: format!("{err:#}"),
            },
            Measurement::Measured,
        )
    }
}

/// The concerns every app marks in its source (`// region: <id>` … `// endregion`), in the
/// page's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Concern {
    DetailPage,
    Pool,
    Cache,
    Errors,
    Comment,
}

impl Concern {
    pub const ALL: [Concern; 5] = [
        Concern::DetailPage,
        Concern::Pool,
        Concern::Cache,
        Concern::Errors,
        Concern::Comment,
    ];

    /// The id in the region markers.
    pub fn id(self) -> &'static str {
        match self {
            Concern::DetailPage => "detail-page",
            Concern::Pool => "pool",
            Concern::Cache => "cache",
            Concern::Errors => "errors",
            Concern::Comment => "comment",
        }
    }

    pub fn parse(id: &str) -> Option<Concern> {
        Concern::ALL.into_iter().find(|c| c.id() == id)
    }

    pub fn title(self) -> &'static str {
        match self {
            Concern::DetailPage => "The detail page's handler",
            Concern::Pool => "The connection pool's set-up",
            Concern::Cache => "The page cache: read and write",
            Concern::Errors => "Errors into responses",
            Concern::Comment => "The comment POST and its validation",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Language {
    Rust,
    Go,
    #[serde(rename = "javascript")]
    JavaScript,
    Python,
    Java,
    Php,
}

impl Language {
    /// The fenced code block's language.
    pub fn fence(self) -> &'static str {
        match self {
            Language::Rust => "rust",
            Language::Go => "go",
            Language::JavaScript => "javascript",
            Language::Python => "python",
            Language::Java => "java",
            Language::Php => "php",
        }
    }

    /// The languages a manifest's `language` may name: an app in Rust or Go is a crate or a
    /// module.
    pub const OF_MANIFESTS: [Language; 4] = [
        Language::JavaScript,
        Language::Python,
        Language::Java,
        Language::Php,
    ];

    /// The language a manifest's `language` names (`javascript`, `python`, `java`, `php`).
    pub fn parse(name: &str) -> Option<Language> {
        Language::OF_MANIFESTS
            .into_iter()
            .find(|l| l.fence() == name)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AppIdioms {
    pub name: String,
    pub language: Language,
    pub stack: String,
    /// The app's folder, relative to the workspace.
    pub dir: String,
    /// For a build variant: the app whose source it runs (its manifest's `code`); its
    /// excerpts are that app's.
    pub code_of: Option<String>,
    /// One entry per concern, in [`Concern::ALL`]'s order.
    pub concerns: Vec<ConcernCode>,
    pub code_size: Measurement<CodeSize>,
    pub packages: Measurement<Packages>,
    pub binary: Measurement<BinarySize>,
    pub rebuild: Measurement<Rebuild>,
    pub cold_compile: Measurement<ColdCompile>,
    /// An app started by a command (JavaScript, Python, Java, PHP): its manifest's `[build]`
    /// command timed, in place of the cold compile. Absent in results written before it
    /// existed (of Rust and Go apps only, for which it does not apply).
    #[serde(default = "compiled_app")]
    pub install: Measurement<Install>,
    pub start_up: Measurement<StartUp>,
}

/// Why a Rust or Go app has no install time.
pub const NO_INSTALL: &str = "not applicable: a compiled app (its cold compile is the build cost)";

fn compiled_app() -> Measurement<Install> {
    Measurement::not_measured(NO_INSTALL)
}

/// An app's regions for one concern, in file order.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ConcernCode {
    pub concern: Concern,
    pub excerpts: Vec<Excerpt>,
}

/// The lines between a region's markers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Excerpt {
    /// Relative to the workspace.
    pub file: String,
    /// 1-based, the markers excluded.
    pub first_line: usize,
    pub last_line: usize,
    /// Dedented.
    pub code: String,
}

/// Lines of code: no blank lines, no comments, no tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Lines {
    pub files: u32,
    pub code: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CodeSize {
    /// The app's own folder.
    pub own: Lines,
    /// The workspace's crates (Go: packages) it builds on, each with its lines.
    pub builds_on: Vec<SharedCode>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SharedCode {
    /// A crate's name, or a Go package's folder in the workspace.
    pub name: String,
    pub lines: Lines,
}

impl CodeSize {
    pub fn shared_lines(&self) -> u64 {
        self.builds_on.iter().map(|s| s.lines.code).sum()
    }
}

/// Every package in the app's dependency graph but the app itself: Rust, its normal and
/// build dependencies on this host; Go, the modules of the packages it imports, the
/// standard library excluded; npm, the lock file's installed packages but those only
/// development needs; pip, the lock file's pins; Maven, the resolved artifacts the app runs
/// with; Debian, the listed packages (not what they depend on).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Packages {
    pub packages: Vec<Package>,
    /// npm: the lock file's packages that only development needs (`"dev": true`: test
    /// runner, linter), not among `packages`; Maven: the artifacts of scope `test`,
    /// `provided` or `system`. None where the lock file does not mark them (Cargo and Go
    /// leave dev-dependencies out of the graph; pip's lock and a Debian list hold none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dev_only: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Package {
    pub name: String,
    pub version: String,
    /// The workspace's own (a path dependency, a `replace`d Go module).
    pub local: bool,
}

/// One package name in more than one version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Duplicate {
    pub name: String,
    pub versions: Vec<String>,
}

impl Packages {
    pub fn third_party(&self) -> impl Iterator<Item = &Package> {
        self.packages.iter().filter(|p| !p.local)
    }

    /// The names present in more than one version, by name, versions oldest first.
    pub fn duplicates(&self) -> Vec<Duplicate> {
        let mut versions: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for package in &self.packages {
            let seen = versions.entry(&package.name).or_default();
            if !seen.contains(&package.version.as_str()) {
                seen.push(&package.version);
            }
        }
        versions
            .into_iter()
            .filter(|(_, versions)| versions.len() > 1)
            .map(|(name, mut versions)| {
                versions.sort_by_key(|v| version_order(v));
                Duplicate {
                    name: name.to_owned(),
                    versions: versions.into_iter().map(str::to_owned).collect(),
                }
            })
            .collect()
    }
}

/// `0.10.4` after `0.9.5`: the numbers of a version (`v5.7.5`, `1.0.0-rc.1`) in order.
fn version_order(version: &str) -> Vec<u64> {
    version
        .trim_start_matches('v')
        .split(['.', '-', '+'])
        .map(|part| part.parse().unwrap_or(0))
        .collect()
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BinarySize {
    pub built_bytes: u64,
    /// A copy's, stripped with `strip`.
    pub stripped_bytes: u64,
}

/// `make build`'s command timed after a change to the app's route file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rebuild {
    /// The file holding the app's `detail-page` region, relative to the workspace.
    pub file: String,
    /// What was done to it, and the command timed.
    pub how: String,
    pub runs_secs: Vec<f64>,
}

impl Rebuild {
    pub fn median_secs(&self) -> Option<f64> {
        median(self.runs_secs.iter().copied()).map(|(m, _)| m)
    }
}

/// An app started by a command: its manifest's `[build]` command timed in the app's folder,
/// after the folder the install fills (`node_modules`, `.venv`) was removed, so everything
/// is installed again; packages may come from the package manager's local cache rather than
/// the network.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Install {
    /// The command, as run.
    pub command: String,
    /// The folder removed first, relative to the app's, or None when the manifest's
    /// `creates` names no folder git ignores (the command then ran on what was there).
    pub emptied: Option<String>,
    /// Wall time.
    pub secs: f64,
    /// What the install left in that folder.
    pub installed: Option<InstalledFolder>,
}

/// The installed packages' folder after an install: the closest thing to a binary an app
/// that ships its source has (what it needs beside its own code and the runtime).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InstalledFolder {
    /// Relative to the app's folder.
    pub folder: String,
    /// The regular files' sizes added up (apparent sizes; symbolic links not followed).
    pub bytes: u64,
    pub files: u64,
}

/// An app's share of a cold workspace build, from cargo's timings report: the units of the
/// packages only it needs, plus its own crate's (lib, bin, tests, link).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ColdCompile {
    pub secs: f64,
    pub units: u32,
}

/// The timings report the per-app compile times come from, and what no single app needs.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ColdBuild {
    /// The report's file.
    pub report: String,
    /// Every unit's duration added up (units run in parallel: more than the wall time).
    pub total_secs: f64,
    pub units: u32,
    /// Units of packages two or more apps (or an app and the harness) need.
    pub shared_secs: f64,
    pub shared_units: u32,
    /// Units no app's build needs: the harness, the seed tool, tests' dev-dependencies.
    pub harness_secs: f64,
    pub harness_units: u32,
    /// Units of packages not in the current dependency graph (an older Cargo.lock).
    pub unknown_secs: f64,
    pub unknown_units: u32,
}

/// Process start to the first 200 on `/`, and the process tree's RSS shortly after, per
/// start.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StartUp {
    pub runs_ms: Vec<f64>,
    pub idle_rss_mib: Vec<f64>,
}

impl StartUp {
    pub fn median_ms(&self) -> Option<f64> {
        median(self.runs_ms.iter().copied()).map(|(m, _)| m)
    }

    pub fn median_idle_rss_mib(&self) -> Option<f64> {
        median(self.idle_rss_mib.iter().copied()).map(|(m, _)| m)
    }
}

impl Idioms {
    /// What went wrong, one line each: every measurement that failed, and every one a stopped
    /// run did not reach. Empty for a complete run; `blogbench idioms` exits non-zero
    /// otherwise.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        for app in &self.apps {
            let reasons = [
                ("lines of code", app.code_size.reason()),
                ("packages", app.packages.reason()),
                ("binary", app.binary.reason()),
                ("rebuild", app.rebuild.reason()),
                ("cold compile", app.cold_compile.reason()),
                ("install", app.install.reason()),
                ("start-up", app.start_up.reason()),
            ];
            for (what, reason) in reasons {
                if let Some(reason) = reason.filter(|r| r.starts_with("failed") || r == NOT_REACHED)
                {
                    problems.push(format!("{}: {what}: {reason}", app.name));
                }
            }
        }
        problems
    }

    pub fn load(path: &Path) -> Result<Idioms> {
        read_json(path)
    }

    /// Writes `idioms.json` in `dir` through a temporary file and a rename.
    pub fn save(&self, dir: &Path) -> Result<()> {
        write_json(&dir.join(FILE), self)
    }
}

pub const FILE: &str = super::RunKind::Idioms.file();

/// A measurement of a stage a stopped run did not reach.
pub const NOT_REACHED: &str = "not reached: the run stopped before this stage";

fn release() -> String {
    "release".to_owned()
}

/// Cargo's flag for `profile`.
pub fn profile_flag(profile: &str) -> String {
    match profile {
        "release" => "--release".to_owned(),
        profile => format!("--profile {profile}"),
    }
}

/// The arguments of `make build`'s cargo command in `profile`, less `--timings`.
pub fn cargo_build_args(profile: &str) -> Vec<String> {
    let mut args = vec!["build".to_owned()];
    args.extend(profile_flag(profile).split(' ').map(str::to_owned));
    args.extend(["--workspace", "--lib", "--bins", "--tests", "--examples"].map(str::to_owned));
    args
}

/// `make build`'s cargo command in `profile`, less `--timings`, as text.
pub fn cargo_build_command(profile: &str) -> String {
    format!("cargo {}", cargo_build_args(profile).join(" "))
}

/// The command that leaves a timings report of a cold build in `profile` (what `make build`
/// does on a fresh checkout).
pub fn cold_build_command(profile: &str) -> String {
    format!(
        "cargo clean {} && {} --timings",
        profile_flag(profile),
        cargo_build_command(profile)
    )
}

/// The path from the folder `from` to `to` (both absolute): `../../apps/x` — the links
/// between a page and the files it cites.
pub fn relative_path(from: &Path, to: &Path) -> PathBuf {
    let from: Vec<_> = from.components().collect();
    let to_parts: Vec<_> = to.components().collect();
    let common = from
        .iter()
        .zip(&to_parts)
        .take_while(|(a, b)| a == b)
        .count();
    let mut path = PathBuf::new();
    for _ in common..from.len() {
        path.push("..");
    }
    for part in &to_parts[common..] {
        path.push(part);
    }
    if path.as_os_str().is_empty() {
        path.push(".");
    }
    path
}

/// The newest `<root>/<id>/idioms.json` (ids are timestamps, so the greatest name), if any.
pub fn newest(root: &Path) -> Option<PathBuf> {
    let entries = std::fs::read_dir(root).ok()?;
    entries
        .flatten()
        .map(|e| e.path())
        .filter(|dir| dir.join(FILE).is_file())
        .max_by(|a, b| a.file_name().cmp(&b.file_name()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn package(name: &str, version: &str) -> Package {
        Package {
            name: name.to_owned(),
            version: version.to_owned(),
            local: false,
        }
    }

    #[test]
    fn a_name_in_two_versions_is_a_duplicate() {
        let packages = Packages {
            dev_only: None,
            packages: vec![
                package("sqlx", "0.8.6"),
                package("hashbrown", "0.15.2"),
                package("tokio", "1.54.1"),
                package("hashbrown", "0.9.1"),
                package("sqlx", "0.8.6"),
            ],
        };
        assert_eq!(
            packages.duplicates(),
            vec![Duplicate {
                name: "hashbrown".to_owned(),
                versions: vec!["0.9.1".to_owned(), "0.15.2".to_owned()],
            }]
        );
        let single = Packages {
            dev_only: None,
            packages: vec![package("tokio", "1.54.1")],
        };
        assert!(single.duplicates().is_empty());
    }

    #[test]
    fn relative_paths_climb_to_the_common_folder() {
        assert_eq!(
            relative_path(Path::new("/w/idioms/1"), Path::new("/w")),
            Path::new("../..")
        );
        assert_eq!(
            relative_path(
                Path::new("/w/results/2"),
                Path::new("/w/idioms/1/idioms.md")
            ),
            Path::new("../../idioms/1/idioms.md")
        );
        assert_eq!(
            relative_path(Path::new("/w"), Path::new("/w")),
            Path::new(".")
        );
    }

    #[test]
    fn concerns_round_trip_their_ids() {
        for concern in Concern::ALL {
            assert_eq!(Concern::parse(concern.id()), Some(concern));
        }
        assert_eq!(Concern::parse("routes"), None);
        assert_eq!(
            serde_json::to_string(&Concern::DetailPage).unwrap(),
            "\"detail-page\""
        );
    }

    /// The new languages' names in `idioms.json`, and a file written before them (no
    /// install, no dev-only count) still reads.
    #[test]
    fn languages_serialise_by_their_fence_names_and_older_files_stay_readable() {
        for language in [
            Language::Rust,
            Language::Go,
            Language::JavaScript,
            Language::Python,
            Language::Java,
            Language::Php,
        ] {
            let json = serde_json::to_string(&language).unwrap();
            assert_eq!(json, format!("\"{}\"", language.fence()));
            assert_eq!(serde_json::from_str::<Language>(&json).unwrap(), language);
        }
        assert_eq!(Language::parse("python"), Some(Language::Python));
        assert_eq!(Language::parse("php"), Some(Language::Php));
        assert_eq!(Language::parse("rust"), None);
        let older = r#"{"name": "gin", "language": "go", "stack": "gin", "dir": "apps/gin",
            "code_of": null, "concerns": [],
            "code_size": {"not_measured": {"reason": "r"}},
            "packages": {"measured": {"packages": []}},
            "binary": {"not_measured": {"reason": "r"}},
            "rebuild": {"not_measured": {"reason": "r"}},
            "cold_compile": {"not_measured": {"reason": "r"}},
            "start_up": {"not_measured": {"reason": "r"}}}"#;
        let app: AppIdioms = serde_json::from_str(older).unwrap();
        assert_eq!(app.install, Measurement::not_measured(NO_INSTALL));
        assert_eq!(app.packages.value().unwrap().dev_only, None);
    }

    #[test]
    fn a_measurement_shows_its_value_or_its_reason() {
        let measured: Measurement<f64> = Measurement::Measured(1.5);
        assert_eq!(measured.cell(|v| format!("{v} s")), "1.5 s");
        let missing: Measurement<f64> = Measurement::not_measured("not measured (--quick)");
        assert_eq!(missing.cell(|v| format!("{v} s")), "not measured (--quick)");
        let failed: Measurement<f64> = Err(anyhow::anyhow!("no binary")).into();
        assert_eq!(failed.cell(|v| v.to_string()), "failed: no binary");
    }
}
