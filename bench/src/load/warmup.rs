//! The start-up warm-up an app's manifest may ask for (`[settings] warmup`, apps/README.md).
//! A runtime that compiles as it runs (the JVM's JIT) reaches its steady speed only after
//! tens of seconds of load, which a run's own few seconds of warm-up do not give. So after
//! such an app starts and passes its parity gate, and before its first measured run, it is
//! loaded that long by the harness's closed-loop client, the time shared among the measured
//! routes that read, one after the other, so that each one's code is compiled before it is
//! measured. The routes that write get their runs' own warm-ups only: their request path is
//! the form's and one transaction, on the code the pages use.
//!
//! The right answers of each second are kept: the warm-up is also the curve that shows
//! whether it was long enough.

use super::client::{self, Answer, Load, Pace, Workload};
use crate::results::StartUpWarmup;
use crate::routes;
use crate::stack::server::RunningApp;
use anyhow::{Context, Result};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// Loads `running` for `warmup` in all, on each route of `routes` that reads in turn (the
/// home page when none does), with `connections` clients on `threads` threads; each part's
/// requests go to `<raw_stem>-<route>.csv`.
pub fn after_start(
    running: &RunningApp,
    warmup: Duration,
    routes: &[String],
    connections: u32,
    threads: usize,
    round: u32,
    raw_stem: &Path,
) -> Result<Vec<StartUpWarmup>> {
    let mut reads: Vec<&str> = routes
        .iter()
        .map(String::as_str)
        .filter(|route| !routes::writes(route))
        .collect();
    if reads.is_empty() {
        reads.push("home");
    }
    let share = Duration::from_secs((warmup.as_secs() / reads.len() as u64).max(1));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads.max(1))
        .enable_all()
        .build()?;
    let addr = format!("127.0.0.1:{}", running.port);
    let mut parts = Vec::new();
    for route in reads {
        let path = routes::path(route).with_context(|| format!("unknown route {route}"))?;
        // The page as this app serves it (its parity gate has just passed); for a cached
        // route this also stores it.
        let url = running.url(path);
        let page = ureq::get(&url)
            .call()
            .with_context(|| format!("GET {url}"))?
            .body_mut()
            .read_to_vec()?;
        let workload = Workload::Read {
            path: path.to_owned(),
            page: Arc::new(page),
        };
        let load = Load::start(&runtime, &addr, &workload, connections, Pace::Flat);
        std::thread::sleep(share);
        let records = load.finish(&runtime);
        let raw = format!("{}-{route}.csv", raw_stem.display());
        std::fs::write(&raw, client::records_csv(&records))?;
        parts.push(StartUpWarmup {
            round,
            route: route.to_owned(),
            right_per_sec: right_answers_per_second(&records, share),
        });
    }
    Ok(parts)
}

/// The right answers finished in each whole second of a part `length` long; the requests
/// still in flight at its end finish after it and are left out.
fn right_answers_per_second(records: &[client::Record], length: Duration) -> Vec<u32> {
    let mut per_sec = vec![0u32; length.as_secs() as usize];
    for record in records.iter().filter(|r| r.answer == Answer::Page) {
        if let Some(second) = per_sec.get_mut(record.done().as_secs() as usize) {
            *second += 1;
        }
    }
    per_sec
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::client::Record;

    #[test]
    fn right_answers_are_counted_in_the_second_they_finished() {
        let record = |sent_ms: u64, latency_ms: u64, answer: Answer| Record {
            client: 0,
            sent: Duration::from_millis(sent_ms),
            latency: Duration::from_millis(latency_ms),
            answer,
            comment: None,
        };
        let records = [
            record(0, 10, Answer::Page),
            record(990, 20, Answer::Page),
            record(1500, 10, Answer::Status(503)),
            record(1990, 30, Answer::Page),
        ];
        assert_eq!(
            right_answers_per_second(&records, Duration::from_secs(2)),
            [1, 1],
            "the 503 is not counted; the last finished after the part"
        );
    }
}
