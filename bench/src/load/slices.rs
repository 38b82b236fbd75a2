//! Two running apps measured in turn on one read route (docs/spec.md §5.5): the harness's
//! closed-loop client keeps its connections to both open and moves the load between them in
//! short slices, in a balanced order, so what drifts over seconds falls on both sides alike.
//!
//! The edge rule: a connection sends only while its slice runs; when the slice ends, no new
//! request starts and the ones in flight are answered before the next slice starts, so the
//! two apps never share the machine. Each connection is busy from its first send in a slice
//! to its last answer, so its rate there is its right answers over that span, and the
//! slice's rate is the sum over connections: no part of a slice's edges counts as idle time.

use super::client::{self, Answer, REQUEST_TIMEOUT, Record, Sender, Step};
use super::loadgen::LoadRun;
use crate::results::PairSide;
use crate::stack::processes::{clock_ticks, pids_named, process_tree, stat};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The slice length unless `--slice` says otherwise: the one that gave the narrowest
/// intervals in the A/A check of docs/spec.md §5.5.
pub const DEFAULT_SLICE: Duration = Duration::from_millis(250);

/// How one sliced measurement runs.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    pub connections: u32,
    /// The length of every slice, warm-up slices too.
    pub slice: Duration,
    /// Counted slices per side.
    pub slices: u32,
    /// Uncounted slices per side before them, alternating sides.
    pub warmup_slices: u32,
    /// Which side the first counted block starts with.
    pub pacer_first: bool,
}

/// One side of the pair: where it listens and its process.
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub addr: String,
    pub pid: u32,
}

/// What one side got over its counted slices.
#[derive(Debug, Clone, Default)]
pub struct SideResult {
    /// Every request of its counted slices summarised as a load generator's run; its
    /// `requests_per_sec` is the mean of its slices' rates.
    pub load: LoadRun,
    /// Each counted slice's rate, in order.
    pub rates: Vec<f64>,
    /// Its process tree's CPU, and PostgreSQL's and Redis's, over its counted slices (from
    /// each slice's start to its last answer), in percent of one CPU.
    pub app_cpu_percent: f64,
    pub postgres_cpu_percent: f64,
    pub redis_cpu_percent: f64,
}

/// The result of a sliced measurement: the app's side and the pacer's, and the order the
/// counted slices ran in (`A` the app, `P` the pacer).
#[derive(Debug, Clone, Default)]
pub struct Sliced {
    pub app: SideResult,
    pub pacer: SideResult,
    pub order: String,
}

/// The sides in order: first the warm-up's, alternating, then the counted slices' in blocks
/// of one slice per side, each block in the reverse order of the one before (A P P A A P …).
/// Both start with the pacer when `pacer_first`. Over an even number of counted slices per
/// side each side runs first in a block, and in each place of a block, as often as the other,
/// so a linear drift adds to both sides alike; while the other side warms up, neither side's
/// connections sit idle longer than one slice.
pub fn order(plan: &Plan) -> (Vec<PairSide>, Vec<PairSide>) {
    let (first, second) = match plan.pacer_first {
        true => (PairSide::Pacer, PairSide::App),
        false => (PairSide::App, PairSide::Pacer),
    };
    let warmup = (0..plan.warmup_slices)
        .flat_map(|_| [first, second])
        .collect();
    let counted = (0..plan.slices)
        .flat_map(|block| match block % 2 {
            0 => [first, second],
            _ => [second, first],
        })
        .collect();
    (warmup, counted)
}

/// The order's letters: `A` the app, `P` the pacer.
pub fn letters(order: &[PairSide]) -> String {
    order
        .iter()
        .map(|side| match side {
            PairSide::App => 'A',
            PairSide::Pacer => 'P',
        })
        .collect()
}

