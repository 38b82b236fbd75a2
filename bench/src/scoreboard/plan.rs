//! The scoreboard's plan: which commands over which apps, at which lengths, and how long each
//! is expected to take, chosen to fit a budget or refused when the budget cannot hold the
//! rules' minimums (docs/spec.md §9).

use crate::load::slices::DEFAULT_SLICE;
use crate::results::scoreboard::{BatchLengths, Part, PartKind, Plan, SweepLengths};
use anyhow::{Result, bail};

/// Apps per batch part: each part is its own batch (with its own ceilings), so an
/// interruption loses at most one part (about 45 minutes at the lean lengths), and
/// `--stop-after` ends a sitting between parts.
pub const BATCH_GROUP: usize = 3;
/// Apps per sweep part, Go swept first in each: fewer parts sweep Go fewer times.
pub const SWEEP_GROUP: usize = 6;
/// Apps per faults part.
pub const FAULTS_GROUP: usize = 6;

/// The routes the sweep parts load, with the overload on the first.
const SWEEP_ROUTES: [&str; 2] = ["detail", "cached-detail"];

/// A measured run of the batch or the sweep takes its warm-up and its length plus this
/// much (starting the generator, reading its output), from the checked-in examples' headers
/// (docs/example-report-20261205042703, docs/example-sweep-20261205125726).
const RUN_OVERHEAD_SECS: f64 = 0.4;
/// Starting an app, its parity checks and stopping it, per visit (the same examples).
const VISIT_SECS: f64 = 1.0;
/// A batch's visit: starting the app and its pacer, the parity checks and stopping both;
/// and what each slice adds to its length, waiting for its last answers and reading
/// `/proc` (the sliced precision batch of docs/benchmark.md, 2026-12-07: 2.3 s between one
/// visit's last route and the next one's first beyond that route's slices, 8.7 s per route
/// for 32 slices of 0.25 s).
const BATCH_VISIT_SECS: f64 = 2.3;
const SLICE_EDGE_SECS: f64 = 0.022;
/// The database ceilings' pages beside the HTTP client's: each a warm-up, then a run per
/// round.
const CEILINGS: usize = 4;
/// A faults run per app, full and `--quick` (docs/example-faults-20261205035816: 140 s;
/// a quick scoreboard of go and axum-sqlx: 88 s).
const FAULTS_SECS: [f64; 2] = [145.0, 90.0];
/// Counting the round trips of one app's pages (2.5 s each for go and axum-sqlx).
const ROUND_TRIPS_SECS: f64 = 4.0;
/// The idioms page: per app its starts and idle memory (3.5 s each for go and axum-sqlx
/// with `--quick`), and the timed rebuilds (full); then the page.
const IDIOMS_SECS: f64 = 5.0;
const REBUILDS_SECS: f64 = 240.0;
const IDIOMS_PAGE_SECS: f64 = 10.0;

/// How much a plan measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// `make bench`'s run lengths (docs/spec.md §5.3) over 6 rounds, `make sweep`'s rates and
    /// lengths (§8.8), the idioms page with its timed rebuilds.
    Full,
    /// The shortest lengths the rules allow (docs/spec.md §9): 6 rounds of 5 s runs after
    /// 3 s warm-ups, a sweep of 3 s rates, the idioms page without the timed rebuilds.
    Lean,
    /// The commands' `--quick` presets: a smoke test, not a result.
    Quick,
}

impl Level {
    pub fn name(self) -> &'static str {
        match self {
            Level::Full => "full",
            Level::Lean => "lean",
            Level::Quick => "quick",
        }
    }

    fn batch(self) -> BatchLengths {
        // Six rounds: the interval that decides a verdict is t·s/√n wide, 2.48 s over
        // 3 rounds and 1.05 s over 6 (docs/spec.md §5.12), and the scoreboard is for
        // comparing apps. In slices a second of warm-up per route is enough (the app and
        // its pacer stay warm through a visit); longer slices per round narrow the intervals
        // less than more rounds would (docs/spec.md §9.1).
        let (rounds, duration_secs, warmup_secs) = match self {
            Level::Full => (6, 10.0, 2.0),
            Level::Lean => (6, 3.0, 1.0),
            Level::Quick => (1, 1.0, 0.5),
        };
        BatchLengths {
            rounds,
            duration_secs,
            warmup_secs,
        }
    }

    fn sweep(self) -> SweepLengths {
        let (rounds, run_secs, warmup_secs, common, own, connection_levels) = match self {
            Level::Full => (
                3,
                5.0,
                1.0,
                vec![0.1, 0.25, 0.5, 0.75, 0.9, 1.1],
                vec![0.5, 0.7, 0.9, 1.0, 1.1, 1.2],
                vec![16, 64, 256, 1024, 4096],
            ),
            Level::Lean => (3, 3.0, 1.0, vec![0.5, 0.9], vec![0.5, 0.9, 1.1], vec![16]),
            Level::Quick => (2, 2.0, 0.5, vec![0.25, 0.5], vec![0.5, 1.0], vec![16, 256]),
        };
        SweepLengths {
            routes: SWEEP_ROUTES.iter().map(|r| (*r).to_owned()).collect(),
            rounds,
            run_secs,
            warmup_secs,
            common,
            own,
            connection_levels,
        }
    }

    /// The overload's before, overload and after phases (the sweep's own presets).
    fn overload_secs(self) -> f64 {
        match self {
            Level::Quick => 10.0,
            Level::Full | Level::Lean => 60.0,
        }
    }
}

