//! actix-sqlx's own switch, `POOL_MODE` (apps/actix-sqlx/README.md): the default
//! `per-worker` mode is covered by the every-app tests; here `shared` must match the Go
//! reference too, and any other value must stop the app. `make services` must have run.
//! Only the first test touches Redis page keys, so the two may run at the same time.

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const APP: &str = "actix-sqlx";

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn shared_pool_mode_matches_the_go_reference() {
    let output = Command::new(env!("CARGO_BIN_EXE_blogbench"))
        .args(["parity", "--app", APP])
        .env("POOL_MODE", "shared")
        .output()
        .expect("run blogbench");
    let out = text(&output);
    assert!(output.status.success(), "parity failed:\n{out}");
    assert!(
        out.contains(&format!("parity: {APP}: ")) && out.contains("identical to go"),
        "no parity line for {APP}:\n{out}"
    );
}

#[test]
fn an_unknown_pool_mode_stops_the_app_with_a_message_naming_it() {
    let binary = bench::apps::find(APP).unwrap().binary_path();
    let bind = format!("127.0.0.1:{}", bench::server::free_port().unwrap());
    let mut child = Command::new(&binary)
        .env("POOL_MODE", "per-thread")
        .env("BIND", &bind)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("start {}: {e}", binary.display()));
    // An app that accepted the value would serve until stopped: give it a deadline.
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(10) {
            child.kill().unwrap();
            panic!(
                "{APP} still running with POOL_MODE=per-thread:\n{}",
                text(&child.wait_with_output().unwrap())
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().unwrap();
    let out = text(&output);
    assert!(
        !output.status.success(),
        "{APP} exited with success:\n{out}"
    );
    assert!(
        out.contains("POOL_MODE") && out.contains("per-thread"),
        "the message does not name POOL_MODE and its value:\n{out}"
    );
}
