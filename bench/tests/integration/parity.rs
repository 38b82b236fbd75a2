//! Parity against the Go oracle, through the real `blogbench` binary, real apps, real
//! PostgreSQL and Redis (`make services` must have run; `make test` does that first).

use crate::common;

use crate::common::{blogbench, text};

#[test]
fn every_app_matches_the_go_reference() {
    let _serial = common::serial();
    let output = blogbench(&["parity", "--apps", "all"], &[]);
    let out = text(&output);
    assert!(output.status.success(), "parity failed:\n{out}");
    for app in bench::stack::apps::all()
        .unwrap()
        .iter()
        .filter(|a| !a.is_reference())
    {
        assert!(
            out.contains(&format!("parity: {}: ", app.name)) && out.contains("identical to go"),
            "no parity line for {}:\n{out}",
            app.name
        );
    }
}

#[test]
fn a_changed_template_fails_with_a_diff() {
    let _serial = common::serial();
    let dir = tempfile::tempdir().unwrap();
    let source = bench::stack::apps::workspace_dir().join("templates/tera");
    for entry in std::fs::read_dir(&source).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
    }
    let home = dir.path().join("home.html");
    let changed = std::fs::read_to_string(&home)
        .unwrap()
        .replace("<h1>Latest posts</h1>", "<h1>Newest posts</h1>");
    std::fs::write(&home, changed).unwrap();

    let output = blogbench(
        &["parity", "--apps", "axum-sqlx"],
        &[(templates::TEMPLATE_DIR_VAR, dir.path().as_os_str())],
    );
    let out = text(&output);
    assert!(
        !output.status.success(),
        "parity passed with a changed template:\n{out}"
    );
    assert!(out.contains("first: GET / (body differs)"), "{out}");
    assert!(
        out.contains("--- go: GET /"),
        "no unified diff header:\n{out}"
    );
    assert!(
        out.contains("-<h1>Latest posts</h1>\n+<h1>Newest posts</h1>"),
        "{out}"
    );
}

#[test]
fn unknown_app_lists_the_valid_names() {
    let _serial = common::serial();
    let output = blogbench(&["parity", "--apps", "no-such-framework"], &[]);
    let out = text(&output);
    assert!(!output.status.success());
    let names: Vec<String> = bench::stack::apps::all()
        .unwrap()
        .into_iter()
        .map(|a| a.name)
        .collect();
    assert!(
        out.contains(&format!("valid names: {}", names.join(", "))),
        "{out}"
    );
}
