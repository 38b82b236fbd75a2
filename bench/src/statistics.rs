//! The statistics behind every claim that one app is faster than another (docs/spec.md
//! §5.12): a confidence interval for a ratio measured over rounds, the paired t-test of two
//! apps on the same logarithms, the correction for a batch's many comparisons, the verdicts,
//! and the letters that display them. Pure functions of the rounds' numbers, so the report,
//! the batch's precision rule and the A/A check share one definition.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};

/// The confidence of every interval shown beside a ratio: 95 %.
pub const CONFIDENCE: f64 = 0.95;

/// The false discovery rate the verdicts allow over a batch's comparisons.
pub const FALSE_DISCOVERY_RATE: f64 = 0.05;

/// Two apps tie when the whole 95 % interval of their ratio lies within ±5 %.
pub const TIE_BAND: f64 = 0.05;

/// The fewest common rounds any verdict (faster, slower or tie) rests on. Two rounds leave
/// one degree of freedom, whose spread estimate falls under a tenth of the true spread
/// 8 % of the time (χ²₁ < 0.01), so two rounds that happen to agree would tie apps that
/// differ; at two degrees of freedom that is 1 %. Three is also a default batch's rounds.
pub const MIN_ROUNDS: usize = 3;

/// A ratio over rounds with its confidence interval: the geometric mean of the per-round
/// ratios and Student's t-interval on their logarithms, exponentiated. The sweep
/// uses the same interval for its rounds' max rates and p99s, positive quantities whose
/// spread is multiplicative too. Ratios of
/// throughputs are log-normal more nearly than normal, and the interval of a geometric mean
/// is the one Kalibera & Jones (2013) give for ratios of execution rates; with one ratio
/// per round, the rounds are the independent process runs Georges et al. (2007) ask
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
    /// The 95 % interval; `None` with fewer than two ratios (no spread to estimate) or a
    /// ratio that is not positive.
    pub fn of(ratios: &[f64]) -> Option<RatioInterval> {
        RatioInterval::at(ratios, CONFIDENCE)
    }

    /// The interval at `confidence`, as [`RatioInterval::of`].
    pub fn at(ratios: &[f64], confidence: f64) -> Option<RatioInterval> {
        Some(LogSample::of(ratios)?.interval(confidence))
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

/// The logarithms of a sample of ratios, summarised: the one quantity both the interval and
/// the paired test are taken on, so the test rejects at level α exactly when the 1 − α
/// interval excludes 1.
#[derive(Debug, Clone, Copy, PartialEq)]
struct LogSample {
    mean: f64,
    /// s/√n.
    standard_error: f64,
    /// n − 1.
    freedom: f64,
}

impl LogSample {
    fn of(ratios: &[f64]) -> Option<LogSample> {
        if ratios.len() < 2 || ratios.iter().any(|r| !(r.is_finite() && *r > 0.0)) {
            return None;
        }
        let logs: Vec<f64> = ratios.iter().map(|r| r.ln()).collect();
        let n = logs.len() as f64;
        let mean = logs.iter().sum::<f64>() / n;
        let variance = logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / (n - 1.0);
        Some(LogSample {
            mean,
            standard_error: (variance / n).sqrt(),
            freedom: n - 1.0,
        })
    }

    fn student_t(&self) -> StudentsT {
        StudentsT::new(0.0, 1.0, self.freedom).expect("at least one degree of freedom")
    }

    fn interval(&self, confidence: f64) -> RatioInterval {
        let t = self.student_t().inverse_cdf(1.0 - (1.0 - confidence) / 2.0);
        let half_width = t * self.standard_error;
        RatioInterval {
            geometric_mean: self.mean.exp(),
            low: (self.mean - half_width).exp(),
            high: (self.mean + half_width).exp(),
            rounds: self.freedom as usize + 1,
        }
    }

    /// The two-sided p-value of the t-test of a mean logarithm of 0 (a ratio of 1).
    fn two_sided_p(&self) -> f64 {
        if self.standard_error == 0.0 {
            return if self.mean == 0.0 { 1.0 } else { 0.0 };
        }
        let t = (self.mean / self.standard_error).abs();
        (2.0 * self.student_t().sf(t)).min(1.0)
    }
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

/// The confidence of the intervals that decide a batch's verdicts, after Benjamini &
/// Yekutieli (2005): with R discoveries among m tests at false discovery rate q, intervals at
/// 1 − R·q/m keep the expected share of selected intervals that miss their ratio under q.
/// A test is a Benjamini–Hochberg discovery exactly when its p-value is at most R·q/m, so
/// exactly when that interval excludes 1; with no discovery, R is taken as 1.
pub fn adjusted_confidence(discoveries: usize, tests: usize) -> f64 {
    1.0 - discoveries.max(1) as f64 * FALSE_DISCOVERY_RATE / tests.max(1) as f64
}

/// What a batch can say about app A against app B on one route.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// A serves more: the adjusted interval of A ÷ B lies above 1.
    Faster,
    /// A serves less: the adjusted interval lies below 1.
    Slower,
    /// Not told apart, and the 95 % interval of A ÷ B lies within ±[`TIE_BAND`].
    Tie,
    /// Neither: the rounds do not tell them apart, nor show them equal, or are fewer than
    /// [`MIN_ROUNDS`].
    Unresolved,
}

impl Verdict {
    /// From A ÷ B's 95 % interval and its interval at the batch's adjusted confidence, over
    /// `rounds` common rounds.
    pub fn of(rounds: usize, ratio: &RatioInterval, adjusted: &RatioInterval) -> Verdict {
        if rounds < MIN_ROUNDS {
            Verdict::Unresolved
        } else if adjusted.low > 1.0 {
            Verdict::Faster
        } else if adjusted.high < 1.0 {
            Verdict::Slower
        } else if ratio.within_band_of_one(TIE_BAND) {
            Verdict::Tie
        } else {
            Verdict::Unresolved
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

    pub fn told_apart(self) -> bool {
        matches!(self, Verdict::Faster | Verdict::Slower)
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

/// A compared with B over the rounds both have: per round dᵣ = ln(A's ratio to Go) − ln(B's)
/// (each round's ratio to Go divided, so the machine's drift between rounds cancels), the
/// 95 % interval of A ÷ B from them, and the paired t-test's raw two-sided p-value on the same
/// dᵣ (none under [`MIN_ROUNDS`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison<'a> {
    pub a: &'a str,
    pub b: &'a str,
    /// The rounds both apps have.
    pub rounds: usize,
    pub ratio: Option<RatioInterval>,
    pub p_value: Option<f64>,
    #[serde(skip)]
    sample: Option<LogSample>,
}

pub fn compare<'a>(a: &Rounds<'a>, b: &Rounds<'a>) -> Comparison<'a> {
    let ratios: Vec<f64> = a
        .ratios
        .iter()
        .filter_map(|(round, ratio_a)| Some(ratio_a / b.ratio_in(*round)?))
        .collect();
    let sample = LogSample::of(&ratios);
    Comparison {
        a: a.app,
        b: b.app,
        rounds: ratios.len(),
        ratio: sample.map(|s| s.interval(CONFIDENCE)),
        p_value: sample
            .filter(|_| ratios.len() >= MIN_ROUNDS)
            .map(|s| s.two_sided_p()),
        sample,
    }
}

/// Every pair of apps on one route, with its verdict once the batch's p-values are adjusted.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Judged<'a> {
    pub comparison: Comparison<'a>,
    pub adjusted_p: Option<f64>,
    /// The interval of A ÷ B at the batch's [`adjusted_confidence`]: the verdict's.
    pub adjusted_ratio: Option<RatioInterval>,
    pub adjusted_confidence: f64,
    pub verdict: Verdict,
}

/// Judges every comparison of a batch together: the Benjamini–Hochberg adjustment runs over
/// all of them (every route's pairs), so a batch of many apps and routes does not find
/// differences by the number of its tries, and each pair is told apart when its interval at
/// the batch's [`adjusted_confidence`] excludes 1.
pub fn judge<'a>(comparisons: Vec<Comparison<'a>>) -> Vec<Judged<'a>> {
    let tested: Vec<f64> = comparisons.iter().filter_map(|c| c.p_value).collect();
    let adjusted = benjamini_hochberg(&tested);
    let discoveries = adjusted
        .iter()
        .filter(|p| **p <= FALSE_DISCOVERY_RATE)
        .count();
    let confidence = adjusted_confidence(discoveries, tested.len());
    let mut adjusted = adjusted.into_iter();
    comparisons
        .into_iter()
        .map(|comparison| {
            let adjusted_p = comparison.p_value.and_then(|_| adjusted.next());
            let adjusted_ratio = (comparison.p_value.is_some())
                .then(|| comparison.sample.map(|s| s.interval(confidence)))
                .flatten();
            let verdict = match (&comparison.ratio, &adjusted_ratio) {
                (Some(ratio), Some(adjusted)) => Verdict::of(comparison.rounds, ratio, adjusted),
                _ => Verdict::Unresolved,
            };
            Judged {
                comparison,
                adjusted_p,
                adjusted_ratio,
                adjusted_confidence: confidence,
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

/// A compact letter display of `count` apps (Piepho 2004), from the verdicts alone: each
/// letter is a largest group of apps no two of which are told apart (a maximal clique of the
/// "not told apart" graph, Bron–Kerbosch), so two apps share a letter exactly when they are
/// not told apart. Letters go in the apps' order (give them highest first): "a" is the
/// letter of the first app's group that comes first. `told_apart(i, j)` must be symmetric.
pub fn letters(count: usize, told_apart: impl Fn(usize, usize) -> bool) -> Vec<String> {
    let indices = letter_indices(count, told_apart);
    // Past z, names of two letters would run together: a dot keeps them apart.
    let separator = match indices.iter().flatten().any(|&index| index >= 26) {
        true => ".",
        false => "",
    };
    indices
        .into_iter()
        .map(|indices| {
            let names: Vec<String> = indices.into_iter().map(letter_name).collect();
            names.join(separator)
        })
        .collect()
}

/// Per app, the indices of its letters, ascending.
fn letter_indices(count: usize, told_apart: impl Fn(usize, usize) -> bool) -> Vec<Vec<usize>> {
    let together = |i: usize, j: usize| i != j && !told_apart(i, j);
    let mut groups: Vec<Vec<usize>> = Vec::new();
    bron_kerbosch(
        &together,
        Vec::new(),
        (0..count).collect(),
        Vec::new(),
        &mut groups,
    );
    for group in &mut groups {
        group.sort_unstable();
    }
    groups.sort();
    let mut letters = vec![Vec::new(); count];
    for (index, group) in groups.iter().enumerate() {
        for &app in group {
            letters[app].push(index);
        }
    }
    letters
}

/// Every maximal clique that extends `clique` with vertices of `candidates` and none of
/// `excluded`, pivoting on the vertex with the most neighbours among the candidates.
fn bron_kerbosch(
    adjacent: &impl Fn(usize, usize) -> bool,
    clique: Vec<usize>,
    mut candidates: Vec<usize>,
    mut excluded: Vec<usize>,
    cliques: &mut Vec<Vec<usize>>,
) {
    if candidates.is_empty() && excluded.is_empty() {
        cliques.push(clique);
        return;
    }
    let neighbours_among =
        |v: usize, set: &[usize]| set.iter().filter(|&&u| adjacent(u, v)).count();
    let pivot = candidates
        .iter()
        .chain(&excluded)
        .copied()
        .max_by_key(|&v| neighbours_among(v, &candidates))
        .expect("candidates or excluded is not empty");
    let branches: Vec<usize> = candidates
        .iter()
        .copied()
        .filter(|&v| !adjacent(pivot, v))
        .collect();
    for v in branches {
        let mut extended = clique.clone();
        extended.push(v);
        let keep = |set: &[usize]| set.iter().copied().filter(|&u| adjacent(u, v)).collect();
        bron_kerbosch(
            adjacent,
            extended,
            keep(&candidates),
            keep(&excluded),
            cliques,
        );
        candidates.retain(|&u| u != v);
        excluded.push(v);
    }
}

/// a, b, …, z, then aa, ab, …: the spreadsheet's column names.
fn letter_name(index: usize) -> String {
    let mut name = Vec::new();
    let mut rest = index + 1;
    while rest > 0 {
        rest -= 1;
        name.push(b'a' + (rest % 26) as u8);
        rest /= 26;
    }
    name.reverse();
    String::from_utf8(name).expect("ASCII letters")
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

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
        // Half widths of samples with s/√n = 1: Student's t at 2, 5 and 29 degrees of freedom.
        for (freedom, tabulated) in [(2.0, 4.303), (5.0, 2.571), (29.0, 2.045)] {
            let sample = LogSample {
                mean: 0.0,
                standard_error: 1.0,
                freedom,
            };
            let t = sample.interval(CONFIDENCE).high.ln();
            assert!((t - tabulated).abs() < 5e-4, "{freedom}: {t}");
        }
    }

    #[test]
    fn paired_t_p_values_as_computed_by_hand() {
        // ln differences 0.1, 0.2, 0.3: mean 0.2, s = 0.1, t = 0.2 / (0.1/√3) = 3.4641 at
        // 2 degrees of freedom: two-sided p = 0.07418 (tables: t(2) at 0.0742 is 3.464).
        let ratios = [0.1f64, 0.2, 0.3].map(f64::exp);
        let p = LogSample::of(&ratios).unwrap().two_sided_p();
        assert!((p - 0.074_180).abs() < 1e-5, "{p}");
        // The p-value is 0.05 where the 95 % interval's end is 1.
        let sample = LogSample {
            mean: 2.570_581_836,
            standard_error: 1.0,
            freedom: 5.0,
        };
        assert!((sample.two_sided_p() - 0.05).abs() < 1e-8);
        assert!((sample.interval(CONFIDENCE).low - 1.0).abs() < 1e-8);
        // No spread: certain of a difference, or of none.
        let flat = LogSample::of(&[1.1, 1.1, 1.1]).unwrap();
        assert_eq!(flat.two_sided_p(), 0.0);
        assert_eq!(LogSample::of(&[1.0, 1.0, 1.0]).unwrap().two_sided_p(), 1.0);
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

    fn verdicts<'a>(judged: &[Judged<'a>]) -> Vec<(&'a str, &'a str, Verdict)> {
        judged
            .iter()
            .map(|j| (j.comparison.a, j.comparison.b, j.verdict))
            .collect()
    }

    #[test]
    fn verdicts_need_the_rounds_and_the_adjusted_interval() {
        let fast = rounds("fast", &[2.0, 2.1, 1.9]);
        let slow = rounds("slow", &[1.0, 1.02, 0.98]);
        let twin = rounds("twin", &[1.0, 1.02, 0.98]);
        let judged = judge(pairs(&[fast, slow, twin]));
        assert_eq!(
            verdicts(&judged),
            [
                ("fast", "slow", Verdict::Faster),
                ("fast", "twin", Verdict::Faster),
                ("slow", "twin", Verdict::Tie),
            ]
        );
        // Two of three tests are discoveries: the verdicts' intervals are at 1 − 2·0.05/3.
        assert!(close(judged[0].adjusted_confidence, 1.0 - 0.1 / 3.0));
        // The same difference over two rounds: no verdict of any kind, and no test.
        let judged = judge(pairs(&[
            rounds("fast", &[2.0, 2.1]),
            rounds("slow", &[1.0, 1.02]),
            rounds("twin", &[1.0, 1.02]),
        ]));
        assert!(judged.iter().all(|j| j.verdict == Verdict::Unresolved));
        assert!(judged.iter().all(|j| j.comparison.p_value.is_none()));
        // A difference measured within ±5 % is still a difference, not a tie.
        let judged = judge(pairs(&[
            rounds("a", &[1.03, 1.031, 1.029, 1.03]),
            rounds("b", &[1.0, 1.0, 1.0, 1.0]),
        ]));
        assert_eq!(judged[0].verdict, Verdict::Faster);
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

    #[test]
    fn letter_names_run_on_past_z() {
        let names: Vec<String> = [0, 1, 25, 26, 27, 701, 702].map(letter_name).into();
        assert_eq!(names, ["a", "b", "z", "aa", "ab", "zz", "aaa"]);
    }

    #[test]
    fn letters_of_a_known_display() {
        // 0–1 and 1–2 not told apart, 0–2 told apart; 3 told apart from all.
        let apart = |i: usize, j: usize| !matches!((i.min(j), i.max(j)), (0, 1) | (1, 2));
        assert_eq!(letters(4, apart), ["a", "ab", "b", "c"]);
        assert_eq!(letters(3, |_, _| false), ["a", "a", "a"]);
        assert_eq!(letters(0, |_, _| true), Vec::<String>::new());
    }

    /// Random verdict sets, each pair told apart with a probability drawn per set: two apps
    /// share a letter exactly when they are not told apart, and every app has a letter.
    #[test]
    fn apps_share_a_letter_exactly_when_not_told_apart() {
        let mut rng = ChaCha8Rng::seed_from_u64(2004);
        for _ in 0..2000 {
            let count = rng.random_range(1..=12);
            let density: f64 = rng.random();
            let mut apart = vec![vec![false; count]; count];
            for (i, j) in (0..count).flat_map(|i| (i + 1..count).map(move |j| (i, j))) {
                let told = rng.random::<f64>() < density;
                apart[i][j] = told;
                apart[j][i] = told;
            }
            let letters = letter_indices(count, |i, j| apart[i][j]);
            assert!(letters.iter().all(|l| !l.is_empty()), "{letters:?}");
            assert_eq!(letters[0].first(), Some(&0), "{letters:?}");
            for i in 0..count {
                for j in i + 1..count {
                    let share = letters[i].iter().any(|l| letters[j].contains(l));
                    assert_eq!(share, !apart[i][j], "{i} {j}: {letters:?} {apart:?}");
                }
            }
        }
    }

    /// Standard normal draws (Box–Muller), seeded.
    fn normal(rng: &mut ChaCha8Rng) -> f64 {
        let (u1, u2): (f64, f64) = (1.0 - rng.random::<f64>(), rng.random());
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }

    /// Log-normal ratios to Go over `count` rounds: ln ratio ~ N(ln `ratio`, `spread`²).
    fn draw(rng: &mut ChaCha8Rng, ratio: f64, spread: f64, count: u32) -> Vec<(u32, f64)> {
        (1..=count)
            .map(|round| (round, ratio * (spread * normal(rng)).exp()))
            .collect()
    }

    /// Three standard errors of a share `p` estimated over `draws`.
    fn three_errors(p: f64, draws: usize) -> f64 {
        3.0 * (p * (1.0 - p) / draws as f64).sqrt()
    }

    /// The A/A check of the intervals and the test themselves, at the round counts where a
    /// wrong quantile or spread shows most: over 3 and 6 rounds of log ratios spread 0.1, the
    /// 95 % interval of a ratio (`RatioInterval::of`) and of two identical apps' ratio
    /// (`compare`) must exclude the true 1, and the paired test's raw p-value fall to 0.05,
    /// in 5 % of draws, within three standard errors. Fails under the normal's z for Student's
    /// t, s/n for s/√n, n for n − 1 degrees of freedom, and a one-sided (halved) p-value.
    #[test]
    fn intervals_and_the_paired_test_are_calibrated_at_3_and_6_rounds() {
        let mut rng = ChaCha8Rng::seed_from_u64(2013);
        let draws = 20_000;
        let expected = 1.0 - CONFIDENCE;
        for rounds in [3, 6] {
            let (mut excluding, mut pair_excluding, mut rejecting) = (0, 0, 0);
            for _ in 0..draws {
                let a = Rounds {
                    app: "a",
                    ratios: draw(&mut rng, 1.0, 0.1, rounds),
                };
                let b = Rounds {
                    app: "b",
                    ratios: draw(&mut rng, 1.0, 0.1, rounds),
                };
                let ratios: Vec<f64> = a.ratios.iter().map(|(_, r)| *r).collect();
                excluding += usize::from(!RatioInterval::of(&ratios).unwrap().contains(1.0));
                let comparison = compare(&a, &b);
                pair_excluding += usize::from(!comparison.ratio.unwrap().contains(1.0));
                rejecting += usize::from(comparison.p_value.unwrap() <= expected);
            }
            for (what, count) in [
                ("the interval of a ratio excluded 1", excluding),
                ("the interval of a pair's ratio excluded 1", pair_excluding),
                ("the paired test rejected", rejecting),
            ] {
                let share = count as f64 / draws as f64;
                assert!(
                    (share - expected).abs() <= three_errors(expected, draws),
                    "{rounds} rounds: {what} in {share:.4} of {draws} draws"
                );
            }
        }
    }

    /// Batches of 4 apps on 3 routes, `rounds` rounds, log ratios spread `spread` around the
    /// apps' true ratios, each judged as a real batch is.
    fn simulated_batch(
        rng: &mut ChaCha8Rng,
        true_ratios: &[(&'static str, f64)],
        spread: f64,
        rounds: u32,
    ) -> Vec<Judged<'static>> {
        let comparisons = (0..3)
            .flat_map(|_| {
                let apps: Vec<Rounds> = true_ratios
                    .iter()
                    .map(|&(app, ratio)| Rounds {
                        app,
                        ratios: draw(rng, ratio, spread, rounds),
                    })
                    .collect();
                pairs(&apps)
            })
            .collect();
        judge(comparisons)
    }

    /// The A/A check of the verdicts: in batches of identical apps (4 apps, 3 routes: 18
    /// comparisons, 6 rounds, spread 0.1), Benjamini–Hochberg keeps the chance that any pair
    /// of a batch is told apart at most q when every difference is null; 2,000 batches must
    /// show at most q plus three standard errors. Fails without the multiplicity control,
    /// with the verdict read from the unadjusted 95 % interval (the same mistake: that
    /// interval excludes 1 exactly when the raw p-value is at most 0.05), and with a
    /// one-sided (halved) p-value.
    #[test]
    fn identical_apps_are_told_apart_in_at_most_the_false_discovery_rate_of_batches() {
        let mut rng = ChaCha8Rng::seed_from_u64(1995);
        let batches = 2000;
        let identical = [("a", 1.0), ("b", 1.0), ("c", 1.0), ("d", 1.0)];
        let with_a_finding = (0..batches)
            .filter(|_| {
                let judged = simulated_batch(&mut rng, &identical, 0.1, 6);
                judged.iter().any(|j| j.verdict.told_apart())
            })
            .count();
        let share = with_a_finding as f64 / batches as f64;
        assert!(
            share <= FALSE_DISCOVERY_RATE + three_errors(FALSE_DISCOVERY_RATE, batches),
            "identical apps told apart in {share:.4} of {batches} batches"
        );
    }

    /// Power, and the direction: apps 10 % apart (true ratios 1.1, 1.0, 1.331, 1.21, so that
    /// pairs run both ways), spread 0.05, 6 rounds: more than half of the pairs 10 % apart are
    /// told apart, and none the wrong way.
    #[test]
    fn apps_ten_percent_apart_are_told_apart_at_6_rounds() {
        let mut rng = ChaCha8Rng::seed_from_u64(2005);
        let apps = [("a", 1.1), ("b", 1.0), ("c", 1.331), ("d", 1.21)];
        let truth = |app: &str| apps.iter().find(|(a, _)| *a == app).unwrap().1;
        let (mut ten_percent, mut found, mut wrong_way) = (0, 0, 0);
        for _ in 0..200 {
            for judged in simulated_batch(&mut rng, &apps, 0.05, 6) {
                let true_ratio = truth(judged.comparison.a) / truth(judged.comparison.b);
                let expected = if true_ratio > 1.0 {
                    Verdict::Faster
                } else {
                    Verdict::Slower
                };
                if judged.verdict.told_apart() && judged.verdict != expected {
                    wrong_way += 1;
                }
                if (true_ratio.ln().abs() - 1.1f64.ln()).abs() < 1e-9 {
                    ten_percent += 1;
                    found += usize::from(judged.verdict == expected);
                }
            }
        }
        let power = found as f64 / ten_percent as f64;
        assert!(power > 0.5, "pairs 10 % apart told apart in {power:.3}");
        assert_eq!(wrong_way, 0);
    }

    /// Over random batches with and without real differences and of 2 to 8 rounds: a pair is
    /// told apart exactly when the test's Benjamini–Hochberg adjusted p-value is at most q,
    /// exactly when its interval at the batch's adjusted confidence excludes 1; and the raw
    /// p-value is at most 0.05 exactly when the 95 % interval excludes 1. So a verdict read
    /// from the test alone is the verdict read from the adjusted interval. Fails with a
    /// p-value of one direction only.
    #[test]
    fn a_pair_is_told_apart_exactly_when_its_test_is_a_discovery_and_its_adjusted_interval_excludes_1()
     {
        let mut rng = ChaCha8Rng::seed_from_u64(2024);
        let mut discoveries = 0;
        for _ in 0..300 {
            let rounds = rng.random_range(2..=8);
            let apps: Vec<(&str, f64)> = ["a", "b", "c", "d"]
                .into_iter()
                .map(|app| (app, (0.15 * normal(&mut rng)).exp()))
                .collect();
            for judged in simulated_batch(&mut rng, &apps, 0.08, rounds) {
                let discovered = judged.adjusted_p.is_some_and(|p| p <= FALSE_DISCOVERY_RATE);
                let excludes = judged.adjusted_ratio.is_some_and(|i| !i.contains(1.0));
                assert_eq!(judged.verdict.told_apart(), discovered, "{judged:?}");
                assert_eq!(discovered, excludes, "{judged:?}");
                if let (Some(p), Some(ratio)) = (judged.comparison.p_value, judged.comparison.ratio)
                {
                    assert_eq!(p <= 1.0 - CONFIDENCE, !ratio.contains(1.0), "{judged:?}");
                }
                discoveries += usize::from(discovered);
            }
        }
        assert!(
            discoveries > 100,
            "{discoveries} discoveries: too few to show it"
        );
    }
}
