//! The per-app manifest (`apps/<name>/bench.toml`, `go-reference/bench.toml`): what the app
//! is built from, the settings that matter for a fair comparison, and every deviation from
//! the rules of docs/spec.md with its reason. The format is documented in `apps/README.md`.

use anyhow::{Context, Result, bail};
use serde::Deserialize;
use std::collections::{BTreeMap, HashSet, VecDeque};
use std::path::Path;
use std::time::Duration;

pub use crate::results::app_settings::{Queries, Settings};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub name: String,
    /// One line: framework, data access, templates, cache client.
    pub stack: String,
    /// The binary's name, when it is not `name`.
    pub binary: Option<String>,
    /// Arguments the binary is started with.
    #[serde(default)]
    pub args: Vec<String>,
    /// For a build variant with no code of its own: the app whose source it runs (its
    /// regions are that app's on the idioms page).
    pub code: Option<String>,
    /// Crates, Go modules or the lock file's packages whose resolved versions the report
    /// prints.
    pub key_packages: Vec<String>,
    /// For an app built and started by commands (`[build]`, `[run]`): its language, whose
    /// line comments mark the idioms page's regions (`javascript`, `python`, `java`, `php`).
    pub language: Option<String>,
    pub build: Option<Build>,
    pub run: Option<Run>,
    pub check: Option<Checks>,
    pub settings: Settings,
    #[serde(default, rename = "deviation")]
    pub deviations: Vec<Deviation>,
}

/// How an app that is not a Cargo crate or a Go module is installed.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Build {
    /// Run in the app's folder by `make build`, and by the harness when the app is stale.
    pub command: Vec<String>,
    /// The lock file: the key packages are resolved from it, and a build older than it is
    /// stale.
    pub lock: String,
    /// A file that only a finished build leaves; its modification time marks the build.
    pub creates: String,
}

/// How such an app is started: in its folder, with the environment of docs/spec.md §1.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Run {
    pub command: Vec<String>,
    /// A command that prints the runtime's version (`node --version`), recorded with the
    /// packages.
    pub runtime: Vec<String>,
}

/// The app's own formatter/linter and tests, run in its folder by `make test`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Checks {
    pub lint: Vec<String>,
    pub test: Vec<String>,
}

impl Settings {
    /// The start-up warm-up, if the manifest asks for one.
    pub fn warmup(&self) -> Result<Option<Duration>> {
        self.warmup
            .as_deref()
            .map(|text| {
                crate::commands::values::parse_duration(text)
                    .map_err(|err| anyhow::anyhow!("[settings] warmup: {err}"))
            })
            .transpose()
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Deviation {
    pub setting: String,
    pub value: String,
    pub reason: String,
}

impl Manifest {
    pub fn load(path: &Path) -> Result<Manifest> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("read {}", path.display()))?;
        let manifest: Manifest =
            toml::from_str(&text).with_context(|| format!("parse {}", path.display()))?;
        let commands = [
            manifest.language.is_some(),
            manifest.build.is_some(),
            manifest.run.is_some(),
            manifest.check.is_some(),
        ];
        if commands.contains(&true) && commands.contains(&false) {
            bail!(
                "{}: an app started by a command needs all of `language`, `[build]`, `[run]` and `[check]` (apps/README.md)",
                path.display()
            );
        }
        manifest
            .settings
            .warmup()
            .with_context(|| format!("{}", path.display()))?;
        Ok(manifest)
    }
}

