//! `results/sweep-<id>/sweep.json`: what `blogbench sweep` measured (docs/spec.md §6), per
//! app: each route's open-loop rate ladders, the connection sweep, the overload and its
//! recovery, and the memory-limited connection sweep. Written atomically after every step;
//! the sweep report is built from this file alone.

use super::{CpuSets, Latency, Machine, median, read_json, write_json};
use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Sweep {
    /// `YYYYMMDDhhmmss` (UTC); the folder is `sweep-<id>`.
    pub id: String,
    pub started_at: String,
    pub finished_at: Option<String>,
    pub command: String,
    pub git_commit: String,
    pub machine: Machine,
    pub cpu_sets: CpuSets,
    pub settings: SweepSettings,
    /// The open-loop generator's own ceiling; `None` until measured.
    pub generator_ceiling: Option<GeneratorCeiling>,
    /// The machine's latency floor per route (none in sweeps recorded before it was
    /// measured).
    #[serde(default)]
    pub floor: Vec<Floor>,
    pub apps: Vec<AppSweep>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SweepSettings {
    pub quick: bool,
    /// Each app's closed-loop max and rate ladders are measured once per round, the apps
    /// visited in a rotated order each round (one round in sweeps recorded before rounds).
    #[serde(default = "one_round")]
    pub rounds: u32,
    pub routes: Vec<String>,
    /// The latency objective per route (p99, ms): a rate is sustained when every request
    /// was answered right, ≥ 99 % of the target rate was delivered and p99 ≤ this.
    pub slo_ms: BTreeMap<String, f64>,
    /// Each open-loop rate's run (after a warm-up at the same rate).
    pub run_secs: f64,
    pub warmup_secs: f64,
    /// Fractions of Go's closed-loop max on the route, the same rates for every app.
    pub common_fractions: Vec<f64>,
    /// Fractions of each app's own closed-loop max.
    pub own_fractions: Vec<f64>,
    /// `constant` (request k due at k / rate) or `poisson`.
    pub arrivals: String,
    /// A request unanswered this long after it fell due is a failure, and the run invalid.
    pub latency_limit_ms: f64,
    /// The most connections the open-loop generator opens.
    pub max_connections: u32,
    /// The closed-loop max: the fair run's load generator and connections.
    pub closed_loop: String,
    pub connection_levels: Vec<u32>,
    /// The route of the connection sweeps.
    #[serde(default)]
    pub connection_route: String,
    /// The route of the overload.
    #[serde(default)]
    pub overload_route: String,
    pub overload: OverloadPlan,
    /// The memory-limited connection sweep's limit; `None` when not run.
    pub memory_limit_bytes: Option<u64>,
    /// The soft and hard open-file limits the harness (and so every app it starts) ran with.
    pub open_files_limit: u64,
}

/// Overload: `before_secs` at `base_fraction` of the app's max sustainable rate, then
/// `overload_secs` at `overload_fraction`, then `after_secs` at `base_fraction` again.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OverloadPlan {
    pub base_fraction: f64,
    pub overload_fraction: f64,
    pub before_secs: f64,
    pub overload_secs: f64,
    pub after_secs: f64,
    /// Latency and throughput must be back within this long after the overload ends.
    pub recover_within_secs: f64,
}

/// The generator's max delivered rate against a static page the size of the home page,
/// on the load CPUs: rates above [`CLIENT_BOUND_FRACTION`] of it are marked client-bound.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GeneratorCeiling {
    pub per_sec: f64,
    pub how: String,
}

/// Rates above this fraction of the generator's ceiling measure the generator too.
pub const CLIENT_BOUND_FRACTION: f64 = 0.8;

/// A run whose services' and load generator's CPUs were at least this busy was held back
/// by them, not (only) by the app: it is marked service-bound.
pub const SERVICE_BOUND_BUSY: f64 = 0.9;

fn one_round() -> u32 {
    1
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AppSweep {
    /// The app's name, or `name+KEY=VALUE` for a variant.
    pub label: String,
    /// The variables the harness set.
    pub env: BTreeMap<String, String>,
    /// Why the app could not be swept (start-up, parity), or what stopped it part-way.
    pub error: Option<String>,
    pub routes: Vec<RouteSweep>,
    /// The app's RSS at rest, after start-up, the parity gate and its start-up warm-up,
    /// before any measured load.
    #[serde(default)]
    pub idle_rss_mib: Option<f64>,
    /// The load the app got after each start before anything was measured (its manifest's
    /// `warmup`); none for most apps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_up_warmup_secs: Option<f64>,
    pub connections: Vec<ConnectionLevel>,
    /// One per round, in round order (sweeps recorded before the overload ran in rounds
    /// have one, under `overload`).
    #[serde(default, alias = "overload", deserialize_with = "one_or_more")]
    pub overloads: Vec<Overload>,
    pub memory_limited: Option<MemoryLimited>,
}

/// An overload recorded alone (or none), or one per round.
fn one_or_more<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<Overload>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Recorded {
        Rounds(Vec<Overload>),
        One(Option<Overload>),
    }
    Ok(match Recorded::deserialize(deserializer)? {
        Recorded::Rounds(rounds) => rounds,
        Recorded::One(one) => one.into_iter().collect(),
    })
}

