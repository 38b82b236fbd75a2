//! What an app costs at rest: the time from its process's start to the first 200 on `/`
//! (the services up, the data loaded: the home page reads PostgreSQL), and its process
//! tree's resident memory shortly after, over several starts.

use crate::results::idioms::StartUp;
use crate::stack::apps::App;
use crate::stack::processes;
use crate::stack::server::{RunningApp, http_agent};
use anyhow::{Result, bail};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How long after its first 200 an app's memory is read: long enough for what start-up
/// set in motion to settle, short enough to be at rest.
pub const IDLE_AFTER: Duration = Duration::from_secs(1);

/// An app that answers nothing but errors this long after it listens has not started.
const FIRST_OK_TIMEOUT: Duration = Duration::from_secs(30);

/// `starts` starts of `app` with `env`, each on a free loopback port, stopped after.
pub fn start_up(
    app: &App,
    env: &[(&str, &str)],
    starts: u32,
    interrupted: &AtomicBool,
) -> Result<StartUp> {
    // An app installed by its manifest's command is installed here when stale, not inside
    // the first start's time (starting installs a stale app).
    app.ensure_built()?;
    let agent = http_agent(Duration::from_secs(5));
    let mut measured = StartUp {
        runs_ms: Vec::new(),
        idle_rss_mib: Vec::new(),
    };
    for _ in 0..starts {
        if interrupted.load(Ordering::SeqCst) {
            bail!("interrupted");
        }
        let started = Instant::now();
        let running = RunningApp::start(app, env)?;
        let listening = Instant::now();
        let url = running.url("/");
        loop {
            let status = agent.get(&url).call().map(|r| r.status().as_u16());
            if status.as_ref().is_ok_and(|s| *s == 200) {
                break;
            }
            if listening.elapsed() > FIRST_OK_TIMEOUT {
                bail!(
                    "{}: no 200 on / within {FIRST_OK_TIMEOUT:?} of listening (last: {status:?}):\n{}",
                    app.name,
                    running.log_tail()
                );
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        measured
            .runs_ms
            .push(started.elapsed().as_secs_f64() * 1000.0);
        std::thread::sleep(IDLE_AFTER);
        let rss = processes::tree_rss_bytes(running.pid());
        measured.idle_rss_mib.push(rss as f64 / 1024.0 / 1024.0);
        running.stop();
    }
    Ok(measured)
}
