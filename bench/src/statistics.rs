//! The statistics behind every claim that one app is faster than another (docs/spec.md
//! §5.12): a confidence interval for a ratio measured over paired rounds, a paired test of
//! two apps over their common rounds, the correction for a batch's many comparisons, and
//! the verdicts and tiers built from them. Pure functions of the rounds' numbers, so the
//! report, the batch's precision rule and the A/A check share one definition.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};

/// The confidence of every interval: 95 %.
pub const CONFIDENCE: f64 = 0.95;

/// The false discovery rate the verdicts allow over a batch's comparisons.
pub const FALSE_DISCOVERY_RATE: f64 = 0.05;

/// Two apps tie when the whole interval of their ratio lies within ±5 %.
pub const TIE_BAND: f64 = 0.05;

/// A ratio over paired rounds with its 95 % confidence interval: the geometric mean of the
/// per-round ratios and Student's t-interval on their logarithms, exponentiated. The sweep
/// uses the same interval for its rounds' max rates and p99s, positive quantities whose
/// spread is multiplicative too. Ratios of
/// throughputs are log-normal more nearly than normal, and the interval of a geometric mean
/// is the one Kalibera & Jones (2013) give for ratios of execution rates; with a
/// per-round pair, the rounds are the independent process runs Georges et al. (2007) ask
/// intervals to be taken over.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RatioInterval {
    pub geometric_mean: f64,
    pub low: f64,
    pub high: f64,
    /// How many rounds it is over.
    pub rounds: usize,
}

impl RatioInterval {
    /// `None` with fewer than two ratios (no spread to estimate) or a ratio that is not
    /// positive.
    pub fn of(ratios: &[f64]) -> Option<RatioInterval> {
        let logs = logarithms(ratios)?;
        let (mean, half_width) = mean_and_half_width(&logs)?;
        Some(RatioInterval {
            geometric_mean: mean.exp(),
            low: (mean - half_width).exp(),
            high: (mean + half_width).exp(),
            rounds: logs.len(),
        })
    }

    /// The interval's larger distance from its geometric mean, as a fraction of it: the
    /// precision the rounds reached.
    pub fn relative_half_width(&self) -> f64 {
        (self.high / self.geometric_mean - 1.0).max(1.0 - self.low / self.geometric_mean)
    }

    pub fn contains(&self, ratio: f64) -> bool {
        self.low <= ratio && ratio <= self.high
    }

    /// The whole interval lies within `band` of 1 (both ways: ÷ and × (1 + band)).
    pub fn within_band_of_one(&self, band: f64) -> bool {
        self.low >= 1.0 / (1.0 + band) && self.high <= 1.0 + band
    }
}

/// The geometric mean of positive `values`; `None` without one.
pub fn geometric_mean(values: &[f64]) -> Option<f64> {
    if values.is_empty() || values.iter().any(|v| !(v.is_finite() && *v > 0.0)) {
        return None;
    }
    Some((values.iter().map(|v| v.ln()).sum::<f64>() / values.len() as f64).exp())
}

fn logarithms(ratios: &[f64]) -> Option<Vec<f64>> {
    if ratios.len() < 2 || ratios.iter().any(|r| !(r.is_finite() && *r > 0.0)) {
        return None;
    }
    Some(ratios.iter().map(|r| r.ln()).collect())
}

/// The mean of `values` and the half width of its t-interval at [`CONFIDENCE`].
fn mean_and_half_width(values: &[f64]) -> Option<(f64, f64)> {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    Some((mean, t_quantile(n - 1.0)? * (variance / n).sqrt()))
}

/// Student's t at the two-sided [`CONFIDENCE`] with `freedom` degrees of freedom.
fn t_quantile(freedom: f64) -> Option<f64> {
    let t = StudentsT::new(0.0, 1.0, freedom).ok()?;
    Some(t.inverse_cdf(1.0 - (1.0 - CONFIDENCE) / 2.0))
}