/// What to plan for.
pub struct Request<'a> {
    /// Go first.
    pub apps: &'a [String],
    pub quick: bool,
    pub budget_secs: Option<f64>,
    /// Each app's start-up warm-up (a JIT's), in seconds, by app.
    pub start_up_warmup: &'a dyn Fn(&str) -> f64,
    /// The parts the user asked for (`--parts`); the others are planned but not run.
    pub only: Option<&'a [PartKind]>,
}

/// The richest plan that fits the budget; an error naming the shortest plan's estimate
/// when even that does not fit.
pub fn choose(request: &Request) -> Result<(Plan, Vec<Part>)> {
    let levels: &[Level] = match request.quick {
        true => &[Level::Quick],
        false => &[Level::Full, Level::Lean],
    };
    let mut shortest = None;
    for &level in levels {
        let (plan, parts) = plan(level, request);
        match request.budget_secs {
            Some(budget) if plan.estimate_secs > budget => shortest = Some(plan.estimate_secs),
            _ => return Ok((plan, parts)),
        }
    }
    bail!(
        "a budget of {} cannot hold the scoreboard of {} apps: its shortest plan the rules allow \
         (docs/spec.md §9) needs about {}; give a larger --budget, fewer --apps, or run it in \
         sittings with --stop-after and --resume",
        clock(request.budget_secs.unwrap_or_default()),
        request.apps.len(),
        clock(shortest.unwrap_or_default())
    )
}

