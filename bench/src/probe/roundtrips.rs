//! Statements and PostgreSQL round trips per page and per stored comment, counted at the
//! protocol level: the app talks to Postgres through a counting [`Relay`], requests are sent
//! one at a time after a warm-up (pool filled, statements prepared), and the counts are
//! divided by the requests. The comments posted are removed afterwards.

use crate::probe::relay::Relay;
use crate::stack::apps::App;
use crate::stack::server::{RunningApp, http_agent};
use crate::stack::services;
use anyhow::{Result, ensure};
use std::time::Duration;

/// The pages measured, with a path each; `comment` is a POST to that path.
pub const PAGES: [(&str, &str); 5] = [
    ("home", "/"),
    (
        "detail",
        "/posts/tom-jerry-s-c-notes-on-na-ve-caf-benchmarks-1000",
    ),
    ("tag", "/tags/rust"),
    ("cached home (hit)", "/cached/"),
    (
        "comment",
        "/posts/tom-jerry-s-c-notes-on-na-ve-caf-benchmarks-1000/comments",
    ),
];

const WARM_UP: u32 = 30;
const MAX_ATTEMPTS: u32 = 5;

#[derive(Debug, Clone)]
pub struct PageCount {
    pub page: &'static str,
    pub statements: f64,
    /// Excluding connection start-up.
    pub round_trips: f64,
    /// The pool's liveness checks (a bare `Sync`), whether or not they shared a round trip.
    pub pings: f64,
    /// New PostgreSQL connections opened during the measured block (0 unless the pool kept
    /// growing for all attempts).
    pub connections_opened: u64,
}

/// Measures every page of [`PAGES`] for `app`, `requests` requests each; `env` is added to
/// the app's environment.
pub fn measure(app: &App, env: &[(&str, &str)], requests: u32) -> Result<Vec<PageCount>> {
    let database_url = services::database_url();
    let relay = Relay::start_postgres(services::host_port(&database_url))?;
    let url = services::with_host_port(&database_url, &relay.addr.to_string());
    let mut app_env = vec![("DATABASE_URL", url.as_str())];
    app_env.extend_from_slice(env);
    let _writing = services::lock_comments()?;
    let running = RunningApp::start(app, &app_env)?;
    let agent = http_agent(Duration::from_secs(10));
    let get = |path: &str| -> Result<()> {
        let (response, wanted) = match path.ends_with("/comments") {
            true => (
                agent
                    .post(&running.url(path))
                    .header("content-type", workload::comment::FORM_CONTENT_TYPE)
                    .send(&b"author_name=roundtrips&body=counted"[..])?,
                303,
            ),
            false => (agent.get(&running.url(path)).call()?, 200),
        };
        ensure!(
            response.status() == wanted,
            "{} {path}: status {}",
            app.name,
            response.status()
        );
        Ok(())
    };
    let counts = PAGES
        .iter()
        .map(|&(page, path)| {
            for _ in 0..WARM_UP {
                get(path)?;
            }
            // A pool that opens a connection mid-measurement adds its start-up and statement
            // preparation; measure again until a whole block ran on warm connections.
            let mut attempts = 0;
            let counts = loop {
                std::thread::sleep(Duration::from_millis(200));
                relay.reset_counts();
                for _ in 0..requests {
                    get(path)?;
                }
                // The release ping of the last request may still be on its way.
                std::thread::sleep(Duration::from_millis(100));
                attempts += 1;
                let counts = relay.postgres_counts();
                if counts.connections == 0 || attempts == MAX_ATTEMPTS {
                    break counts;
                }
            };
            Ok(PageCount {
                page,
                statements: counts.statements as f64 / f64::from(requests),
                round_trips: counts.round_trips as f64 / f64::from(requests),
                pings: counts.pings as f64 / f64::from(requests),
                connections_opened: counts.connections,
            })
        })
        .collect();
    services::reset_comments()?;
    counts
}
