//! Which apps a batch's rounds visit, in which order, and on which routes: the seeded
//! shuffle of every round, and the rounds `--precision` adds.

use crate::results::{AppResult, RouteResult};
use crate::statistics::RatioInterval;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A batch's visiting order (docs/spec.md §5.5), drawn round by round from a seed the
/// batch records: the apps shuffled afresh in every round, and per app whether its Go runs
/// come before its own in a visit: a coin flip for its first visit, then alternating, so each
/// side of a pair runs first as often as the other over an even number of visits.
/// Randomized interleaving (Abedi & Brecht 2017) instead of a fixed rotation, so no app
/// always follows the same one and no order effect is built into every pair.
pub struct VisitingOrder {
    rng: ChaCha8Rng,
    pacer_first_at_first_visit: Vec<bool>,
    visits: Vec<u32>,
}

impl VisitingOrder {
    pub fn new(apps: usize, seed: u64) -> VisitingOrder {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let pacer_first_at_first_visit = (0..apps).map(|_| rng.random()).collect();
        VisitingOrder {
            rng,
            pacer_first_at_first_visit,
            visits: vec![0; apps],
        }
    }

    /// The next round's visits among `apps` (indices), in order, each with whether its Go
    /// runs come first.
    pub fn round(&mut self, apps: &[usize]) -> Vec<(usize, bool)> {
        let mut apps = apps.to_vec();
        apps.shuffle(&mut self.rng);
        apps.into_iter()
            .map(|app| {
                let pacer_first =
                    self.pacer_first_at_first_visit[app] ^ (self.visits[app] % 2 == 1);
                self.visits[app] += 1;
                (app, pacer_first)
            })
            .collect()
    }
}

/// The routes on which some app's ratio to Go is not yet known to `precision` (docs/spec.md
/// §5.12): no interval yet, or its half width above `precision` of its geometric mean. Every
/// app runs such a route again, not only the imprecise ones: the paired test compares two
/// apps over the rounds both have, so an app that stopped early would cut its pairs short.
pub fn imprecise_routes(apps: &[&AppResult], routes: &[String], precision: f64) -> Vec<String> {
    routes
        .iter()
        .filter(|route| {
            apps.iter().any(|app| {
                let ratios = app
                    .routes
                    .iter()
                    .find(|r| &r.route == *route)
                    .map(RouteResult::ratios_to_pacer)
                    .unwrap_or_default();
                RatioInterval::of(&ratios).is_none_or(|i| i.relative_half_width() > precision)
            })
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::sweep;
    use crate::results::{AppStatus, Run};
    use std::collections::BTreeMap;

    #[test]
    fn every_round_visits_its_apps_once_and_each_pair_alternates_its_first_side() {
        let mut order = VisitingOrder::new(5, 7);
        let all = [0, 1, 2, 3, 4];
        let mut rounds: Vec<Vec<(usize, bool)>> = (0..6).map(|_| order.round(&all)).collect();
        // A later round of only some apps: each still alternates from its own last visit.
        rounds.push(order.round(&[1, 3]));
        for round in &rounds[..6] {
            let mut apps: Vec<usize> = round.iter().map(|(app, _)| *app).collect();
            apps.sort_unstable();
            assert_eq!(apps, all);
        }
        for app in all {
            let firsts: Vec<bool> = rounds
                .iter()
                .filter_map(|round| round.iter().find(|(a, _)| *a == app).map(|v| v.1))
                .collect();
            assert!(firsts.windows(2).all(|w| w[0] != w[1]), "{firsts:?}");
        }
        // The seed gives the order back; the rounds are not one rotation.
        let mut again = VisitingOrder::new(5, 7);
        assert_eq!(
            (0..6).map(|_| again.round(&all)).collect::<Vec<_>>(),
            rounds[..6]
        );
        let drawn: Vec<Vec<usize>> = rounds[..6]
            .iter()
            .map(|round| round.iter().map(|(app, _)| *app).collect())
            .collect();
        let rotations: Vec<Vec<usize>> = (1..=6)
            .map(|round| sweep::rotated(5, round).collect())
            .collect();
        assert_ne!(drawn, rotations);
        let mut other = VisitingOrder::new(5, 8);
        assert_ne!(
            (0..6).map(|_| other.round(&all)).collect::<Vec<_>>(),
            rounds[..6]
        );
    }

    fn app_with_ratios(ratios: &[(&str, &[f64])]) -> AppResult {
        let run = |index: u32, requests_per_sec: f64| Run {
            index,
            requests: 0,
            requests_per_sec,
            latency_ms: Default::default(),
            status_codes: BTreeMap::new(),
            errors: BTreeMap::new(),
            connections: 50,
            body_bytes: None,
            wrong_length: None,
            valid: true,
            invalid_reason: None,
            app_cpu_percent: 0.0,
            app_rss_max_mib: 0.0,
            postgres_cpu_percent: 0.0,
            redis_cpu_percent: 0.0,
            raw_output: String::new(),
            stale_reads: None,
            cpu_busy: None,
        };
        AppResult {
            name: "app".to_owned(),
            stack: String::new(),
            versions: BTreeMap::new(),
            settings: None,
            env: BTreeMap::new(),
            status: AppStatus::Ok,
            parity: None,
            parity_after_load: None,
            deviations: Vec::new(),
            routes: ratios
                .iter()
                .map(|(route, ratios)| RouteResult {
                    route: (*route).to_owned(),
                    path: String::new(),
                    expected_bytes: None,
                    runs: (1..)
                        .zip(ratios.iter())
                        .map(|(i, r)| run(i, 1000.0 * r))
                        .collect(),
                    pacer_runs: (1..)
                        .zip(ratios.iter())
                        .map(|(i, _)| run(i, 1000.0))
                        .collect(),
                    slices: Vec::new(),
                })
                .collect(),
            start_up_warmups: Vec::new(),
            visits: Vec::new(),
        }
    }

    #[test]
    fn rounds_go_on_for_the_routes_not_yet_known_to_the_precision() {
        let app = app_with_ratios(&[
            // Three rounds within 1 %: the interval's half width is about 2.5 %.
            ("home", &[1.00, 1.01, 0.99]),
            // Spread by a quarter: nowhere near ±5 %.
            ("detail", &[1.0, 1.25, 0.8]),
            // One round: no interval yet.
            ("tag", &[1.1]),
            ("compute", &[1.00, 1.01, 0.99]),
        ]);
        let routes: Vec<String> = ["home", "detail", "tag", "compute", "write"]
            .map(String::from)
            .into();
        assert_eq!(
            imprecise_routes(&[&app], &routes, 0.05),
            ["detail", "tag", "write"]
        );
        assert_eq!(imprecise_routes(&[&app], &routes, 0.02), routes);
        // One app still imprecise on compute: every app runs it again.
        let other = app_with_ratios(&[
            ("home", &[1.00, 1.01, 0.99]),
            ("compute", &[1.0, 1.25, 0.8]),
        ]);
        assert_eq!(
            imprecise_routes(&[&app, &other], &routes, 0.05),
            ["detail", "tag", "compute", "write"]
        );
    }
}
