use super::*;

/// A timings report's data: three units of the app (lib, bin, its tests), its own
/// dependency's build script and lib, a crate two apps share, the harness, a
/// dev-dependency, and a crate from an older lock file.
const REPORT: &str = r#"<tr><td>Profile:</td><td>release</td></tr>
<script>
const UNIT_DATA = [
  {"i": 0, "name": "axum-sqlx", "version": "0.1.0", "mode": "todo", "target": "", "duration": 2.0},
  {"i": 1, "name": "axum-sqlx", "version": "0.1.0", "mode": "todo", "target": " bin", "duration": 3.0},
  {"i": 2, "name": "axum-sqlx", "version": "0.1.0", "mode": "todo", "target": " (test)", "duration": 1.0},
  {"i": 3, "name": "mimalloc", "version": "0.1.4", "mode": "run-custom-build", "target": "", "duration": 4.0},
  {"i": 4, "name": "mimalloc", "version": "0.1.4", "mode": "todo", "target": "", "duration": 0.5},
  {"i": 5, "name": "tokio", "version": "1.54.1", "mode": "todo", "target": "", "duration": 10.0},
  {"i": 6, "name": "tikv-jemalloc-sys", "version": "0.7.0", "mode": "todo", "target": "", "duration": 20.0},
  {"i": 7, "name": "jemalloc-app", "version": "0.1.0", "mode": "todo", "target": "", "duration": 1.5},
  {"i": 8, "name": "bench", "version": "0.1.0", "mode": "todo", "target": "", "duration": 30.0},
  {"i": 9, "name": "tempfile", "version": "3.0.0", "mode": "todo", "target": "", "duration": 0.25},
  {"i": 10, "name": "hashbrown", "version": "0.1.0", "mode": "todo", "target": "", "duration": 0.75}
];
const CONCURRENCY_DATA = [];
</script>"#;

fn key(name: &str, version: &str) -> PackageKey {
    (name.to_owned(), version.to_owned())
}

fn root(name: &str, app: bool, needs: &[(&str, &str)]) -> Root {
    Root {
        name: name.to_owned(),
        app,
        package: key(name, "0.1.0"),
        needs: needs.iter().map(|(n, v)| key(n, v)).collect(),
    }
}

#[test]
fn units_only_one_app_needs_are_its_own_and_the_rest_is_shared_or_the_harness() {
    let units = parse_units(REPORT).unwrap();
    assert_eq!(units.len(), 11);
    let roots = [
        root(
            "axum-sqlx",
            true,
            &[
                ("axum-sqlx", "0.1.0"),
                ("mimalloc", "0.1.4"),
                ("tokio", "1.54.1"),
            ],
        ),
        // A build variant on axum-sqlx's library: it needs axum-sqlx's crate too.
        root(
            "jemalloc-app",
            true,
            &[
                ("jemalloc-app", "0.1.0"),
                ("axum-sqlx", "0.1.0"),
                ("mimalloc", "0.1.4"),
                ("tokio", "1.54.1"),
                ("tikv-jemalloc-sys", "0.7.0"),
            ],
        ),
        root("bench", false, &[("bench", "0.1.0"), ("tokio", "1.54.1")]),
    ];
    let known: BTreeSet<PackageKey> = roots
        .iter()
        .flat_map(|r| r.needs.iter().cloned())
        .chain([key("tempfile", "3.0.0")])
        .collect();
    let (apps, build) = attribute("r.html".to_owned(), &units, &roots, &known);
    // Its own crate (lib, bin, tests); mimalloc is needed by the variant too.
    assert_eq!((apps["axum-sqlx"].secs, apps["axum-sqlx"].units), (6.0, 3));
    assert_eq!(
        (apps["jemalloc-app"].secs, apps["jemalloc-app"].units),
        (21.5, 2)
    );
    assert_eq!((build.shared_secs, build.shared_units), (14.5, 3));
    assert_eq!((build.harness_secs, build.harness_units), (30.25, 2));
    assert_eq!((build.unknown_secs, build.unknown_units), (0.75, 1));
    assert_eq!((build.total_secs, build.units), (73.0, 11));
}

