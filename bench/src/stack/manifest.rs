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
    /// Crates (or Go modules) whose resolved versions the report prints.
    pub key_packages: Vec<String>,
    pub settings: Settings,
    #[serde(default, rename = "deviation")]
    pub deviations: Vec<Deviation>,
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
        toml::from_str(&text).with_context(|| format!("parse {}", path.display()))
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

fn missing(found: &BTreeMap<String, String>, wanted: &[String], owner: &str) -> Result<()> {
    let missing: Vec<&String> = wanted.iter().filter(|p| !found.contains_key(*p)).collect();
    if !missing.is_empty() {
        bail!("{owner} does not depend on {missing:?} (key_packages in its bench.toml)");
    }
    Ok(())
}