impl AppSweep {
    /// The rounds whose overload the app recovered from, of those that ran: one run shows
    /// that an app can come back, not how reliably, as a stall of the shared machine lands
    /// in some runs and not others.
    pub fn overloads_recovered(&self) -> (usize, usize) {
        let recovered = self.overloads.iter().filter(|o| o.recovered).count();
        (recovered, self.overloads.len())
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RouteSweep {
    pub route: String,
    pub path: String,
    pub slo_ms: f64,
    /// The fair run's closed loop (oha, 50 connections) on this route: the median of the
    /// req/s of the rounds that counted, which the own ladder's rates (and, for Go, the
    /// common ones) are fractions of; 0 when none counted.
    pub closed_loop_per_sec: f64,
    /// Each round's closed-loop run, in round order (empty in sweeps recorded before
    /// rounds).
    #[serde(default)]
    pub closed_loop_rounds: Vec<ClosedLoopRound>,
    /// At fractions of Go's closed-loop max: the same rates for every app. Every round's
    /// runs, in the order they ran.
    pub common: Vec<RatePoint>,
    /// At fractions of this app's closed-loop max, every round's runs.
    pub own: Vec<RatePoint>,
}

/// One round's closed-loop run on a route.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ClosedLoopRound {
    pub round: u32,
    pub per_sec: f64,
    /// Why the run does not count (docs/spec.md §5.6), with its raw output; `None` when it
    /// counts.
    pub not_counted: Option<String>,
}

/// One open-loop run at a fixed target rate.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RatePoint {
    /// The round it ran in, from 1.
    #[serde(default = "one_round")]
    pub round: u32,
    pub target_per_sec: f64,
    /// The fraction of Go's (common) or the app's own (own) closed-loop max.
    pub fraction: f64,
    pub duration_secs: f64,
    /// Requests that fell due.
    pub sent: u64,
    /// Answered (with any status) within the latency limit.
    pub completed: u64,
    /// Not answered: connection errors, or the latency limit passed.
    pub failed: u64,
    /// Neither at the end.
    pub in_flight: u64,
    /// Right answers in by the route's SLO after the end of the run's schedule ÷ the requests
    /// sent.
    pub delivered_ratio: f64,
    /// From each request's due time to its answer.
    pub latency_ms: Latency,
    /// From each request's due time to when the generator took it up, before any wait
    /// for a connection: the generator's own share of `latency_ms` (none in sweeps
    /// recorded before it was).
    #[serde(default)]
    pub send_delay_ms: Option<Latency>,
    /// From when the generator took each request up to when it had a connection for it
    /// (an idle one, or a new one it opened), for the requests that got one: the wait the
    /// generator's connection bound adds, part of `latency_ms` (none in sweeps recorded
    /// before it was).
    #[serde(default)]
    pub connection_wait_ms: Option<Latency>,
    /// Every answer by status (`200`) or failure (`error: connect`, `error: latency limit`).
    pub answers: BTreeMap<String, u64>,
    /// 200s whose body was not the parity page.
    pub wrong_bodies: u64,
    pub connections_opened: u32,
    /// CPU time per answered request; none when no request was answered.
    pub app_cpu_us_per_request: Option<f64>,
    pub postgres_cpu_us_per_request: Option<f64>,
    pub redis_cpu_us_per_request: Option<f64>,
    pub app_rss_max_mib: f64,
    /// How busy the pinned CPU sets were during the run (none in sweeps recorded before it
    /// was).
    #[serde(default)]
    pub cpu_busy: Option<CpuBusy>,
    /// Above [`CLIENT_BOUND_FRACTION`] of the generator's ceiling.
    pub client_bound: bool,
    /// Measured correctly: every answer right, records agreeing with counters, nothing over the
    /// latency limit; else `invalid_reason` lists what failed.
    pub valid: bool,
    pub invalid_reason: Option<String>,
    /// Where the generator's records disagreed with its counters (also in
    /// `invalid_reason`): a fault of the harness, which fails the command.
    #[serde(default)]
    pub bookkeeping: Option<String>,
    /// Valid and p99 within the route's SLO.
    pub within_slo: bool,
    /// How long each answer waited in the generator's socket before it read it: its
    /// lateness on the way back (none in sweeps recorded before it was measured).
    #[serde(default)]
    pub read_delay_ms: Option<Latency>,
    /// Each request's latency less the generator's own lateness both ways (send delay and
    /// read delay): the app's share, as near as the generator can tell (none in sweeps
    /// recorded before it was measured).
    #[serde(default)]
    pub latency_less_generator_ms: Option<Latency>,
    /// Missed the SLO, but the generator's own lateness could have decided it
    /// ([`generator_late`]): neither held nor failed, never charged to the app.
    #[serde(default)]
    pub generator_late: bool,
    /// The latency histogram (HdrHistogram interval log, µs), relative to the sweep folder.
    pub histogram: String,
}

/// The share (0–1) of each CPU set's time that was not idle during a run, from
/// `/proc/stat`: every process's and the kernel's time on those CPUs.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct CpuBusy {
    pub app: f64,
    /// The services' and the load generator's CPUs (one CPU on a 2-core machine).
    pub services_and_load: f64,
    /// The machine's own share of the run (none in runs recorded before it was measured).
    #[serde(default)]
    pub taken: Option<Taken>,
}

/// What the machine took from a run besides its load (docs/spec.md §5.6): the hypervisor's
/// steal time on each CPU set (a share of its time), and how often per second the kernel
/// preempted the app's processes and PostgreSQL's and Redis's (involuntary context switches).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct Taken {
    pub steal_app: f64,
    pub steal_services_and_load: f64,
    pub involuntary_switches_app: f64,
    pub involuntary_switches_services: f64,
}

/// Steal above this share of a CPU set's time marks a run: the hypervisor, not the run's
/// load, took a visible part of it.
pub const STEAL_MARK: f64 = 0.02;

impl CpuBusy {
    /// Either CPU set lost more than [`STEAL_MARK`] of its time to steal.
    pub fn stolen(&self) -> bool {
        self.taken
            .is_some_and(|t| t.steal_app.max(t.steal_services_and_load) > STEAL_MARK)
    }

    /// The services' and the generator's CPUs were at least [`SERVICE_BOUND_BUSY`] busy: they
    /// set the pace there, not only the app.
    pub fn service_bound(&self) -> bool {
        self.services_and_load >= SERVICE_BOUND_BUSY
    }
}

/// Whether a run that missed its SLO could have been decided by the generator's own lateness
/// (docs/spec.md §8): judged by its latency (every answer right, though some may have been
/// given up at the latency limit), and either its lateness (send delay plus read delay)
/// alone has a p99 over the SLO, so no app could have held the run, or its latency less that
/// lateness, request by request, has a p99 within the SLO.
pub fn generator_late(
    judged_by_latency: bool,
    p99_ms: f64,
    generator_delay_p99_ms: f64,
    latency_less_generator_p99_ms: f64,
    slo_ms: f64,
) -> bool {
    judged_by_latency
        && p99_ms > slo_ms
        && (generator_delay_p99_ms > slo_ms || latency_less_generator_p99_ms <= slo_ms)
}

