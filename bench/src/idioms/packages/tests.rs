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

/// A lock file of version 3: the root, two production packages (one installed twice at
/// one version, one in a second version), a dev-only test runner and its dependency, a
/// package for another platform, a workspace link and its folder.
const NPM_LOCK: &str = r#"{
  "name": "fastify-blog",
  "lockfileVersion": 3,
  "packages": {
    "": { "name": "fastify-blog", "dependencies": { "fastify": "^5.0.0" } },
    "node_modules/fastify": { "version": "5.6.1" },
    "node_modules/pg": { "version": "8.16.3" },
    "node_modules/pg/node_modules/pg-types": { "version": "4.0.2" },
    "node_modules/pg-types": { "version": "2.2.0" },
    "node_modules/avvio/node_modules/fastify": { "version": "5.6.1" },
    "node_modules/@fastify/view": { "version": "11.1.0" },
    "node_modules/tap": { "version": "21.0.0", "dev": true },
    "node_modules/@tapjs/core": { "version": "4.0.0", "dev": true },
    "node_modules/@esbuild/win32-x64": { "version": "0.25.0", "optional": true, "os": ["win32"], "cpu": ["x64"] },
    "node_modules/shared-views": { "resolved": "packages/shared-views", "link": true },
    "packages/shared-views": { "version": "1.0.0" }
  }
}"#;

#[test]
fn npm_packages_are_the_installed_production_ones() {
    let packages = npm_packages(NPM_LOCK).unwrap();
    let shown: Vec<String> = packages
        .packages
        .iter()
        .map(|p| {
            format!(
                "{} {}{}",
                p.name,
                p.version,
                if p.local { " local" } else { "" }
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            "@fastify/view 11.1.0",
            "fastify 5.6.1",
            "pg 8.16.3",
            "pg-types 2.2.0",
            "pg-types 4.0.2",
            "shared-views local local",
        ]
    );
    assert_eq!(packages.dev_only, Some(2));
    assert_eq!(packages.third_party().count(), 5);
    assert_eq!(packages.duplicates().len(), 1, "pg-types in two versions");
    assert!(npm_packages(r#"{"lockfileVersion": 1, "dependencies": {}}"#).is_err());
}

#[test]
fn npm_platform_lists_include_and_exclude_this_host() {
    let entry = |json: &str| serde_json::from_str::<serde_json::Value>(json).unwrap();
    assert!(npm_installs_here(&entry(r#"{"version": "1"}"#)));
    assert!(!npm_installs_here(&entry(r#"{"os": ["aix"]}"#)));
    let here = std::env::consts::OS.replace("macos", "darwin");
    assert!(npm_installs_here(&entry(&format!(
        r#"{{"os": ["{here}"]}}"#
    ))));
    assert!(!npm_installs_here(&entry(&format!(
        r#"{{"os": ["!{here}"]}}"#
    ))));
    assert!(npm_installs_here(&entry(r#"{"os": ["!aix"]}"#)));
}

#[test]
fn pip_packages_are_the_pinned_lines() {
    let lock = "#\n# pip-compile --generate-hashes\n#\n--index-url https://pypi.org/simple\n\
            anyio==4.16.0 \\\n    --hash=sha256:59bb \\\n    --hash=sha256:c66a\n    # via\n    #   fastapi\n\
            FastAPI==0.115.0\n\
            uvicorn[standard]==0.34.0 ; python_version >= \"3.9\"\n\
            \n# The following packages are considered to be unsafe:\npip==25.0\n";
    let packages = pip_packages(lock);
    let shown: Vec<String> = packages
        .packages
        .iter()
        .map(|p| format!("{} {}", p.name, p.version))
        .collect();
    assert_eq!(
        shown,
        [
            "FastAPI 0.115.0",
            "anyio 4.16.0",
            "pip 25.0",
            "uvicorn 0.34.0"
        ]
    );
    assert_eq!(packages.dev_only, None);
}

/// Every artifact the app runs with, transitive ones included, by group and artifact;
/// the test and compile-only ones counted apart; an artifact in two classifiers (two
/// platforms' native transports) counted once.
#[test]
fn maven_packages_are_the_artifacts_the_app_runs_with() {
    let list = "
The following files have been resolved:
   org.springframework:spring-webflux:jar:7.0.8:compile -- module spring.webflux
   org.springframework:spring-core:jar:7.0.8:compile -- module spring.core
   io.netty:netty-transport-native-epoll:jar:linux-x86_64:4.2.6.Final:runtime -- module io.netty.transport.epoll [auto]
   io.netty:netty-transport-native-epoll:jar:linux-aarch_64:4.2.6.Final:runtime -- module io.netty.transport.epoll [auto]
   org.projectlombok:lombok:jar:1.18.38:provided -- module lombok
   org.junit.jupiter:junit-jupiter-api:jar:5.13.4:test -- module org.junit.jupiter.api
   org.assertj:assertj-core:jar:3.27.4:test -- module org.assertj.core
";
    let packages = maven_packages(list);
    let shown: Vec<String> = packages
        .packages
        .iter()
        .map(|p| format!("{} {}", p.name, p.version))
        .collect();
    assert_eq!(
        shown,
        [
            "io.netty:netty-transport-native-epoll 4.2.6.Final",
            "org.springframework:spring-core 7.0.8",
            "org.springframework:spring-webflux 7.0.8",
        ]
    );
    assert_eq!(packages.dev_only, Some(3));
}

/// A Debian app's packages are the ones its list names, at their installed versions (bash
/// and coreutils are on every Debian system); one not installed is an error.
#[test]
fn debian_packages_are_the_listed_ones_as_installed() {
    let dir = tempfile::tempdir().unwrap();
    let lock = dir.path().join(manifest::DEBIAN_PACKAGES);
    std::fs::write(
        &lock,
        "# the shell and its tools\nbash\ncoreutils # ls, cat\n",
    )
    .unwrap();
    let packages = lock_packages(&lock).unwrap();
    let names: Vec<&str> = packages.packages.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["bash", "coreutils"]);
    assert!(packages.packages.iter().all(|p| !p.version.is_empty()));
    assert_eq!(packages.dev_only, None);
    std::fs::write(&lock, "bash\nblogbench-no-such-package\n").unwrap();
    let err = lock_packages(&lock).unwrap_err();
    assert!(
        format!("{err:#}").contains("blogbench-no-such-package"),
        "{err:#}"
    );
}

#[test]
fn a_lock_file_is_read_by_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let npm = dir.path().join("package-lock.json");
    std::fs::write(&npm, NPM_LOCK).unwrap();
    assert_eq!(lock_packages(&npm).unwrap().packages.len(), 6);
    let pip = dir.path().join("requirements.txt");
    std::fs::write(&pip, "jinja2==3.1.6\n").unwrap();
    assert_eq!(lock_packages(&pip).unwrap().packages.len(), 1);
    let pom = dir.path().join("pom.xml");
    std::fs::write(&pom, "<project/>").unwrap();
    std::fs::create_dir(dir.path().join("target")).unwrap();
    std::fs::write(
        dir.path().join(manifest::MAVEN_RESOLVED),
        "   io.r2dbc:r2dbc-spi:jar:1.0.0.RELEASE:compile\n",
    )
    .unwrap();
    assert_eq!(lock_packages(&pom).unwrap().packages.len(), 1);
    let other = dir.path().join("yarn.lock");
    std::fs::write(&other, "").unwrap();
    assert!(lock_packages(&other).is_err());
}
