//! `scripts/services.sh` refuses what it must not do, with a message that names the service
//! and the fix, and changes nothing. Runs the real script against the real services.

use crate::common;
use std::io::Write;
use std::net::TcpListener;
use std::process::Command;

fn services_up(env: &[(&str, &str)]) -> (bool, String) {
    let script = bench::stack::apps::workspace_dir().join("scripts/services.sh");
    let output = Command::new(script)
        .arg("up")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

#[test]
fn a_port_held_by_another_program_is_named_with_the_fix() {
    let _serial = common::serial();
    // Something that is not Redis: it answers every connection with an HTTP error.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut stream = stream;
            let _ = stream.write_all(b"HTTP/1.0 400 Bad Request\r\n\r\n");
        }
    });
    let (ok, out) = services_up(&[("REDIS_URL", &format!("redis://127.0.0.1:{port}/0"))]);
    assert!(
        !ok,
        "services.sh accepted a port held by a non-Redis program:\n{out}"
    );
    assert!(out.contains(&format!("redis: port {port}")), "{out}");
    assert!(out.contains("not Redis"), "{out}");
    assert!(out.contains("fix"), "{out}");
}

#[test]
fn another_database_is_refused() {
    let _serial = common::serial();
    let (ok, out) = services_up(&[(
        "DATABASE_URL",
        "postgres://blogbench:blogbench@127.0.0.1:5432/postgres",
    )]);
    assert!(!ok, "{out}");
    assert!(
        out.contains("postgres: refusing DATABASE_URL with database 'postgres'"),
        "{out}"
    );
}