/// The share of the requests sent an app must deliver (right, by the SLO after the run's end)
/// to keep up with the rate.
pub const DELIVERED_MIN: f64 = 0.99;

impl RatePoint {
    /// The app fell behind the rate: it delivered less than [`DELIVERED_MIN`].
    pub fn fell_behind(&self) -> bool {
        self.delivered_ratio < DELIVERED_MIN
    }

    /// Its services' and generator's CPUs were at least [`SERVICE_BOUND_BUSY`] busy.
    pub fn service_bound(&self) -> bool {
        self.cpu_busy.is_some_and(|busy| busy.service_bound())
    }
}

/// Which ladder a rate belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ladder {
    /// Fractions of Go's closed-loop max.
    Common,
    /// Fractions of the app's own.
    Own,
}

impl Ladder {
    pub fn name(self) -> &'static str {
        match self {
            Ladder::Common => "common",
            Ladder::Own => "own",
        }
    }
}

/// One rate of a ladder over the sweep's rounds.
#[derive(Debug, Clone)]
pub struct Rung<'a> {
    pub ladder: Ladder,
    pub target_per_sec: f64,
    pub fraction: f64,
    /// Its run in each round that ran it, in round order: a round's ladder stops after two
    /// invalid rates in a row, so the highest rates may have fewer runs than rounds.
    pub runs: Vec<&'a RatePoint>,
}

impl<'a> Rung<'a> {
    /// The rounds whose run was sustained (valid, p99 within the SLO).
    pub fn held(&self) -> usize {
        self.runs.iter().filter(|run| run.within_slo).count()
    }

    /// The rounds whose run was generator-late: they judge neither way.
    pub fn generator_late(&self) -> usize {
        self.runs.iter().filter(|run| run.generator_late).count()
    }

    /// Held in more than half of the rounds that judged it: `rounds` less its generator-late
    /// runs; a round that did not run the rate did not hold it.
    pub fn sustained(&self, rounds: u32) -> bool {
        let judged = (rounds.max(1) as usize).saturating_sub(self.generator_late());
        judged > 0 && 2 * self.held() > judged
    }

    /// The run with the median p99 (the higher of the middle two for an even count, as a
    /// rate two rounds ran is sustained only when both held it): the rung's figures in
    /// tables and charts.
    pub fn median_run(&self) -> &'a RatePoint {
        let mut runs = self.runs.clone();
        runs.sort_by(|a, b| a.latency_ms.p99.total_cmp(&b.latency_ms.p99));
        runs[runs.len() / 2]
    }

    /// The lowest and highest p99 of its runs.
    pub fn p99_range(&self) -> (f64, f64) {
        self.runs
            .iter()
            .map(|run| run.latency_ms.p99)
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(low, high), p99| {
                (low.min(p99), high.max(p99))
            })
    }
}

/// One closed-loop level of the connection sweep (the harness's client, bodies checked).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ConnectionLevel {
    pub connections: u32,
    /// The fewest connections the app held at once in the measured window.
    pub connections_held: u32,
    pub requests_per_sec: f64,
    pub latency_ms: Latency,
    pub answers: BTreeMap<String, u64>,
    pub wrong_bodies: u64,
    pub app_rss_max_mib: f64,
    /// (RSS at this level − idle RSS) ÷ connections held, KiB.
    pub rss_per_connection_kib: f64,
    /// Memory-limited runs: OOM kills in the app's cgroup during the level.
    pub oom_kills: Option<u64>,
    /// Whether the app was alive after the level.
    pub survived: bool,
    pub valid: bool,
    pub invalid_reason: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MemoryLimited {
    pub limit_bytes: u64,
    /// How the limit was set: `cgroup v1 memory.limit_in_bytes` or `cgroup v2 memory.max`.
    pub mechanism: String,
    pub levels: Vec<ConnectionLevel>,
}

/// The overload run: one open-loop schedule, summarised per second.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Overload {
    /// The round it ran in, from 1.
    #[serde(default = "one_round")]
    pub round: u32,
    /// The app's max sustainable rate on the route this was measured from.
    pub route: String,
    pub max_sustainable_per_sec: f64,
    pub base_per_sec: f64,
    pub overload_per_sec: f64,
    /// Answers during the overload phase, by status or failure.
    pub answers_during: BTreeMap<String, u64>,
    pub wrong_bodies: u64,
    pub peak_rss_mib: f64,
    /// The base phase before the overload: p99 and right answers per second.
    pub baseline_p99_ms: f64,
    pub baseline_per_sec: f64,
    /// The p99 a second had to be within to be back: the route's SLO. `None` in sweeps
    /// recorded before it, whose bound was max(2 × baseline, baseline + 5 ms) and which
    /// needed every later second back.
    #[serde(default)]
    pub back_p99_bound_ms: Option<f64>,
    /// Seconds after the overload ended until the first of three seconds in a row that were
    /// back (p99 within `back_p99_bound_ms`, right answers ≥ 95 % of the base rate, no
    /// failures); `None` when there were none.
    pub recovered_after_secs: Option<f64>,
    pub recovered: bool,
    pub survived: bool,
    /// Per second of the schedule (by due time): target, right answers, failures, p99.
    pub seconds: Vec<OverloadSecond>,
    pub histogram: String,
}

/// An app is back from an overload at the first of this many seconds in a row that are back:
/// a blip later on is the noise of a shared machine, not a relapse.
pub const HEALTHY_SECONDS: usize = 3;

