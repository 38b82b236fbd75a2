//! A round's way up a rate ladder (docs/spec.md §8.2): which rates it runs.

use super::FAILING_IN_A_ROW;
use crate::results::sweep::{RatePoint, verdict_open};

/// One round's climb up one ladder. It passes over a rate whose verdict the earlier rounds
/// decided, as a run there could not change it, and stops after [`FAILING_IN_A_ROW`] rates
/// in a row that were invalid or that the app fell behind: higher rates only fail harder.
#[derive(Debug, Default)]
pub(super) struct Climb {
    failing_in_a_row: usize,
}

/// A run the app could not keep up with: invalid, or it delivered too little. `None` for a
/// generator-late run, which says nothing of how the app copes with the rate.
fn failing(point: &RatePoint) -> Option<bool> {
    (!point.generator_late).then(|| !point.valid || point.fell_behind())
}

impl Climb {
    /// Whether `round` of `rounds` runs the next rate up, given the earlier rounds' runs
    /// there. A rate passed over as decided counts toward the stop as most of its runs did.
    pub(super) fn runs(&mut self, earlier: &[&RatePoint], round: u32, rounds: u32) -> bool {
        if self.failing_in_a_row >= FAILING_IN_A_ROW {
            return false;
        }
        let held = earlier.iter().filter(|run| run.within_slo).count();
        if verdict_open(held, round, rounds) {
            return true;
        }
        let failed = earlier
            .iter()
            .filter(|run| failing(run) == Some(true))
            .count();
        self.failing_in_a_row = match 2 * failed > earlier.len() {
            true => self.failing_in_a_row + 1,
            false => 0,
        };
        false
    }

