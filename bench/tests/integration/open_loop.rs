//! The open-loop generator against a server that stalls 100 ms at the start of every
//! second, and against oha's own open loop on a real app.
//!
//! The arithmetic the stall test checks: a request due `s` ms into a stall waits `100 − s`
//! ms, so the fraction of requests slower than `x` ms (for `x` < 100) is `(100 − x) / 1000`;
//! 1 % are slower than 90 ms, so p99 ≈ 90 ms, and p90 is the server's ordinary latency
//! (under a millisecond). Tolerance: 80–100 ms for p99 (the second's 1 % sits on a slope of
//! 1 ms per 0.1 % of requests, and a 2-core machine adds scheduling jitter).

use crate::common;
use bench::load::client::{Answer, Load, Pace, Workload};
use bench::load::open_loop::{self, Arrivals, OpenRun, Plan};
use bench::stack::apps;
use bench::stack::server::RunningApp;
use hdrhistogram::Histogram;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

const STALL: Duration = Duration::from_millis(100);
const BODY: &[u8] = b"stalling server\n";

/// Serves [`BODY`] on every path; a request that arrives in the first 100 ms of a second
/// (counted from the server's start) is answered when that stall ends.
fn start_stalling_server() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let started = Instant::now();
            let app = axum::Router::new().fallback(move || async move {
                let into_second =
                    Duration::from_nanos((started.elapsed().as_nanos() % 1_000_000_000) as u64);
                if into_second < STALL {
                    tokio::time::sleep(STALL - into_second).await;
                }
                BODY
            });
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            axum::serve(listener, app).await.unwrap();
        });
    });
    addr
}

/// Five seconds of `GET path` at `rate` after `warmup`, with at most `max_connections`:
/// every request accounted for, none failed, each answered with `page`.
fn five_seconds(
    addr: &str,
    path: &str,
    page: &[u8],
    rate: f64,
    warmup: Duration,
    max_connections: u32,
) -> OpenRun {
    // The warm-up's requests are sent, and left out of every count below.
    let plan = Plan {
        max_connections,
        warmup,
        ..Plan::steady(rate, Duration::from_secs(5), Arrivals::Constant)
    };
    let run = open_loop::run(addr, path, Arc::new(page.to_vec()), &plan, || ()).unwrap();
    assert_eq!(run.sent, (rate * 5.0) as u64);
    assert_eq!(run.records.len() as u64, run.sent);
    assert_eq!((run.failed, run.in_flight), (0, 0));
    assert!(run.records.iter().all(|r| r.answer == Answer::Page));
    assert!(run.records.iter().all(|r| r.connection_wait.is_some()));
    assert!(run.records.iter().all(|r| r.read_delay.is_some()));
    run
}

/// What a generator that timed each request from when it had a connection would have
/// measured (coordinated omission): latency less the send delay and the connection wait.
fn timed_from_the_send(run: &OpenRun) -> Histogram<u64> {
    let mut histogram = open_loop::new_histogram();
    for record in &run.records {
        let waited = record.send_delay + record.connection_wait.unwrap_or_default();
        histogram.saturating_record(record.latency.saturating_sub(waited).as_micros() as u64);
    }
    histogram
}

/// The latency at quantile `q`, ms.
fn ms(histogram: &Histogram<u64>, q: f64) -> f64 {
    histogram.value_at_quantile(q) as f64 / 1000.0
}

