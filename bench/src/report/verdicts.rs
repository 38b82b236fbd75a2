//! Which apps a batch tells apart (docs/spec.md §5.12): per route, every pair of apps judged
//! over the rounds both have, all of the batch's comparisons adjusted together, and the
//! letters that display those verdicts.

use crate::results::Batch;
use crate::statistics::{self, Judged, RatioInterval, Rounds, Verdict};
use serde::Serialize;

/// The verdicts, written beside the report for whoever checks or reuses them.
pub const FILE: &str = "verdicts.json";

/// One route's apps with their letters, and their pairs' verdicts.
#[derive(Serialize)]
pub struct RouteVerdicts<'a> {
    pub route: &'a str,
    /// The apps with at least one paired round, in descending order of the geometric mean
    /// of their ratios to Go.
    pub apps: Vec<Ranked<'a>>,
    pub judged: Vec<Judged<'a>>,
}

/// An app's ratio to Go on a route over its paired rounds.
#[derive(Serialize)]
pub struct Ranked<'a> {
    pub app: &'a str,
    pub geometric_mean: f64,
    /// `None` over a single round.
    pub interval: Option<RatioInterval>,
    pub rounds: usize,
    /// Its letters on the route (`statistics::letters`): two apps that share one are not
    /// told apart, two that share none are.
    pub letters: String,
}

impl RouteVerdicts<'_> {
    /// The fewest rounds any two of the route's apps have in common.
    pub fn fewest_common_rounds(&self) -> Option<usize> {
        self.judged.iter().map(|j| j.comparison.rounds).min()
    }

    /// The verdict of `a` against `b`, read from whichever side the pair was judged.
    pub fn verdict(&self, a: &str, b: &str) -> Option<Verdict> {
        self.judged.iter().find_map(|j| {
            if j.comparison.a == a && j.comparison.b == b {
                Some(j.verdict)
            } else if j.comparison.a == b && j.comparison.b == a {
                Some(j.verdict.reversed())
            } else {
                None
            }
        })
    }

    /// Whether every app shares one letter: no two told apart.
    pub fn one_letter(&self) -> bool {
        self.apps.iter().all(|r| r.letters == "a")
    }
}

/// The verdicts of every route in `routes`, judged together.
pub fn of<'a>(batch: &'a Batch, routes: &'a [String]) -> Vec<RouteVerdicts<'a>> {
    let per_route: Vec<(&str, Vec<Rounds>)> = routes
        .iter()
        .map(|route| {
            let rounds = batch
                .apps
                .iter()
                .filter_map(|app| {
                    let result = app.routes.iter().find(|r| &r.route == route)?;
                    let ratios = result.ratios_to_pacer_by_round();
                    (!ratios.is_empty()).then_some(Rounds {
                        app: &app.name,
                        ratios,
                    })
                })
                .collect();
            (route.as_str(), rounds)
        })
        .collect();
    let comparisons = per_route
        .iter()
        .flat_map(|(_, rounds)| statistics::pairs(rounds))
        .collect();
    let mut judged = statistics::judge(comparisons).into_iter();
    per_route
        .into_iter()
        .map(|(route, rounds)| {
            let pairs = rounds.len() * rounds.len().saturating_sub(1) / 2;
            let judged: Vec<Judged> = judged.by_ref().take(pairs).collect();
            let mut apps: Vec<Ranked> = rounds
                .iter()
                .map(|rounds| {
                    let ratios: Vec<f64> = rounds.ratios.iter().map(|(_, r)| *r).collect();
                    Ranked {
                        app: rounds.app,
                        geometric_mean: statistics::geometric_mean(&ratios).unwrap_or(0.0),
                        interval: RatioInterval::of(&ratios),
                        rounds: ratios.len(),
                        letters: String::new(),
                    }
                })
                .collect();
            apps.sort_by(|a, b| b.geometric_mean.total_cmp(&a.geometric_mean));
            let mut route = RouteVerdicts {
                route,
                apps,
                judged,
            };
            let letters = statistics::letters(route.apps.len(), |i, j| {
                let (a, b) = (route.apps[i].app, route.apps[j].app);
                route.verdict(a, b).is_some_and(Verdict::told_apart)
            });
            for (ranked, letters) in route.apps.iter_mut().zip(letters) {
                ranked.letters = letters;
            }
            route
        })
        .collect()
}