/// The two-sided p-value of the Wilcoxon signed-rank test of paired `differences` around
/// zero, exact (every sign assignment counted, tied magnitudes given their average rank).
/// Zeros are dropped, as Wilcoxon did; `None` when nothing is left. With n pairs the
/// smallest p-value possible is 2 / 2ⁿ, so fewer than six rounds can never reach 0.05: the
/// test cannot claim a difference the rounds are too few to show.
pub fn signed_rank_p(differences: &[f64]) -> Option<f64> {
    let mut nonzero: Vec<f64> = differences.iter().copied().filter(|d| *d != 0.0).collect();
    if nonzero.is_empty() {
        return None;
    }
    nonzero.sort_by(|a, b| a.abs().total_cmp(&b.abs()));
    // Doubled ranks keep average ranks of ties integral.
    let mut doubled_ranks = vec![0usize; nonzero.len()];
    let mut start = 0;
    while start < nonzero.len() {
        let mut end = start;
        while end + 1 < nonzero.len() && nonzero[end + 1].abs() == nonzero[start].abs() {
            end += 1;
        }
        // Ranks start+1 ..= end+1 averaged, doubled.
        let doubled_average = start + end + 2;
        doubled_ranks[start..=end].fill(doubled_average);
        start = end + 1;
    }
    let total: usize = doubled_ranks.iter().sum();
    let positive: usize = nonzero
        .iter()
        .zip(&doubled_ranks)
        .filter(|(d, _)| **d > 0.0)
        .map(|(_, rank)| rank)
        .sum();
    // ways[s]: how many sign assignments give a positive doubled-rank sum of s.
    let mut ways = vec![0.0f64; total + 1];
    ways[0] = 1.0;
    for &rank in &doubled_ranks {
        for sum in (rank..=total).rev() {
            ways[sum] += ways[sum - rank];
        }
    }
    let observed = (2 * positive).abs_diff(total);
    let as_extreme: f64 = ways
        .iter()
        .enumerate()
        .filter(|(sum, _)| (2 * sum).abs_diff(total) >= observed)
        .map(|(_, count)| count)
        .sum();
    Some((as_extreme / 2f64.powi(nonzero.len() as i32)).min(1.0))
}

/// Benjamini–Hochberg adjusted p-values, in the order given: a comparison is a discovery at
/// false discovery rate q when its adjusted p-value is at most q (Benjamini & Hochberg 1995).
pub fn benjamini_hochberg(p_values: &[f64]) -> Vec<f64> {
    let m = p_values.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p_values[a].total_cmp(&p_values[b]));
    let mut adjusted = vec![1.0; m];
    let mut smallest_after = 1.0f64;
    for (rank, &index) in order.iter().enumerate().rev() {
        smallest_after = smallest_after.min(p_values[index] * m as f64 / (rank + 1) as f64);
        adjusted[index] = smallest_after;
    }
    adjusted
}

/// What a batch can say about app A against app B on one route.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// A serves more: the paired test is a discovery and the interval of A ÷ B lies above 1.
    Faster,
    /// A serves less: the same, below 1.
    Slower,
    /// The interval of A ÷ B lies within ±[`TIE_BAND`].
    Tie,
    /// Neither: the rounds do not tell them apart, nor show them equal.
    Unresolved,
}

impl Verdict {
    /// From A ÷ B's interval and the paired test's adjusted p-value (`None`: no test).
    pub fn of(ratio: &RatioInterval, adjusted_p: Option<f64>) -> Verdict {
        if ratio.within_band_of_one(TIE_BAND) {
            return Verdict::Tie;
        }
        let discovered = adjusted_p.is_some_and(|p| p <= FALSE_DISCOVERY_RATE);
        match (discovered, ratio.low > 1.0, ratio.high < 1.0) {
            (true, true, _) => Verdict::Faster,
            (true, _, true) => Verdict::Slower,
            _ => Verdict::Unresolved,
        }
    }

    /// The same verdict read from B's side.
    pub fn reversed(self) -> Verdict {
        match self {
            Verdict::Faster => Verdict::Slower,
            Verdict::Slower => Verdict::Faster,
            other => other,
        }
    }
}

/// One app's ratios to its paired Go runs on a route, by round.
#[derive(Debug, Clone, PartialEq)]
pub struct Rounds<'a> {
    pub app: &'a str,
    /// (round, app req/s ÷ paired Go req/s) for the rounds in which both runs counted.
    pub ratios: Vec<(u32, f64)>,
}

impl Rounds<'_> {
    fn ratio_in(&self, round: u32) -> Option<f64> {
        self.ratios
            .iter()
            .find(|(r, _)| *r == round)
            .map(|(_, ratio)| *ratio)
    }
}

/// A compared with B over the rounds both have: the interval of A ÷ B (each round's ratio to
/// Go divided, so the machine's drift between rounds cancels) and the paired test's raw
/// p-value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison<'a> {
    pub a: &'a str,
    pub b: &'a str,
    /// The rounds both apps have.
    pub rounds: usize,
    pub ratio: Option<RatioInterval>,
    pub p_value: Option<f64>,
}

