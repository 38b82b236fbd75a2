//! What an app pulls in: the unique packages of its dependency graph. Rust: `cargo metadata`
//! for this host, walked from the app's package over normal and build dependencies
//! (dev-dependencies build only tests). Go: `go list -deps` in the app's folder, the
//! standard library left out. The same graphs say which of the workspace's own crates (Go:
//! packages) an app builds on, and which build units only one app needs.

use crate::results::idioms::{Package, Packages};
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
        Packages { packages }
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
        packages: Packages { packages },
        local_packages,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An app on axum and a shared crate, a harness on tokio with a dev-dependency, and a
    /// build dependency: the shape `cargo metadata` gives.
    const METADATA: &str = r#"{
      "packages": [
        {"id": "app", "name": "app", "version": "0.1.0", "source": null, "manifest_path": "/w/apps/app/Cargo.toml"},
        {"id": "shared", "name": "shared", "version": "0.1.0", "source": null, "manifest_path": "/w/shared/Cargo.toml"},
        {"id": "harness", "name": "harness", "version": "0.1.0", "source": null, "manifest_path": "/w/harness/Cargo.toml"},
        {"id": "axum", "name": "axum", "version": "0.8.9", "source": "registry", "manifest_path": "/r/axum/Cargo.toml"},
        {"id": "tokio", "name": "tokio", "version": "1.54.1", "source": "registry", "manifest_path": "/r/tokio/Cargo.toml"},
        {"id": "cc", "name": "cc", "version": "1.2.0", "source": "registry", "manifest_path": "/r/cc/Cargo.toml"},
        {"id": "tempfile", "name": "tempfile", "version": "3.0.0", "source": "registry", "manifest_path": "/r/tempfile/Cargo.toml"}
      ],
      "workspace_members": ["app", "shared", "harness"],
      "resolve": {"nodes": [
        {"id": "app", "deps": [
          {"pkg": "axum", "dep_kinds": [{"kind": null, "target": null}]},
          {"pkg": "shared", "dep_kinds": [{"kind": null, "target": null}]},
          {"pkg": "tempfile", "dep_kinds": [{"kind": "dev", "target": null}]}
        ]},
        {"id": "shared", "deps": [{"pkg": "tokio", "dep_kinds": [{"kind": null, "target": null}]}]},
        {"id": "harness", "deps": [
          {"pkg": "tokio", "dep_kinds": [{"kind": null, "target": null}]},
          {"pkg": "tempfile", "dep_kinds": [{"kind": "dev", "target": null}]}
        ]},
        {"id": "axum", "deps": [{"pkg": "cc", "dep_kinds": [{"kind": "build", "target": null}]}]},
        {"id": "tokio", "deps": []},
        {"id": "cc", "deps": []},
        {"id": "tempfile", "deps": []}
      ]}
    }"#;

    #[test]
    fn an_apps_packages_are_its_normal_and_build_dependencies() {
        let graph = CargoGraph::parse(METADATA).unwrap();
        let app = graph.member("app").unwrap();
        let packages = graph.packages_of(app);
        let names: Vec<(&str, bool)> = packages
            .packages
            .iter()
            .map(|p| (p.name.as_str(), p.local))
            .collect();
        assert_eq!(
            names,
            [
                ("axum", false),
                ("cc", false),
                ("shared", true),
                ("tokio", false)
            ]
        );
        assert_eq!(
            graph.local_dependencies(app),
            [("shared".to_owned(), PathBuf::from("/w/shared"))]
        );
        assert_eq!(graph.top_level_members(), ["app", "harness"]);
    }

    #[test]
    fn go_list_rows_keep_modules_and_the_workspaces_packages() {
        let text = "net/http\t/usr/lib/go/src/net/http\ttrue\t\n\
            github.com/jackc/pgx/v5\t/m/pgx\tfalse\tgithub.com/jackc/pgx/v5\tv5.7.5\tfalse\t\n\
            github.com/jackc/pgx/v5/pgxpool\t/m/pgx/pgxpool\tfalse\tgithub.com/jackc/pgx/v5\tv5.7.5\tfalse\t\n\
            blogbench/goshared/blog\t/w/go-shared/blog\tfalse\tblogbench/goshared\tv0.0.0\tfalse\t../../go-shared\n\
            blogbench/gin\t/w/apps/gin\tfalse\tblogbench/gin\t\ttrue\t\n";
        let graph = parse_go_list(text);
        assert_eq!(
            graph.packages.packages,
            [
                Package {
                    name: "blogbench/goshared".to_owned(),
                    version: "v0.0.0".to_owned(),
                    local: true
                },
                Package {
                    name: "github.com/jackc/pgx/v5".to_owned(),
                    version: "v5.7.5".to_owned(),
                    local: false
                },
            ]
        );
        assert_eq!(
            graph.local_packages,
            [(
                "blogbench/goshared/blog".to_owned(),
                PathBuf::from("/w/go-shared/blog")
            )]
        );
    }
}
