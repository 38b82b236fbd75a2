//! `results/sweep-<id>/sweep.json`: what `blogbench sweep` measured (docs/spec.md §6), per
//! app: each route's open-loop rate ladders, the connection sweep, the overload and its
//! recovery, and the memory-limited connection sweep. Written atomically after every step;
//! the sweep report is built from this file alone.

use super::{CpuSets, Latency, RunHeader, RunKind, median, read_json, write_json};
use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(from = "Recorded")]
pub struct Sweep {
    /// The folder is `sweep-<id>`.
    #[serde(flatten)]
    pub header: RunHeader,
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

/// `sweep.json` as written: [`Sweep`] reads it, then judges its runs by today's rule
/// ([`generator_late`]), so every reader of a sweep recorded under the earlier rule, which
/// also set aside runs whose app-side p99 was over the SLO, sees those as the app's misses.
#[derive(Deserialize)]
struct Recorded {
    #[serde(flatten)]
    header: RunHeader,
    cpu_sets: CpuSets,
    settings: SweepSettings,
    generator_ceiling: Option<GeneratorCeiling>,
    #[serde(default)]
    floor: Vec<Floor>,
    apps: Vec<AppSweep>,
}

impl From<Recorded> for Sweep {
    fn from(recorded: Recorded) -> Sweep {
        let mut sweep = Sweep {
            header: recorded.header,
            cpu_sets: recorded.cpu_sets,
            settings: recorded.settings,
            generator_ceiling: recorded.generator_ceiling,
            floor: recorded.floor,
            apps: recorded.apps,
        };
        let judge_again = |run: &mut RatePoint, slo_ms: f64| {
            run.generator_late &= run
                .latency_less_generator_ms
                .as_ref()
                .is_some_and(|less| less.p99 <= slo_ms);
        };
        for route in sweep.apps.iter_mut().flat_map(|app| &mut app.routes) {
            let slo_ms = route.slo_ms;
            for run in route.common.iter_mut().chain(&mut route.own) {
                judge_again(run, slo_ms);
            }
        }
        for floor in &mut sweep.floor {
            if let Some(&slo_ms) = sweep.settings.slo_ms.get(&floor.route) {
                floor
                    .runs
                    .iter_mut()
                    .for_each(|run| judge_again(run, slo_ms));
            }
        }
        sweep
    }
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
    /// Missed the SLO, but the app's share of the latency was within it
    /// ([`generator_late`]): not held, and not the app's miss. Judged again when read
    /// ([`Recorded`]).
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

/// Whether a run that missed its SLO is the generator's miss, not the app's (docs/spec.md
/// §8.1): judged by its latency (every answer right, though some may have been given up at
/// the latency limit), and its latency less the generator's own lateness (send delay plus
/// read delay), request by request, has a p99 within the SLO. A run whose app-side p99 is
/// over the SLO is the app's miss however late the generator was: the app alone would have
/// missed it.
pub fn generator_late(
    judged_by_latency: bool,
    p99_ms: f64,
    latency_less_generator_p99_ms: f64,
    slo_ms: f64,
) -> bool {
    judged_by_latency && p99_ms > slo_ms && latency_less_generator_p99_ms <= slo_ms
}

/// Whether a verdict held in more than half of `rounds` is still open before `round` (from
/// 1), when `held` of the earlier rounds held: it is decided once more than half held, or
/// once even every round left holding would not make more than half. A round whose verdict is
/// decided need not run: its run could not change it.
pub fn verdict_open(held: usize, round: u32, rounds: u32) -> bool {
    let rounds_left = (rounds + 1).saturating_sub(round.max(1)) as usize;
    let rounds = rounds.max(1) as usize;
    2 * held <= rounds && 2 * (held + rounds_left) > rounds
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

    /// The rounds whose run was generator-late: not held, and not the app's miss.
    pub fn generator_late(&self) -> usize {
        self.runs.iter().filter(|run| run.generator_late).count()
    }

    /// Held in more than half of `rounds`: a round that did not run the rate, or whose run
    /// was generator-late, did not hold it.
    pub fn sustained(&self, rounds: u32) -> bool {
        2 * self.held() > rounds.max(1) as usize
    }

    /// Not sustained, but it would have been had its generator-late runs held: the generator,
    /// not the app, may have decided its verdict.
    pub fn generator_could_have_decided(&self, rounds: u32) -> bool {
        !self.sustained(rounds)
            && 2 * (self.held() + self.generator_late()) > rounds.max(1) as usize
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

    /// What the floor says of `rate`: machine-bound from the lowest rate it did not sustain;
    /// held when it sustained `rate` or a higher one; else not measured, as a rate above
    /// every rate it ran says nothing of the machine.
    pub fn at(&self, rate: f64, rounds: u32) -> FloorAt {
        if self
            .machine_bound_from(rounds)
            .is_some_and(|from| rate >= from)
        {
            return FloorAt::MachineBound;
        }
        let held_at_or_above = self
            .rungs()
            .iter()
            .any(|rung| rung.target_per_sec >= rate && rung.sustained(rounds));
        match held_at_or_above {
            true => FloorAt::Held,
            false => FloorAt::NotMeasured,
        }
    }
}

/// What the machine's floor says of a rate (docs/spec.md §8.9).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloorAt {
    /// The floor sustained this rate or a higher one: a miss here is not the machine's.
    Held,
    /// The floor did not sustain this rate or a lower one: no app could have held it here.
    MachineBound,
    /// The floor ran no rate this high (or the sweep measured no floor).
    NotMeasured,
}

/// Why the rate that decided a max may not be the app's limit (docs/spec.md §8.2): any of
/// them makes the max only a lower bound (≥), the app held it in most rounds but may hold
/// more.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OpenAbove {
    /// The ladders ended at the max: no higher rate was run.
    pub top_of_ladders: bool,
    /// The deciding rate's median run was client-bound (†).
    pub client_bound: bool,
    /// The deciding rate's median run was service-bound (‡).
    pub service_bound: bool,
    /// Its generator-late rounds could have changed its verdict (◊).
    pub generator: bool,
    /// The machine's floor did not sustain it (⊥).
    pub machine_bound: bool,
    /// The machine's floor was not measured at it or above (?).
    pub floor_not_measured: bool,
}

impl OpenAbove {
    /// The max is only a lower bound.
    pub fn any(&self) -> bool {
        *self != OpenAbove::default()
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

    /// Each round's highest held rate, in round order (`None` for a round that held none, or
    /// that [passed over the max](RouteSweep::passed_over_the_max)): the spread behind
    /// [`RouteSweep::max_sustainable`].
    pub fn max_sustainable_by_round(&self, rounds: u32) -> Vec<Option<f64>> {
        (1..=rounds)
            .map(|round| {
                if self.passed_over_the_max(round, rounds) {
                    return None;
                }
                self.runs()
                    .map(|(_, p)| p)
                    .filter(|p| p.round == round && p.within_slo)
                    .map(|p| p.target_per_sec)
                    .max_by(f64::total_cmp)
            })
            .collect()
    }

    /// Whether `round` did not run the max sustainable rate because the rounds before it
    /// had decided it: the round's own highest held rate says nothing of the app then.
    pub fn passed_over_the_max(&self, round: u32, rounds: u32) -> bool {
        let Some(max) = self.max_sustainable(rounds) else {
            return false;
        };
        let at_max: Vec<&RatePoint> = self
            .runs()
            .map(|(_, run)| run)
            .filter(|run| run.target_per_sec == max)
            .collect();
        let held_before = at_max
            .iter()
            .filter(|run| run.round < round && run.within_slo)
            .count();
        !at_max.iter().any(|run| run.round == round) && !verdict_open(held_before, round, rounds)
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

    /// What the machine's floor on `route` says of `rate`.
    pub fn floor_at(&self, route: &str, rate: f64) -> FloorAt {
        self.floor
            .iter()
            .find(|floor| floor.route == route)
            .map_or(FloorAt::NotMeasured, |floor| {
                floor.at(rate, self.settings.rounds)
            })
    }

    /// Why `swept`'s max (or its "none") is only a lower bound: the marks of the rate that
    /// decided it ([`RouteSweep::rung_that_set_the_max`]); nothing when nothing ran.
    pub fn open_above(&self, swept: &RouteSweep) -> OpenAbove {
        let rounds = self.settings.rounds;
        let Some(rung) = swept.rung_that_set_the_max(rounds) else {
            return OpenAbove::default();
        };
        let run = rung.median_run();
        let floor = self.floor_at(&swept.route, rung.target_per_sec);
        OpenAbove {
            top_of_ladders: rung.sustained(rounds),
            client_bound: run.client_bound,
            service_bound: run.service_bound(),
            generator: rung.generator_could_have_decided(rounds),
            machine_bound: floor == FloorAt::MachineBound,
            floor_not_measured: floor == FloorAt::NotMeasured,
        }
    }

    /// The lowest rate on `route` from which every app's runs are machine-bound
    /// ([`Floor::machine_bound_from`]); `None` without a floor or below it.
    pub fn machine_bound_from(&self, route: &str) -> Option<f64> {
        let floor = self.floor.iter().find(|floor| floor.route == route)?;
        floor.machine_bound_from(self.settings.rounds)
    }

    /// Writes `sweep.json` in `dir` atomically.
    pub fn save(&self, dir: &Path) -> Result<()> {
        write_json(&dir.join(RunKind::Sweep.file()), self)
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
mod examples;
#[cfg(test)]
mod tests;