pub fn compare<'a>(a: &Rounds<'a>, b: &Rounds<'a>) -> Comparison<'a> {
    let ratios: Vec<f64> = a
        .ratios
        .iter()
        .filter_map(|(round, ratio_a)| Some(ratio_a / b.ratio_in(*round)?))
        .collect();
    let log_differences: Vec<f64> = ratios
        .iter()
        .filter(|r| r.is_finite() && **r > 0.0)
        .map(|r| r.ln())
        .collect();
    Comparison {
        a: a.app,
        b: b.app,
        rounds: ratios.len(),
        ratio: RatioInterval::of(&ratios),
        p_value: signed_rank_p(&log_differences),
    }
}

/// Every pair of apps on one route, with its verdict once the batch's p-values are adjusted.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Judged<'a> {
    pub comparison: Comparison<'a>,
    pub adjusted_p: Option<f64>,
    pub verdict: Verdict,
}

/// Judges every comparison of a batch together: the Benjamini–Hochberg adjustment runs over
/// all of them (every route's pairs), so a batch of many apps and routes does not find
/// differences by the number of its tries.
pub fn judge<'a>(comparisons: Vec<Comparison<'a>>) -> Vec<Judged<'a>> {
    let tested: Vec<f64> = comparisons.iter().filter_map(|c| c.p_value).collect();
    let mut adjusted = benjamini_hochberg(&tested).into_iter();
    comparisons
        .into_iter()
        .map(|comparison| {
            let adjusted_p = comparison.p_value.and_then(|_| adjusted.next());
            let verdict = match &comparison.ratio {
                Some(ratio) => Verdict::of(ratio, adjusted_p),
                None => Verdict::Unresolved,
            };
            Judged {
                comparison,
                adjusted_p,
                verdict,
            }
        })
        .collect()
}

/// Every unordered pair of `apps` (in the order given).
pub fn pairs<'a>(apps: &[Rounds<'a>]) -> Vec<Comparison<'a>> {
    let mut comparisons = Vec::new();
    for (i, a) in apps.iter().enumerate() {
        for b in &apps[i + 1..] {
            comparisons.push(compare(a, b));
        }
    }
    comparisons
}

