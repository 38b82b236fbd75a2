//! The open-loop load generator (docs/spec.md §8): requests fall due on a schedule, whatever
//! the app does, and each one's latency runs from the moment it fell due. A closed loop
//! sends the next request only once the last is answered, so an app that stalls simply
//! receives fewer requests and the stall hardly shows in its percentiles (coordinated
//! omission); here a stalled app keeps being sent requests, and every one of them waits.
//!
//! A warm-up at the first phase's rate runs on the same connections just before the
//! measured phases and is not recorded, so the measured run starts with its connections
//! open; a fresh generator would open one per request due while the first connects, a
//! burst of new connections the run would then measure.
//!
//! A thread of its own sleeps until each request's due time and hands it to a worker
//! (tokio's timer ticks in whole milliseconds, which would batch requests and add up to a
//! millisecond to each): one single-threaded runtime per CPU of the generator's set, pinned
//! there, each taking every n-th request on connections of its own. Each record keeps the
//! generator's lateness both ways, so that it is never charged to the app: how late a
//! request was taken up, and how long its answer waited in the socket before it was read
//! (the kernel's arrival stamp, `arrival`). Connections are opened when a request finds none idle, up
//! to a bound; a request that waits for one waits on the clock. A request unanswered at its
//! due time plus the latency limit is given up (the client left), so the generator's own
//! backlog is bounded and the run ends on time.

use super::arrival::{Arrival, ArrivalClock, StampsOn};
use super::client::{self, Answer, Sender, Step};
use hdrhistogram::Histogram;
use hdrhistogram::serialization::V2DeflateSerializer;
use hdrhistogram::serialization::interval_log::IntervalLogWriterBuilder;
use rand::SeedableRng;
use rand::distr::Distribution;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;

/// How requests fall due within a phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Arrivals {
    /// Request k of a phase at k ÷ rate.
    Constant,
    /// Exponential gaps with mean 1 ÷ rate (seeded: the same schedule every run).
    Poisson,
}

impl Arrivals {
    pub fn name(self) -> &'static str {
        match self {
            Arrivals::Constant => "constant",
            Arrivals::Poisson => "poisson",
        }
    }
}

/// `rate` requests per second for `length`.
#[derive(Debug, Clone, Copy)]
pub struct Phase {
    pub rate: f64,
    pub length: Duration,
}

#[derive(Debug, Clone)]
pub struct Plan {
    /// Sent before the phases at the first phase's rate, not recorded.
    pub warmup: Duration,
    /// One after the other; a rate sweep's run is one phase, the overload three.
    pub phases: Vec<Phase>,
    pub arrivals: Arrivals,
    pub max_connections: u32,
    /// A request not answered this long after it fell due is given up.
    pub latency_limit: Duration,
    /// One worker per CPU, pinned to it, with its share of the connections; none: one
    /// worker, unpinned.
    pub cpus: Vec<usize>,
}

impl Plan {
    pub fn steady(rate: f64, length: Duration, arrivals: Arrivals) -> Plan {
        Plan {
            warmup: Duration::ZERO,
            phases: vec![Phase { rate, length }],
            arrivals,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            latency_limit: DEFAULT_LATENCY_LIMIT,
            cpus: Vec::new(),
        }
    }

    pub fn length(&self) -> Duration {
        self.phases.iter().map(|p| p.length).sum()
    }

    /// The due times, from the warm-up's start, in order.
    fn due_times(&self) -> Vec<Duration> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x6f70656e);
        let mut due = Vec::new();
        let mut phase_start = Duration::ZERO;
        let warmup = self.phases.first().map(|first| Phase {
            rate: first.rate,
            length: self.warmup,
        });
        for phase in warmup.iter().chain(&self.phases) {
            let end = phase_start + phase.length;
            if phase.rate > 0.0 {
                let gap = 1.0 / phase.rate;
                let exponential = exponential_gaps(phase.rate);
                let mut offset = 0.0;
                loop {
                    let at = phase_start + Duration::from_secs_f64(offset);
                    if at >= end {
                        break;
                    }
                    due.push(at);
                    offset += match self.arrivals {
                        Arrivals::Constant => gap,
                        Arrivals::Poisson => exponential.sample(&mut rng),
                    };
                }
            }
            phase_start = end;
        }
        due
    }
}

/// Exponential gaps (seconds) with mean `1 / rate`, by inverse transform.
fn exponential_gaps(rate: f64) -> impl Distribution<f64> {
    rand::distr::Uniform::new(f64::EPSILON, 1.0)
        .expect("a valid range")
        .map(move |u: f64| -u.ln() / rate)
}

/// Enough for 2 s of queueing at 250 req/s, or 20 ms at 25 000 req/s.
pub const DEFAULT_MAX_CONNECTIONS: u32 = 512;
/// As in the reference re-test this method follows.
pub const DEFAULT_LATENCY_LIMIT: Duration = Duration::from_secs(2);

