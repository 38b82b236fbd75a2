//! The contestants: the Go reference plus one folder per app under `apps/` (a Cargo crate, a
//! Go module, or an app of any language whose manifest says how to install and start it),
//! each described by its `bench.toml` manifest. Adding an app is adding its folder; nothing
//! here changes.

use crate::stack::manifest::{self, Manifest};
use anyhow::{Context, Result, bail};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

#[derive(Debug)]
pub struct App {
    /// The name users pass (`make up APP=…`, `--app …`).
    pub name: String,
    /// The app's folder.
    pub dir: PathBuf,
    pub kind: Kind,
    pub manifest: Manifest,
}

/// An app as loaded: `name`, or `name+KEY=VALUE+…` for the app with extra environment
/// (e.g. `actix-sqlx+POOL_MODE=shared`, `axum-sqlx+PING_ON_ACQUIRE=always`).
pub struct Target {
    pub label: String,
    pub app: App,
    pub env: Vec<(String, String)>,
}

impl Target {
    pub fn parse(spec: &str) -> Result<Target> {
        let mut parts = spec.split('+');
        let app = find(parts.next().unwrap_or_default())?;
        let env = parts
            .map(|pair| {
                pair.split_once('=')
                    .map(|(k, v)| (k.to_owned(), v.to_owned()))
                    .with_context(|| format!("{spec}: {pair:?} is not KEY=VALUE"))
            })
            .collect::<Result<_>>()?;
        Ok(Target {
            label: spec.to_owned(),
            app,
            env,
        })
    }

    /// The variables, as `RunningApp::start` takes them.
    pub fn env_pairs(&self) -> Vec<(&str, &str)> {
        self.env
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect()
    }
}

/// `env` as `RunningApp::start` takes it.
pub fn env_pairs(env: &BTreeMap<String, String>) -> Vec<(&str, &str)> {
    env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect()
}

/// Variables that shape an app when set in the harness's environment; recorded with the
/// ones the harness sets.
const INHERITED_ENV: [&str; 6] = [
    "DATABASE_URL",
    "REDIS_URL",
    "POOL_MODE",
    "PING_ON_ACQUIRE",
    "GOGC",
    "GOMAXPROCS",
];

/// What the harness sets for every app it loads (the same for the pacer), then what it
/// passes on from its own environment.
pub fn harness_env(app_cpus: &[usize]) -> BTreeMap<String, String> {
    let mut env = BTreeMap::from([
        ("WORKERS".to_owned(), app_cpus.len().to_string()),
        (
            "POOL_MAX".to_owned(),
            workload::DEFAULT_POOL_MAX.to_string(),
        ),
        (
            "POOL_MIN".to_owned(),
            workload::DEFAULT_POOL_MIN.to_string(),
        ),
    ]);
    for name in INHERITED_ENV {
        if let Ok(value) = std::env::var(name) {
            env.insert(name.to_owned(), value);
        }
    }
    env
}

pub const GO: &str = "go";

/// How an app is built and started: `make build` runs `cargo build` for the workspace's crates
/// and `go build` in each Go module's folder, both into the profile's folder; any other app
/// names its commands in its manifest (`[build]`, `[run]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Cargo,
    Go,
    Command,
}

impl Kind {
    /// An extra folder may hold only a manifest that runs a binary the workspace builds.
    fn of(dir: &Path, manifest: &Manifest) -> Kind {
        if manifest.run.is_some() {
            Kind::Command
        } else if dir.join("go.mod").is_file() {
            Kind::Go
        } else {
            Kind::Cargo
        }
    }
}

/// Folders of apps outside the workspace, `:`-separated, added after the workspace's own
/// (an app being tried, or the admission tests' misbehaving apps).
pub const EXTRA_APPS_VAR: &str = "BLOGBENCH_EXTRA_APPS";

/// Every app: `go` first, then `apps/*` in name order, then the folders in
/// `BLOGBENCH_EXTRA_APPS`.
pub fn all() -> Result<Vec<App>> {
    let mut dirs = vec![workspace_dir().join("go-reference")];
    let mut folders: Vec<PathBuf> = std::fs::read_dir(workspace_dir().join("apps"))?
        .map(|entry| Ok(entry?.path()))
        .collect::<Result<Vec<_>>>()?
        .into_iter()
        .filter(|dir| is_registered(dir))
        .collect();
    folders.sort();
    dirs.extend(folders);
    if let Some(extra) = std::env::var_os(EXTRA_APPS_VAR) {
        dirs.extend(std::env::split_paths(&extra));
    }
    dirs.into_iter()
        .map(|dir| {
            let manifest = Manifest::load(&dir.join("bench.toml"))?;
            let kind = Kind::of(&dir, &manifest);
            Ok(App {
                name: manifest.name.clone(),
                dir,
                kind,
                manifest,
            })
        })
        .collect()
}

