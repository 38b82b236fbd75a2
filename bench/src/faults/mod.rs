//! `blogbench faults` (docs/spec.md §7): each app, alone, parity-gated, then sent bad
//! input and an idle-connection flood, then put under closed-loop load while the real
//! services fail under it, one fault at a time. Every request is kept, so a fault's cost is
//! split into what failed while the service was down and what the app lost after it came
//! back.

pub mod bad_clients;
pub mod inject;
pub mod timeline;

use crate::load::client::{self, Answer, Load, Pace, Workload};
use crate::parity::{self, Reference};
use crate::progress::Progress;
use crate::results::faults::{AppFaults, FaultOutcome, FaultsRun};
use crate::results::{RunKind, write_atomically};
use crate::routes;
use crate::session::{self, Session};
use crate::stack::apps::{self, Target};
use crate::stack::page_cache;
use crate::stack::processes;
use crate::stack::server::{RunningApp, http_agent};
use crate::stack::services;
use anyhow::{Context, Result};
use inject::Fault;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use timeline::Timeline;

pub struct Options {
    pub targets: Vec<Target>,
    pub connections: u32,
    pub quick: bool,
    pub results_dir: PathBuf,
}

/// The lengths of one run: full, or `--quick` for tests.
struct Plan {
    baseline: Duration,
    after: Duration,
    /// Each fault with the route loaded while it happens.
    faults: Vec<(Fault, &'static str)>,
    idle_connections: u32,
    slow_connections: u32,
    flood: Duration,
}

impl Plan {
    fn new(quick: bool) -> Plan {
        let secs = Duration::from_secs_f64;
        let (baseline, after, down, short, long, flood) = if quick {
            (
                secs(2.0),
                secs(5.0),
                secs(2.0),
                secs(1.0),
                secs(5.0),
                secs(4.0),
            )
        } else {
            (
                secs(3.0),
                secs(10.0),
                secs(3.0),
                secs(1.5),
                secs(8.0),
                secs(12.0),
            )
        };
        Plan {
            baseline,
            after,
            faults: vec![
                (Fault::RedisRestart { down }, "cached-detail"),
                (Fault::DatabaseStall { length: short }, "detail"),
                // Longer than the apps' 3 s pool acquire timeout (docs/spec.md §1).
                (Fault::DatabaseStall { length: long }, "detail"),
                (Fault::PostgresRestart { down }, "detail"),
                (Fault::PostgresRestartWhileIdle { down }, "detail"),
                // Writes: a comment answered 303 must be stored, and a read after it must
                // show it, whatever Redis or PostgreSQL did meanwhile.
                (Fault::RedisRestart { down }, "mixed"),
                (Fault::PostgresRestart { down }, "write"),
            ],
            idle_connections: 1000,
            slow_connections: 100,
            flood,
        }
    }
}

/// Tests every target on the seeded data (its comments reset first); returns the folder
/// holding `faults.json`. Services stopped by a fault are started again whatever happens.
pub fn run(options: &Options, interrupted: &AtomicBool) -> Result<PathBuf> {
    let runtime = tokio::runtime::Runtime::new()?;
    services::seeded_database(&runtime)?;
    let plan = Plan::new(options.quick);
    let Session { header, dir } = Session::start(&options.results_dir, RunKind::Faults)?;
    let reference = {
        let go = RunningApp::start(&apps::find(apps::GO)?, &[])?;
        parity::Reference::fetch(&go.base_url)?
    };
    let mut run = FaultsRun {
        header,
        quick: options.quick,
        connections: options.connections,
        baseline_secs: plan.baseline.as_secs_f64(),
        after_secs: plan.after.as_secs_f64(),
        apps: Vec::new(),
    };
    run.save(&dir)?;
    let progress = Progress::new(
        (options.targets.len() * (plan.faults.len() + 2)) as u64,
        "steps",
    );
    for target in &options.targets {
        if interrupted.load(Ordering::SeqCst) {
            break;
        }
        let tested = test_app(
            &dir,
            target,
            &plan,
            options.connections,
            &reference,
            &runtime,
            &progress,
        );
        let restored = inject::restore_services();
        run.apps.push(tested);
        run.save(&dir)?;
        restored?;
    }
    progress.finish();
    session::finish(&mut run.header);
    run.save(&dir)?;
    Ok(dir)
}

fn test_app(
    dir: &Path,
    target: &Target,
    plan: &Plan,
    connections: u32,
    reference: &Reference,
    runtime: &tokio::runtime::Runtime,
    progress: &Progress,
) -> AppFaults {
    let mut tested = AppFaults {
        label: target.label.clone(),
        settings: Some(target.app.manifest.settings.clone()),
        env: target.env.iter().cloned().collect(),
        error: None,
        faults: Vec::new(),
        bad_input: Vec::new(),
        flood: None,
        survived: false,
        rss_before_bytes: 0,
        rss_after_bytes: 0,
    };
    progress.step(format!("{}: start, parity", target.label));
    let env = target.env_pairs();
    let running = match start_gated(target, &env, reference) {
        Ok(running) => running,
        Err(err) => {
            tested.error = Some(format!("{err:#}"));
            progress.inc();
            return tested;
        }
    };
    progress.inc();
    let addr = format!("127.0.0.1:{}", running.port);
    tested.rss_before_bytes = processes::tree_rss_bytes(running.pid());

    progress.step(format!(
        "{}: bad input, idle-connection flood",
        target.label
    ));
    tested.bad_input = bad_clients::bad_input(&addr);
    tested.flood = Some(bad_clients::flood(
        &addr,
        plan.idle_connections,
        plan.slow_connections,
        plan.flood,
    ));
    progress.inc();

    for &(fault, route) in &plan.faults {
        progress.step(format!(
            "{}: {} under {route} load",
            target.label,
            fault.name()
        ));
        let outcome = under_load(
            dir,
            &target.label,
            &running,
            fault,
            route,
            plan,
            connections,
            reference,
            runtime,
        );
        progress.inc();
        match outcome {
            Ok(outcome) => tested.faults.push(outcome),
            Err(err) => {
                tested.error = Some(format!("{}: {err:#}", fault.name()));
                break;
            }
        }
        if !running.is_running() {
            break;
        }
    }
    tested.survived = running.is_running();
    tested.rss_after_bytes = processes::tree_rss_bytes(running.pid());
    if !tested.survived {
        progress.say(format!(
            "{}: the process died; its last lines:\n{}",
            target.label,
            running.log_tail()
        ));
    }
    running.stop();
    tested
}

/// The app started and its parity sample equal to the reference's (docs/spec.md §4).
fn start_gated(target: &Target, env: &[(&str, &str)], reference: &Reference) -> Result<RunningApp> {
    let running = RunningApp::start(&target.app, env)?;
    if let Some(first) = reference.check(&running.base_url, &target.label)?.first() {
        anyhow::bail!(
            "parity: {} differs from Go's ({}); run `blogbench parity --apps {}`",
            first.request,
            first.what,
            target.app.name
        );
    }
    Ok(running)
}

/// One fault under closed-loop load on `route`: baseline, fault, and the time after; every
/// request's record saved in `dir` under `raw/`.
#[allow(clippy::too_many_arguments)]
fn under_load(
    dir: &Path,
    label: &str,
    running: &RunningApp,
    fault: Fault,
    route: &str,
    plan: &Plan,
    connections: u32,
    reference: &Reference,
    runtime: &tokio::runtime::Runtime,
) -> Result<FaultOutcome> {
    let writes = routes::writes(route);
    let path = routes::path(route).context("a known route")?;
    wait_until_serving(running, if writes { "/" } else { path })?;
    page_cache::clear()?;
    let _writing = writes.then(services::lock_comments).transpose()?;
    let workload = if writes {
        services::reset_comments()?;
        Workload::Comments {
            posts: client::seeded_posts(running, connections)?,
            mixed: route == "mixed",
        }
    } else {
        if path.starts_with("/cached/") {
            get_status(running, path)?;
        }
        Workload::Read {
            path: path.to_owned(),
            page: reference
                .page(path)
                .map(|f| Arc::new(f.body.clone()))
                .context("the route's page is in the parity sample")?,
        }
    };
    let addr = format!("127.0.0.1:{}", running.port);
    let idle = matches!(fault, Fault::PostgresRestartWhileIdle { .. });
    // Light traffic when the app idles through the fault: 8 clients, 100 ms apart, enough to
    // reach every worker's pool in an app with one pool per worker.
    let (clients, pace) = if idle {
        (8, Pace::Gap(Duration::from_millis(100)))
    } else {
        (connections, Pace::Flat)
    };
    let load = Load::start(runtime, &addr, &workload, clients, pace);
    std::thread::sleep(plan.baseline);
    if idle {
        load.pause();
    }
    let fault_at = load.started.elapsed();
    let injected = fault.inject(runtime);
    let back_at = match &injected {
        Ok(back) => back.saturating_duration_since(load.started),
        Err(_) => load.started.elapsed(),
    };
    load.resume();
    std::thread::sleep(plan.after);
    let end = load.started.elapsed();
    let records = load.finish(runtime);
    injected?;
    let timeline = timeline::analyse(&records, fault_at, back_at, end);
    let mut outcome = outcome(fault, route, &timeline, (back_at - fault_at).as_secs_f64());
    let file = format!("raw/{label}-{}-{route}.csv", fault.name().replace(' ', "-"));
    std::fs::create_dir_all(dir.join("raw"))?;
    write_atomically(&dir.join(&file), timeline::records_csv(&records).as_bytes())?;
    outcome.fault_at_ms = Some(fault_at.as_secs_f64() * 1000.0);
    outcome.back_at_ms = Some(back_at.as_secs_f64() * 1000.0);
    outcome.records = Some(file);
    if writes {
        outcome.fault = format!("{} during {route}", outcome.fault);
        check_comments(&records, &mut outcome)?;
        services::reset_comments()?;
    }
    Ok(outcome)
}

/// Every comment answered 303 must be in the database (docs/spec.md §7); a comment stored
/// without a 303 (its commit reached PostgreSQL, the answer did not reach the client) is
/// counted, not a broken rule.
fn check_comments(records: &[client::Record], outcome: &mut FaultOutcome) -> Result<()> {
    let stored: std::collections::HashSet<u64> = services::comments_added()?
        .iter()
        .filter_map(|body| client::comment_number(body))
        .collect();
    let (mut lost, mut unanswered) = (0, 0);
    for record in records {
        let Some(n) = record.comment else { continue };
        match (record.answer == Answer::Stored, stored.contains(&n)) {
            (true, false) => lost += 1,
            (false, true) => unanswered += 1,
            _ => {}
        }
    }
    if lost > 0 {
        outcome.problems.push(format!(
            "{lost} comments answered 303 are not in the database"
        ));
    }
    outcome.comments_lost = Some(lost);
    outcome.comments_stored_unanswered = Some(unanswered);
    Ok(())
}

/// The numbers, and the rules of docs/spec.md §7 they break.
fn outcome(fault: Fault, route: &str, timeline: &Timeline, outage_secs: f64) -> FaultOutcome {
    let count = |answer: Answer| timeline.answers.get(&answer).copied().unwrap_or(0);
    let mut problems = Vec::new();
    if timeline.failed_before > 0 {
        problems.push(format!(
            "{} requests failed before the fault",
            timeline.failed_before
        ));
    }
    if count(Answer::WrongBody) > 0 {
        problems.push(format!(
            "{} answers were 200 with a page other than Go's (or a 303 elsewhere)",
            count(Answer::WrongBody)
        ));
    }
    if count(Answer::StaleRead) > 0 {
        problems.push(format!(
            "{} reads lacked the comment their client had just posted",
            count(Answer::StaleRead)
        ));
    }
    if count(Answer::Timeout) > 0 {
        problems.push(format!(
            "{} requests had no answer within {} s",
            count(Answer::Timeout),
            client::REQUEST_TIMEOUT.as_secs()
        ));
    }
    let failures: u64 = timeline
        .answers
        .iter()
        .filter(|(answer, _)| answer.failed())
        .map(|(_, n)| n)
        .sum();
    match fault {
        Fault::RedisRestart { .. } if failures > 0 => problems.push(format!(
            "{failures} requests failed while a Redis outage must be a cache miss"
        )),
        Fault::PostgresRestart { .. }
        | Fault::PostgresRestartWhileIdle { .. }
        | Fault::DatabaseStall { .. } => {
            let other: BTreeMap<String, u64> = timeline
                .answers
                .iter()
                .filter(|(answer, _)| {
                    !matches!(
                        answer,
                        Answer::Page
                            | Answer::Stored
                            | Answer::Status(503)
                            | Answer::WrongBody
                            | Answer::StaleRead
                            | Answer::Timeout
                    )
                })
                .map(|(answer, n)| (answer.label(), *n))
                .collect();
            if !other.is_empty() {
                problems.push(format!(
                    "answers other than 200 and 503 ({}): a database failure must be a 503",
                    other
                        .iter()
                        .map(|(label, n)| format!("{n} × {label}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
        Fault::RedisRestart { .. } => {}
    }
    FaultOutcome {
        fault: fault.name(),
        route: route.to_owned(),
        outage_secs,
        fault_at_ms: None,
        back_at_ms: None,
        records: None,
        requests: timeline.requests,
        failed_during: timeline.failed_during,
        failed_after: timeline.failed_after,
        answers: timeline
            .answers
            .iter()
            .map(|(answer, n)| (answer.label(), *n))
            .collect(),
        wrong_bodies: count(Answer::WrongBody),
        errors_for_secs: timeline.errors_for_secs,
        p99_baseline_ms: timeline.p99_baseline_ms,
        p99_back_after_secs: timeline.p99_back_after_secs,
        max_latency_ms: timeline.max_latency_ms,
        comments_lost: None,
        comments_stored_unanswered: None,
        problems,
    }
}

fn get_status(running: &RunningApp, path: &str) -> Result<u16> {
    let response = http_agent(Duration::from_secs(10))
        .get(&running.url(path))
        .call()?;
    Ok(response.status().as_u16())
}

/// Waits (at most 30 s) until the app serves `path` again after the previous fault.
fn wait_until_serving(running: &RunningApp, path: &str) -> Result<()> {
    let started = std::time::Instant::now();
    while get_status(running, path).ok() != Some(200) {
        if started.elapsed() > Duration::from_secs(30) || !running.is_running() {
            anyhow::bail!("{} did not serve {path} again within 30 s", running.name);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Ok(())
}
