//! `results/sweep-<id>/sweep.json`: what `blogbench sweep` measured (docs/spec.md §6), per
//! app: each route's open-loop rate ladders, the connection sweep, the overload and its
//! recovery, and the memory-limited connection sweep. Written atomically after every step;
//! the sweep report is built from this file alone.

use super::{CpuSets, Latency, Machine, read_json, write_json};
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
    pub apps: Vec<AppSweep>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SweepSettings {
    pub quick: bool,
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

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AppSweep {
    /// The app's name, or `name+KEY=VALUE` for a variant.
    pub label: String,
    /// The variables the harness set.
    pub env: BTreeMap<String, String>,
    /// Why the app could not be swept (start-up, parity), or what stopped it part-way.
    pub error: Option<String>,
    pub routes: Vec<RouteSweep>,
    /// The app's RSS at rest, after start-up and the parity gate, before any load.
    #[serde(default)]
    pub idle_rss_mib: Option<f64>,
    pub connections: Vec<ConnectionLevel>,
    pub overload: Option<Overload>,
    pub memory_limited: Option<MemoryLimited>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RouteSweep {
    pub route: String,
    pub path: String,
    pub slo_ms: f64,
    /// The fair run's closed loop (oha, 50 connections) on this route: req/s.
    pub closed_loop_per_sec: f64,
    /// At fractions of Go's closed-loop max: the same rates for every app.
    pub common: Vec<RatePoint>,
    /// At fractions of this app's closed-loop max.
    pub own: Vec<RatePoint>,
}

/// One open-loop run at a fixed target rate.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RatePoint {
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
    /// Neither at the end (the accounting identity is `sent = completed + failed + in_flight`).
    pub in_flight: u64,
    /// Right answers in by the end of the run's schedule ÷ the requests the target rate
    /// made due in it.
    pub delivered_ratio: f64,
    /// From each request's due time to its answer.
    pub latency_ms: Latency,
    /// From each request's due time to when the generator took it up, before any wait
    /// for a connection: the generator's own share of `latency_ms` (none in sweeps
    /// recorded before it was).
    #[serde(default)]
    pub send_delay_ms: Option<Latency>,
    /// Every answer by status (`200`) or failure (`error: connect`, `error: latency limit`).
    pub answers: BTreeMap<String, u64>,
    /// 200s whose body was not the parity page.
    pub wrong_bodies: u64,
    pub connections_opened: u32,
    pub app_cpu_us_per_request: f64,
    pub postgres_cpu_us_per_request: f64,
    pub redis_cpu_us_per_request: f64,
    pub app_rss_max_mib: f64,
    /// Above [`CLIENT_BOUND_FRACTION`] of the generator's ceiling.
    pub client_bound: bool,
    /// Every answer right, delivered ≥ 99 %, accounting identity held, nothing over the
    /// latency limit; else `invalid_reason` lists what failed.
    pub valid: bool,
    pub invalid_reason: Option<String>,
    /// Valid and p99 within the route's SLO.
    pub within_slo: bool,
    /// The latency histogram (HdrHistogram interval log, µs), relative to the sweep folder.
    pub histogram: String,
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
    /// Seconds after the overload ended until every later second was back within the
    /// baseline (p99 ≤ max(2 × baseline, baseline + 5 ms), right answers ≥ 95 % of the
    /// base rate, no failures); `None` when it never was.
    pub recovered_after_secs: Option<f64>,
    pub recovered: bool,
    pub survived: bool,
    /// Per second of the schedule (by due time): target, right answers, failures, p99.
    pub seconds: Vec<OverloadSecond>,
    pub histogram: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OverloadSecond {
    pub second: u32,
    pub target_per_sec: f64,
    pub right: u64,
    pub failed: u64,
    pub p99_ms: f64,
}

impl RouteSweep {
    /// The highest rate of either ladder sustained (valid, p99 within the SLO).
    pub fn max_sustainable(&self) -> Option<f64> {
        self.common
            .iter()
            .chain(&self.own)
            .filter(|p| p.within_slo)
            .map(|p| p.target_per_sec)
            .max_by(f64::total_cmp)
    }

    /// Rates below the max sustainable one that were not sustained: on a noisy machine a
    /// stall can sink one run, and a reader should see that the curve was not clean.
    pub fn misses_below_max(&self) -> usize {
        let Some(max) = self.max_sustainable() else {
            return 0;
        };
        self.common
            .iter()
            .chain(&self.own)
            .filter(|p| p.target_per_sec < max && !p.within_slo)
            .count()
    }
}

impl Sweep {
    pub fn load(path: &Path) -> Result<Sweep> {
        read_json(path)
    }

    /// Writes `sweep.json` in `dir` atomically.
    pub fn save(&self, dir: &Path) -> Result<()> {
        write_json(&dir.join("sweep.json"), self)
    }

    /// What went wrong, one line each: apps that could not be swept and runs whose
    /// accounting did not add up or whose answers were wrong. Rates an app could not hold
    /// are findings, not problems. `blogbench sweep` exits non-zero when this is not empty.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        for app in &self.apps {
            if let Some(error) = &app.error {
                problems.push(format!("{}: {error}", app.label));
            }
            for route in &app.routes {
                for point in route.common.iter().chain(&route.own) {
                    if point.sent != point.completed + point.failed + point.in_flight {
                        problems.push(format!(
                            "{} {} at {:.0}/s: sent {} ≠ completed {} + failed {} + in flight {}",
                            app.label,
                            route.route,
                            point.target_per_sec,
                            point.sent,
                            point.completed,
                            point.failed,
                            point.in_flight
                        ));
                    }
                    if point.wrong_bodies > 0 {
                        problems.push(format!(
                            "{} {} at {:.0}/s: {} wrong bodies",
                            app.label, route.route, point.target_per_sec, point.wrong_bodies
                        ));
                    }
                }
            }
        }
        problems
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(rate: f64, within_slo: bool) -> RatePoint {
        RatePoint {
            target_per_sec: rate,
            fraction: 0.0,
            duration_secs: 1.0,
            sent: 0,
            completed: 0,
            failed: 0,
            in_flight: 0,
            delivered_ratio: 1.0,
            latency_ms: Latency::default(),
            send_delay_ms: None,
            answers: BTreeMap::new(),
            wrong_bodies: 0,
            connections_opened: 0,
            app_cpu_us_per_request: 0.0,
            postgres_cpu_us_per_request: 0.0,
            redis_cpu_us_per_request: 0.0,
            app_rss_max_mib: 0.0,
            client_bound: false,
            valid: within_slo,
            invalid_reason: None,
            within_slo,
            histogram: String::new(),
        }
    }

    #[test]
    fn the_max_sustainable_rate_is_the_highest_sustained_with_misses_below_counted() {
        let route = RouteSweep {
            route: "detail".to_owned(),
            path: "/".to_owned(),
            slo_ms: 50.0,
            closed_loop_per_sec: 1000.0,
            common: vec![point(100.0, true), point(300.0, false), point(500.0, true)],
            own: vec![point(250.0, true), point(200.0, true), point(600.0, false)],
        };
        assert_eq!(route.max_sustainable(), Some(500.0));
        assert_eq!(route.misses_below_max(), 1);
        let none = RouteSweep {
            common: vec![point(100.0, false)],
            own: Vec::new(),
            ..route
        };
        assert_eq!(none.max_sustainable(), None);
        assert_eq!(none.misses_below_max(), 0);
    }
}