/// The client's state, shared by its connections: which slice runs (`HOLD` between slices,
/// `DONE` at the end), and how many requests are out. Both are read and written in one
/// total order (SeqCst): a connection counts its request before it checks the slice, so the
/// harness, which ends a slice and then waits for none in flight, never sees a request
/// start after the slice it belongs to ended.
struct Control {
    state: AtomicU64,
    in_flight: AtomicUsize,
    connected: AtomicUsize,
    /// Wakes the connections when `state` changes.
    changed: tokio::sync::watch::Sender<u64>,
}

const HOLD: u64 = 0;
const DONE: u64 = u64::MAX;

/// The state while slice `index` of the whole order runs.
fn running(index: usize) -> u64 {
    index as u64 + 1
}

impl Control {
    fn set(&self, state: u64) {
        self.state.store(state, Ordering::SeqCst);
        self.changed.send_replace(state);
    }
}

/// One request of a slice; times from the measurement's start.
#[derive(Debug, Clone, Copy)]
struct SliceRecord {
    connection: u32,
    slice: usize,
    sent: Duration,
    done: Duration,
    answer: Answer,
}

/// A slice's rate by the edge rule (module docs): per connection, right answers over the
/// time from its first send to its last answer, summed.
fn slice_rate(records: &[SliceRecord]) -> f64 {
    let mut spans: std::collections::BTreeMap<u32, (Duration, Duration, u64)> = Default::default();
    for record in records {
        let span = spans
            .entry(record.connection)
            .or_insert((record.sent, record.done, 0));
        span.0 = span.0.min(record.sent);
        span.1 = span.1.max(record.done);
        span.2 += u64::from(record.answer == Answer::Page);
    }
    spans
        .values()
        .map(|(first_sent, last_done, right)| {
            *right as f64 / (*last_done - *first_sent).as_secs_f64().max(1e-9)
        })
        .sum()
}

/// The processes whose CPU a sliced measurement reads: the app's tree, the pacer's,
/// PostgreSQL's and Redis's. Listed once the warm-up has opened the apps' pools, since
/// listing them means reading every process of the machine, too slow to repeat per slice.
fn cpu_groups(endpoints: &[Endpoint; 2]) -> [Vec<u32>; 4] {
    [
        process_tree(endpoints[0].pid),
        process_tree(endpoints[1].pid),
        pids_named("postgres"),
        pids_named("redis-server"),
    ]
}

/// The CPU ticks of each of `groups`, read between slices (when no request is out).
fn cpu_ticks(groups: &[Vec<u32>; 4]) -> [u64; 4] {
    groups
        .each_ref()
        .map(|pids| pids.iter().filter_map(|&p| stat(p)).map(|s| s.ticks).sum())
}