#[test]
fn the_cold_report_is_the_profile_s_newest_with_every_member_and_most_units_compiled() {
    let target = tempfile::tempdir().unwrap();
    let timings = target.path().join("cargo-timings");
    std::fs::create_dir_all(&timings).unwrap();
    assert!(
        cold_report(target.path(), "release", &["axum-sqlx"])
            .unwrap()
            .is_none()
    );
    std::fs::write(timings.join("cargo-timing-20261201T100000Z.html"), REPORT).unwrap();
    // Newer: a rebuild of one crate only, and a rebuild of every member, which lists
    // the fresh dependencies at zero seconds.
    let rebuild = r#"<td>Profile:</td><td>release</td>
const UNIT_DATA = [{"name": "axum-sqlx", "version": "0.1.0", "duration": 1.0}];"#;
    std::fs::write(timings.join("cargo-timing-20261202T100000Z.html"), rebuild).unwrap();
    std::fs::write(timings.join("cargo-timing.html"), rebuild).unwrap();
    let members_only = REPORT
        .lines()
        .map(
            |line| match line.contains("axum-sqlx") || line.contains("bench") {
                true => line.to_owned(),
                false => line.replace(r#""duration": "#, r#""duration": 0.0, "was": "#),
            },
        )
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(
        timings.join("cargo-timing-20261203T100000Z.html"),
        members_only,
    )
    .unwrap();
    let (path, units) = cold_report(target.path(), "release", &["axum-sqlx", "bench"])
        .unwrap()
        .unwrap();
    assert!(
        path.ends_with("cargo-timing-20261201T100000Z.html"),
        "{path:?}"
    );
    assert_eq!(units.len(), 11);
    // A newer cold build wins.
    std::fs::write(timings.join("cargo-timing-20261204T100000Z.html"), REPORT).unwrap();
    let (path, _) = cold_report(target.path(), "release", &["axum-sqlx", "bench"])
        .unwrap()
        .unwrap();
    assert!(
        path.ends_with("cargo-timing-20261204T100000Z.html"),
        "{path:?}"
    );
    // A newer cold build in another profile counts for that profile only.
    let ci = REPORT.replace("<td>release</td>", "<td>ci</td>");
    std::fs::write(timings.join("cargo-timing-20261205T100000Z.html"), ci).unwrap();
    for (profile, newest) in [("release", "20261204"), ("ci", "20261205")] {
        let (path, _) = cold_report(target.path(), profile, &["axum-sqlx", "bench"])
            .unwrap()
            .unwrap();
        let name = format!("cargo-timing-{newest}T100000Z.html");
        assert!(path.ends_with(&name), "{profile}: {path:?}");
    }
}

#[test]
fn a_go_rebuilds_change_is_put_back_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("handlers.go");
    let original = b"package main\r\n\nfunc main() {}".to_vec();
    std::fs::write(&file, &original).unwrap();
    {
        let _changed = Prepended::blank_lines(&file, 2).unwrap();
        let changed = std::fs::read(&file).unwrap();
        assert_eq!(&changed[..2], b"\n\n");
        assert_eq!(&changed[2..], &original[..]);
    }
    assert_eq!(std::fs::read(&file).unwrap(), original);

    // Saved by someone meanwhile: their edit stays, the blank lines go.
    {
        let _changed = Prepended::blank_lines(&file, 1).unwrap();
        let mut edited = std::fs::read(&file).unwrap();
        edited.extend_from_slice(b"\n// edited\n");
        std::fs::write(&file, &edited).unwrap();
    }
    let mut expected = original.clone();
    expected.extend_from_slice(b"\n// edited\n");
    assert_eq!(std::fs::read(&file).unwrap(), expected);
}

/// An app started by a command, in a git checkout that ignores `deps/`: its install is
/// timed after `deps/` is removed (a stale file there is gone after), and `deps/` is
/// measured. A `creates` outside an ignored folder removes nothing.
#[test]
fn an_install_starts_from_an_empty_ignored_folder_and_measures_it() {
    let folder = tempfile::tempdir().unwrap();
    let dir = folder.path();
    let git = |args: &[&str]| {
        let status = Command::new("git")
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap()
            .status;
        assert!(status.success(), "git {args:?}");
    };
    git(&["init", "--quiet"]);
    std::fs::write(dir.join(".gitignore"), "/deps/\n").unwrap();
    std::fs::write(dir.join("requirements.txt"), "left-pad==1.3.0\n").unwrap();
    std::fs::create_dir_all(dir.join("deps/old")).unwrap();
    std::fs::write(dir.join("deps/old/stale"), "stale").unwrap();
    let manifest = |creates: &str| {
        format!(
            r#"
name = "script-app"
stack = "a shell script"
language = "python"
key_packages = []
[build]
command = ["sh", "-c", "test ! -e deps/old && mkdir -p deps/lib && printf 12345 > deps/lib/a && printf 678 > deps/b && ln -sf /etc/hostname deps/link && touch deps/done installed"]
lock = "requirements.txt"
creates = "{creates}"
[run]
command = ["true"]
runtime = ["true"]
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
queries = {{ home = 3, post = 3, tag = 4 }}
cache = "none"
"#
        )
    };
    let app = |creates: &str| {
        std::fs::write(dir.join("bench.toml"), manifest(creates)).unwrap();
        App {
            name: "script-app".to_owned(),
            dir: dir.to_owned(),
            kind: Kind::Command,
            manifest: crate::stack::manifest::Manifest::load(&dir.join("bench.toml")).unwrap(),
        }
    };
    let install = install(&app("deps/done")).unwrap();
    assert!(
        install
            .command
            .starts_with("sh -c test ! -e deps/old && mkdir"),
        "{}",
        install.command
    );
    assert_eq!(install.emptied.as_deref(), Some("deps"));
    assert!(install.secs > 0.0);
    assert_eq!(
        install.installed,
        Some(InstalledFolder {
            folder: "deps".to_owned(),
            // a, b and done; the link is not followed.
            bytes: 8,
            files: 3,
        })
    );

    // `creates` names a file of the app's folder: nothing is removed.
    std::fs::create_dir_all(dir.join("deps/old")).unwrap();
    let err = super::install(&app("installed")).unwrap_err();
    assert!(format!("{err:#}").contains("failed"), "{err:#}");
    assert!(dir.join("deps/old").is_dir(), "nothing removed");
    // A folder git does not ignore is not removed either.
    let tracked = app("src/done");
    assert_eq!(
        installed_folder(&tracked, tracked.manifest.build.as_ref().unwrap()),
        None
    );
    let ignored = app("deps/done");
    assert_eq!(
        installed_folder(&ignored, ignored.manifest.build.as_ref().unwrap()),
        Some(dir.join("deps"))
    );
}