pub fn find(name: &str) -> Result<App> {
    let apps = all()?;
    let names = apps
        .iter()
        .map(|a| a.name.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    match apps.into_iter().find(|app| app.name == name) {
        Some(app) => Ok(app),
        None => bail!("unknown app {name:?}; valid names: {names}"),
    }
}

/// The workspace's target folder: `CARGO_TARGET_DIR`, else `<workspace>/target`.
/// The cargo profile the harness was built in, whose folder holds the apps it runs: `release`
/// for `make up` and every measurement, `ci` for `make test` (Cargo.toml says why).
pub const PROFILE: &str = env!("BLOGBENCH_PROFILE");

/// The command that builds every app into [`PROFILE`]'s folder.
pub fn make_build() -> String {
    match PROFILE {
        "release" => "make build".to_owned(),
        profile => format!("make build PROFILE={profile}"),
    }
}

pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_dir().join("target"))
}

/// The checkout this command runs in: the nearest folder, from the working directory up, that
/// holds this workspace (`bench/Cargo.toml` beside `apps/`), else the one the harness was built
/// from. Not the build's path alone: cargo reuses a path crate's artefacts in every checkout
/// that shares the target folder, so the binary may come from another checkout's build.
pub fn workspace_dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        std::env::current_dir()
            .ok()
            .and_then(|cwd| workspace_around(&cwd))
            .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/..")))
    })
    .clone()
}

/// Whether a folder under `apps/` has its manifest; one with a build file but no manifest (an
/// app being written) is left out with a warning instead of failing every command.
fn is_registered(dir: &Path) -> bool {
    let registered = dir.join("bench.toml").is_file();
    let has_code = ["Cargo.toml", "go.mod"]
        .iter()
        .any(|f| dir.join(f).is_file());
    if !registered && has_code {
        eprintln!(
            "blogbench: {} has no bench.toml, so it is not an app yet (apps/README.md); left out",
            dir.display()
        );
    }
    registered
}

/// `dir` or its nearest parent that holds a blogbench workspace.
fn workspace_around(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|dir| dir.join("bench/Cargo.toml").is_file() && dir.join("apps").is_dir())
        .map(Path::to_path_buf)
}

impl App {
    /// The binary's name, which is also the crate's package name.
    pub fn binary(&self) -> &str {
        self.manifest.binary.as_deref().unwrap_or(&self.name)
    }

    pub fn binary_path(&self) -> PathBuf {
        target_dir().join(PROFILE).join(self.binary())
    }

    /// Whether the app can start: a Cargo or Go app's binary is there (else why not and how
    /// to build it); an app installed by its manifest's command is installed again first
    /// when its lock file is newer than its last install.
    pub fn ensure_built(&self) -> Result<()> {
        match &self.manifest.build {
            Some(build) => {
                if self.is_stale(build) {
                    self.install(build)?;
                }
                Ok(())
            }
            None => self.built_binary().map(drop),
        }
    }

    fn built_binary(&self) -> Result<PathBuf> {
        let binary = self.binary_path();
        if !binary.is_file() {
            bail!(
                "{}: no binary at {}; build it with `{}`",
                self.name,
                binary.display(),
                make_build()
            );
        }
        Ok(binary)
    }

    fn is_stale(&self, build: &manifest::Build) -> bool {
        let modified = |file: &str| std::fs::metadata(self.dir.join(file))?.modified();
        match (modified(&build.creates), modified(&build.lock)) {
            (Ok(built), Ok(locked)) => built < locked,
            _ => true,
        }
    }