/// Measures `endpoints` (the app's, then the pacer's) on `path`, every answer checked against
/// `page`, by `plan`, on `runtime`.
pub fn measure(
    runtime: &tokio::runtime::Runtime,
    endpoints: [Endpoint; 2],
    path: &str,
    page: Arc<Vec<u8>>,
    plan: Plan,
) -> Sliced {
    let (mut order, counted) = self::order(&plan);
    let warmup_slices = order.len();
    order.extend(&counted);
    let order = Arc::new(order);
    let endpoints = Arc::new(endpoints);
    let (changed, _) = tokio::sync::watch::channel(HOLD);
    let control = Arc::new(Control {
        state: AtomicU64::new(HOLD),
        in_flight: AtomicUsize::new(0),
        connected: AtomicUsize::new(0),
        changed,
    });
    let origin = Instant::now();
    let connections: Vec<_> = (0..plan.connections)
        .map(|index| {
            let connection = Connection {
                index,
                endpoints: Arc::clone(&endpoints),
                path: path.to_owned(),
                page: Arc::clone(&page),
                order: Arc::clone(&order),
                control: Arc::clone(&control),
                origin,
            };
            runtime.spawn(connection.run())
        })
        .collect();
    // (slice, wall time from its start to its last answer, CPU ticks over it)
    let mut spans: Vec<(usize, Duration, [u64; 4])> = Vec::new();
    runtime.block_on(async {
        let connecting = Instant::now();
        while control.connected.load(Ordering::SeqCst) < plan.connections as usize
            && connecting.elapsed() < REQUEST_TIMEOUT
        {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        let mut groups = cpu_groups(&endpoints);
        for index in 0..order.len() {
            if index == warmup_slices {
                groups = cpu_groups(&endpoints);
            }
            let before = cpu_ticks(&groups);
            let started = Instant::now();
            control.set(running(index));
            tokio::time::sleep(plan.slice).await;
            control.set(HOLD);
            while control.in_flight.load(Ordering::SeqCst) > 0 {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            let wall = started.elapsed();
            let after = cpu_ticks(&groups);
            // A process that exited took its ticks with it.
            let used = std::array::from_fn(|i| after[i].saturating_sub(before[i]));
            spans.push((index, wall, used));
        }
        control.set(DONE);
    });
    let mut records: Vec<SliceRecord> = runtime.block_on(async {
        let mut all = Vec::new();
        for connection in connections {
            all.extend(connection.await.unwrap_or_default());
        }
        all
    });
    records.retain(|r| r.slice >= warmup_slices);
    records.sort_by_key(|r| (r.slice, r.sent));
    let side = |side: PairSide| -> SideResult {
        let slices: Vec<usize> = (warmup_slices..order.len())
            .filter(|&i| order[i] == side)
            .collect();
        let rates: Vec<f64> = slices
            .iter()
            .map(|&slice| {
                let start = records.partition_point(|r| r.slice < slice);
                let end = records.partition_point(|r| r.slice <= slice);
                slice_rate(&records[start..end])
            })
            .collect();
        let side_records: Vec<Record> = records
            .iter()
            .filter(|r| order[r.slice] == side)
            .map(|r| Record {
                client: r.connection,
                sent: r.sent,
                latency: r.done - r.sent,
                answer: r.answer,
                comment: None,
            })
            .collect();
        let mut load = client::summarise(&side_records, &[]);
        load.requests_per_sec = rates.iter().sum::<f64>() / rates.len().max(1) as f64;
        let (wall, ticks) = spans
            .iter()
            .filter(|(slice, _, _)| slices.contains(slice))
            .fold((0.0, [0u64; 4]), |(wall, ticks), (_, span, delta)| {
                (
                    wall + span.as_secs_f64(),
                    std::array::from_fn(|i| ticks[i] + delta[i]),
                )
            });
        let percent = |ticks: u64| ticks as f64 / clock_ticks() / wall.max(1e-9) * 100.0;
        let own = match side {
            PairSide::App => 0,
            PairSide::Pacer => 1,
        };
        SideResult {
            load,
            rates,
            app_cpu_percent: percent(ticks[own]),
            postgres_cpu_percent: percent(ticks[2]),
            redis_cpu_percent: percent(ticks[3]),
        }
    };
    Sliced {
        app: side(PairSide::App),
        pacer: side(PairSide::Pacer),
        order: letters(&counted),
    }
}

/// One of the client's connections: a keep-alive connection to each side, kept for the
/// whole measurement (opened again only when a side closed it).
struct Connection {
    index: u32,
    endpoints: Arc<[Endpoint; 2]>,
    path: String,
    page: Arc<Vec<u8>>,
    order: Arc<Vec<PairSide>>,
    control: Arc<Control>,
    origin: Instant,
}

impl Connection {
    async fn run(self) -> Vec<SliceRecord> {
        let hosts: [hyper::header::HeaderValue; 2] = std::array::from_fn(|side| {
            hyper::header::HeaderValue::from_str(&self.endpoints[side].addr).expect("a host:port")
        });
        let mut senders: [Option<Sender>; 2] = [
            client::connect(&self.endpoints[0].addr).await,
            client::connect(&self.endpoints[1].addr).await,
        ];
        self.control.connected.fetch_add(1, Ordering::SeqCst);
        let mut changed = self.control.changed.subscribe();
        let step = Step::Read {
            path: &self.path,
            page: &self.page,
        };
        let mut records = Vec::new();
        loop {
            let Ok(state) = changed.wait_for(|state| *state != HOLD).await.map(|s| *s) else {
                break;
            };
            if state == DONE {
                break;
            }
            self.control.in_flight.fetch_add(1, Ordering::SeqCst);
            if self.control.state.load(Ordering::SeqCst) != state {
                // The slice ended (or the next began) after the wake-up: look again.
                self.control.in_flight.fetch_sub(1, Ordering::SeqCst);
                tokio::task::yield_now().await;
                continue;
            }
            let slice = (state - 1) as usize;
            let side = match self.order[slice] {
                PairSide::App => 0,
                PairSide::Pacer => 1,
            };
            let sent = self.origin.elapsed();
            let answer = tokio::time::timeout(
                REQUEST_TIMEOUT,
                request(
                    &self.endpoints[side].addr,
                    &hosts[side],
                    &mut senders[side],
                    &step,
                ),
            )
            .await
            .unwrap_or(Answer::Timeout);
            let done = self.origin.elapsed();
            self.control.in_flight.fetch_sub(1, Ordering::SeqCst);
            if answer.unanswered() {
                senders[side] = None;
            }
            records.push(SliceRecord {
                connection: self.index,
                slice,
                sent,
                done,
                answer,
            });
        }
        records
    }
}

/// `step` on `sender`, opening it again first when the side closed it while idle.
async fn request(
    addr: &str,
    host: &hyper::header::HeaderValue,
    sender: &mut Option<Sender>,
    step: &Step<'_>,
) -> Answer {
    if sender.as_ref().is_none_or(|s| s.is_closed()) {
        *sender = client::connect(addr).await;
    }
    match sender.as_mut() {
        Some(open) => client::exchange(open, host, step).await,
        None => Answer::ConnectError,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::Full;
    use hyper::body::Bytes;
    use hyper::server::conn::http1;
    use hyper::service::service_fn;
    use hyper_util::rt::TokioIo;
    use std::sync::Mutex;

    #[test]
    fn the_counted_slices_alternate_in_reversed_blocks_after_an_alternating_warm_up() {
        let plan = |slices, warmup_slices, pacer_first| Plan {
            connections: 1,
            slice: Duration::from_secs(1),
            slices,
            warmup_slices,
            pacer_first,
        };
        let (warmup, counted) = order(&plan(4, 2, false));
        assert_eq!(letters(&warmup), "APAP");
        assert_eq!(letters(&counted), "APPAAPPA");
        let (warmup, counted) = order(&plan(3, 1, true));
        assert_eq!(letters(&warmup), "PA");
        assert_eq!(letters(&counted), "PAAPPA");
        // Each side's mean place in the counted order is the same: a linear drift cancels.
        let (_, counted) = order(&plan(6, 0, false));
        let mean_place = |side| {
            let places: Vec<usize> = (0..counted.len()).filter(|&i| counted[i] == side).collect();
            places.iter().sum::<usize>() as f64 / places.len() as f64
        };
        assert_eq!(mean_place(PairSide::App), mean_place(PairSide::Pacer));
    }

    fn record(connection: u32, sent_ms: u64, done_ms: u64, answer: Answer) -> SliceRecord {
        SliceRecord {
            connection,
            slice: 0,
            sent: Duration::from_millis(sent_ms),
            done: Duration::from_millis(done_ms),
            answer,
        }
    }

    #[test]
    fn a_slice_s_rate_sums_each_connection_s_right_answers_over_its_busy_span() {
        let records = [
            // Connection 0: 4 answers in 0.4 s, one of them wrong: 3 right ones, 7.5/s.
            record(0, 0, 100, Answer::Page),
            record(0, 100, 200, Answer::Page),
            record(0, 200, 300, Answer::WrongBody),
            record(0, 300, 400, Answer::Page),
            // Connection 1, started late and answered slowly: 2 in 0.5 s, 4/s.
            record(1, 50, 300, Answer::Page),
            record(1, 300, 550, Answer::Page),
        ];
        assert!((slice_rate(&records) - 11.5).abs() < 1e-9);
        assert_eq!(slice_rate(&[]), 0.0);
    }

    /// A server on loopback that answers `BODY` after `delay(n)`, `n` the connection's place
    /// in accept order; it keeps every request's start and end, and counts its connections.
    struct DelayedServer {
        addr: String,
        served: Arc<Mutex<Vec<(Instant, Instant)>>>,
        accepted: Arc<AtomicUsize>,
    }

    const BODY: &[u8] = b"<p>the page</p>";

    impl DelayedServer {
        fn start(runtime: &tokio::runtime::Runtime, delay: fn(usize) -> Duration) -> Self {
            let listener = runtime
                .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
                .unwrap();
            let addr = listener.local_addr().unwrap().to_string();
            let served = Arc::new(Mutex::new(Vec::new()));
            let accepted = Arc::new(AtomicUsize::new(0));
            let (log, count) = (Arc::clone(&served), Arc::clone(&accepted));
            runtime.spawn(async move {
                loop {
                    let (stream, _) = listener.accept().await.unwrap();
                    let place = count.fetch_add(1, Ordering::SeqCst);
                    let log = Arc::clone(&log);
                    tokio::spawn(async move {
                        let service = service_fn(move |_request| {
                            let log = Arc::clone(&log);
                            async move {
                                let started = Instant::now();
                                tokio::time::sleep(delay(place)).await;
                                log.lock().unwrap().push((started, Instant::now()));
                                Ok::<_, hyper::Error>(hyper::Response::new(Full::new(
                                    Bytes::from_static(BODY),
                                )))
                            }
                        });
                        let _ = http1::Builder::new()
                            .serve_connection(TokioIo::new(stream), service)
                            .await;
                    });
                }
            });
            DelayedServer {
                addr,
                served,
                accepted,
            }
        }
    }

    /// Two servers on loopback, one answering every request after 100 ms and one whose odd
    /// connections take 200 ms: with 4 connections, 40 and 30 answers a second. A 0.65 s
    /// slice is not a whole number of either delay, so a rule that counted a slice's edges as
    /// idle (answers ÷ the time to the last answer, or answers before the slice's end ÷ its
    /// length) would read them 7–8 % low.
    #[test]
    fn each_side_is_measured_at_its_own_rate_and_never_while_the_other_is_loaded() {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let app = DelayedServer::start(&runtime, |_| Duration::from_millis(100));
        let pacer = DelayedServer::start(&runtime, |place| {
            Duration::from_millis(if place % 2 == 1 { 200 } else { 100 })
        });
        let endpoint = |server: &DelayedServer| Endpoint {
            addr: server.addr.clone(),
            pid: std::process::id(),
        };
        let plan = Plan {
            connections: 4,
            slice: Duration::from_millis(650),
            slices: 1,
            warmup_slices: 0,
            pacer_first: false,
        };
        let sliced = measure(
            &runtime,
            [endpoint(&app), endpoint(&pacer)],
            "/",
            Arc::new(BODY.to_vec()),
            plan,
        );
        assert_eq!(sliced.order, "AP");
        let (app_rate, pacer_rate) = (sliced.app.rates[0], sliced.pacer.rates[0]);
        // Each request takes its delay and at most 5 ms more on a busy machine.
        assert!((38.0..=40.0).contains(&app_rate), "app {app_rate}/s");
        assert!(
            (2.0 / 0.205 + 2.0 / 0.105..=30.0).contains(&pacer_rate),
            "pacer {pacer_rate}/s"
        );
        assert_eq!(sliced.app.load.requests_per_sec, app_rate);
        for side in [&sliced.app, &sliced.pacer] {
            assert_eq!(side.load.status_codes.keys().collect::<Vec<_>>(), ["200"]);
            assert!(side.load.errors.is_empty());
            assert_eq!(side.load.wrong_length, Some(0));
        }
        // Both servers kept the client's 4 connections for the whole measurement.
        for server in [&app, &pacer] {
            assert_eq!(server.accepted.load(Ordering::SeqCst), 4);
        }
        let last_app_end = app.served.lock().unwrap().iter().map(|r| r.1).max();
        let first_pacer_start = pacer.served.lock().unwrap().iter().map(|r| r.0).min();
        assert!(last_app_end.unwrap() <= first_pacer_start.unwrap());
    }
}

/// docs/spec.md §5.5's table of slice lengths, read back from its A/A batches.
#[cfg(test)]
mod example {
    use crate::results::{Batch, RouteResult, example_file};
    use crate::statistics::RatioInterval;

    const FOLDER: &str = "example-slice-lengths-20261207";

    fn log_spread(values: &[f64]) -> f64 {
        let logs: Vec<f64> = values.iter().map(|v| v.ln()).collect();
        let mean = logs.iter().sum::<f64>() / logs.len() as f64;
        let squares: f64 = logs.iter().map(|l| (l - mean).powi(2)).sum();
        (squares / (logs.len() - 1) as f64).sqrt()
    }

    /// Each block's app slice over its pacer slice, every round.
    fn slice_pairs(route: &RouteResult) -> Vec<f64> {
        route
            .slices
            .iter()
            .flat_map(|round| {
                let sides: Vec<char> = round.order.chars().collect();
                (0..sides.len())
                    .step_by(2)
                    .map(|i| match sides[i] {
                        'A' => round.rates[i] / round.rates[i + 1],
                        _ => round.rates[i + 1] / round.rates[i],
                    })
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// One row of the table as the batch gives it.
    fn row(folder: &str, label: &str) -> String {
        let batch = Batch::load(&example_file(&format!("{FOLDER}/{folder}/results.json"))).unwrap();
        let routes = &batch.apps[0].routes;
        let route = |name: &str| routes.iter().find(|r| r.route == name).unwrap();
        let (detail, home) = (route("detail"), route("home"));
        let cells: Vec<String> = [detail, home]
            .iter()
            .map(|r| format!("{:.3}", log_spread(&r.ratios_to_pacer())))
            .chain([detail, home].iter().map(|r| {
                let interval = RatioInterval::of(&r.ratios_to_pacer()).unwrap();
                assert_eq!(interval.rounds, 8);
                format!("±{:.1} %", interval.relative_half_width() * 100.0)
            }))
            .chain([detail, home].iter().map(|r| match r.slices.is_empty() {
                true => "—".to_owned(),
                false => format!("{:.3}", log_spread(&slice_pairs(r))),
            }))
            .collect();
        format!("   | {label} | {} |", cells.join(" | "))
    }

    /// docs/benchmark.md's sentences on docs/example-null-check-20261207034728.
    #[test]
    fn the_sliced_null_check_as_the_docs_give_it() {
        use crate::report::verdicts::{NullCheck, of};
        let batch = Batch::load(&example_file(
            "example-null-check-20261207034728/results.json",
        ))
        .unwrap();
        assert_eq!(batch.settings.slice_secs, Some(0.25));
        let verdicts = of(&batch, &batch.settings.routes);
        assert_eq!(
            NullCheck::of(&batch, &verdicts),
            Some(NullCheck {
                intervals: 9,
                excluding_one: 0,
                pairs: 9,
                told_apart: 0
            })
        );
        let cells: Vec<(&str, &RouteResult)> = batch
            .apps
            .iter()
            .flat_map(|app| app.routes.iter().map(move |r| (app.name.as_str(), r)))
            .collect();
        let half_widths: Vec<f64> = cells
            .iter()
            .map(|(_, r)| {
                let interval = RatioInterval::of(&r.ratios_to_pacer()).unwrap();
                assert_eq!(interval.rounds, 10);
                interval.relative_half_width()
            })
            .collect();
        let percent = |x: f64| (x * 1000.0).round() / 10.0;
        let least = half_widths.iter().copied().fold(f64::MAX, f64::min);
        let most = half_widths.iter().copied().fold(0.0, f64::max);
        assert_eq!([percent(least), percent(most)], [2.1, 4.1]);
        assert_eq!(half_widths.iter().filter(|h| **h <= 0.03).count(), 4);
        let widest = cells[half_widths.iter().position(|h| *h == most).unwrap()];
        assert_eq!((widest.0, widest.1.route.as_str()), ("go", "detail"));
        let rounds = |r: &RouteResult| log_spread(&r.ratios_to_pacer());
        assert_eq!((rounds(widest.1) * 1000.0).round(), 57.0);
        let pairs: Vec<f64> = cells
            .iter()
            .map(|(_, r)| log_spread(&slice_pairs(r)))
            .collect();
        assert!(pairs.iter().all(|s| (0.13..0.17).contains(s)), "{pairs:?}");
        let wide_rounds: Vec<f64> = cells
            .iter()
            .map(|(_, r)| rounds(r))
            .filter(|s| *s >= 0.05)
            .collect();
        assert_eq!(wide_rounds.len(), 5, "{wide_rounds:?}");
        assert!(wide_rounds.iter().all(|s| *s < 0.06));
    }

    /// docs/benchmark.md's sentences on docs/example-report-20261207042659 beside
    /// docs/example-report-20261205042703.
    #[test]
    fn the_sliced_precision_batch_as_the_docs_give_it() {
        let load =
            |folder: &str| Batch::load(&example_file(&format!("{folder}/results.json"))).unwrap();
        let (sliced, whole) = (
            load("example-report-20261207042659"),
            load("example-report-20261205042703"),
        );
        let interval = |batch: &Batch, app: &str, route: &str| {
            let app = batch.apps.iter().find(|a| a.name == app).unwrap();
            let route = app.routes.iter().find(|r| r.route == route).unwrap();
            RatioInterval::of(&route.ratios_to_pacer()).unwrap()
        };
        let mut within = 0;
        let mut widest = (0.0, String::new());
        for app in &sliced.apps {
            for route in &app.routes {
                assert!(route.runs.iter().chain(&route.pacer_runs).all(|r| r.valid));
                let new = interval(&sliced, &app.name, &route.route);
                let old = interval(&whole, &app.name, &route.route);
                assert_eq!(new.rounds, 6);
                assert!(
                    new.low <= old.high && old.low <= new.high,
                    "{} {}",
                    app.name,
                    route.route
                );
                within += usize::from(new.relative_half_width() <= 0.05);
                if new.relative_half_width() > widest.0 {
                    widest = (
                        new.relative_half_width(),
                        format!("{} {}", app.name, route.route),
                    );
                }
            }
        }
        assert_eq!(within, 4);
        assert_eq!(
            (widest.1.as_str(), (widest.0 * 100.0).round()),
            ("actix-sqlx detail", 13.0)
        );
        let cells: Vec<f64> = sliced
            .apps
            .iter()
            .flat_map(|a| a.routes.iter().map(|r| log_spread(&r.ratios_to_pacer())))
            .collect();
        let (least, most) = cells
            .iter()
            .fold((f64::MAX, 0.0f64), |(l, m), s| (l.min(*s), m.max(*s)));
        assert_eq!(
            [(least * 100.0).round(), (most * 100.0).round()],
            [3.0, 12.0]
        );
    }

    #[test]
    fn the_spec_s_table_of_slice_lengths_is_its_a_a_batches() {
        let spec = std::fs::read_to_string(example_file("spec.md")).unwrap();
        for (folder, label) in [
            ("slice-0.25s", "0.25 s"),
            ("slice-0.5s", "0.5 s"),
            ("slice-1s", "1 s"),
            ("slice-2s", "2 s"),
            ("whole-runs", "whole runs (wrk)"),
        ] {
            let row = row(folder, label);
            assert!(
                spec.lines().any(|line| line == row),
                "not in spec.md: {row}"
            );
        }
    }
}
