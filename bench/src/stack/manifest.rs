//! The per-app manifest (`apps/<name>/bench.toml`, `go-reference/bench.toml`): what the app
//! is built from, the settings that matter for a fair comparison, and every deviation from
//! the rules of docs/spec.md with its reason. The format is documented in `apps/README.md`.

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet, VecDeque};
use std::path::Path;

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
    /// line comments mark the idioms page's regions (`javascript`, `python`).
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

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    pub pool_max: u32,
    pub pool_min: u32,
    /// When the pool pings a connection it hands out: `always`, `after 1 s idle`, `never`
    /// (older results say `true` or `false`).
    #[serde(deserialize_with = "ping_rule")]
    pub ping_on_acquire: String,
    pub ping_on_release: bool,
    /// How a request gets its database connection(s).
    pub connection: String,
    /// What `WORKERS` sets.
    pub workers: String,
    /// SQL statements per page.
    pub queries: Queries,
    /// How the page cache talks to Redis.
    pub cache: String,
}

fn ping_rule<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Rule {
        Text(String),
        Flag(bool),
    }
    Ok(match Rule::deserialize(deserializer)? {
        Rule::Text(text) => text,
        Rule::Flag(true) => "always".to_owned(),
        Rule::Flag(false) => "never".to_owned(),
    })
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Queries {
    pub home: u32,
    pub post: u32,
    pub tag: u32,
    /// Statements per stored comment, `BEGIN` and `COMMIT` included (Go: 4). Absent in
    /// results written before the comment route existed.
    #[serde(default)]
    pub comment: Option<u32>,
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

/// The versions of `packages` pinned in a lock file: npm's `package-lock.json` or pip's
/// `requirements.txt` (`name==version` lines).
pub fn lock_versions(lock: &Path, packages: &[String]) -> Result<BTreeMap<String, String>> {
    let text = std::fs::read_to_string(lock).with_context(|| format!("read {}", lock.display()))?;
    let versions = match lock.file_name().and_then(|n| n.to_str()) {
        Some("package-lock.json") => npm_versions(&text, packages)?,
        Some(name) if name.ends_with(".txt") => pip_versions(&text, packages),
        _ => bail!(
            "{}: not a lock file blogbench reads (package-lock.json, requirements*.txt)",
            lock.display()
        ),
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
}