/// One request: `due` from the run's start, `latency` from `due` to the answer (or to the
/// moment it was given up), `send_delay` from `due` to when the generator took it up (the
/// generator's own lateness on the way out), `connection_wait` from then to when it had a
/// connection (`None` when it got none); both are part of `latency`. `answer_arrived` is from
/// `due` to when the answer's first bytes reached the generator's socket, and `read_delay`
/// how long they waited there before the generator read them (its lateness on the way back);
/// both `None` when no answer came.
#[derive(Debug, Clone, Copy)]
pub struct OpenRecord {
    pub due: Duration,
    pub latency: Duration,
    pub send_delay: Duration,
    pub connection_wait: Option<Duration>,
    pub answer_arrived: Option<Duration>,
    pub read_delay: Option<Duration>,
    pub answer: Answer,
}

impl OpenRecord {
    /// The generator's own share of `latency`: late to send, late to read.
    pub fn generator_delay(&self) -> Duration {
        self.send_delay + self.read_delay.unwrap_or_default()
    }
}

/// What a run did: the counters, kept by the dispatcher and the requests' tasks, and the
/// records, which must agree with them.
#[derive(Debug, Clone)]
pub struct OpenRun {
    pub records: Vec<OpenRecord>,
    pub sent: u64,
    pub completed: u64,
    pub failed: u64,
    pub in_flight: u64,
    /// From the warm-up's start.
    pub connections_opened: u32,
    pub length: Duration,
}

/// Kept by every worker's requests.
#[derive(Default)]
struct Tally {
    opened: AtomicU32,
    completed: AtomicU64,
    failed: AtomicU64,
    in_flight: AtomicU64,
    records: Mutex<Vec<OpenRecord>>,
}

/// A connection, and the clock its reads keep.
type Connection = (Sender, Arc<ArrivalClock>);

/// A worker's own: its share of the connections, and the idle ones among them.
struct Pool {
    addr: String,
    host: hyper::header::HeaderValue,
    path: String,
    page: Arc<Vec<u8>>,
    latency_limit: Duration,
    connections: Semaphore,
    idle: Mutex<Vec<Connection>>,
    tally: Arc<Tally>,
}

