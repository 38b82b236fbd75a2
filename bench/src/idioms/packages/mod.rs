//! What an app pulls in: the unique packages of its dependency graph. Rust: `cargo metadata`
//! for this host, walked from the app's package over normal and build dependencies
//! (dev-dependencies build only tests). Go: `go list -deps` in the app's folder, the
//! standard library left out. An app started by a command (JavaScript, Python, Java, PHP):
//! its lock file's packages ([`lock_packages`]). The Rust and Go graphs say which of the
//! workspace's own crates (Go: packages) an app builds on, and which build units only one
//! app needs.

use crate::results::idioms::{Package, Packages};
use crate::stack::manifest::{self, LockFormat};
use anyhow::{Context, Result, bail};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A package as cargo's timings name its units: name and version.
pub type PackageKey = (String, String);

/// The workspace's resolved dependency graph on this host.
#[derive(Debug)]
pub struct CargoGraph {
    packages: BTreeMap<String, CargoPackage>,
    /// Normal and build dependencies, by package id.
    dependencies: BTreeMap<String, Vec<String>>,
    members: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct CargoPackage {
    name: String,
    version: String,
    /// None for a path dependency (the workspace's own crates).
    source: Option<String>,
    manifest_path: PathBuf,
}

impl CargoGraph {
    /// `cargo metadata --format-version 1 --filter-platform <host>` in `workspace`.
    pub fn load(workspace: &Path) -> Result<CargoGraph> {
        let host = host_triple()?;
        let output = Command::new("cargo")
            .args(["metadata", "--format-version", "1", "--filter-platform"])
            .arg(&host)
            .current_dir(workspace)
            .output()
            .context("run cargo metadata")?;
        if !output.status.success() {
            bail!(
                "cargo metadata failed: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        CargoGraph::parse(&String::from_utf8_lossy(&output.stdout))
    }

    pub fn parse(json: &str) -> Result<CargoGraph> {
        #[derive(Deserialize)]
        struct Metadata {
            packages: Vec<Identified>,
            workspace_members: Vec<String>,
            resolve: Resolve,
        }
        #[derive(Deserialize)]
        struct Identified {
            id: String,
            #[serde(flatten)]
            package: CargoPackage,
        }
        #[derive(Deserialize)]
        struct Resolve {
            nodes: Vec<Node>,
        }
        #[derive(Deserialize)]
        struct Node {
            id: String,
            deps: Vec<Dependency>,
        }
        #[derive(Deserialize)]
        struct Dependency {
            pkg: String,
            dep_kinds: Vec<DependencyKind>,
        }
        #[derive(Deserialize)]
        struct DependencyKind {
            /// None for a normal dependency, else `dev` or `build`.
            kind: Option<String>,
        }
        let metadata: Metadata = serde_json::from_str(json).context("parse cargo metadata")?;
        let dependencies = metadata
            .resolve
            .nodes
            .into_iter()
            .map(|node| {
                let built = node
                    .deps
                    .into_iter()
                    .filter(|d| d.dep_kinds.iter().any(|k| k.kind.as_deref() != Some("dev")))
                    .map(|d| d.pkg)
                    .collect();
                (node.id, built)
            })
            .collect();
        Ok(CargoGraph {
            packages: metadata
                .packages
                .into_iter()
                .map(|p| (p.id, p.package))
                .collect(),
            dependencies,
            members: metadata.workspace_members,
        })
    }

    /// The id of the workspace member named `name`.
    pub fn member(&self, name: &str) -> Result<&str> {
        self.members
            .iter()
            .find(|id| self.packages.get(*id).is_some_and(|p| p.name == name))
            .map(String::as_str)
            .with_context(|| format!("{name} is not a member of the workspace"))
    }

    pub fn member_names(&self) -> Vec<&str> {
        self.members
            .iter()
            .filter_map(|id| Some(self.packages.get(id)?.name.as_str()))
            .collect()
    }

    /// `id` and every package its build needs.
    pub fn closure<'a>(&'a self, id: &'a str) -> BTreeSet<&'a str> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![id];
        while let Some(next) = stack.pop() {
            if seen.insert(next) {
                stack.extend(
                    self.dependencies
                        .get(next)
                        .into_iter()
                        .flatten()
                        .map(String::as_str),
                );
            }
        }
        seen
    }

    pub fn key(&self, id: &str) -> Option<PackageKey> {
        let package = self.packages.get(id)?;
        Some((package.name.clone(), package.version.clone()))
    }

    /// Every package of the graph, as timings name them.
    pub fn keys(&self) -> BTreeSet<PackageKey> {
        self.packages.keys().filter_map(|id| self.key(id)).collect()
    }

    /// The packages the member `id` pulls in, itself left out.
    pub fn packages_of(&self, id: &str) -> Packages {
        let mut packages: Vec<Package> = self
            .closure(id)
            .into_iter()
            .filter(|dep| *dep != id)
            .filter_map(|dep| self.packages.get(dep))
            .map(|p| Package {
                name: p.name.clone(),
                version: p.version.clone(),
                local: p.source.is_none(),
            })
            .collect();
        packages.sort();
        packages.dedup();
        Packages {
            packages,
            dev_only: None,
        }
    }

    /// The workspace crates `id` builds on: name and folder.
    pub fn local_dependencies(&self, id: &str) -> Vec<(String, PathBuf)> {
        self.closure(id)
            .into_iter()
            .filter(|dep| *dep != id)
            .filter_map(|dep| self.packages.get(dep))
            .filter(|p| p.source.is_none())
            .filter_map(|p| Some((p.name.clone(), p.manifest_path.parent()?.to_owned())))
            .collect()
    }

    /// The members no other member builds on (the apps, the harness): the roots of every
    /// build unit.
    pub fn top_level_members(&self) -> Vec<&str> {
        self.members
            .iter()
            .map(String::as_str)
            .filter(|id| {
                !self.members.iter().any(|other| {
                    other != id
                        && self
                            .dependencies
                            .get(other)
                            .is_some_and(|deps| deps.iter().any(|d| d == id))
                })
            })
            .collect()
    }
}

/// `host:` from `rustc -vV`.
fn host_triple() -> Result<String> {
    let output = Command::new("rustc")
        .arg("-vV")
        .output()
        .context("run rustc -vV")?;
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .map(str::to_owned)
        .context("rustc -vV names no host")
}

/// A Go app's graph: the modules of the packages it imports and the workspace's own packages
/// among them (go-shared's), with their folders.
#[derive(Debug, PartialEq)]
pub struct GoGraph {
    pub packages: Packages,
    pub local_packages: Vec<(String, PathBuf)>,
}

/// One row per package `go list -deps` prints: import path, folder, whether it is the
/// standard library's, then its module's path, version, whether it is the main module, and
/// where a `replace` points.
const GO_LIST_FORMAT: &str = "{{.ImportPath}}\t{{.Dir}}\t{{.Standard}}\t{{with .Module}}{{.Path}}\t{{.Version}}\t{{.Main}}\t{{with .Replace}}{{.Path}}{{end}}{{end}}";

/// `go list -deps` in the Go app's folder `dir`.
pub fn go_graph(dir: &Path) -> Result<GoGraph> {
    let output = Command::new("go")
        .args(["list", "-deps", "-f", GO_LIST_FORMAT, "."])
        .current_dir(dir)
        .output()
        .context("run go list")?;
    if !output.status.success() {
        bail!(
            "go list -deps in {} failed: {}",
            dir.display(),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(parse_go_list(&String::from_utf8_lossy(&output.stdout)))
}

fn parse_go_list(text: &str) -> GoGraph {
    let mut packages = Vec::new();
    let mut local_packages = Vec::new();
    for row in text.lines() {
        let fields: Vec<&str> = row.split('\t').collect();
        let [import, dir, "false", module, version, "false", replace] = fields[..] else {
            // The standard library, or the app's own module.
            continue;
        };
        // A module replaced by a folder is the workspace's own (go-shared).
        let local = replace.starts_with('.') || replace.starts_with('/');
        if local {
            local_packages.push((import.to_owned(), PathBuf::from(dir)));
        }
        packages.push(Package {
            name: module.to_owned(),
            version: version.to_owned(),
            local,
        });
    }
    packages.sort();
    packages.dedup();
    GoGraph {
        packages: Packages {
            packages,
            dev_only: None,
        },
        local_packages,
    }
}

/// The packages an app started by a command installs, from its lock file (`[build]`'s
/// `lock`): npm's `package-lock.json`, pip's `requirements.txt`, a Maven app's resolved
/// artifacts, or a Debian app's listed packages.
pub fn lock_packages(lock: &Path) -> Result<Packages> {
    let format = LockFormat::of(lock)?;
    let text = format.read(lock)?;
    match format {
        LockFormat::Npm => npm_packages(&text).with_context(|| format!("parse {}", lock.display())),
        LockFormat::Pip => Ok(pip_packages(&text)),
        LockFormat::Maven => Ok(maven_packages(&text)),
        LockFormat::Debian => debian_packages(&text, lock),
    }
}

/// A `package-lock.json` (version 2 or 3): every entry of `packages` under `node_modules/`
/// (the root, `""`, is the app), by name and version, a name installed in several folders
/// at one version counted once. Not counted: the packages only development needs
/// (`"dev": true`; counted apart, as `dev_only`), as Cargo's dev-dependencies are not —
/// `npm ci` installs them too, but the app never loads them — and an optional package for
/// another platform (its `os`, `cpu` or `libc` excludes this host), which npm does not
/// install. A workspace package (`"link": true`) is the app's own (`local`).
fn npm_packages(text: &str) -> Result<Packages> {
    let lock: serde_json::Value = serde_json::from_str(text)?;
    let entries = lock["packages"]
        .as_object()
        .context("no `packages` (a lock file of version 2 or 3 has them)")?;
    let mut packages = Vec::new();
    let mut dev_only = BTreeSet::new();
    for (path, entry) in entries {
        let Some((_, name)) = path.rsplit_once("node_modules/") else {
            // The root, or a workspace package's own folder (its link is counted).
            continue;
        };
        if !npm_installs_here(entry) {
            continue;
        }
        let local = entry["link"].as_bool() == Some(true);
        let version = match entry["version"].as_str() {
            Some(version) => version.to_owned(),
            None if local => "local".to_owned(),
            None => bail!("{path} has no version"),
        };
        let package = Package {
            name: name.to_owned(),
            version,
            local,
        };
        if entry["dev"].as_bool() == Some(true) {
            dev_only.insert(package);
        } else {
            packages.push(package);
        }
    }
    packages.sort();
    packages.dedup();
    Ok(Packages {
        packages,
        dev_only: Some(dev_only.len() as u32),
    })
}

/// Whether npm installs a lock entry on this host: its `os`, `cpu` and `libc` lists (node's
/// names; `!name` excludes) allow it.
fn npm_installs_here(entry: &serde_json::Value) -> bool {
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        "windows" => "win32",
        os => os,
    };
    let cpu = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        "x86" => "ia32",
        arch => arch,
    };
    let libc = if cfg!(target_env = "musl") {
        "musl"
    } else {
        "glibc"
    };
    [("os", os), ("cpu", cpu), ("libc", libc)]
        .into_iter()
        .all(|(field, host)| {
            let Some(list) = entry[field].as_array() else {
                return true;
            };
            let names: Vec<&str> = list.iter().filter_map(|v| v.as_str()).collect();
            let allowed: Vec<&str> = names
                .iter()
                .copied()
                .filter(|n| !n.starts_with('!'))
                .collect();
            !names.contains(&format!("!{host}").as_str())
                && (allowed.is_empty() || allowed.contains(&host))
        })
}

/// A pip `requirements.txt` as pip-compile writes it: its pins, one per package the app's
/// requirements pull in (pip-compile pins them all). It holds no development tools: they are
/// pinned in another file.
fn pip_packages(text: &str) -> Packages {
    let mut packages: Vec<Package> = manifest::pip_pins(text)
        .map(|(name, version)| Package {
            name: name.to_owned(),
            version: version.to_owned(),
            local: false,
        })
        .collect();
    packages.sort();
    packages.dedup();
    Packages {
        packages,
        dev_only: None,
    }
}

/// A Maven app's resolved artifacts (`mvn dependency:list`, transitive ones included), by
/// `group:artifact` and version: those the app runs with (scopes `compile` and `runtime`);
/// those only its tests or its compiler need counted apart, as `dev_only`, as npm's are
/// (`test`; `provided` and `system`, which a container would supply at run time, and a
/// stand-alone app runs in none: annotation processors).
fn maven_packages(text: &str) -> Packages {
    let mut packages = Vec::new();
    let mut dev_only = BTreeSet::new();
    for artifact in manifest::maven_artifacts(text) {
        let package = Package {
            name: format!("{}:{}", artifact.group, artifact.artifact),
            version: artifact.version.to_owned(),
            local: false,
        };
        if matches!(artifact.scope, "compile" | "runtime") {
            packages.push(package);
        } else {
            dev_only.insert(package);
        }
    }
    packages.sort();
    packages.dedup();
    Packages {
        packages,
        dev_only: Some(dev_only.len() as u32),
    }
}

/// A Debian app's listed packages at their installed versions. What they depend on is not
/// counted: `apt-cache depends --recurse` would mix the runtime and the system's libraries
/// (PHP, libc: no other app's count holds its runtime) with the libraries a listed package
/// pulls in (a framework's components), and nothing tells them apart. So the count is a
/// lower bound.
fn debian_packages(text: &str, lock: &Path) -> Result<Packages> {
    let mut packages = manifest::debian_packages(text)
        .map(|name| {
            Ok(Package {
                name: name.to_owned(),
                version: manifest::debian_installed_version(name, lock)?,
                local: false,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    packages.sort();
    packages.dedup();
    Ok(Packages {
        packages,
        dev_only: None,
    })
}

#[cfg(test)]
mod tests;