/// Every part at `level`, each with its arguments and estimate.
fn plan(level: Level, request: &Request) -> (Plan, Vec<Part>) {
    let batch = level.batch();
    let sweep = level.sweep();
    let quick_flag: Vec<String> = match level {
        Level::Quick => vec!["--quick".to_owned()],
        _ => Vec::new(),
    };
    let apps = request.apps;
    let mut parts = vec![Part {
        name: "round-trips".to_owned(),
        kind: PartKind::RoundTrips,
        apps: apps.to_vec(),
        args: Vec::new(),
        estimate_secs: ROUND_TRIPS_SECS * apps.len() as f64,
        not_run: None,
        attempts: Vec::new(),
    }];
    let idioms_quick = level != Level::Full;
    let mut args = vec!["idioms".to_owned(), "--apps".to_owned(), apps.join(",")];
    if idioms_quick {
        args.push("--quick".to_owned());
    }
    let rebuilds = if idioms_quick { 0.0 } else { REBUILDS_SECS };
    parts.push(part(
        "idioms".to_owned(),
        PartKind::Idioms,
        apps.to_vec(),
        args,
        (IDIOMS_SECS + rebuilds) * apps.len() as f64 + IDIOMS_PAGE_SECS,
    ));

    let lengths = [
        "--rounds".to_owned(),
        batch.rounds.to_string(),
        "--duration".to_owned(),
        secs(batch.duration_secs),
        "--warmup".to_owned(),
        secs(batch.warmup_secs),
    ];
    let routes = crate::routes::names();
    for (number, group) in (1..).zip(groups(apps, BATCH_GROUP)) {
        let warmups: Vec<f64> = group
            .iter()
            .map(|app| (request.start_up_warmup)(app))
            .collect();
        let mut args = vec!["bench".to_owned(), "--apps".to_owned(), group.join(",")];
        args.extend(lengths.iter().cloned());
        args.extend(quick_flag.iter().cloned());
        parts.push(part(
            format!("batch-{number}"),
            PartKind::Batch,
            group.to_vec(),
            args,
            batch_secs(&batch, &routes, &warmups),
        ));
    }

    let others: Vec<String> = apps[1.min(apps.len())..].to_vec();
    let sweep_groups = match others.is_empty() {
        true => vec![Vec::new()],
        false => groups(&others, SWEEP_GROUP),
    };
    for (number, group) in (1..).zip(sweep_groups) {
        let mut swept = vec![apps[0].clone()];
        swept.extend(group);
        let mut args = vec![
            "sweep".to_owned(),
            "--apps".to_owned(),
            swept.join(","),
            "--routes".to_owned(),
            sweep.routes.join(","),
            "--overload-route".to_owned(),
            sweep.routes[0].clone(),
            "--rounds".to_owned(),
            sweep.rounds.to_string(),
            "--run".to_owned(),
            secs(sweep.run_secs),
            "--warmup".to_owned(),
            secs(sweep.warmup_secs),
            "--common".to_owned(),
            list(&sweep.common),
            "--own".to_owned(),
            list(&sweep.own),
            "--connection-levels".to_owned(),
            list(&sweep.connection_levels),
        ];
        args.extend(quick_flag.iter().cloned());
        let warmups: Vec<f64> = swept
            .iter()
            .map(|app| (request.start_up_warmup)(app))
            .collect();
        let estimate = sweep_secs(&sweep, level.overload_secs(), &warmups);
        parts.push(part(
            format!("sweep-{number}"),
            PartKind::Sweep,
            swept,
            args,
            estimate,
        ));
    }

    let faults_secs = FAULTS_SECS[usize::from(level == Level::Quick)];
    for (number, group) in (1..).zip(groups(apps, FAULTS_GROUP)) {
        let mut args = vec!["faults".to_owned(), "--apps".to_owned(), group.join(",")];
        args.extend(quick_flag.iter().cloned());
        parts.push(part(
            format!("faults-{number}"),
            PartKind::Faults,
            group.to_vec(),
            args,
            faults_secs * group.len() as f64,
        ));
    }

    let mut left_out = Vec::new();
    if idioms_quick {
        left_out.push(format!(
            "the idioms page's timed incremental rebuilds ({} plan)",
            level.name()
        ));
    }
    if let Some(only) = request.only {
        for part in parts.iter_mut().filter(|p| !only.contains(&p.kind)) {
            part.not_run = Some("--parts".to_owned());
        }
        let mut kinds: Vec<&str> = parts
            .iter()
            .filter(|p| p.not_run.is_some())
            .map(|p| kind_name(p.kind))
            .collect();
        kinds.dedup();
        if !kinds.is_empty() {
            left_out.push(format!("{} (not in --parts)", kinds.join(", ")));
        }
    }
    let estimate_secs = parts
        .iter()
        .filter(|p| p.not_run.is_none())
        .map(|p| p.estimate_secs)
        .sum();
    let plan = Plan {
        level: level.name().to_owned(),
        budget_secs: request.budget_secs,
        batch,
        sweep,
        idioms_quick,
        left_out,
        estimate_secs,
    };
    (plan, parts)
}

/// A batch of apps with these start-up warm-ups over `routes` (names): per round and app a
/// visit, each route that reads in slices of the default length, each route that writes as
/// a whole run and its pacer's; the ceilings.
fn batch_secs(batch: &BatchLengths, routes: &[&str], start_up_warmups: &[f64]) -> f64 {
    let slice = DEFAULT_SLICE.as_secs_f64();
    let side = batch.duration_secs + batch.warmup_secs;
    let route_secs = |route: &str| match crate::routes::writes(route) {
        true => 2.0 * (side + RUN_OVERHEAD_SECS),
        false => 2.0 * side * (1.0 + SLICE_EDGE_SECS / slice),
    };
    let per_visit: f64 = routes.iter().map(|route| route_secs(route)).sum();
    let visits: f64 = start_up_warmups
        .iter()
        .map(|warmup| BATCH_VISIT_SECS + 2.0 * warmup + per_visit)
        .sum();
    let ceilings = CEILINGS as f64
        * (batch.warmup_secs + f64::from(batch.rounds) * (batch.duration_secs + RUN_OVERHEAD_SECS));
    visits * f64::from(batch.rounds) + ceilings
}

/// The share of a sweep's rates whose verdict the first rounds that could decide it (2 of 3)
/// left open, so that a later round runs them: 18 of the 98 rates of
/// docs/example-sweep-20261205125726, replayed as the sweep now runs its rounds
/// (`load/sweep/climb.rs`); its overloads' verdicts were all decided by then.
pub(crate) const OPEN_AFTER_MAJORITY: f64 = 0.2;

