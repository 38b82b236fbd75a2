//! The contestants: the Go reference plus one folder per app under `apps/` (a Cargo crate or a
//! Go module), each described by its `bench.toml` manifest. Adding an app is adding its
//! folder; nothing here changes.

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
}

pub const GO: &str = "go";

/// How an app is built, named by its folder's build file: `make build` runs
/// `cargo build` for the workspace's crates and `go build` in each Go module's folder, both
/// into the profile's folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Cargo,
    Go,
}

impl Kind {
    pub fn of(dir: &std::path::Path) -> Option<Kind> {
        if dir.join("Cargo.toml").is_file() {
            Some(Kind::Cargo)
        } else if dir.join("go.mod").is_file() {
            Some(Kind::Go)
        } else {
            None
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
        .filter(|dir| Kind::of(dir).is_some() && is_registered(dir))
        .collect();
    folders.sort();
    dirs.extend(folders);
    if let Some(extra) = std::env::var_os(EXTRA_APPS_VAR) {
        dirs.extend(std::env::split_paths(&extra));
    }
    dirs.into_iter()
        .map(|dir| {
            let manifest = Manifest::load(&dir.join("bench.toml"))?;
            // An extra folder may hold only a manifest that runs a binary the workspace builds.
            let kind = Kind::of(&dir).unwrap_or(Kind::Cargo);
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

/// Whether a folder under `apps/` with a build file has its manifest; one without (an app
/// being written) is left out with a warning instead of failing every command.
fn is_registered(dir: &Path) -> bool {
    let registered = dir.join("bench.toml").is_file();
    if !registered {
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

    /// The binary's path, or why there is none and how to build it.
    pub fn built_binary(&self) -> Result<PathBuf> {
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

    /// The app's command line (its binary and the manifest's arguments) after
    /// `prefix` (e.g. `taskset -c 0`), run in the app's folder: the apps that read files at
    /// run time find them from there (Loco its `config/`, Rocket its template folder), as
    /// their frameworks expect.
    pub fn command(&self, prefix: &[String]) -> Command {
        let mut command = match prefix.split_first() {
            Some((program, args)) => {
                let mut command = Command::new(program);
                command.args(args).arg(self.binary_path());
                command
            }
            None => Command::new(self.binary_path()),
        };
        command.args(&self.manifest.args).current_dir(&self.dir);
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

    /// The resolved versions of the manifest's key packages (Cargo.lock or go.mod).
    pub fn versions(&self) -> Result<BTreeMap<String, String>> {
        let packages = &self.manifest.key_packages;
        match self.kind {
            Kind::Go => manifest::go_versions(&self.dir.join("go.mod"), packages),
            Kind::Cargo => manifest::cargo_versions(
                &workspace_dir().join("Cargo.lock"),
                self.binary(),
                packages,
            ),
        }
        .with_context(|| format!("{}: versions", self.name))
    }
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
            assert_eq!(
                versions.len(),
                app.manifest.key_packages.len(),
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