    /// Runs the manifest's `[build]` command in the app's folder, its output in the error
    /// when it fails.
    pub fn install(&self, build: &manifest::Build) -> Result<()> {
        let started = std::time::Instant::now();
        eprintln!(
            "blogbench: installing {}: {}",
            self.name,
            build.command.join(" ")
        );
        let output = self
            .manifest_command(&build.command)
            .output()
            .with_context(|| format!("{}: run {}", self.name, build.command.join(" ")))?;
        if !output.status.success() {
            let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
            text.push_str(&String::from_utf8_lossy(&output.stderr));
            let tail: Vec<&str> = text.lines().rev().take(30).collect();
            bail!(
                "{}: `{}` failed ({}):\n{}",
                self.name,
                build.command.join(" "),
                output.status,
                tail.into_iter().rev().collect::<Vec<_>>().join("\n")
            );
        }
        if !self.dir.join(&build.creates).is_file() {
            bail!(
                "{}: `{}` succeeded but left no {} (bench.toml [build] creates)",
                self.name,
                build.command.join(" "),
                build.creates
            );
        }
        eprintln!(
            "blogbench: installed {} in {:.1} s",
            self.name,
            started.elapsed().as_secs_f64()
        );
        Ok(())
    }

    /// A command line from the manifest, run in the app's folder; a program given by a path
    /// (`.venv/bin/python`) is found from there too.
    pub fn manifest_command(&self, line: &[String]) -> Command {
        let (program, args) = line.split_first().expect("manifest commands are not empty");
        let mut command = Command::new(self.program(program));
        command.args(args).current_dir(&self.dir);
        command
    }

    fn program(&self, program: &str) -> PathBuf {
        if program.contains('/') {
            self.dir.join(program)
        } else {
            PathBuf::from(program)
        }
    }

    /// The app's command line (its binary and the manifest's arguments, or its `[run]`
    /// command) after `prefix` (e.g. `taskset -c 0`), run in the app's folder: the apps that
    /// read files at run time find them from there (Loco its `config/`, Rocket its template
    /// folder), as their frameworks expect.
    pub fn command(&self, prefix: &[String]) -> Command {
        let mut line: Vec<std::ffi::OsString> = prefix.iter().map(Into::into).collect();
        match &self.manifest.run {
            Some(run) => {
                let (program, args) = run.command.split_first().expect("a [run] command");
                line.push(self.program(program).into());
                line.extend(args.iter().map(Into::into));
            }
            None => {
                line.push(self.binary_path().into());
                line.extend(self.manifest.args.iter().map(Into::into));
            }
        }
        let mut command = Command::new(&line[0]);
        command.args(&line[1..]).current_dir(&self.dir);
        command
    }

    pub fn is_reference(&self) -> bool {
        self.name == GO
    }

    /// Whether the app is a Go program (the reference, or another Go app): its runtime
    /// reports its collections with `GODEBUG=gctrace=1`.
    pub fn is_go(&self) -> bool {
        self.kind == Kind::Go
    }

    /// An app whose manifest says it is written in Java: it runs on a JVM.
    pub fn is_java(&self) -> bool {
        self.manifest.language.as_deref() == Some("java")
    }

    /// The resolved versions of the manifest's key packages (Cargo.lock, go.mod or the lock
    /// file of `[build]`), and for an app started by a command its runtime's version.
    pub fn versions(&self) -> Result<BTreeMap<String, String>> {
        let packages = &self.manifest.key_packages;
        match (&self.manifest.build, &self.manifest.run) {
            (Some(build), Some(run)) => {
                let mut versions = manifest::lock_versions(&self.dir.join(&build.lock), packages)?;
                let (name, version) = self.runtime_version(run)?;
                versions.insert(name, version);
                Ok(versions)
            }
            _ if self.kind == Kind::Go => manifest::go_versions(&self.dir.join("go.mod"), packages),
            _ => manifest::cargo_versions(
                &workspace_dir().join("Cargo.lock"),
                self.binary(),
                packages,
            ),
        }
        .with_context(|| format!("{}: versions", self.name))
    }

    /// The runtime by its program's name (`node`, `python`, `java`) and its version.
    fn runtime_version(&self, run: &manifest::Run) -> Result<(String, String)> {
        let program = run.runtime.first().context("an empty runtime command")?;
        let version = self.runtime(run)?;
        let name = Path::new(program)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or(program)
            .trim_end_matches(|c: char| c.is_ascii_digit())
            .to_owned();
        Ok((name, version))
    }

    /// What the manifest's `[run]` `runtime` command printed (`v20.20.2`, `Python 3.11.2`,
    /// `openjdk version "21.0.5" 2024-10-15`), run in the app's folder.
    pub fn runtime(&self, run: &manifest::Run) -> Result<String> {
        let output = self
            .manifest_command(&run.runtime)
            .output()
            .with_context(|| format!("run {}", run.runtime.join(" ")))?;
        if !output.status.success() {
            bail!("`{}` failed: {}", run.runtime.join(" "), output.status);
        }
        Ok(first_line_printed(&output.stdout, &output.stderr))
    }
}