/// A sweep of apps (Go included) with these start-up warm-ups: per app, route and round its
/// closed-loop max; per app and route each rate, and the machine's floor at the rate that
/// decided its max, in the rounds a verdict needs; per app the overload in the rounds its
/// verdict needs and the connection levels; per visit (each pass of each round, and the
/// last) the start-up warm-up; the machine's floor at the common rates.
fn sweep_secs(sweep: &SweepLengths, overload_secs: f64, start_up_warmups: &[f64]) -> f64 {
    sweep_secs_with(sweep, overload_secs, start_up_warmups, OPEN_AFTER_MAJORITY)
}

/// [`sweep_secs`] with `open_share` of the verdicts left open after the deciding rounds.
fn sweep_secs_with(
    sweep: &SweepLengths,
    overload_secs: f64,
    start_up_warmups: &[f64],
    open_share: f64,
) -> f64 {
    let rates = (sweep.common.len() + sweep.own.len()) as f64;
    let rate_run = sweep.run_secs + sweep.warmup_secs + RUN_OVERHEAD_SECS;
    let rounds = f64::from(sweep.rounds);
    // Rounds that decide a verdict when they agree, then the share left open.
    let deciding = f64::from(sweep.rounds / 2 + 1).min(rounds);
    let runs_per_verdict = deciding + (rounds - deciding) * open_share;
    let routes = sweep.routes.len() as f64;
    let per_app = routes * rounds * (rate_run + VISIT_SECS)
        + routes * (rates + 1.0) * runs_per_verdict * rate_run
        + runs_per_verdict * (overload_secs + VISIT_SECS)
        + sweep.connection_levels.len() as f64 * rate_run;
    let floor = routes * sweep.common.len() as f64 * runs_per_verdict * rate_run;
    let visits = 2.0 * rounds + runs_per_verdict + 1.0;
    let warmups: f64 = start_up_warmups.iter().map(|warmup| warmup * visits).sum();
    per_app * start_up_warmups.len() as f64 + warmups + floor
}

/// `apps` in as few groups of at most `size` as there can be, as even as they can be, in
/// order.
fn groups(apps: &[String], size: usize) -> Vec<Vec<String>> {
    let count = apps.len().div_ceil(size).max(1);
    let (base, extra) = (apps.len() / count, apps.len() % count);
    let mut rest = apps;
    (0..count)
        .map(|index| {
            let (group, after) = rest.split_at(base + usize::from(index < extra));
            rest = after;
            group.to_vec()
        })
        .collect()
}

fn part(name: String, kind: PartKind, apps: Vec<String>, args: Vec<String>, estimate: f64) -> Part {
    Part {
        name,
        kind,
        apps,
        args,
        estimate_secs: estimate,
        not_run: None,
        attempts: Vec::new(),
    }
}

/// `--parts`' name of a kind.
pub fn kind_name(kind: PartKind) -> &'static str {
    match kind {
        PartKind::RoundTrips => "round-trips",
        PartKind::Idioms => "idioms",
        PartKind::Batch => "batch",
        PartKind::Sweep => "sweep",
        PartKind::Faults => "faults",
    }
}

/// A length as the commands' flags take it: `5s`, `0.5s`.
fn secs(value: f64) -> String {
    format!("{value}s")
}