/// Tiers on one route: apps in descending order of their ratio to Go, a new tier starting
/// at the first app that an app of the current tier is judged faster than. Within a tier no
/// two apps are told apart; each tier's first app is told apart from at least one app of
/// the tier above. (Judging only by the tier's first app would let one app with fewer
/// rounds, whose comparisons cannot reach significance, hold every app in its tier.)
pub fn tiers<'a>(ordered: &[&'a str], judged: &[Judged<'_>]) -> Vec<Vec<&'a str>> {
    let verdict = |a: &str, b: &str| {
        judged.iter().find_map(|j| {
            if j.comparison.a == a && j.comparison.b == b {
                Some(j.verdict)
            } else if j.comparison.a == b && j.comparison.b == a {
                Some(j.verdict.reversed())
            } else {
                None
            }
        })
    };
    let mut tiers: Vec<Vec<&'a str>> = Vec::new();
    for &app in ordered {
        match tiers.last_mut() {
            Some(tier)
                if tier
                    .iter()
                    .all(|member| verdict(member, app) != Some(Verdict::Faster)) =>
            {
                tier.push(app)
            }
            _ => tiers.push(vec![app]),
        }
    }
    tiers
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn the_interval_of_a_geometric_mean() {
        // ln ratios 0, ln 2: mean ln √2, s = ln 2 / √2, t(1) = 12.706…
        let interval = RatioInterval::of(&[1.0, 2.0]).unwrap();
        assert!(close(interval.geometric_mean, 2f64.sqrt()));
        let half = 12.706_204_736 * (2f64.ln() / 2f64.sqrt()) / 2f64.sqrt();
        assert!((interval.high.ln() - (2f64.sqrt().ln() + half)).abs() < 1e-6);
        assert!((interval.low.ln() - (2f64.sqrt().ln() - half)).abs() < 1e-6);
        assert_eq!(interval.rounds, 2);
        // Identical rounds: no spread, a point.
        let point = RatioInterval::of(&[1.2, 1.2, 1.2]).unwrap();
        assert!(close(point.low, 1.2) && close(point.high, 1.2));
        assert!(point.relative_half_width() < 1e-12);
        assert_eq!(RatioInterval::of(&[1.1]), None);
        assert_eq!(RatioInterval::of(&[1.1, 0.0]), None);
    }

    #[test]
    fn t_quantiles_as_tabulated() {
        for (freedom, tabulated) in [(2.0, 4.303), (5.0, 2.571), (29.0, 2.045)] {
            assert!((t_quantile(freedom).unwrap() - tabulated).abs() < 5e-4);
        }
    }

    #[test]
    fn signed_rank_p_values_as_counted_by_hand() {
        // All of six positive: only "all +" and "all −" are as extreme: 2/64.
        assert!(close(
            signed_rank_p(&[0.1, 0.2, 0.3, 0.4, 0.5, 0.6]).unwrap(),
            2.0 / 64.0
        ));
        // Five rounds can never reach 0.05.
        assert!(close(
            signed_rank_p(&[0.1, 0.2, 0.3, 0.4, 0.5]).unwrap(),
            2.0 / 32.0
        ));
        // Ranks 1 2 3, the smallest negative: W+ = 5 of 6; sums at least 5 away from 3:
        // {0, 1, 5, 6}: 4 of the 8 sign assignments.
        assert!(close(signed_rank_p(&[-0.1, 0.2, 0.3]).unwrap(), 0.5));
        // Ties share their average rank; zeros are dropped.
        assert!(close(signed_rank_p(&[0.0, 0.2, -0.2]).unwrap(), 1.0));
        assert_eq!(signed_rank_p(&[0.0, 0.0]), None);
    }

    #[test]
    fn benjamini_hochberg_adjusts_as_the_paper_steps() {
        let adjusted = benjamini_hochberg(&[0.01, 0.04, 0.03, 0.20]);
        // Sorted: 0.01·4/1 = 0.04, 0.03·4/2 = 0.06, 0.04·4/3 = 0.0533, 0.20·4/4 = 0.20;
        // each the least of itself and those after it.
        let expected = [0.04, 0.0533333333, 0.0533333333, 0.20];
        for (got, want) in adjusted.iter().zip(expected) {
            assert!((got - want).abs() < 1e-9, "{adjusted:?}");
        }
    }

    fn rounds<'a>(app: &'a str, ratios: &[f64]) -> Rounds<'a> {
        Rounds {
            app,
            ratios: ratios
                .iter()
                .enumerate()
                .map(|(i, r)| (i as u32 + 1, *r))
                .collect(),
        }
    }

    #[test]
    fn verdicts_need_the_rounds_and_the_test_and_the_interval() {
        let fast = rounds("fast", &[2.0, 2.1, 1.9, 2.05, 1.95, 2.0]);
        let slow = rounds("slow", &[1.0, 1.02, 0.98, 1.01, 0.99, 1.0]);
        let twin = rounds("twin", &[1.0, 1.02, 0.98, 1.01, 0.99, 1.0]);
        let judged = judge(pairs(&[fast.clone(), slow.clone(), twin.clone()]));
        let verdicts: Vec<_> = judged
            .iter()
            .map(|j| (j.comparison.a, j.comparison.b, j.verdict))
            .collect();
        assert_eq!(
            verdicts,
            [
                ("fast", "slow", Verdict::Faster),
                ("fast", "twin", Verdict::Faster),
                ("slow", "twin", Verdict::Tie),
            ]
        );
        assert_eq!(
            tiers(&["fast", "slow", "twin"], &judged),
            [vec!["fast"], vec!["slow", "twin"]]
        );
        // The same difference over five rounds: no verdict, one tier.
        let judged = judge(pairs(&[
            rounds("fast", &[2.0, 2.1, 1.9, 2.05, 1.95]),
            rounds("slow", &[1.0, 1.02, 0.98, 1.01, 0.99]),
        ]));
        assert_eq!(judged[0].verdict, Verdict::Unresolved);
        assert_eq!(tiers(&["fast", "slow"], &judged), [vec!["fast", "slow"]]);
    }

    #[test]
    fn a_tier_leader_with_too_few_rounds_does_not_hold_the_others_in_its_tier() {
        let ratios = |base: f64, n: usize| -> Vec<f64> {
            (0..n)
                .map(|i| base * (1.0 + 0.01 * (i % 3) as f64))
                .collect()
        };
        let leader = rounds("leader", &ratios(2.2, 5));
        let fast = rounds("fast", &ratios(2.0, 8));
        let slow = rounds("slow", &ratios(1.0, 8));
        let judged = judge(pairs(&[leader, fast, slow]));
        let verdict = |a: &str, b: &str| {
            let found = judged
                .iter()
                .find(|j| j.comparison.a == a && j.comparison.b == b);
            found.unwrap().verdict
        };
        assert_eq!(verdict("leader", "slow"), Verdict::Unresolved);
        assert_eq!(verdict("fast", "slow"), Verdict::Faster);
        assert_eq!(
            tiers(&["leader", "fast", "slow"], &judged),
            [vec!["leader", "fast"], vec!["slow"]]
        );
    }

    /// Standard normal draws (Box–Muller), seeded.
    fn normal(rng: &mut rand_chacha::ChaCha8Rng) -> f64 {
        use rand::Rng;
        let (u1, u2): (f64, f64) = (1.0 - rng.random::<f64>(), rng.random());
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }

    /// The statistics' own A/A check: batches of identical apps (4 apps, 3 routes, 6 rounds,
    /// log ratios spread s = 0.1), each judged as a real batch is. The 95 % interval must
    /// exclude the true ratio about 5 % of the time (within three standard errors of the
    /// 9,600 draws), the verdicts may tell identical apps apart in at most the false
    /// discovery rate of comparisons, and the same check catches an overconfident interval
    /// (the normal's 1.96 in place of Student's t for 5 degrees of freedom).
    #[test]
    fn identical_apps_are_seldom_told_apart_and_an_overconfident_interval_is_caught() {
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2013);
        let (batches, app_count, routes, rounds) = (400, 4, 3, 6);
        let (mut intervals, mut excluding, mut overconfident_excluding) = (0, 0, 0);
        let (mut comparisons, mut told_apart) = (0, 0);
        let names = ["a", "b", "c", "d"];
        for _ in 0..batches {
            let mut batch_comparisons = Vec::new();
            for _ in 0..routes {
                let apps: Vec<Rounds> = names[..app_count]
                    .iter()
                    .map(|&app| Rounds {
                        app,
                        ratios: (1..=rounds)
                            .map(|round| (round, (0.1 * normal(&mut rng)).exp()))
                            .collect(),
                    })
                    .collect();
                for app in &apps {
                    let ratios: Vec<f64> = app.ratios.iter().map(|(_, r)| *r).collect();
                    let interval = RatioInterval::of(&ratios).unwrap();
                    intervals += 1;
                    excluding += usize::from(!interval.contains(1.0));
                    let logs: Vec<f64> = ratios.iter().map(|r| r.ln()).collect();
                    let n = logs.len() as f64;
                    let mean = logs.iter().sum::<f64>() / n;
                    let s =
                        (logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
                    overconfident_excluding += usize::from(mean.abs() > 1.96 * s / n.sqrt());
                }
                batch_comparisons.extend(pairs(&apps));
            }
            for judged in judge(batch_comparisons) {
                comparisons += 1;
                told_apart +=
                    usize::from(matches!(judged.verdict, Verdict::Faster | Verdict::Slower));
            }
        }
        let rate = |count: usize, of: usize| count as f64 / of as f64;
        let expected = 1.0 - CONFIDENCE;
        let three_errors = 3.0 * (expected * (1.0 - expected) / intervals as f64).sqrt();
        let excluded = rate(excluding, intervals);
        assert!(
            (excluded - expected).abs() <= three_errors,
            "the 95 % interval excluded the true ratio in {excluded:.4} of {intervals}"
        );
        let overconfident = rate(overconfident_excluding, intervals);
        assert!(
            overconfident > expected + three_errors,
            "the check did not catch the overconfident interval ({overconfident:.4})"
        );
        let false_findings = rate(told_apart, comparisons);
        assert!(
            false_findings <= FALSE_DISCOVERY_RATE,
            "identical apps told apart in {false_findings:.4} of {comparisons} comparisons"
        );
    }

    #[test]
    fn only_common_rounds_are_compared() {
        let a = Rounds {
            app: "a",
            ratios: vec![(1, 2.0), (2, 2.0), (4, 4.0)],
        };
        let b = Rounds {
            app: "b",
            ratios: vec![(1, 1.0), (2, 1.0), (3, 9.0)],
        };
        let comparison = compare(&a, &b);
        assert_eq!(comparison.rounds, 2);
        assert!(close(comparison.ratio.unwrap().geometric_mean, 2.0));
    }
}