/// The first line of `stdout`, trimmed, or of `stderr` when nothing went to stdout
/// (`java -version` prints there); the lines after it are details (`php --version`'s
/// copyright and engine, the JVM's build).
fn first_line_printed(stdout: &[u8], stderr: &[u8]) -> String {
    let printed = if stdout.iter().all(u8::is_ascii_whitespace) {
        stderr
    } else {
        stdout
    };
    let text = String::from_utf8_lossy(printed);
    text.trim()
        .lines()
        .next()
        .unwrap_or_default()
        .trim()
        .to_owned()
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_manifest_loads_and_its_versions_resolve() {
        let apps = super::all().unwrap();
        assert_eq!(apps[0].name, super::GO);
        assert!(apps.len() >= 2);
        for app in &apps {
            let versions = app.versions().unwrap();
            let runtime = usize::from(app.manifest.run.is_some());
            assert_eq!(
                versions.len(),
                app.manifest.key_packages.len() + runtime,
                "{}",
                app.name
            );
            let settings = &app.manifest.settings;
            assert!(settings.pool_min <= settings.pool_max, "{}", app.name);
            assert!(
                settings.queries.home >= 3 && settings.queries.tag >= 4,
                "{}",
                app.name
            );
        }
    }

    #[test]
    fn the_workspace_is_found_from_any_folder_inside_it() {
        let checkout = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(checkout.path().join("bench")).unwrap();
        std::fs::create_dir_all(checkout.path().join("apps/loco/config")).unwrap();
        std::fs::write(checkout.path().join("bench/Cargo.toml"), "").unwrap();
        let found = super::workspace_around(&checkout.path().join("apps/loco/config"));
        assert_eq!(found.as_deref(), Some(checkout.path()));
        let outside = tempfile::tempdir().unwrap();
        assert_eq!(super::workspace_around(outside.path()), None);
    }

    #[test]
    fn an_app_runs_in_its_own_folder() {
        let app = super::find("loco").unwrap();
        let command = app.command(&["taskset".into(), "-c".into(), "0".into()]);
        assert_eq!(command.get_program(), "taskset");
        assert_eq!(command.get_current_dir(), Some(app.dir.as_path()));
        let args: Vec<_> = command.get_args().collect();
        assert_eq!(args[2], app.binary_path().as_os_str());
    }

    /// An app of another language: a folder whose manifest names its commands. It is
    /// installed when it has never been or its lock file is newer than the install, started
    /// by its `[run]` line from its folder, and its versions come from its lock file and its
    /// runtime.
    #[test]
    fn an_app_of_another_language_is_installed_when_stale_and_started_by_its_manifest() {
        let folder = tempfile::tempdir().unwrap();
        let dir = folder.path();
        let manifest = r#"
name = "script-app"
stack = "a shell script"
language = "python"
key_packages = ["left-pad"]
[build]
command = ["sh", "-c", "echo installed >> installs.log && touch installed"]
lock = "requirements.txt"
creates = "installed"
[run]
command = ["bin/serve", "--quiet"]
runtime = ["sh", "-c", "echo Runtime 1.2"]
[check]
lint = ["true"]
test = ["true"]
[settings]
pool_max = 16
pool_min = 4
ping_on_acquire = "never"
ping_on_release = false
connection = "one"
workers = "none"
queries = { home = 3, post = 3, tag = 4 }
cache = "none"
"#;
        std::fs::write(dir.join("bench.toml"), manifest).unwrap();
        std::fs::write(
            dir.join("requirements.txt"),
            "left-pad==1.3.0 \\\n    --hash=sha256:00\n",
        )
        .unwrap();
        let app = super::App {
            name: "script-app".to_owned(),
            dir: dir.to_owned(),
            kind: super::Kind::Command,
            manifest: super::Manifest::load(&dir.join("bench.toml")).unwrap(),
        };
        let installs = || std::fs::read_to_string(dir.join("installs.log")).unwrap_or_default();
        app.ensure_built().unwrap();
        app.ensure_built().unwrap();
        assert_eq!(
            installs().lines().count(),
            1,
            "installed once while up to date"
        );
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
        std::fs::File::options()
            .write(true)
            .open(dir.join("requirements.txt"))
            .and_then(|lock| lock.set_modified(later))
            .unwrap();
        app.ensure_built().unwrap();
        assert_eq!(
            installs().lines().count(),
            2,
            "installed again after the lock changed"
        );

        let command = app.command(&["taskset".into(), "-c".into(), "0".into()]);
        let args: Vec<_> = command.get_args().collect();
        assert_eq!(args[2], dir.join("bin/serve").as_os_str());
        assert_eq!(args[3], "--quiet");
        assert_eq!(command.get_current_dir(), Some(dir));

        let versions = app.versions().unwrap();
        assert_eq!(versions["left-pad"], "1.3.0");
        assert_eq!(versions["sh"], "Runtime 1.2");
    }

    #[test]
    fn a_runtime_version_is_its_first_line_on_stdout_else_on_stderr() {
        let php = b"PHP 8.2.29 (cli) (built: Jul  3 2025)\nCopyright (c) The PHP Group\n";
        assert_eq!(
            super::first_line_printed(php, b"a warning\n"),
            "PHP 8.2.29 (cli) (built: Jul  3 2025)"
        );
        let java = b"openjdk version \"17.0.16\" 2025-07-15\nOpenJDK Runtime Environment\n";
        assert_eq!(
            super::first_line_printed(b"\n", java),
            "openjdk version \"17.0.16\" 2025-07-15"
        );
        assert_eq!(super::first_line_printed(b"  v20.20.2\n", b""), "v20.20.2");
    }

    #[test]
    fn a_manifest_with_some_of_the_command_tables_is_refused() {
        let folder = tempfile::tempdir().unwrap();
        let loco =
            std::fs::read_to_string(super::find("loco").unwrap().dir.join("bench.toml")).unwrap();
        let half = format!("language = \"python\"\n{loco}");
        std::fs::write(folder.path().join("bench.toml"), half).unwrap();
        let err = super::Manifest::load(&folder.path().join("bench.toml")).unwrap_err();
        assert!(format!("{err:#}").contains("needs all of"), "{err:#}");
    }

    /// `test = false` saves a release build of a target's test binary; a test written in such
    /// a target would never run. A bin that skips its tests beside a lib that runs them is
    /// only its root file (the modules are the lib's); otherwise the crate keeps its sources
    /// directly in `src/`, and every file there is the untested target's.
    #[test]
    fn no_target_that_skips_its_test_binary_has_tests() {
        let workspace = super::workspace_dir();
        let manifest: toml::Table =
            toml::from_str(&std::fs::read_to_string(workspace.join("Cargo.toml")).unwrap())
                .unwrap();
        let members = manifest["workspace"]["members"].as_array().unwrap();
        let skips = |target: &toml::Value| target.get("test") == Some(&toml::Value::from(false));
        for member in members.iter().map(|m| workspace.join(m.as_str().unwrap())) {
            let crate_manifest: toml::Table =
                toml::from_str(&std::fs::read_to_string(member.join("Cargo.toml")).unwrap())
                    .unwrap();
            let untested_bins: Vec<std::path::PathBuf> = crate_manifest
                .get("bin")
                .and_then(toml::Value::as_array)
                .into_iter()
                .flatten()
                .filter(|bin| skips(bin))
                .map(|bin| member.join(bin["path"].as_str().unwrap()))
                .collect();
            let lib_skips = crate_manifest.get("lib").is_some_and(skips);
            let has_lib = member.join("src/lib.rs").is_file();
            let untested_files = if lib_skips || (!has_lib && !untested_bins.is_empty()) {
                std::fs::read_dir(member.join("src"))
                    .unwrap()
                    .map(|file| file.unwrap().path())
                    .collect()
            } else {
                untested_bins
            };
            for path in untested_files {
                let source = std::fs::read_to_string(&path).unwrap_or_default();
                assert!(
                    !source.contains("#[test]") && !source.contains("::test]"),
                    "{} has tests, but its target in {} sets `test = false`",
                    path.display(),
                    member.join("Cargo.toml").display()
                );
            }
        }
    }

    #[test]
    fn an_app_resolves_the_sqlx_it_builds_with() {
        let app = super::find("axum-sqlx").unwrap();
        let versions = app.versions().unwrap();
        assert!(versions["sqlx"].starts_with("0.8."), "{versions:?}");
    }
}
