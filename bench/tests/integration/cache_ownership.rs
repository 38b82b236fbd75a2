//! Switching apps with `blogbench run` (what `make up` runs) never serves another app's
//! cached page (docs/spec.md §3.5): Cot stores JSON-encoded values under the keys every app
//! reads, and the Go reference started after it must still serve its own pages.

use crate::common;
use redis::Commands;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

struct Foreground(Child);

impl Drop for Foreground {
    fn drop(&mut self) {
        // SAFETY: kill(2) on our own child's pid has no memory effects.
        unsafe { libc::kill(self.0.id() as libc::pid_t, libc::SIGTERM) };
        let _ = self.0.wait();
    }
}

/// `blogbench run --app <app>` on a free port, once it answers.
fn run(app: &str) -> (Foreground, String) {
    let port = bench::stack::server::free_port().unwrap();
    let bind = format!("127.0.0.1:{port}");
    let child = Command::new(env!("CARGO_BIN_EXE_blogbench"))
        .args(["run", "--app", app, "--bind", &bind])
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("run blogbench run");
    let started = Instant::now();
    while std::net::TcpStream::connect(&bind).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{app} did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    (Foreground(child), format!("http://{bind}"))
}

fn get(url: &str) -> (u16, String) {
    let mut response = ureq::get(url).call().expect("GET");
    (
        response.status().as_u16(),
        response.body_mut().read_to_string().unwrap(),
    )
}

#[test]
fn an_app_started_after_cot_serves_its_own_cached_pages() {
    let _serial = common::serial();
    let post = format!("/posts/{}", bench::routes::DETAIL_SLUG);
    {
        let (_cot, base) = run("cot");
        assert_eq!(get(&format!("{base}/cached/")).0, 200);
        assert_eq!(get(&format!("{base}/cached{post}")).0, 200);
    }
    let mut redis = redis::Client::open(bench::stack::services::redis_url())
        .and_then(|c| c.get_connection())
        .expect("redis: run `make services`");
    let stored: Option<String> = redis.get("page:/").unwrap();
    let (_go, base) = run("go");
    let (_, home) = get(&format!("{base}/"));
    // Cot's value is not a page: without the sweep, Go would serve it as one.
    assert!(
        stored.as_ref().is_some_and(|value| *value != home),
        "Cot stored no value under page:/, or one Go can serve: {stored:?}"
    );
    assert_eq!(get(&format!("{base}/cached/")), (200, home));
    assert_eq!(
        get(&format!("{base}/cached{post}")),
        get(&format!("{base}{post}"))
    );
}