#[test]
fn the_open_loop_sees_the_stall_the_closed_loop_hides() {
    let _serial = common::serial();
    let addr = start_stalling_server();
    let rate = 1000.0;

    // Enough connections that none waits for one: the stall itself is measured.
    let run = five_seconds(&addr, "/", BODY, rate, Duration::from_secs(1), 256);
    let latencies = open_loop::histogram(&run.records);
    let send_delays = open_loop::send_delay_histogram(&run.records);
    let connection_waits = open_loop::connection_wait_histogram(&run.records);
    let (p90, p99) = (ms(&latencies, 0.90), ms(&latencies, 0.99));
    assert!((80.0..=100.0).contains(&p99), "open-loop p99 {p99} ms");
    assert!(p90 < 10.0, "open-loop p90 {p90} ms");
    // The generator keeps to its schedule while the server stalls, and reads each answer
    // as it comes: its own lateness both ways is well below the stall it measures.
    let send_delay_p99 = ms(&send_delays, 0.99);
    assert!(
        send_delay_p99 < 50.0,
        "the generator's send delay p99 {send_delay_p99} ms"
    );
    let read_delay_p99 = ms(&open_loop::read_delay_histogram(&run.records), 0.99);
    assert!(
        read_delay_p99 < 50.0,
        "the generator's read delay p99 {read_delay_p99} ms"
    );
    // With a connection to spare for every request in a stall, none waits for one.
    let connection_wait_p99 = ms(&connection_waits, 0.99);
    assert!(
        connection_wait_p99 < 10.0,
        "connection wait p99 with 256 connections {connection_wait_p99} ms"
    );

    // Four connections: requests due during the stall wait in the generator for one of
    // the four, and their latency still runs from when they fell due; the wait for a
    // connection is where that time goes, so its p99 is most of the latency's.
    let run = five_seconds(&addr, "/", BODY, rate, Duration::from_secs(1), 4);
    let connection_waits = open_loop::connection_wait_histogram(&run.records);
    let p99 = ms(&open_loop::histogram(&run.records), 0.99);
    assert!(
        (80.0..=110.0).contains(&p99),
        "open-loop p99 with 4 connections {p99} ms"
    );
    let connection_wait_p99 = ms(&connection_waits, 0.99);
    assert!(
        connection_wait_p99 > p99 / 2.0,
        "connection wait p99 with 4 connections {connection_wait_p99} ms, latency p99 {p99} ms"
    );

    // A closed loop at four connections sends only four requests into each stall.
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let workload = Workload::Read {
        path: "/".to_owned(),
        page: Arc::new(BODY.to_vec()),
    };
    let load = Load::start(&runtime, &addr, &workload, 4, Pace::Flat);
    std::thread::sleep(Duration::from_secs(5));
    let records = load.finish(&runtime);
    let mut latencies: Vec<Duration> = records.iter().map(|r| r.latency).collect();
    latencies.sort();
    let closed_p99 = latencies[latencies.len() * 99 / 100].as_secs_f64() * 1000.0;
    assert!(
        closed_p99 < p99 / 5.0,
        "closed-loop p99 {closed_p99} ms over {} requests, open-loop {p99} ms",
        records.len()
    );
}

/// oha's open loop (`-q`; with `--latency-correction` when `corrected`, its latency from
/// each request's due time, else from the send) and ours, started together on `path` for
/// five seconds, each at `rate` with up to `max_connections`: the machine's hiccups during
/// the run fall on both. Returns our run and oha's (p50, p99) in ms.
fn side_by_side(
    addr: &str,
    path: &str,
    page: &[u8],
    rate: f64,
    max_connections: u32,
    corrected: bool,
) -> (OpenRun, (f64, f64)) {
    let oha = Command::new("oha")
        .args(["--no-tui", "--output-format", "json", "-z", "5s"])
        .args(["-q", &rate.to_string()])
        .args(corrected.then_some("--latency-correction"))
        // Ours waits for the requests in flight at the end; so must oha, or a stall's
        // slowest requests would drop out of its percentiles.
        .arg("--wait-ongoing-requests-after-deadline")
        .args(["-c", &max_connections.to_string()])
        .arg(format!("http://{addr}{path}"))
        .stdout(Stdio::piped())
        .spawn()
        .expect("run oha (make tools)");
    let ours = five_seconds(addr, path, page, rate, Duration::ZERO, max_connections);
    let output = oha.wait_with_output().unwrap();
    assert!(output.status.success(), "{output:?}");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let oha_ms = |key: &str| json["latencyPercentiles"][key].as_f64().unwrap() * 1000.0;
    (ours, (oha_ms("p50"), oha_ms("p99")))
}