/// The versions of `packages` that `crate_name` builds with: its own dependency graph in
/// `Cargo.lock`, nearest first (so a crate present in several versions resolves to the one
/// this app uses).
pub fn cargo_versions(
    lock_path: &Path,
    crate_name: &str,
    packages: &[String],
) -> Result<BTreeMap<String, String>> {
    #[derive(Deserialize)]
    struct Lock {
        package: Vec<Package>,
    }
    #[derive(Deserialize)]
    struct Package {
        name: String,
        version: String,
        #[serde(default)]
        dependencies: Vec<String>,
    }
    let text = std::fs::read_to_string(lock_path)
        .with_context(|| format!("read {}", lock_path.display()))?;
    let lock: Lock = toml::from_str(&text)?;
    let find = |dep: &str| -> Option<&Package> {
        // A lock entry is "name" when only one version exists, else "name version".
        let mut parts = dep.split(' ');
        let (name, version) = (parts.next()?, parts.next());
        lock.package
            .iter()
            .find(|p| p.name == name && version.is_none_or(|v| v == p.version))
    };
    let root = find(crate_name)
        .with_context(|| format!("{crate_name} is not in {}", lock_path.display()))?;
    let mut versions = BTreeMap::new();
    let mut seen = HashSet::new();
    let mut queue = VecDeque::from([root]);
    while let Some(package) = queue.pop_front() {
        if !seen.insert((&package.name, &package.version)) {
            continue;
        }
        if packages.contains(&package.name) {
            versions
                .entry(package.name.clone())
                .or_insert_with(|| package.version.clone());
        }
        queue.extend(package.dependencies.iter().filter_map(|d| find(d)));
    }
    missing(&versions, packages, crate_name)?;
    Ok(versions)
}

/// The versions of Go modules `modules` required in `go.mod`.
pub fn go_versions(go_mod: &Path, modules: &[String]) -> Result<BTreeMap<String, String>> {
    let text =
        std::fs::read_to_string(go_mod).with_context(|| format!("read {}", go_mod.display()))?;
    let mut versions = BTreeMap::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        let (first, second) = (words.next(), words.next());
        let (module, version) = match (first, second) {
            (Some("require"), Some(module)) => (module, words.next()),
            (Some("go"), Some(version)) => ("go", Some(version)),
            (Some(module), version) => (module, version),
            _ => continue,
        };
        if let Some(version) = version.filter(|_| modules.iter().any(|m| m == module)) {
            versions.insert(module.to_owned(), version.to_owned());
        }
    }
    missing(&versions, modules, &go_mod.display().to_string())?;
    Ok(versions)
}

/// The lock file formats blogbench reads, told apart by the lock file's name (`[build]`
/// `lock`). The lock file is what the app's install depends on: when it is newer than the
/// install, the app is installed again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockFormat {
    /// npm's `package-lock.json`.
    Npm,
    /// pip's `requirements*.txt`: `name==version` lines.
    Pip,
    /// Maven's `pom.xml`. It names only the direct dependencies, and a version range or a
    /// parent's managed version may stand for a version, so the packages come from the list
    /// of resolved artifacts the app's build writes beside it, [`MAVEN_RESOLVED`].
    Maven,
    /// `debian-packages.txt`: Debian package names (one a line, `#` comments), installed by
    /// the system's `apt-get`; the versions are the installed ones, from `dpkg-query`.
    Debian,
}

/// The resolved artifacts of a Maven app, relative to its folder: its `[build]` command
/// writes them with `mvn dependency:list -DoutputFile=target/dependencies.txt`.
pub const MAVEN_RESOLVED: &str = "target/dependencies.txt";

/// What a Debian app's lock file is called.
pub const DEBIAN_PACKAGES: &str = "debian-packages.txt";

impl LockFormat {
    pub fn of(lock: &Path) -> Result<LockFormat> {
        Ok(match lock.file_name().and_then(|n| n.to_str()) {
            Some("package-lock.json") => LockFormat::Npm,
            Some("pom.xml") => LockFormat::Maven,
            Some(DEBIAN_PACKAGES) => LockFormat::Debian,
            Some(name) if name.ends_with(".txt") => LockFormat::Pip,
            _ => bail!(
                "{}: not a lock file blogbench reads (package-lock.json, requirements*.txt, pom.xml, {DEBIAN_PACKAGES})",
                lock.display()
            ),
        })
    }

    /// The text the packages are read from: the lock file's, or for Maven the resolved
    /// list's beside it (missing until the app's build has run).
    pub fn read(self, lock: &Path) -> Result<String> {
        let file = match self {
            LockFormat::Maven => lock.with_file_name(MAVEN_RESOLVED),
            _ => lock.to_owned(),
        };
        if self == LockFormat::Maven && !file.is_file() {
            bail!(
                "{}: no such file; the app's [build] command writes it (`mvn dependency:list -DoutputFile={MAVEN_RESOLVED}`): run `make build`",
                file.display()
            );
        }
        std::fs::read_to_string(&file).with_context(|| format!("read {}", file.display()))
    }
}