    /// Counts the run the round just made at the rate [`Climb::runs`] allowed.
    pub(super) fn ran(&mut self, point: &RatePoint) {
        self.failing_in_a_row = match failing(point) {
            None => self.failing_in_a_row,
            Some(false) => 0,
            Some(true) => self.failing_in_a_row + 1,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::Latency;
    use crate::results::sweep::{Ladder, RouteSweep};
    use crate::scoreboard::plan::OPEN_AFTER_MAJORITY;
    use std::collections::BTreeMap;

    /// What a simulated app's run at a rate came to.
    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Outcome {
        Held,
        /// Valid, every request delivered, p99 over the SLO.
        Missed,
        /// It fell behind: under 99 % delivered.
        Behind,
        /// Generator-late: over the SLO, the app's share within it.
        Late,
    }

    fn run(round: u32, rate: f64, outcome: Outcome) -> RatePoint {
        RatePoint {
            round,
            target_per_sec: rate,
            fraction: 0.0,
            duration_secs: 3.0,
            sent: 0,
            completed: 0,
            failed: 0,
            in_flight: 0,
            delivered_ratio: if outcome == Outcome::Behind { 0.5 } else { 1.0 },
            latency_ms: Latency {
                p99: if outcome == Outcome::Held { 5.0 } else { 80.0 },
                ..Latency::default()
            },
            send_delay_ms: None,
            connection_wait_ms: None,
            read_delay_ms: None,
            latency_less_generator_ms: None,
            generator_late: outcome == Outcome::Late,
            answers: BTreeMap::new(),
            wrong_bodies: 0,
            connections_opened: 0,
            app_cpu_us_per_request: None,
            postgres_cpu_us_per_request: None,
            redis_cpu_us_per_request: None,
            app_rss_max_mib: 0.0,
            cpu_busy: None,
            client_bound: false,
            valid: true,
            invalid_reason: None,
            bookkeeping: None,
            within_slo: outcome == Outcome::Held,
            histogram: String::new(),
        }
    }

    const LADDER: [f64; 6] = [500.0, 700.0, 900.0, 1_000.0, 1_100.0, 1_200.0];

    /// `rounds` rounds of one ladder against a simulated app, `app(rate, round)` its outcome,
    /// as the sweep climbs it: each round runs the rates whose verdict is open, up the ladder
    /// until it stops.
    fn sweep(rounds: u32, app: impl Fn(f64, u32) -> Outcome) -> RouteSweep {
        let mut route = RouteSweep {
            route: "detail".to_owned(),
            path: "/".to_owned(),
            slo_ms: 50.0,
            closed_loop_per_sec: 1_000.0,
            closed_loop_rounds: Vec::new(),
            common: Vec::new(),
            own: Vec::new(),
        };
        for round in 1..=rounds {
            let mut climb = Climb::default();
            for rate in LADDER {
                let earlier: Vec<&RatePoint> = route
                    .own
                    .iter()
                    .filter(|p| p.target_per_sec == rate)
                    .collect();
                if !climb.runs(&earlier, round, rounds) {
                    continue;
                }
                let point = run(round, rate, app(rate, round));
                climb.ran(&point);
                route.own.push(point);
            }
        }
        route
    }

    /// Holds every rate up to 1,000/s, falls behind above.
    fn steady(rate: f64, _round: u32) -> Outcome {
        match rate <= 1_000.0 {
            true => Outcome::Held,
            false => Outcome::Behind,
        }
    }

    #[test]
    fn a_round_runs_only_the_rates_the_earlier_rounds_left_open() {
        let swept = sweep(3, steady);
        assert_eq!(swept.max_sustainable(3), Some(1_000.0));
        // Two rounds of six rates decide every verdict: the third runs nothing.
        assert_eq!(
            swept.own.len(),
            12,
            "the full ladder's 18 less the third round's"
        );
        assert!(swept.own.iter().all(|p| p.round <= 2));
        assert!(swept.passed_over_the_max(3, 3));
        assert_eq!(
            swept.max_sustainable_by_round(3),
            [Some(1_000.0), Some(1_000.0), None]
        );
    }

    #[test]
    fn a_split_verdict_gets_the_third_round_and_only_it() {
        // A stall sinks 900/s in round 2; 1,000/s is generator-late in round 1.
        let swept = sweep(3, |rate, round| match (rate, round) {
            (900.0, 2) => Outcome::Missed,
            (1_000.0, 1) => Outcome::Late,
            _ => steady(rate, round),
        });
        let third: Vec<f64> = swept
            .own
            .iter()
            .filter(|p| p.round == 3)
            .map(|p| p.target_per_sec)
            .collect();
        assert_eq!(third, [900.0, 1_000.0]);
        assert_eq!(swept.max_sustainable(3), Some(1_000.0));
        assert_eq!(swept.own.len(), 14);
        // Late again in the third round: held in 1 of 3, so 900/s is the max.
        let late_twice = sweep(3, |rate, round| match (rate, round) {
            (1_000.0, 1 | 3) => Outcome::Late,
            _ => steady(rate, round),
        });
        assert_eq!(late_twice.max_sustainable(3), Some(900.0));
    }

    #[test]
    fn a_third_round_passes_over_a_rate_the_app_fell_behind_in_twice() {
        // Round 2 holds 1,100/s, rounds 1 and 3 fall behind there: the third round runs only
        // 1,100/s, split after two rounds, and passes over 1,200/s, which fell behind twice.
        let swept = sweep(3, |rate, round| match (rate, round) {
            (1_100.0, 2) => Outcome::Held,
            _ => steady(rate, round),
        });
        let third: Vec<f64> = swept
            .own
            .iter()
            .filter(|p| p.round == 3)
            .map(|p| p.target_per_sec)
            .collect();
        assert_eq!(third, [1_100.0]);
        assert_eq!(swept.max_sustainable(3), Some(1_000.0));
    }

    #[test]
    fn a_verdict_is_open_until_more_than_half_held_or_too_few_rounds_are_left() {
        let open = |held, round| verdict_open(held, round, 3);
        assert!(open(0, 1) && open(1, 2) && open(0, 2));
        assert!(!open(2, 3), "held twice: sustained");
        assert!(
            !open(0, 3),
            "missed twice: one round left cannot make 2 of 3"
        );
        assert!(open(1, 3));
        assert!(!verdict_open(1, 2, 1), "one round: decided by it");
    }

    /// The checked-in sweep beside the floor (docs/example-sweep-20261205125726) replayed as
    /// the sweep now runs its rounds: each round takes its recorded run at a rate, or its
    /// overload, only where the rounds before it left the verdict open. It finds every max
    /// the full rounds found, with fewer runs; the share of rates a third round runs is the
    /// scoreboard's estimate's ([`OPEN_AFTER_MAJORITY`]).
    #[test]
    fn the_example_sweep_replayed_needs_fewer_runs_for_the_same_maxima() {
        let path = crate::results::example_file("example-sweep-20261205125726/sweep.json");
        let sweep = crate::results::sweep::Sweep::load(&path).unwrap();
        let rounds = sweep.settings.rounds;
        let (mut recorded, mut replayed_runs, mut same_max) = (0, 0, 0);
        let (mut rates_run_by_the_third, mut rates) = (0, 0);
        for route in sweep.apps.iter().flat_map(|app| &app.routes) {
            let mut replayed = RouteSweep {
                common: Vec::new(),
                own: Vec::new(),
                ..route.clone()
            };
            for (ladder, runs) in [(Ladder::Common, &route.common), (Ladder::Own, &route.own)] {
                recorded += runs.len();
                let mut ladder_rates: Vec<f64> = runs.iter().map(|p| p.target_per_sec).collect();
                ladder_rates.sort_by(f64::total_cmp);
                ladder_rates.dedup();
                rates += ladder_rates.len();
                let mut kept: Vec<RatePoint> = Vec::new();
                for round in 1..=rounds {
                    let mut climb = Climb::default();
                    for &rate in &ladder_rates {
                        let earlier: Vec<&RatePoint> =
                            kept.iter().filter(|p| p.target_per_sec == rate).collect();
                        if !climb.runs(&earlier, round, rounds) {
                            continue;
                        }
                        let Some(run) = runs
                            .iter()
                            .find(|p| p.round == round && p.target_per_sec == rate)
                        else {
                            continue;
                        };
                        climb.ran(run);
                        rates_run_by_the_third += usize::from(round == 3);
                        kept.push(run.clone());
                    }
                }
                replayed_runs += kept.len();
                match ladder {
                    Ladder::Common => replayed.common = kept,
                    Ladder::Own => replayed.own = kept,
                }
            }
            same_max +=
                usize::from(replayed.max_sustainable(rounds) == route.max_sustainable(rounds));
        }
        assert_eq!(same_max, 14, "of 7 apps × 2 routes");
        assert_eq!((recorded, replayed_runs), (294, 210));
        assert_eq!((rates_run_by_the_third, rates), (18, 98));
        assert!(rates_run_by_the_third as f64 / rates as f64 <= OPEN_AFTER_MAJORITY);
        let overloads: usize = sweep
            .apps
            .iter()
            .map(|app| {
                let mut recovered = 0;
                let mut ran = 0;
                for overload in &app.overloads {
                    if !verdict_open(recovered, overload.round, rounds) {
                        break;
                    }
                    ran += 1;
                    recovered += usize::from(overload.recovered);
                }
                ran
            })
            .sum();
        assert_eq!(overloads, 14, "of 21: every app's first two agreed");
    }
}