/// The A/A check (docs/spec.md §5.12): in a batch of the Go reference and its twins (the
/// same program under `+TWIN=` labels, `go+TWIN=1`, a variable no app reads), every interval of a ratio to Go that
/// excludes 1 and every pair told apart is a false finding.
#[derive(Debug, PartialEq, Serialize)]
pub struct NullCheck {
    /// Intervals of an app's ratio to Go, over every route.
    pub intervals: usize,
    pub excluding_one: usize,
    /// Pairs of apps judged, over every route.
    pub pairs: usize,
    /// Pairs judged faster or slower.
    pub told_apart: usize,
}

impl NullCheck {
    /// `None` unless the batch has at least two apps and each is the pacer's program.
    pub fn of(batch: &Batch, verdicts: &[RouteVerdicts]) -> Option<NullCheck> {
        let reference = &batch.pacer.as_ref()?.app;
        // Only `+TWIN=` labels: any other variable may change what the program does.
        let twin = |name: &str| {
            name == reference
                || name
                    .strip_prefix(reference.as_str())
                    .is_some_and(|rest| rest.starts_with("+TWIN="))
        };
        if batch.apps.len() < 2 || !batch.apps.iter().all(|app| twin(&app.name)) {
            return None;
        }
        let intervals: Vec<&RatioInterval> = verdicts
            .iter()
            .flat_map(|v| &v.apps)
            .filter_map(|ranked| ranked.interval.as_ref())
            .collect();
        let judged: Vec<&Judged> = verdicts.iter().flat_map(|v| &v.judged).collect();
        Some(NullCheck {
            intervals: intervals.len(),
            excluding_one: intervals.iter().filter(|i| !i.contains(1.0)).count(),
            pairs: judged.len(),
            told_apart: judged.iter().filter(|j| j.verdict.told_apart()).count(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::example_file;
    use crate::statistics::Comparison;

    /// docs/benchmark.md's letters and intervals for docs/example-report-20261205042703, the
    /// first batch with `--precision`, and docs/spec.md §5.12's count of its pairs told apart
    /// over its first 6 rounds.
    #[test]
    fn the_precision_batch_s_letters_as_the_docs_give_them() {
        let batch =
            Batch::load(&example_file("example-report-20261205042703/results.json")).unwrap();
        let routes: Vec<String> = ["home", "detail", "cached-detail"].map(String::from).into();
        let verdicts = of(&batch, &routes);
        let letters = |route: usize| {
            let apps = verdicts[route].apps.iter();
            apps.map(|r| (r.app, r.letters.as_str()))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            letters(0),
            [
                ("axum-postgres", "a"),
                ("axum-sqlx", "a"),
                ("warp", "a"),
                ("actix-sqlx", "a"),
                ("hyper", "a"),
                ("gin", "b"),
                ("go", "b"),
                ("go+TWIN=1", "b")
            ]
        );
        assert_eq!(
            letters(1),
            [
                ("axum-postgres", "a"),
                ("actix-sqlx", "ab"),
                ("hyper", "b"),
                ("axum-sqlx", "abc"),
                ("warp", "bcd"),
                ("go+TWIN=1", "de"),
                ("go", "cde"),
                ("gin", "e")
            ]
        );
        assert_eq!(
            letters(2),
            [
                ("actix-sqlx", "a"),
                ("hyper", "a"),
                ("warp", "ab"),
                ("axum-sqlx", "ab"),
                ("axum-postgres", "b"),
                ("go", "c"),
                ("gin", "c"),
                ("go+TWIN=1", "c")
            ]
        );
        let told_apart =
            |judged: &[Judged]| judged.iter().filter(|j| j.verdict.told_apart()).count();
        let judged: Vec<Judged> = verdicts.iter().flat_map(|v| v.judged.clone()).collect();
        assert_eq!((told_apart(&judged), judged.len()), (46, 84));
        // The same batch cut to its first 6 rounds.
        let first_six: Vec<Comparison> = routes
            .iter()
            .flat_map(|route| {
                let rounds: Vec<Rounds> = batch
                    .apps
                    .iter()
                    .map(|app| {
                        let result = app.routes.iter().find(|r| &r.route == route).unwrap();
                        let mut ratios = result.ratios_to_pacer_by_round();
                        ratios.retain(|(round, _)| *round <= 6);
                        Rounds {
                            app: &app.name,
                            ratios,
                        }
                    })
                    .collect();
                statistics::pairs(&rounds)
            })
            .collect();
        assert_eq!(told_apart(&statistics::judge(first_six)), 45);
        // docs/benchmark.md's ranges of geometric means: the Rust apps' on each route.
        let range = |route: usize, apps: &[&str]| {
            let means = verdicts[route]
                .apps
                .iter()
                .filter(|r| apps.contains(&r.app))
                .map(|r| (r.geometric_mean * 100.0).round());
            let (low, high) = means.fold((f64::MAX, 0.0f64), |(l, h), m| (l.min(m), h.max(m)));
            [low, high]
        };
        let rust = ["axum-postgres", "axum-sqlx", "warp", "actix-sqlx", "hyper"];
        assert_eq!(range(0, &rust), [187.0, 206.0]);
        assert_eq!(range(1, &rust), [122.0, 158.0]);
        assert_eq!(range(2, &rust), [211.0, 240.0]);
        let shown = |route: usize, app: &str| {
            let ranked = verdicts[route].apps.iter().find(|r| r.app == app).unwrap();
            let interval = ranked.interval.unwrap();
            [ranked.geometric_mean, interval.low, interval.high].map(|x| (x * 100.0).round())
        };
        // Go's own pairs and its twin's on home: intervals below 1.
        assert_eq!(shown(0, "go"), [94.0, 90.0, 97.0]);
        assert_eq!(shown(0, "go+TWIN=1"), [90.0, 84.0, 96.0]);
        assert_eq!(shown(1, "go"), [103.0, 92.0, 117.0]);
        assert_eq!(shown(2, "go"), [100.0, 94.0, 105.0]);
        // Cells whose interval reached ±5 %, of the 24.
        let precise: Vec<(&str, &str)> = verdicts
            .iter()
            .flat_map(|v| v.apps.iter().map(move |r| (v.route, r)))
            .filter(|(_, r)| r.interval.is_some_and(|i| i.relative_half_width() <= 0.05))
            .map(|(route, r)| (route, r.app))
            .collect();
        assert_eq!(
            precise,
            [
                ("home", "warp"),
                ("home", "go"),
                ("cached-detail", "actix-sqlx")
            ]
        );
    }

    /// docs/benchmark.md's long A/A check, docs/example-null-check-20261205092502: Go against two
    /// twins, 12 rounds of home, detail and cached-detail, each visit with its own pacer.
    #[test]
    fn the_long_null_check_as_the_docs_give_it() {
        let batch = Batch::load(&example_file(
            "example-null-check-20261205092502/results.json",
        ))
        .unwrap();
        let verdicts = of(&batch, &batch.settings.routes);
        assert_eq!(
            NullCheck::of(&batch, &verdicts),
            Some(NullCheck {
                intervals: 9,
                excluding_one: 1,
                pairs: 9,
                told_apart: 0
            })
        );
        for route in &verdicts {
            assert!(route.one_letter(), "{}: one letter", route.route);
            assert!(route.apps.iter().all(|r| r.rounds == 12));
        }
        let interval = |route: usize, app: &str| {
            let ranked = verdicts[route].apps.iter().find(|r| r.app == app).unwrap();
            let interval = ranked.interval.unwrap();
            [interval.low, interval.high].map(|x| (x * 100.0).round())
        };
        // The one interval that excludes 1, and the widest.
        assert_eq!(interval(0, "go+TWIN=2"), [100.0, 108.0]);
        assert!(verdicts[0].apps[0].interval.unwrap().low > 1.0);
        assert_eq!(interval(0, "go"), [92.0, 109.0]);
    }
}
