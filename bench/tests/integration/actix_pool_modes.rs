//! actix-sqlx's own switch, `POOL_MODE` (apps/actix-sqlx/README.md): the default
//! `per-worker` mode is covered by the every-app tests; here `shared` must match the Go
//! reference too, and any other value must stop the app. `make services` must have run.

use crate::common;

use crate::common::{blogbench, text};
use std::ffi::OsStr;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const APP: &str = "actix-sqlx";

#[test]
fn shared_pool_mode_matches_the_go_reference() {
    let _serial = common::serial();
    let output = blogbench(
        &["parity", "--apps", APP],
        &[("POOL_MODE", OsStr::new("shared"))],
    );
    let out = text(&output);
    assert!(output.status.success(), "parity failed:\n{out}");
    assert!(
        out.contains(&format!("parity: {APP}: ")) && out.contains("identical to go"),
        "no parity line for {APP}:\n{out}"
    );
}

#[test]
fn an_unknown_pool_mode_stops_the_app_with_a_message_naming_it() {
    let _serial = common::serial();
    let binary = bench::stack::apps::find(APP).unwrap().binary_path();
    let bind = format!("127.0.0.1:{}", bench::stack::server::free_port().unwrap());
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