/// The versions of `packages` a lock file pins: npm's `package-lock.json`, pip's
/// `requirements.txt`, a Maven app's resolved artifacts (by artifactId), or for a Debian
/// app's listed packages the versions installed on this system.
pub fn lock_versions(lock: &Path, packages: &[String]) -> Result<BTreeMap<String, String>> {
    let format = LockFormat::of(lock)?;
    let text = format.read(lock)?;
    let versions = match format {
        LockFormat::Npm => npm_versions(&text, packages)?,
        LockFormat::Pip => pip_versions(&text, packages),
        LockFormat::Maven => maven_versions(&text, packages),
        LockFormat::Debian => debian_versions(&text, packages, lock)?,
    };
    missing(&versions, packages, &lock.display().to_string())?;
    Ok(versions)
}

/// `packages["node_modules/<name>"].version` of a lock file version 2 or 3: the version
/// installed at the top of `node_modules`, the one the app's own `require` finds.
fn npm_versions(text: &str, packages: &[String]) -> Result<BTreeMap<String, String>> {
    let lock: serde_json::Value = serde_json::from_str(text)?;
    Ok(packages
        .iter()
        .filter_map(|name| {
            let version = lock["packages"][format!("node_modules/{name}")]["version"].as_str()?;
            Some((name.clone(), version.to_owned()))
        })
        .collect())
}

fn pip_versions(text: &str, packages: &[String]) -> BTreeMap<String, String> {
    // Package names compare as PEP 503 normalises them: case and runs of `-_.` do not count.
    let normalise = |name: &str| {
        name.to_ascii_lowercase()
            .split(['-', '_', '.'])
            .filter(|part| !part.is_empty())
            .collect::<Vec<_>>()
            .join("-")
    };
    let pinned: BTreeMap<String, &str> = pip_pins(text)
        .map(|(name, version)| (normalise(name), version))
        .collect();
    packages
        .iter()
        .filter_map(|name| Some((name.clone(), pinned.get(&normalise(name))?.to_string())))
        .collect()
}

/// The `name==version` pins of a pip requirements file, extras dropped; hash, comment and
/// option lines hold no such word first.
pub fn pip_pins(text: &str) -> impl Iterator<Item = (&str, &str)> {
    text.lines().filter_map(|line| {
        let requirement = line.split([' ', '\\', ';']).next()?;
        let (name, version) = requirement.split_once("==")?;
        Some((name.split('[').next()?.trim(), version.trim()))
    })
}

/// One line of `mvn dependency:list`'s output file: `group:artifact:type:version:scope`, or
/// `group:artifact:type:classifier:version:scope`, possibly followed by words such as
/// ` -- module spring.webflux` or ` (optional)`.
#[derive(Debug, PartialEq)]
pub struct MavenArtifact<'a> {
    pub group: &'a str,
    pub artifact: &'a str,
    pub version: &'a str,
    /// `compile`, `runtime`, `provided`, `test`, `system`.
    pub scope: &'a str,
}

/// The artifacts of a `mvn dependency:list -DoutputFile=…` file, transitive ones included;
/// its heading and blank lines hold no such coordinates.
pub fn maven_artifacts(text: &str) -> impl Iterator<Item = MavenArtifact<'_>> {
    text.lines().filter_map(|line| {
        let coordinates: Vec<&str> = line.split_whitespace().next()?.split(':').collect();
        let (group, artifact, version, scope) = match coordinates[..] {
            [group, artifact, _, version, scope] => (group, artifact, version, scope),
            [group, artifact, _, _, version, scope] => (group, artifact, version, scope),
            _ => return None,
        };
        Some(MavenArtifact {
            group,
            artifact,
            version,
            scope,
        })
    })
}

/// Key packages are artifactIds (`spring-webflux`, `reactor-netty-http`): the first artifact
/// of that name in the list, whatever its group.
fn maven_versions(text: &str, packages: &[String]) -> BTreeMap<String, String> {
    let mut versions = BTreeMap::new();
    for artifact in maven_artifacts(text).filter(|a| packages.iter().any(|p| p == a.artifact)) {
        versions
            .entry(artifact.artifact.to_owned())
            .or_insert_with(|| artifact.version.to_owned());
    }
    versions
}