/// Seconds from the overload's end (`overload_end`, s into the schedule) to the first of
/// [`HEALTHY_SECONDS`] in a row that were back: no failure, p99 within `p99_bound_ms` (the
/// route's SLO: a bound drawn from the baseline would loosen with a noisy one), right
/// answers ≥ 95 % of `base_per_sec`.
pub fn recovered_after_secs(
    seconds: &[OverloadSecond],
    overload_end: f64,
    p99_bound_ms: f64,
    base_per_sec: f64,
) -> Option<f64> {
    let back = |s: &OverloadSecond| {
        s.failed == 0 && s.p99_ms <= p99_bound_ms && s.right as f64 >= 0.95 * base_per_sec
    };
    let after: Vec<&OverloadSecond> = seconds
        .iter()
        .filter(|s| f64::from(s.second) >= overload_end)
        .collect();
    after
        .windows(HEALTHY_SECONDS)
        .position(|window| window.iter().all(|s| back(s)))
        .map(|from| from as f64)
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OverloadSecond {
    pub second: u32,
    pub target_per_sec: f64,
    pub right: u64,
    pub failed: u64,
    pub p99_ms: f64,
}

/// Runs grouped by ladder and rate, each group in the order its first run came.
fn rungs_of<'a>(runs: impl Iterator<Item = (Ladder, &'a RatePoint)>) -> Vec<Rung<'a>> {
    let mut rungs: Vec<Rung<'a>> = Vec::new();
    for (ladder, point) in runs {
        match rungs
            .iter_mut()
            .find(|r| r.ladder == ladder && r.target_per_sec == point.target_per_sec)
        {
            Some(rung) => rung.runs.push(point),
            None => rungs.push(Rung {
                ladder,
                target_per_sec: point.target_per_sec,
                fraction: point.fraction,
                runs: vec![point],
            }),
        }
    }
    rungs
}

/// The machine's latency floor on a route (docs/spec.md §8.9): a static server on the app's
/// CPUs, serving a page of the route's size, loaded open loop at each common rate in every
/// round, as the apps are. What it cannot hold, no app here could.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Floor {
    pub route: String,
    pub body_bytes: usize,
    /// Every round's runs at the common rates, in the order they ran.
    pub runs: Vec<RatePoint>,
}

impl Floor {
    /// Its rates, each with every round's run.
    pub fn rungs(&self) -> Vec<Rung<'_>> {
        rungs_of(self.runs.iter().map(|p| (Ladder::Common, p)))
    }

    /// The lowest rate the floor did not sustain over `rounds`: from there up, every app's
    /// run is machine-bound. `None` when it sustained every rate.
    pub fn machine_bound_from(&self, rounds: u32) -> Option<f64> {
        self.rungs()
            .iter()
            .filter(|rung| !rung.sustained(rounds))
            .map(|rung| rung.target_per_sec)
            .min_by(f64::total_cmp)
    }
}

impl RouteSweep {
    /// Every run of both ladders, every round's, with its ladder.
    pub fn runs(&self) -> impl Iterator<Item = (Ladder, &RatePoint)> {
        let common = self.common.iter().map(|p| (Ladder::Common, p));
        common.chain(self.own.iter().map(|p| (Ladder::Own, p)))
    }

    /// The rates of both ladders, common first, each in the order its first round ran them,
    /// with every round's run.
    pub fn rungs(&self) -> Vec<Rung<'_>> {
        rungs_of(self.runs())
    }

    /// The highest rate of either ladder sustained in more than half of `rounds`.
    pub fn max_sustainable(&self, rounds: u32) -> Option<f64> {
        self.rungs()
            .iter()
            .filter(|rung| rung.sustained(rounds))
            .map(|rung| rung.target_per_sec)
            .max_by(f64::total_cmp)
    }

    /// The rate that set the max: the lowest rate above the max sustainable one (none of
    /// them was sustained), or the lowest rate when none was sustained, or the max itself
    /// when the ladders ended there; `None` when nothing ran.
    pub fn rung_that_set_the_max(&self, rounds: u32) -> Option<Rung<'_>> {
        let max = self.max_sustainable(rounds);
        let (above, at_or_below): (Vec<_>, Vec<_>) = self
            .rungs()
            .into_iter()
            .partition(|rung| max.is_none_or(|max| rung.target_per_sec > max));
        let by_rate = |a: &Rung<'_>, b: &Rung<'_>| a.target_per_sec.total_cmp(&b.target_per_sec);
        above
            .into_iter()
            .min_by(by_rate)
            .or_else(|| at_or_below.into_iter().max_by(by_rate))
    }

    /// Each round's highest sustained rate, in round order (`None` for a round that
    /// sustained none): the spread behind [`RouteSweep::max_sustainable`].
    pub fn max_sustainable_by_round(&self, rounds: u32) -> Vec<Option<f64>> {
        (1..=rounds)
            .map(|round| {
                self.runs()
                    .map(|(_, p)| p)
                    .filter(|p| p.round == round && p.within_slo)
                    .map(|p| p.target_per_sec)
                    .max_by(f64::total_cmp)
            })
            .collect()
    }

    /// Rates below the max sustainable one that were not sustained: on a noisy machine a
    /// stall can sink a run, and a reader should see that the curve was not clean.
    pub fn misses_below_max(&self, rounds: u32) -> usize {
        let Some(max) = self.max_sustainable(rounds) else {
            return 0;
        };
        self.rungs()
            .iter()
            .filter(|rung| rung.target_per_sec < max && !rung.sustained(rounds))
            .count()
    }

    /// Records a round's closed-loop run; the max the ladders use is the median of the
    /// runs that count.
    pub fn add_closed_loop_round(&mut self, run: ClosedLoopRound) {
        self.closed_loop_rounds.push(run);
        let counted = self
            .closed_loop_rounds
            .iter()
            .filter(|run| run.not_counted.is_none())
            .map(|run| run.per_sec);
        self.closed_loop_per_sec = median(counted).map_or(0.0, |(median, _)| median);
    }

    /// Whether any round's closed-loop run counted (else the route has no ladder).
    pub fn closed_loop_counted(&self) -> bool {
        self.closed_loop_rounds.is_empty()
            || self
                .closed_loop_rounds
                .iter()
                .any(|run| run.not_counted.is_none())
    }
}

impl Sweep {
    pub fn load(path: &Path) -> Result<Sweep> {
        read_json(path)
    }

    /// The lowest rate on `route` from which every app's runs are machine-bound
    /// ([`Floor::machine_bound_from`]); `None` without a floor or below it.
    pub fn machine_bound_from(&self, route: &str) -> Option<f64> {
        let floor = self.floor.iter().find(|floor| floor.route == route)?;
        floor.machine_bound_from(self.settings.rounds)
    }

    /// Writes `sweep.json` in `dir` atomically.
    pub fn save(&self, dir: &Path) -> Result<()> {
        write_json(&dir.join("sweep.json"), self)
    }