fn list<T: ToString>(values: &[T]) -> String {
    values
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// `2 h 05 min`, `14 min`, `40 s`.
pub fn clock(secs: f64) -> String {
    let secs = secs.round() as u64;
    match secs {
        0..60 => format!("{secs} s"),
        60..3600 => format!("{} min", secs.div_ceil(60)),
        _ => format!("{} h {:02} min", secs / 3600, (secs % 3600).div_ceil(60)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apps(count: usize) -> Vec<String> {
        (0..count)
            .map(|i| match i {
                0 => "go".to_owned(),
                _ => format!("app{i}"),
            })
            .collect()
    }

    fn request(apps: &[String], budget_secs: Option<f64>) -> Request<'_> {
        Request {
            apps,
            quick: false,
            budget_secs,
            start_up_warmup: &|_| 0.0,
            only: None,
        }
    }

    #[test]
    fn every_app_is_in_every_kind_of_part_and_go_in_every_sweep() {
        let apps = apps(8);
        let (plan, parts) = choose(&request(&apps, None)).unwrap();
        assert_eq!(plan.level, "full");
        for kind in [PartKind::Batch, PartKind::Faults, PartKind::Idioms] {
            let mut covered: Vec<&String> = parts
                .iter()
                .filter(|p| p.kind == kind)
                .flat_map(|p| &p.apps)
                .collect();
            covered.sort();
            covered.dedup();
            assert_eq!(covered.len(), 8, "{kind:?}");
        }
        let sweeps: Vec<&Part> = parts.iter().filter(|p| p.kind == PartKind::Sweep).collect();
        assert_eq!(sweeps.len(), 2);
        assert!(
            sweeps
                .iter()
                .all(|p| p.apps[0] == "go" && p.args[2].starts_with("go,"))
        );
        assert_eq!(
            parts.iter().filter(|p| p.kind == PartKind::Batch).count(),
            3
        );
    }

    #[test]
    fn a_budget_picks_the_richest_plan_that_fits_and_refuses_one_below_the_minimums() {
        let apps = apps(19);
        let (full, _) = choose(&request(&apps, None)).unwrap();
        let lean_budget = full.estimate_secs - 1.0;
        let (lean, _) = choose(&request(&apps, Some(lean_budget))).unwrap();
        assert_eq!(lean.level, "lean");
        assert!(lean.estimate_secs <= lean_budget);
        assert_eq!(
            (
                lean.batch.rounds,
                lean.batch.duration_secs,
                lean.batch.warmup_secs
            ),
            (6, 3.0, 1.0)
        );
        let refused = choose(&request(&apps, Some(lean.estimate_secs - 1.0)))
            .unwrap_err()
            .to_string();
        assert!(
            refused.contains("cannot hold") && refused.contains(&clock(lean.estimate_secs)),
            "{refused}"
        );
    }

    /// The estimates of two checked-in runs' settings are within 10 % of their measured wall
    /// times: the sliced null check (3 apps, 3 routes, 10 rounds of 5 s of 0.25 s slices after
    /// 1 s, 1,534 s; docs/example-null-check-20261207034728) and the sweep beside the floor (7
    /// apps, 2 routes, 3 rounds of 3 s rates, 4 common and 3 own, 2,959 s;
    /// docs/example-sweep-20261205125726), which ran every rate and overload in every round
    /// (its estimate includes the floor's runs at the deciding rates, which it did not make).
    #[test]
    fn the_estimates_are_near_the_checked_in_runs_wall_times() {
        let null_check = BatchLengths {
            rounds: 10,
            duration_secs: 5.0,
            warmup_secs: 1.0,
        };
        let batch = batch_secs(&null_check, &["home", "detail", "cached-detail"], &[0.0; 3]);
        assert!((batch / 1534.0 - 1.0).abs() < 0.1, "{batch}");
        let mut floor_sweep = Level::Lean.sweep();
        floor_sweep.common = vec![0.25, 0.5, 0.75, 0.9];
        let sweep = sweep_secs_with(&floor_sweep, Level::Lean.overload_secs(), &[0.0; 7], 1.0);
        assert!((sweep / 2959.0 - 1.0).abs() < 0.1, "{sweep}");
    }

    /// The lean plan's sweep parts for 19 apps on detail and cached-detail (Go and 18 others,
    /// in 3 parts of 7), with no start-up warm-ups (Spring WebFlux's 40 s adds about 6 min):
    /// estimated, not measured.
    #[test]
    fn the_lean_sweep_of_19_apps_as_estimated() {
        let apps = apps(19);
        let (_, parts) = plan(Level::Lean, &request(&apps, None));
        let sweeps = parts.iter().filter(|p| p.kind == PartKind::Sweep);
        let secs: f64 = sweeps.map(|p| p.estimate_secs).sum();
        assert_eq!(clock(secs), "1 h 43 min");
    }

    #[test]
    fn parts_left_out_by_the_user_are_planned_but_not_run() {
        let apps = apps(2);
        let only = [PartKind::Batch];
        let (plan, parts) = choose(&Request {
            only: Some(&only),
            ..request(&apps, None)
        })
        .unwrap();
        assert!(
            parts
                .iter()
                .all(|p| (p.kind == PartKind::Batch) == p.not_run.is_none())
        );
        let batch: f64 = parts
            .iter()
            .filter(|p| p.kind == PartKind::Batch)
            .map(|p| p.estimate_secs)
            .sum();
        assert_eq!(plan.estimate_secs, batch);
        assert!(plan.left_out.iter().any(|l| l.contains("not in --parts")));
    }
}