/// The Debian packages of a `debian-packages.txt`: its words, `#` comments left out.
pub fn debian_packages(text: &str) -> impl Iterator<Item = &str> {
    text.lines().flat_map(|line| {
        line.split('#')
            .next()
            .unwrap_or_default()
            .split_whitespace()
    })
}

/// The installed versions of the key packages, each of which the list must name.
fn debian_versions(
    text: &str,
    packages: &[String],
    lock: &Path,
) -> Result<BTreeMap<String, String>> {
    let listed: HashSet<&str> = debian_packages(text).collect();
    packages
        .iter()
        .filter(|name| listed.contains(name.as_str()))
        .map(|name| Ok((name.clone(), debian_installed_version(name, lock)?)))
        .collect()
}

/// The version dpkg has installed of the Debian package `name`, listed in `lock`.
pub fn debian_installed_version(name: &str, lock: &Path) -> Result<String> {
    let output = std::process::Command::new("dpkg-query")
        .args([
            "--show",
            "--showformat",
            "${db:Status-Status} ${Version}\\n",
            name,
        ])
        .output()
        .context("run dpkg-query (an app on Debian packages runs on Debian)")?;
    // A package of several architectures has a line each; one that was removed, a line with
    // another status; one dpkg never knew, none (and dpkg-query fails).
    let installed = String::from_utf8_lossy(&output.stdout)
        .lines()
        .find_map(|line| Some(line.strip_prefix("installed ")?.trim().to_owned()));
    installed.with_context(|| {
        format!(
            "the Debian package {name} (listed in {}) is not installed; install it with `apt-get install {name}`",
            lock.display()
        )
    })
}