    /// What went wrong, one line each: apps that could not be swept and runs whose
    /// records disagreed with their counters or whose answers were wrong. Rates an app could not hold
    /// are findings, not problems. `blogbench sweep` exits non-zero when this is not empty.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        for app in &self.apps {
            if let Some(error) = &app.error {
                problems.push(format!("{}: {error}", app.label));
            }
            for route in &app.routes {
                for run in &route.closed_loop_rounds {
                    if let Some(reason) = &run.not_counted {
                        problems.push(format!(
                            "{} {} closed loop, round {}: does not count: {reason}",
                            app.label, route.route, run.round
                        ));
                    }
                }
                for (_, point) in route.runs() {
                    if let Some(error) = &point.bookkeeping {
                        problems.push(format!(
                            "{} {} at {:.0}/s, round {}: {error}",
                            app.label, route.route, point.target_per_sec, point.round
                        ));
                    }
                    if point.wrong_bodies > 0 {
                        problems.push(format!(
                            "{} {} at {:.0}/s, round {}: {} wrong bodies",
                            app.label,
                            route.route,
                            point.target_per_sec,
                            point.round,
                            point.wrong_bodies
                        ));
                    }
                }
            }
        }
        for floor in &self.floor {
            for point in &floor.runs {
                if let Some(error) = &point.bookkeeping {
                    problems.push(format!(
                        "the machine's floor on {} at {:.0}/s, round {}: {error}",
                        floor.route, point.target_per_sec, point.round
                    ));
                }
            }
        }
        problems
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::example_file;

    fn example_sweep(id: &str) -> Sweep {
        Sweep::load(&example_file(&format!("example-sweep-{id}/sweep.json"))).unwrap()
    }

    fn point(round: u32, rate: f64, within_slo: bool, p99: f64) -> RatePoint {
        RatePoint {
            round,
            target_per_sec: rate,
            fraction: 0.0,
            duration_secs: 1.0,
            sent: 0,
            completed: 0,
            failed: 0,
            in_flight: 0,
            delivered_ratio: 1.0,
            latency_ms: Latency {
                p99,
                ..Latency::default()
            },
            send_delay_ms: None,
            connection_wait_ms: None,
            read_delay_ms: None,
            latency_less_generator_ms: None,
            generator_late: false,
            answers: BTreeMap::new(),
            wrong_bodies: 0,
            connections_opened: 0,
            app_cpu_us_per_request: None,
            postgres_cpu_us_per_request: None,
            redis_cpu_us_per_request: None,
            app_rss_max_mib: 0.0,
            cpu_busy: None,
            client_bound: false,
            valid: within_slo,
            invalid_reason: None,
            bookkeeping: None,
            within_slo,
            histogram: String::new(),
        }
    }

    fn route(common: Vec<RatePoint>, own: Vec<RatePoint>) -> RouteSweep {
        RouteSweep {
            route: "detail".to_owned(),
            path: "/".to_owned(),
            slo_ms: 50.0,
            closed_loop_per_sec: 1000.0,
            closed_loop_rounds: Vec::new(),
            common,
            own,
        }
    }

    #[test]
    fn one_round_the_max_sustainable_rate_is_the_highest_sustained_with_misses_below_counted() {
        let route = route(
            vec![
                point(1, 100.0, true, 1.0),
                point(1, 300.0, false, 90.0),
                point(1, 500.0, true, 9.0),
            ],
            vec![
                point(1, 250.0, true, 3.0),
                point(1, 200.0, true, 2.0),
                point(1, 600.0, false, 80.0),
            ],
        );
        assert_eq!(route.max_sustainable(1), Some(500.0));
        assert_eq!(route.misses_below_max(1), 1);
        let above = route.rung_that_set_the_max(1).unwrap();
        assert_eq!(above.target_per_sec, 600.0);
        let none = RouteSweep {
            common: vec![point(1, 100.0, false, 70.0)],
            own: Vec::new(),
            ..route
        };
        assert_eq!(none.max_sustainable(1), None);
        assert_eq!(none.misses_below_max(1), 0);
        assert_eq!(none.rung_that_set_the_max(1).unwrap().target_per_sec, 100.0);
        let top_held = RouteSweep {
            common: vec![point(1, 100.0, true, 1.0)],
            own: Vec::new(),
            ..none
        };
        assert_eq!(
            top_held.rung_that_set_the_max(1).unwrap().target_per_sec,
            100.0
        );
    }

    #[test]
    fn over_rounds_a_rate_is_sustained_when_more_than_half_the_rounds_held_it() {
        // 400/s held in rounds 1 and 3, 800/s only in round 2, 1,000/s never run in round 3
        // (its ladder stopped early) and held once.
        let route = route(
            vec![
                point(1, 400.0, true, 5.0),
                point(1, 800.0, false, 60.0),
                point(1, 1000.0, true, 8.0),
                point(2, 400.0, false, 70.0),
                point(2, 800.0, true, 9.0),
                point(2, 1000.0, false, 90.0),
                point(3, 400.0, true, 4.0),
                point(3, 800.0, false, 99.0),
            ],
            Vec::new(),
        );
        assert_eq!(route.max_sustainable(3), Some(400.0));
        assert_eq!(
            route.max_sustainable_by_round(3),
            [Some(1000.0), Some(800.0), Some(400.0)]
        );
        let rungs = route.rungs();
        assert_eq!(rungs.len(), 3);
        assert_eq!(rungs[0].held(), 2);
        assert_eq!(rungs[2].runs.len(), 2);
        assert!(!rungs[2].sustained(3), "1 of 3 rounds, one not run");
        assert_eq!(rungs[1].median_run().latency_ms.p99, 60.0);
        assert_eq!(rungs[1].p99_range(), (9.0, 99.0));
        assert_eq!(
            rungs[2].median_run().latency_ms.p99,
            90.0,
            "higher middle of two"
        );
        // Two rounds: both must hold, and no rate was held in rounds 1 and 2.
        let two_rounds = RouteSweep {
            common: route
                .common
                .iter()
                .filter(|p| p.round <= 2)
                .cloned()
                .collect(),
            ..route.clone()
        };
        assert_eq!(two_rounds.max_sustainable(2), None);
        assert_eq!(two_rounds.max_sustainable(1), Some(1000.0));
    }

    #[test]
    fn a_generator_late_run_is_neither_held_nor_failed() {
        let late = |round: u32, rate: f64| RatePoint {
            generator_late: true,
            ..point(round, rate, false, 14.0)
        };
        // 800/s: held once, generator-late twice; 1,000/s: held once, failed once, late once.
        let swept = route(
            vec![
                point(1, 800.0, true, 5.0),
                late(2, 800.0),
                late(3, 800.0),
                point(1, 1000.0, true, 8.0),
                point(2, 1000.0, false, 30.0),
                late(3, 1000.0),
            ],
            Vec::new(),
        );
        let rungs = swept.rungs();
        assert_eq!((rungs[0].held(), rungs[0].generator_late()), (1, 2));
        assert!(
            rungs[0].sustained(3),
            "held in the one round that judged it"
        );
        assert!(
            !rungs[1].sustained(3),
            "held in one of the two that judged it"
        );
        assert_eq!(swept.max_sustainable(3), Some(800.0));
        let all_late = route(vec![late(1, 800.0), late(2, 800.0)], Vec::new());
        assert_eq!(all_late.max_sustainable(2), None, "no round judged it");
    }

    /// The README's recovery figures for docs/example-sweep-20261203135229, recomputed by
    /// today's rule from the per-second figures it recorded.
    #[test]
    fn the_example_sweep_s_overloads_by_the_recovery_rule() {
        let sweep = example_sweep("20261203135229");
        let plan = &sweep.settings.overload;
        let end = plan.before_secs + plan.overload_secs;
        let slo = sweep.settings.slo_ms["detail"];
        let back: Vec<(&str, Option<f64>)> = sweep
            .apps
            .iter()
            .filter_map(|app| {
                let o = app.overloads.first()?;
                let after = recovered_after_secs(&o.seconds, end, slo, o.base_per_sec);
                Some((app.label.as_str(), after))
            })
            .collect();
        assert_eq!(
            back,
            [
                ("go", None),
                ("axum-sqlx", Some(1.0)),
                ("axum-sqlx-sysalloc", Some(6.0)),
                ("axum-sqlx-jemalloc", None),
                ("axum-postgres", Some(5.0)),
                ("actix-sqlx", None),
                ("gin", None),
            ]
        );
    }

    #[test]
    fn the_machine_is_bound_from_the_lowest_rate_its_floor_did_not_sustain() {
        let floor = |held: &[(f64, [bool; 3])]| Floor {
            route: "detail".to_owned(),
            body_bytes: 6_000,
            runs: (1..=3)
                .flat_map(|round| {
                    held.iter().map(move |(rate, rounds)| {
                        let held = rounds[round as usize - 1];
                        point(round, *rate, held, if held { 2.0 } else { 80.0 })
                    })
                })
                .collect(),
        };
        let missed_twice = floor(&[
            (1_000.0, [true; 3]),
            (2_000.0, [true, false, false]),
            (3_000.0, [true, true, false]),
        ]);
        assert_eq!(missed_twice.machine_bound_from(3), Some(2_000.0));
        let missed_once = floor(&[(1_000.0, [true; 3]), (2_000.0, [true, false, true])]);
        assert_eq!(missed_once.machine_bound_from(3), None);
    }

    /// The README's figures for docs/example-sweep-20261204170955, the first sweep with read
    /// delays: what became of its runs, and which maxima are floors for the generator.
    #[test]
    fn the_generator_late_example_sweep_as_the_readme_gives_it() {
        let sweep = example_sweep("20261204170955");
        let mut counts = BTreeMap::<&str, usize>::new();
        for app in &sweep.apps {
            for route in &app.routes {
                let slo = sweep.settings.slo_ms[&route.route];
                for (_, run) in route.runs() {
                    let less = run.latency_less_generator_ms.as_ref().unwrap().p99;
                    let kind = match (run.within_slo, run.generator_late, run.valid) {
                        (true, ..) => "held",
                        (_, true, _) if less <= slo => "late, the app's share within the SLO",
                        (_, true, _) => "late, the generator's own p99 over the SLO",
                        (_, _, true) => "missed",
                        _ => "invalid",
                    };
                    *counts.entry(kind).or_default() += 1;
                }
            }
        }
        assert_eq!(
            counts.into_iter().collect::<Vec<_>>(),
            [
                ("held", 226),
                ("invalid", 11),
                ("late, the app's share within the SLO", 8),
                ("late, the generator's own p99 over the SLO", 89),
                ("missed", 22),
            ]
        );
        // On cached-detail every max but gin's was set by a rung with a generator-late round.
        let floors: Vec<(&str, bool)> = sweep
            .apps
            .iter()
            .map(|app| {
                let route = app
                    .routes
                    .iter()
                    .find(|r| r.route == "cached-detail")
                    .unwrap();
                let set_by = route.rung_that_set_the_max(3).unwrap();
                (app.label.as_str(), set_by.generator_late() > 0)
            })
            .collect();
        assert_eq!(
            floors,
            [
                ("go", true),
                ("axum-sqlx", true),
                ("axum-sqlx-sysalloc", true),
                ("actix-sqlx", true),
                ("gin", false)
            ]
        );
        // The earlier sweep of the same five apps and two routes, before read delays: runs
        // whose send delay alone had a p99 over the SLO, each counted as a failure.
        let before = example_sweep("20261203135229");
        let apps = ["go", "axum-sqlx", "axum-sqlx-sysalloc", "actix-sqlx", "gin"];
        let (mut runs, mut late_to_send) = (0, 0);
        for app in before
            .apps
            .iter()
            .filter(|a| apps.contains(&a.label.as_str()))
        {
            for route in app.routes.iter().filter(|r| r.route.ends_with("detail")) {
                let slo = before.settings.slo_ms[&route.route];
                for (_, run) in route.runs() {
                    runs += 1;
                    let send_p99 = run.send_delay_ms.as_ref().unwrap().p99;
                    if send_p99 > slo {
                        assert!(!run.within_slo);
                        late_to_send += 1;
                    }
                }
            }
        }
        assert_eq!((runs, late_to_send), (287, 110));
    }

    /// The README's table of the six camps at a given load (docs/example-sweep-20261205010548):
    /// per app and route, the max rate under the SLO, then at half Go's closed-loop max the
    /// median share delivered, the app's CPU µs per request (runs that answered) and the
    /// median run's RSS in MiB.
    #[test]
    fn the_six_camps_at_a_given_load_as_the_readme_gives_them() {
        let sweep = example_sweep("20261205010548");
        let rounds = sweep.settings.rounds;
        let mut rows = Vec::new();
        for app in &sweep.apps {
            for route in &app.routes {
                let rungs = route.rungs();
                let half = rungs
                    .iter()
                    .find(|r| r.ladder == Ladder::Common && r.fraction == 0.5)
                    .unwrap();
                let delivered = median(half.runs.iter().map(|run| run.delivered_ratio));
                let cpu = median(
                    half.runs
                        .iter()
                        .filter(|run| run.completed > 0)
                        .map(|run| run.app_cpu_us_per_request.unwrap()),
                );
                rows.push((
                    format!("{} {}", app.label, route.route),
                    route.max_sustainable(rounds).map(|max| max as u32),
                    half.target_per_sec as u32,
                    (delivered.unwrap().0 * 100.0).round() as u32,
                    cpu.map(|(cpu, _)| cpu.round() as u32),
                    half.median_run().app_rss_max_mib.round() as u32,
                ));
            }
        }
        let expected = [
            ("go detail", Some(4_237), 2_354, 100, Some(263), 23),
            ("go cached-detail", Some(11_761), 11_761, 100, Some(66), 32),
            ("gin detail", Some(4_334), 2_354, 100, Some(263), 29),
            ("gin cached-detail", Some(11_761), 11_761, 100, Some(66), 39),
            ("axum-sqlx detail", Some(5_414), 2_354, 100, Some(177), 19),
            (
                "axum-sqlx cached-detail",
                Some(24_672),
                11_761,
                100,
                Some(43),
                24,
            ),
            ("actix-sqlx detail", Some(5_230), 2_354, 100, Some(178), 20),
            (
                "actix-sqlx cached-detail",
                Some(25_165),
                11_761,
                100,
                Some(44),
                31,
            ),
            ("fastify detail", Some(3_531), 2_354, 100, Some(333), 144),
            (
                "fastify cached-detail",
                Some(17_642),
                11_761,
                100,
                Some(70),
                140,
            ),
            ("fastapi detail", Some(1_622), 2_354, 59, Some(702), 79),
            (
                "fastapi cached-detail",
                Some(3_777),
                11_761,
                0,
                Some(558),
                83,
            ),
            (
                "spring-webflux detail",
                Some(2_843),
                2_354,
                100,
                Some(384),
                437,
            ),
            (
                "spring-webflux cached-detail",
                None,
                11_761,
                100,
                Some(77),
                437,
            ),
            ("laravel detail", None, 2_354, 0, Some(878), 210),
            ("laravel cached-detail", None, 11_761, 0, None, 210),
        ];
        let expected: Vec<_> = expected
            .into_iter()
            .map(|(name, max, rate, delivered, cpu, rss)| {
                (name.to_owned(), max, rate, delivered, cpu, rss)
            })
            .collect();
        assert_eq!(rows, expected);
        let app = |label: &str| sweep.apps.iter().find(|a| a.label == label).unwrap();
        let spring_cached = &app("spring-webflux").routes[1];
        let half = spring_cached
            .rungs()
            .into_iter()
            .find(|r| r.ladder == Ladder::Common && r.fraction == 0.5)
            .unwrap();
        assert_eq!((half.median_run().latency_ms.p99 * 10.0).round(), 696.0);
        let laravel_detail = &app("laravel").routes[0];
        assert_eq!(laravel_detail.closed_loop_per_sec.round(), 437.0);
        let half = laravel_detail
            .rungs()
            .into_iter()
            .find(|r| r.ladder == Ladder::Common && r.fraction == 0.5)
            .unwrap();
        let answers: Vec<&str> = half.runs[0].answers.keys().map(String::as_str).collect();
        assert_eq!(answers, ["502", "error: over the latency limit"]);
    }

    /// docs/spec.md §8.7's figures: Go on cached-detail with the generator sharing CPU 1 with
    /// PostgreSQL and Redis (docs/example-sweep-20261204175115), then alone on it
    /// (-20261204190632): per round at half Go's max, (p99, latency less the generator's
    /// lateness p99, generator-late), in ms.
    #[test]
    fn go_s_tails_with_the_generator_shared_and_alone() {
        let at_half = |id: &str| -> Vec<(f64, f64, bool)> {
            let sweep = example_sweep(id);
            let route = &sweep.apps[0].routes[0];
            route
                .common
                .iter()
                .filter(|p| p.fraction == 0.5)
                .map(|p| {
                    let less = p.latency_less_generator_ms.as_ref().unwrap().p99;
                    let round = |ms: f64| (ms * 10.0).round() / 10.0;
                    (round(p.latency_ms.p99), round(less), p.generator_late)
                })
                .collect()
        };
        assert_eq!(
            at_half("20261204175115"),
            [(61.2, 61.0, false), (5.5, 5.0, false), (14.3, 13.6, false)]
        );
        assert_eq!(
            at_half("20261204190632"),
            [(3.3, 1.9, false), (13.1, 9.6, true), (3.8, 2.8, false)]
        );
    }

    /// The README's figures for cached-detail at half Go's max in
    /// docs/example-sweep-20261203135229.
    #[test]
    fn the_example_sweep_s_cached_detail_tails_as_the_readme_gives_them() {
        let sweep = example_sweep("20261203135229");
        let slo = sweep.settings.slo_ms["cached-detail"];
        let runs: Vec<(&str, &RatePoint)> = sweep
            .apps
            .iter()
            .flat_map(|app| app.routes.iter().map(move |r| (app.label.as_str(), r)))
            .filter(|(_, route)| route.route == "cached-detail")
            .flat_map(|(label, route)| route.common.iter().map(move |p| (label, p)))
            .filter(|(_, p)| p.fraction == 0.5)
            .collect();
        assert_eq!(runs[0].1.target_per_sec, 10_106.0);
        let held_once = sweep
            .apps
            .iter()
            .filter(|app| {
                runs.iter()
                    .filter(|(l, p)| *l == app.label && p.within_slo)
                    .count()
                    == 1
            })
            .count();
        assert_eq!((held_once, sweep.apps.len()), (5, 7));
        let p50s = runs.iter().map(|(_, p)| p.latency_ms.p50);
        let p50_range = (
            p50s.clone().fold(f64::MAX, f64::min),
            p50s.fold(0.0, f64::max),
        );
        assert_eq!(p50_range, (0.218, 0.502));
        let missed: Vec<&RatePoint> = runs
            .iter()
            .map(|(_, p)| *p)
            .filter(|p| !p.within_slo)
            .collect();
        let p99s = missed.iter().map(|p| p.latency_ms.p99);
        let p99_range = (
            p99s.clone().fold(f64::MAX, f64::min),
            p99s.fold(0.0, f64::max),
        );
        assert_eq!((missed.len(), p99_range), (14, (11.279, 84.735)));
        let p99 = |latency: &Option<Latency>| latency.as_ref().unwrap().p99;
        let generator_late: Vec<f64> = missed
            .iter()
            .map(|p| p99(&p.send_delay_ms))
            .filter(|delay| *delay > slo)
            .collect();
        assert_eq!(generator_late, [14.375, 10.199]);
        let (waited, rest): (Vec<&&RatePoint>, Vec<&&RatePoint>) = missed
            .iter()
            .filter(|p| p99(&p.send_delay_ms) <= slo)
            .partition(|p| p99(&p.connection_wait_ms) > slo);
        let waits: Vec<f64> = waited.iter().map(|p| p99(&p.connection_wait_ms)).collect();
        assert_eq!(waits, [22.719]);
        let share = rest
            .iter()
            .map(|p| (p99(&p.send_delay_ms) + p99(&p.connection_wait_ms)) / p.latency_ms.p99)
            .fold(0.0, f64::max);
        assert_eq!((rest.len(), (share * 100.0).round()), (11, 54.0));
    }

    /// The README's sentence on Cot's home page in the two example sweeps that ran it.
    #[test]
    fn cot_s_home_page_held_no_rate_in_the_example_sweeps() {
        let mut found = Vec::new();
        for id in ["20261203095217", "20261202122851"] {
            let sweep = example_sweep(id);
            let cot = sweep.apps.iter().find(|a| a.label == "cot").unwrap();
            let home = cot.routes.iter().find(|r| r.route == "home").unwrap();
            assert_eq!(home.max_sustainable(sweep.settings.rounds), None, "{id}");
            let lowest = ladder_lowest(home);
            found.push((
                lowest.target_per_sec,
                lowest.latency_ms.p99.round(),
                home.closed_loop_per_sec.round(),
            ));
        }
        assert_eq!(found, [(45.0, 485.0, 91.0), (40.0, 52.0, 81.0)]);
    }

    /// The README's figures for axum-sqlx, its system-allocator and its jemalloc build (in
    /// that order) in the one-pass and the rounds example sweeps: the max sustainable rate
    /// on cached-detail and the closed-loop max on detail.
    #[test]
    fn the_allocator_builds_in_the_example_sweeps() {
        let builds = ["axum-sqlx", "axum-sqlx-sysalloc", "axum-sqlx-jemalloc"];
        let figures = |id: &str| -> Vec<(f64, f64)> {
            let sweep = example_sweep(id);
            builds
                .iter()
                .map(|label| {
                    let app = sweep.apps.iter().find(|a| a.label == *label).unwrap();
                    let route = |name: &str| app.routes.iter().find(|r| r.route == name).unwrap();
                    let cached = route("cached-detail").max_sustainable(sweep.settings.rounds);
                    let detail = route("detail").closed_loop_per_sec.round();
                    (cached.unwrap(), detail)
                })
                .collect()
        };
        assert_eq!(
            figures("20261203095217"),
            [(14_444.0, 2_401.0), (4_815.0, 3_925.0), (1_926.0, 7_998.0)]
        );
        assert_eq!(
            figures("20261203135229"),
            [(5_053.0, 8_210.0), (5_053.0, 7_138.0), (5_053.0, 6_234.0)]
        );
    }

    /// docs/spec.md §8.7: Go's p99 on cached-detail at a tenth of its closed-loop max in the
    /// sweep with one schedule per rate and in the two before it.
    #[test]
    fn go_s_low_rate_tail_in_the_example_sweeps() {
        let p99s: Vec<(f64, f64)> = ["20261203073719", "20261202122851", "20261202171842"]
            .iter()
            .map(|id| {
                let sweep = example_sweep(id);
                let go = &sweep.apps[0];
                let cached = go
                    .routes
                    .iter()
                    .find(|r| r.route == "cached-detail")
                    .unwrap();
                let tenth = cached.common.iter().find(|p| p.fraction == 0.1).unwrap();
                (
                    tenth.target_per_sec,
                    (tenth.latency_ms.p99 * 10.0).round() / 10.0,
                )
            })
            .collect();
        assert_eq!(p99s, [(1_769.0, 5.2), (1_001.0, 25.2), (1_366.0, 110.7)]);
    }

    fn ladder_lowest(route: &RouteSweep) -> &RatePoint {
        route
            .runs()
            .map(|(_, p)| p)
            .min_by(|a, b| a.target_per_sec.total_cmp(&b.target_per_sec))
            .unwrap()
    }

    #[test]
    fn the_closed_loop_max_is_the_median_of_the_rounds_that_counted() {
        let mut route = route(Vec::new(), Vec::new());
        let run = |round, per_sec, not_counted: Option<&str>| ClosedLoopRound {
            round,
            per_sec,
            not_counted: not_counted.map(str::to_owned),
        };
        route.add_closed_loop_round(run(1, 500.0, Some("the app held 27 of 50 connections")));
        assert_eq!(route.closed_loop_per_sec, 0.0);
        assert!(!route.closed_loop_counted());
        for (round, per_sec) in [(2, 2401.0), (3, 7998.0), (4, 3925.0)] {
            route.add_closed_loop_round(run(round, per_sec, None));
        }
        assert_eq!(route.closed_loop_per_sec, 3925.0);
        assert!(route.closed_loop_counted());
    }
}