/// Both generators on the stalling server at 500 req/s each over four connections, where
/// correcting for coordinated omission is the whole difference: the 50 requests due in
/// each stall queue for the four connections, so only a generator that times from the due
/// time sees the stall's tail (p99 in 80–100 ms, by the arithmetic at the top of this
/// file). One that times from the send sees four slow requests a second, 0.8 % of them,
/// under its p99: the check fails for such a generator, and both are shown to.
#[test]
fn oha_and_ours_see_the_same_stall() {
    let _serial = common::serial();
    let addr = start_stalling_server();
    let (ours, oha) = side_by_side(&addr, "/", BODY, 500.0, 4, true);
    let ours_p99 = ms(&open_loop::histogram(&ours.records), 0.99);
    let ours_from_the_send = ms(&timed_from_the_send(&ours), 0.99);
    eprintln!("p99 ms: ours {ours_p99}, from the send {ours_from_the_send}; oha {oha:?}");
    assert!((80.0..=100.0).contains(&ours_p99), "our p99 {ours_p99} ms");
    assert!((80.0..=100.0).contains(&oha.1), "oha's p99 {} ms", oha.1);
    assert!(
        ours_from_the_send < 80.0,
        "timed from the send, ours would still pass: p99 {ours_from_the_send} ms"
    );
    let (_, oha_from_the_send) = side_by_side(&addr, "/", BODY, 500.0, 4, false);
    eprintln!("oha without its correction: (p50, p99) {oha_from_the_send:?} ms");
    assert!(
        oha_from_the_send.1 < 80.0,
        "oha without its correction would still pass: p99 {} ms",
        oha_from_the_send.1
    );
}

/// How far the two generators' percentiles may be apart, as a ratio: the median over five
/// runs of ours ÷ oha's within these bounds. A generator off by a fifth at p50 or a third
/// at p99 fails.
const P50_RATIO: std::ops::RangeInclusive<f64> = 0.8..=1.25;
const P99_RATIO: std::ops::RangeInclusive<f64> = 0.67..=1.5;

/// Both generators on Go's detail page at 300 req/s each (600 together, about a seventh of
/// Go's closed-loop max there: 4,119 req/s in docs/example-sweep-20261203135229), five runs
/// side by side from new connections (oha has no warm-up): the median over the runs of
/// the ratio of their p50s, and of their p99s, within [`P50_RATIO`] and [`P99_RATIO`]. Run
/// one after the other instead, a run's p99 (its 15th-slowest request) swings with the
/// moment: in one CI run on the 2-core machine, ours ranged 3.4–20.3 ms and oha's
/// 5.5–11.2 ms over five runs each. Side by side, both see the same moment.
#[test]
fn the_open_loop_agrees_with_oha() {
    let _serial = common::serial();
    let go = RunningApp::start(&apps::find(apps::GO).unwrap(), &[]).unwrap();
    let path = bench::routes::path("detail").unwrap();
    let page = ureq::get(&go.url(path))
        .call()
        .unwrap()
        .body_mut()
        .read_to_vec()
        .unwrap();
    let rate = 300.0;
    let addr = format!("127.0.0.1:{}", go.port);
    let connections = 64;
    // Warms the app's pool and code paths.
    five_seconds(&addr, path, &page, 2.0 * rate, Duration::ZERO, connections);
    let runs: Vec<((f64, f64), (f64, f64))> = (0..5)
        .map(|_| {
            let (ours, oha) = side_by_side(&addr, path, &page, rate, connections, true);
            let latencies = open_loop::histogram(&ours.records);
            ((ms(&latencies, 0.50), ms(&latencies, 0.99)), oha)
        })
        .collect();
    eprintln!("((p50, p99) ours, (p50, p99) oha) ms: {runs:?}");
    let median_ratio = |pick: fn(&(f64, f64)) -> f64| {
        let mut ratios: Vec<f64> = runs
            .iter()
            .map(|(ours, oha)| pick(ours) / pick(oha))
            .collect();
        ratios.sort_by(f64::total_cmp);
        ratios[ratios.len() / 2]
    };
    let (p50, p99) = (median_ratio(|r| r.0), median_ratio(|r| r.1));
    assert!(
        P50_RATIO.contains(&p50),
        "median p50 ratio, ours ÷ oha: {p50}"
    );
    assert!(
        P99_RATIO.contains(&p99),
        "median p99 ratio, ours ÷ oha: {p99}"
    );
}