fn missing(found: &BTreeMap<String, String>, wanted: &[String], owner: &str) -> Result<()> {
    let missing: Vec<&String> = wanted.iter().filter(|p| !found.contains_key(*p)).collect();
    if !missing.is_empty() {
        bail!("{owner} does not depend on {missing:?} (key_packages in its bench.toml)");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn npm_versions_are_those_at_the_top_of_node_modules() {
        let lock = r#"{
  "lockfileVersion": 3,
  "packages": {
    "": { "dependencies": { "fastify": "^5.0.0" } },
    "node_modules/fastify": { "version": "5.6.1" },
    "node_modules/avvio/node_modules/fastify": { "version": "4.0.0" },
    "node_modules/pg": { "version": "8.16.3" }
  }
}"#;
        let wanted = ["fastify".to_owned(), "pg".to_owned()];
        let versions = super::npm_versions(lock, &wanted).unwrap();
        assert_eq!(versions["fastify"], "5.6.1");
        assert_eq!(versions["pg"], "8.16.3");
    }

    #[test]
    fn pip_versions_compare_names_as_pep_503_normalises_them() {
        let lock = "# pinned\nFastAPI==0.115.0 \\\n    --hash=sha256:aa\npython_multipart==0.0.20\nuvicorn[standard]==0.34.0 ; python_version >= \"3.9\"\n";
        let wanted = [
            "fastapi".to_owned(),
            "python-multipart".to_owned(),
            "uvicorn".to_owned(),
        ];
        let versions = super::pip_versions(lock, &wanted);
        assert_eq!(versions["fastapi"], "0.115.0");
        assert_eq!(versions["python-multipart"], "0.0.20");
        assert_eq!(versions["uvicorn"], "0.34.0");
    }

    /// `mvn dependency:list -DoutputFile=…` as the maven-dependency-plugin writes it: a
    /// heading, then one artifact a line, with a classifier or not, and the module it is.
    const MAVEN_LIST: &str = "
The following files have been resolved:
   org.springframework:spring-webflux:jar:7.0.8:compile -- module spring.webflux
   io.netty:netty-transport-native-epoll:jar:linux-x86_64:4.2.6.Final:runtime -- module io.netty.transport.epoll [auto]
   io.projectreactor.netty:reactor-netty-http:jar:1.3.0:compile -- module reactor.netty.http
   org.projectlombok:lombok:jar:1.18.38:provided -- module lombok
   org.junit.jupiter:junit-jupiter-api:jar:5.13.4:test (optional) -- module org.junit.jupiter.api
";

    #[test]
    fn maven_versions_are_the_resolved_artifacts_by_artifact_id() {
        let wanted = [
            "spring-webflux".to_owned(),
            "netty-transport-native-epoll".to_owned(),
            "junit-jupiter-api".to_owned(),
        ];
        let versions = super::maven_versions(MAVEN_LIST, &wanted);
        assert_eq!(versions["spring-webflux"], "7.0.8");
        assert_eq!(versions["netty-transport-native-epoll"], "4.2.6.Final");
        assert_eq!(versions["junit-jupiter-api"], "5.13.4");
        let artifacts: Vec<super::MavenArtifact> = super::maven_artifacts(MAVEN_LIST).collect();
        assert_eq!(artifacts.len(), 5, "the heading is no artifact");
        assert_eq!(
            artifacts[1],
            super::MavenArtifact {
                group: "io.netty",
                artifact: "netty-transport-native-epoll",
                version: "4.2.6.Final",
                scope: "runtime",
            }
        );
    }

    /// A Maven app's key packages come from the list its build writes beside `pom.xml`; with
    /// no build yet, the error says how to make it.
    #[test]
    fn a_maven_apps_versions_come_from_its_resolved_list() {
        let app = tempfile::tempdir().unwrap();
        let pom = app.path().join("pom.xml");
        std::fs::write(&pom, "<project/>").unwrap();
        let wanted = ["reactor-netty-http".to_owned()];
        let err = super::lock_versions(&pom, &wanted).unwrap_err();
        assert!(
            format!("{err:#}").contains("target/dependencies.txt: no such file")
                && format!("{err:#}").contains("make build"),
            "{err:#}"
        );
        std::fs::create_dir(app.path().join("target")).unwrap();
        std::fs::write(app.path().join(super::MAVEN_RESOLVED), MAVEN_LIST).unwrap();
        let versions = super::lock_versions(&pom, &wanted).unwrap();
        assert_eq!(versions["reactor-netty-http"], "1.3.0");
    }

    #[test]
    fn lock_formats_are_told_apart_by_the_lock_files_name() {
        use super::LockFormat;
        let format = |name: &str| LockFormat::of(std::path::Path::new(name)).ok();
        assert_eq!(format("apps/a/package-lock.json"), Some(LockFormat::Npm));
        assert_eq!(format("apps/a/requirements.txt"), Some(LockFormat::Pip));
        assert_eq!(format("apps/a/pom.xml"), Some(LockFormat::Maven));
        assert_eq!(
            format("apps/a/debian-packages.txt"),
            Some(LockFormat::Debian)
        );
        assert_eq!(format("apps/a/composer.lock"), None);
    }

    /// A Debian app's list, its comments left out; its key packages' versions are those dpkg
    /// installed (bash is on every Debian system), and one not installed says how to install
    /// it.
    #[test]
    fn debian_versions_are_the_installed_ones_of_the_listed_packages() {
        let list = "# The web server and PHP.\nbash   # the shell\n\n  coreutils\n";
        let names: Vec<&str> = super::debian_packages(list).collect();
        assert_eq!(names, ["bash", "coreutils"]);

        let dir = tempfile::tempdir().unwrap();
        let lock = dir.path().join(super::DEBIAN_PACKAGES);
        std::fs::write(&lock, list).unwrap();
        let versions = super::lock_versions(&lock, &["bash".to_owned()]).unwrap();
        let installed = std::process::Command::new("dpkg-query")
            .args(["--show", "--showformat", "${Version}", "bash"])
            .output()
            .unwrap();
        assert_eq!(versions["bash"], String::from_utf8_lossy(&installed.stdout));
        assert!(versions["bash"].starts_with(|c: char| c.is_ascii_digit()));

        let unlisted = super::lock_versions(&lock, &["dash".to_owned()]).unwrap_err();
        assert!(
            format!("{unlisted:#}").contains("does not depend on [\"dash\"]"),
            "{unlisted:#}"
        );
        std::fs::write(&lock, "bash\nblogbench-no-such-package\n").unwrap();
        let wanted = ["blogbench-no-such-package".to_owned()];
        let err = super::lock_versions(&lock, &wanted).unwrap_err();
        assert!(
            format!("{err:#}").contains("`apt-get install blogbench-no-such-package`"),
            "{err:#}"
        );
    }
}