/// A thread running a single-threaded tokio runtime, pinned to its CPU: the dispatcher
/// hands it every n-th request, so n workers on n CPUs take up and read answers in
/// parallel, each with its own connections.
struct Worker {
    runtime: tokio::runtime::Handle,
    pool: Arc<Pool>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Worker {
    fn start(cpu: Option<usize>, pool: Pool) -> anyhow::Result<Worker> {
        let (started, runtime) = std::sync::mpsc::channel();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("open-loop".to_owned())
            .spawn(move || {
                let runtime = cpu
                    .map(crate::stack::cpus::pin_current_thread)
                    .transpose()
                    .and_then(|_| {
                        let runtime = tokio::runtime::Builder::new_current_thread()
                            .enable_all()
                            .build()?;
                        Ok(runtime)
                    });
                let runtime = match runtime {
                    Ok(runtime) => runtime,
                    Err(error) => {
                        let _ = started.send(Err(error));
                        return;
                    }
                };
                let _ = started.send(Ok(runtime.handle().clone()));
                let _ = runtime.block_on(stopped);
                runtime.shutdown_timeout(Duration::from_millis(100));
            })?;
        let runtime = runtime
            .recv()
            .map_err(|_| anyhow::anyhow!("an open-loop worker died at start"))??;
        Ok(Worker {
            runtime,
            pool: Arc::new(pool),
            stop: Some(stop),
            thread: Some(thread),
        })
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Runs `plan` against `GET path` at `addr` (a `host:port`), each 200 checked against
/// `page`; calls `at_measured_start` when the warm-up ends (to start sampling the app);
/// returns when every measured request is answered or given up.
pub fn run(
    addr: &str,
    path: &str,
    page: Arc<Vec<u8>>,
    plan: &Plan,
    at_measured_start: impl FnOnce(),
) -> anyhow::Result<OpenRun> {
    let due_times = plan.due_times();
    let tally = Arc::new(Tally {
        records: Mutex::new(Vec::with_capacity(due_times.len())),
        ..Tally::default()
    });
    let cpus: Vec<Option<usize>> = match plan.cpus.is_empty() {
        true => vec![None],
        false => plan.cpus.iter().copied().map(Some).collect(),
    };
    let share = (plan.max_connections as usize).div_ceil(cpus.len()).max(1);
    let workers = cpus
        .iter()
        .map(|&cpu| {
            let pool = Pool {
                addr: addr.to_owned(),
                host: addr.parse()?,
                path: path.to_owned(),
                page: Arc::clone(&page),
                latency_limit: plan.latency_limit,
                connections: Semaphore::new(share),
                idle: Mutex::new(Vec::new()),
                tally: Arc::clone(&tally),
            };
            Worker::start(cpu, pool)
        })
        .collect::<anyhow::Result<Vec<Worker>>>()?;
    let _stamps = StampsOn::wait()?;
    let warmup_started = Instant::now();
    let started = warmup_started + plan.warmup;
    let mut at_measured_start = Some(at_measured_start);
    let mut sent = 0;
    for (index, due) in due_times.into_iter().enumerate() {
        let at = warmup_started + due;
        let now = Instant::now();
        if at > now {
            std::thread::sleep(at - now);
        }
        let worker = &workers[index % workers.len()];
        let pool = Arc::clone(&worker.pool);
        let Some(due) = due.checked_sub(plan.warmup) else {
            worker.runtime.spawn(warm_up(pool, at));
            continue;
        };
        if let Some(call) = at_measured_start.take() {
            call();
        }
        sent += 1;
        tally.in_flight.fetch_add(1, Ordering::SeqCst);
        worker.runtime.spawn(request(pool, started, due));
    }
    // Every request is answered or given up by its due time plus the limit; the margin
    // covers the tasks' own scheduling.
    let deadline = started + plan.length() + plan.latency_limit + Duration::from_secs(1);
    while tally.in_flight.load(Ordering::SeqCst) > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    let in_flight = tally.in_flight.load(Ordering::SeqCst);
    let completed = tally.completed.load(Ordering::SeqCst);
    let failed = tally.failed.load(Ordering::SeqCst);
    let connections_opened = tally.opened.load(Ordering::SeqCst);
    let mut records = std::mem::take(&mut *tally.records.lock().expect("records"));
    records.sort_by_key(|r| r.due);
    drop(workers);
    Ok(OpenRun {
        records,
        sent,
        completed,
        failed,
        in_flight,
        connections_opened,
        length: plan.length(),
    })
}

/// A warm-up request: sent like a measured one, and forgotten.
async fn warm_up(pool: Arc<Pool>, due_at: Instant) {
    let limit = tokio::time::Instant::from_std(due_at + pool.latency_limit);
    let _ = tokio::time::timeout_at(limit, exchange(&pool, &mut None)).await;
}

/// When a request had its connection, the connection's clock, and its answer's arrival.
struct Connected {
    at: Instant,
    clock: Arc<ArrivalClock>,
    arrival: Option<Arrival>,
}

async fn request(pool: Arc<Pool>, started: Instant, due: Duration) {
    let due_at = started + due;
    let taken_up = Instant::now();
    let limit = tokio::time::Instant::from_std(due_at + pool.latency_limit);
    let mut connected = None;
    let answer = tokio::time::timeout_at(limit, exchange(&pool, &mut connected))
        .await
        .unwrap_or(Answer::TooLate);
    let latency = due_at.elapsed();
    // A request given up leaves its connection with the dropped exchange: what arrived is
    // still on the clock.
    let arrival = connected
        .as_mut()
        .and_then(|c| c.arrival.or_else(|| c.clock.take()));
    let tally = &pool.tally;
    let counter = match answer.unanswered() {
        true => &tally.failed,
        false => &tally.completed,
    };
    counter.fetch_add(1, Ordering::SeqCst);
    tally.records.lock().expect("records").push(OpenRecord {
        due,
        latency,
        send_delay: taken_up.saturating_duration_since(due_at),
        connection_wait: connected
            .as_ref()
            .map(|c| c.at.saturating_duration_since(taken_up)),
        answer_arrived: arrival.map(|a| a.arrived_at().saturating_duration_since(due_at)),
        read_delay: arrival.map(|a| a.waited),
        answer,
    });
    tally.in_flight.fetch_sub(1, Ordering::SeqCst);
}

/// Waits for a connection (an idle one, or a new one while under the bound), notes when it
/// had one in `connected`, sends the request, and puts the connection back when it is still
/// fit to use.
async fn exchange(pool: &Pool, connected: &mut Option<Connected>) -> Answer {
    let Ok(_permit) = pool.connections.acquire().await else {
        return Answer::ConnectError;
    };
    let idle = pool.idle.lock().expect("idle connections").pop();
    let (mut sender, clock) = match idle.filter(|(s, _)| !s.is_closed()) {
        Some(connection) => connection,
        None => match client::connect_noting_arrivals(&pool.addr).await {
            Some(connection) => {
                pool.tally.opened.fetch_add(1, Ordering::SeqCst);
                connection
            }
            None => return Answer::ConnectError,
        },
    };
    clock.arm();
    let at = Instant::now();
    let connected = connected.insert(Connected {
        at,
        clock: Arc::clone(&clock),
        arrival: None,
    });
    let step = Step::Read {
        path: &pool.path,
        page: &pool.page,
    };
    let answer = client::exchange(&mut sender, &pool.host, &step).await;
    // Taken before the connection goes back, where the next request re-arms its clock.
    connected.arrival = clock.take();
    if !answer.unanswered() {
        pool.idle
            .lock()
            .expect("idle connections")
            .push((sender, clock));
    }
    answer
}

/// Latencies from 1 µs to a minute, 3 significant digits.
pub fn new_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 60_000_000, 3).expect("valid histogram bounds")
}

/// The latency (µs) of every request that was answered or given up, connection failures
/// aside (they have no latency worth the name).
pub fn histogram(records: &[OpenRecord]) -> Histogram<u64> {
    histogram_of(
        records
            .iter()
            .filter(|r| has_latency(r.answer))
            .map(|r| r.latency),
    )
}

/// The generator's own lateness (µs) for every request.
pub fn send_delay_histogram(records: &[OpenRecord]) -> Histogram<u64> {
    histogram_of(records.iter().map(|r| r.send_delay))
}

/// How long (µs) each answer that arrived waited in the socket before the generator read it.
pub fn read_delay_histogram(records: &[OpenRecord]) -> Histogram<u64> {
    histogram_of(records.iter().filter_map(|r| r.read_delay))
}

/// The latency (µs) of every request [`histogram`] counts, less the generator's own lateness.
pub fn latency_less_generator_histogram(records: &[OpenRecord]) -> Histogram<u64> {
    histogram_of(
        records
            .iter()
            .filter(|r| has_latency(r.answer))
            .map(|r| r.latency.saturating_sub(r.generator_delay())),
    )
}

/// The wait for a connection (µs) of every request that got one.
pub fn connection_wait_histogram(records: &[OpenRecord]) -> Histogram<u64> {
    histogram_of(records.iter().filter_map(|r| r.connection_wait))
}

fn histogram_of(durations: impl Iterator<Item = Duration>) -> Histogram<u64> {
    let mut histogram = new_histogram();
    for duration in durations {
        histogram.saturating_record(duration.as_micros() as u64);
    }
    histogram
}

/// Whether the answer's latency means anything: a request given up at the limit did wait
/// that long, one whose connection failed did not wait for the app.
pub fn has_latency(answer: Answer) -> bool {
    !matches!(answer, Answer::ConnectError | Answer::IoError)
}

/// The records as an HdrHistogram interval log (µs): one interval per second of due time,
/// so any percentile of any stretch of the run can be recomputed.
pub fn interval_log(records: &[OpenRecord], length: Duration) -> Vec<u8> {
    let seconds = length.as_secs_f64().ceil().max(1.0) as usize;
    let mut intervals = vec![new_histogram(); seconds];
    for record in records.iter().filter(|r| has_latency(r.answer)) {
        let second = (record.due.as_secs() as usize).min(seconds - 1);
        intervals[second].saturating_record(record.latency.as_micros() as u64);
    }
    let mut log = Vec::new();
    let mut serializer = V2DeflateSerializer::new();
    let mut writer = IntervalLogWriterBuilder::new()
        .add_comment("blogbench open-loop latencies, microseconds from each request's due time")
        .with_max_value_divisor(1000.0)
        .begin_log_with(&mut log, &mut serializer)
        .expect("writing to memory");
    for (second, histogram) in intervals.iter().enumerate() {
        writer
            .write_histogram(
                histogram,
                Duration::from_secs(second as u64),
                Duration::from_secs(1),
                None,
            )
            .expect("writing to memory");
    }
    log
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn due_times_follow_the_phases() {
        let plan = Plan {
            warmup: Duration::from_millis(500),
            phases: vec![
                Phase {
                    rate: 100.0,
                    length: Duration::from_secs(1),
                },
                Phase {
                    rate: 10.0,
                    length: Duration::from_secs(2),
                },
            ],
            arrivals: Arrivals::Constant,
            max_connections: 1,
            latency_limit: DEFAULT_LATENCY_LIMIT,
            cpus: Vec::new(),
        };
        let due = plan.due_times();
        assert_eq!(due.len(), 170, "50 warm-up requests, then the phases' 120");
        assert_eq!(due[1], Duration::from_millis(10));
        assert_eq!(due[50], Duration::from_millis(500));
        assert_eq!(due[150], Duration::from_millis(1500));
        assert!(due.windows(2).all(|w| w[0] <= w[1]));
        let poisson = Plan {
            arrivals: Arrivals::Poisson,
            ..Plan::steady(1000.0, Duration::from_secs(10), Arrivals::Poisson)
        };
        let count = poisson.due_times().len() as f64;
        // 10 000 expected; a Poisson count's standard deviation is 100.
        assert!((count - 10_000.0).abs() < 400.0, "{count}");
    }
}
