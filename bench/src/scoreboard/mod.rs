//! `blogbench scoreboard` (docs/spec.md §9): every app, every question, from one commit on
//! one machine. A plan of parts — the round trips, the idioms page, fair batches, sweeps and
//! faults runs over groups of apps — each run as its own `blogbench` command into
//! `scoreboard/<id>/parts/<part>/`, so each part is an ordinary results folder with its own
//! report. `scoreboard.json` records every attempt and sitting; `--resume` runs what is
//! left, on the same machine and measured code only.

pub mod plan;

use crate::probe::roundtrips;
use crate::results::scoreboard::{
    Attempt, Outcome, PageRoundTrips, Part, PartKind, Plan, Scoreboard, Sitting,
};
use crate::results::{self, Machine, RunKind};
use crate::session::{self, Session};
use crate::stack::apps::{self, Target};
use crate::stack::services;
use anyhow::{Context, Result, bail, ensure};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

pub struct Options {
    /// A new scoreboard's apps and plan, or the id of one to resume.
    pub start: Start,
    /// End this sitting before a part that would not finish within this long.
    pub stop_after: Option<Duration>,
    /// `--cpus-*` and `--allow-unpinned` as given, passed on to the batch and sweep parts.
    pub pinning: Vec<String>,
    /// Where scoreboards live (`<workspace>/scoreboard` by default).
    pub dir: PathBuf,
}

pub enum Start {
    New {
        /// Go first.
        apps: Vec<String>,
        quick: bool,
        budget_secs: Option<f64>,
        only: Option<Vec<PartKind>>,
    },
    Resume(String),
}

/// `<workspace>/scoreboard`.
pub fn default_dir() -> PathBuf {
    apps::workspace_dir().join("scoreboard")
}

/// Starts or resumes a scoreboard and runs its pending parts; returns its folder.
pub fn run(options: &Options, interrupted: &AtomicBool) -> Result<PathBuf> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    // The parts check the data themselves; checking first stops before anything is made.
    drop(services::seeded_database(&runtime)?);
    let (mut scoreboard, dir) = match &options.start {
        Start::New {
            apps,
            quick,
            budget_secs,
            only,
        } => start(&options.dir, apps, *quick, *budget_secs, only.as_deref())?,
        Start::Resume(id) => resume(&options.dir, id)?,
    };
    let number = scoreboard.sittings.len() as u32 + 1;
    scoreboard.sittings.push(Sitting {
        number,
        started_at: session::now(),
        finished_at: None,
        command: std::env::args().collect::<Vec<_>>().join(" "),
        ended: None,
    });
    scoreboard.save(&dir)?;
    print_plan(&scoreboard, &dir);

    let sitting = Instant::now();
    let mut ended = "finished";
    let mut pace = Pace::default();
    for index in 0..scoreboard.parts.len() {
        if !scoreboard.parts[index].pending() {
            continue;
        }
        if interrupted.load(Ordering::SeqCst) {
            ended = "interrupted";
            break;
        }
        let estimate = scoreboard.parts[index].estimate_secs;
        if let Some(limit) = options.stop_after
            && sitting.elapsed().as_secs_f64() + estimate > limit.as_secs_f64()
        {
            println!(
                "scoreboard: {} (about {}) would not end within --stop-after {}; resume with \
                 `blogbench scoreboard --resume {}`",
                scoreboard.parts[index].name,
                plan::clock(estimate),
                plan::clock(limit.as_secs_f64()),
                scoreboard.header.id
            );
            ended = "stopped before the next part (--stop-after)";
            break;
        }
        print_progress(&scoreboard, index, &pace);
        let started = Instant::now();
        run_part(&mut scoreboard, index, number, &dir, options, interrupted)?;
        let taken = started.elapsed().as_secs_f64();
        pace.add(scoreboard.parts[index].kind, taken, estimate);
        println!(
            "scoreboard: {} {} in {} (estimated {})",
            scoreboard.parts[index].name,
            outcome_word(scoreboard.parts[index].last().map(|a| &a.outcome)),
            plan::clock(taken),
            plan::clock(estimate)
        );
    }
    if interrupted.load(Ordering::SeqCst) {
        ended = "interrupted";
    }
    let sitting = scoreboard.sittings.last_mut().expect("pushed above");
    sitting.finished_at = Some(session::now());
    sitting.ended = Some(ended.to_owned());
    if scoreboard.parts.iter().all(|p| !p.pending()) {
        session::finish(&mut scoreboard.header);
    }
    scoreboard.save(&dir)?;
    Ok(dir)
}

/// A new scoreboard: the measured code checked, the plan chosen, the folder made.
fn start(
    parent: &Path,
    apps: &[String],
    quick: bool,
    budget_secs: Option<f64>,
    only: Option<&[PartKind]>,
) -> Result<(Scoreboard, PathBuf)> {
    let code = measured_code()?;
    if code.ends_with("-dirty") && !quick {
        bail!(
            "the apps or the harness have uncommitted changes (git status): a scoreboard is \
             one commit's; commit them first (only --quick runs on a changed tree)"
        );
    }
    let (plan, parts) = new_plan(apps, quick, budget_secs, only)?;
    let Session { header, dir } = Session::start(parent, RunKind::Scoreboard)?;
    let scoreboard = Scoreboard {
        header,
        code,
        apps: apps.to_vec(),
        plan,
        parts,
        sittings: Vec::new(),
        round_trips: Vec::new(),
    };
    Ok((scoreboard, dir))
}

/// The plan for these apps ([`plan::choose`]), with each app's start-up warm-up from its
/// manifest.
pub fn new_plan(
    apps: &[String],
    quick: bool,
    budget_secs: Option<f64>,
    only: Option<&[PartKind]>,
) -> Result<(Plan, Vec<Part>)> {
    let targets: Vec<Target> = apps
        .iter()
        .map(|app| Target::parse(app))
        .collect::<Result<_>>()?;
    let start_up_warmup = |name: &str| {
        targets
            .iter()
            .find(|t| t.label == name)
            .and_then(|t| t.app.manifest.settings.warmup().ok().flatten())
            .map_or(0.0, |warmup| warmup.as_secs_f64())
    };
    plan::choose(&plan::Request {
        apps,
        quick,
        budget_secs,
        start_up_warmup: &start_up_warmup,
        only,
    })
}

/// An earlier scoreboard, on the same machine and measured code, with no sitting still
/// running; attempts its last sitting left running are recorded as interrupted.
fn resume(parent: &Path, id: &str) -> Result<(Scoreboard, PathBuf)> {
    let dir = parent.join(id);
    let file = dir.join(RunKind::Scoreboard.file());
    let mut scoreboard = Scoreboard::load(&file)
        .with_context(|| format!("no scoreboard {id} to resume in {}", parent.display()))?;
    let code = measured_code()?;
    ensure!(
        code == scoreboard.code,
        "scoreboard {id} measured code {} (commit {}); this checkout's is {code} (commit {}): \
         a scoreboard never mixes code, so start a new one",
        scoreboard.code,
        scoreboard.header.git_commit,
        session::inventory::git_commit()
    );
    let here = session::inventory::machine();
    if let Some(difference) = machine_difference(&scoreboard.header.machine, &here) {
        bail!("scoreboard {id} was measured on another machine: {difference}");
    }
    for part in &mut scoreboard.parts {
        if let Some(attempt) = part.attempts.last_mut()
            && let Outcome::Running { pid } = attempt.outcome
        {
            ensure!(
                !Path::new(&format!("/proc/{pid}")).exists(),
                "scoreboard {id}: {} is still running (process {pid}); stop it first",
                part.name
            );
            attempt.outcome = Outcome::Interrupted;
        }
    }
    Ok((scoreboard, dir))
}

/// What differs between two machines' facts, if anything that matters (memory is read
/// in GiB and may round differently).
fn machine_difference(then: &Machine, now: &Machine) -> Option<String> {
    [
        ("hostname", &then.hostname, &now.hostname),
        ("kernel", &then.kernel, &now.kernel),
        ("CPU", &then.cpu_model, &now.cpu_model),
    ]
    .into_iter()
    .find(|(_, a, b)| a != b)
    .map(|(what, a, b)| format!("{what} {a}, here {b}"))
    .or_else(|| {
        (then.cores != now.cores).then(|| format!("{} cores, here {}", then.cores, now.cores))
    })
}

/// What does not change what is measured: documentation, CI, the harness's tests and its
/// report writers (they only read results files), so a later page can be written again and a
/// sitting resumed after commits to them.
const NOT_MEASURED: [&str; 5] = [
    "docs",
    "README.md",
    ".ci",
    "bench/tests",
    "bench/src/report",
];

/// A hash of every tracked file at HEAD but [`NOT_MEASURED`]; with `-dirty` when tracked files
/// outside them have changed since, their diff hashed in too, so two sittings on the same
/// uncommitted changes agree.
fn measured_code() -> Result<String> {
    let dir = apps::workspace_dir();
    let git = |args: &[&str]| -> Result<Vec<u8>> {
        let output = Command::new("git")
            .arg("-C")
            .arg(&dir)
            .args(args)
            .output()?;
        ensure!(
            output.status.success(),
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        );
        Ok(output.stdout)
    };
    let excluded: Vec<String> = NOT_MEASURED
        .iter()
        .map(|path| format!(":(exclude){path}"))
        .collect();
    let mut pathspec = vec!["--", "."];
    pathspec.extend(excluded.iter().map(String::as_str));
    // `ls-tree` takes no exclusions, so its lines (`<mode> <type> <hash>\t<path>`) are
    // filtered here.
    let tree = String::from_utf8(git(&["ls-tree", "-r", "HEAD"])?)?;
    let mut measured: Vec<u8> = tree
        .lines()
        .filter(|line| {
            let path = line.split_once('\t').map_or("", |(_, path)| path);
            !NOT_MEASURED
                .iter()
                .any(|skip| path == *skip || path.starts_with(&format!("{skip}/")))
        })
        .flat_map(|line| format!("{line}\n").into_bytes())
        .collect();
    let diff = git(&[&["diff", "--binary", "HEAD"][..], &pathspec].concat())?;
    measured.extend(&diff);
    let mut hasher = Command::new("git")
        .arg("-C")
        .arg(&dir)
        .args(["hash-object", "--stdin"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()?;
    hasher.stdin.take().expect("piped").write_all(&measured)?;
    let hash = String::from_utf8(hasher.wait_with_output()?.stdout)?;
    let dirty = if diff.is_empty() { "" } else { "-dirty" };
    Ok(format!("{}{dirty}", hash.trim()))
}

/// Runs part `index` once more, recording the attempt before and after.
fn run_part(
    scoreboard: &mut Scoreboard,
    index: usize,
    sitting: u32,
    dir: &Path,
    options: &Options,
    interrupted: &AtomicBool,
) -> Result<()> {
    let started = Instant::now();
    let part = &scoreboard.parts[index];
    let parent = dir.join("parts").join(&part.name);
    std::fs::create_dir_all(&parent).with_context(|| format!("create {}", parent.display()))?;
    let attempt = Attempt {
        sitting,
        started_at: session::now(),
        finished_at: None,
        secs: None,
        folder: None,
        outcome: Outcome::Running {
            pid: std::process::id(),
        },
    };
    scoreboard.parts[index].attempts.push(attempt);
    scoreboard.save(dir)?;
    let (outcome, folder) = match scoreboard.parts[index].kind {
        PartKind::RoundTrips => {
            let apps = scoreboard.parts[index].apps.clone();
            let (counts, outcome) = count_round_trips(&apps, interrupted);
            scoreboard.round_trips = counts;
            (outcome, None)
        }
        kind => {
            let mut args = scoreboard.parts[index].args.clone();
            if matches!(kind, PartKind::Batch | PartKind::Sweep) {
                args.extend(options.pinning.iter().cloned());
            }
            run_command(scoreboard, index, &args, &parent, dir, interrupted)?
        }
    };
    let attempt = scoreboard.parts[index]
        .attempts
        .last_mut()
        .expect("pushed above");
    attempt.finished_at = Some(session::now());
    attempt.secs = Some(started.elapsed().as_secs_f64());
    attempt.folder = folder;
    attempt.outcome = outcome;
    scoreboard.save(dir)
}

/// Runs `blogbench <args> --results <parent>` as a child; Ctrl-C or a signal to this
/// process is passed on as SIGTERM, so the child ends its step and saves. Returns the
/// outcome and the folder the child made (relative to the scoreboard's).
fn run_command(
    scoreboard: &mut Scoreboard,
    index: usize,
    args: &[String],
    parent: &Path,
    dir: &Path,
    interrupted: &AtomicBool,
) -> Result<(Outcome, Option<String>)> {
    let before = folders(parent)?;
    let exe = std::env::current_exe().context("the blogbench binary")?;
    let mut child = Command::new(exe)
        .args(args)
        .arg("--results")
        .arg(parent)
        .spawn()
        .with_context(|| format!("start blogbench {}", args.join(" ")))?;
    if let Some(attempt) = scoreboard.parts[index].attempts.last_mut() {
        attempt.outcome = Outcome::Running { pid: child.id() };
    }
    scoreboard.save(dir)?;
    let mut passed_on = false;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if interrupted.load(Ordering::SeqCst) && !passed_on {
            // SAFETY: kill(2) on the pid of a child not yet waited for.
            unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
            passed_on = true;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let made: Vec<PathBuf> = folders(parent)?
        .into_iter()
        .filter(|folder| !before.contains(folder))
        .collect();
    let folder = made.last().cloned();
    let relative = folder.as_ref().map(|folder| {
        folder
            .strip_prefix(dir)
            .unwrap_or(folder)
            .to_string_lossy()
            .into_owned()
    });
    let kind = scoreboard.parts[index]
        .kind
        .run_kind()
        .expect("a part run as a command writes a results file");
    let complete = folder.as_ref().is_some_and(|folder| finished(folder, kind));
    let outcome = if interrupted.load(Ordering::SeqCst) {
        Outcome::Interrupted
    } else if complete {
        Outcome::Measured {
            problems: !status.success(),
        }
    } else {
        Outcome::Failed {
            reason: format!(
                "blogbench {} ended ({status}) without a complete {}",
                args[0],
                kind.file()
            ),
        }
    };
    Ok((outcome, relative))
}

/// The folders in `parent`, sorted.
fn folders(parent: &Path) -> Result<Vec<PathBuf>> {
    let mut folders: Vec<PathBuf> = std::fs::read_dir(parent)
        .with_context(|| format!("read {}", parent.display()))?
        .filter_map(|entry| Some(entry.ok()?.path()))
        .filter(|path| path.is_dir())
        .collect();
    folders.sort();
    Ok(folders)
}

/// Whether the results file in `folder` says its run finished.
fn finished(folder: &Path, kind: RunKind) -> bool {
    #[derive(serde::Deserialize)]
    struct Head {
        finished_at: Option<String>,
    }
    results::read_json::<Head>(&folder.join(kind.file()))
        .is_ok_and(|head| head.finished_at.is_some())
}

/// Statements and round trips per page, app by app; an app that cannot be counted fails
/// the part, naming it.
fn count_round_trips(apps: &[String], interrupted: &AtomicBool) -> (Vec<PageRoundTrips>, Outcome) {
    let mut counts = Vec::new();
    let mut failures = Vec::new();
    for name in apps {
        if interrupted.load(Ordering::SeqCst) {
            return (counts, Outcome::Interrupted);
        }
        println!("scoreboard: round trips · {name}");
        let measured = Target::parse(name)
            .and_then(|target| roundtrips::measure(&target.app, &target.env_pairs(), 100));
        match measured {
            Ok(pages) => counts.extend(pages.into_iter().map(|count| PageRoundTrips {
                app: name.clone(),
                page: count.page.to_owned(),
                statements: count.statements,
                round_trips: count.round_trips,
            })),
            Err(err) => failures.push(format!("{name}: {err:#}")),
        }
    }
    let outcome = match failures.is_empty() {
        true => Outcome::Measured { problems: false },
        false => Outcome::Failed {
            reason: failures.join("; "),
        },
    };
    (counts, outcome)
}

fn outcome_word(outcome: Option<&Outcome>) -> &'static str {
    match outcome {
        Some(Outcome::Measured { problems: false }) => "measured",
        Some(Outcome::Measured { problems: true }) => "measured, with failures",
        Some(Outcome::Interrupted) => "interrupted",
        Some(Outcome::Failed { .. }) => "failed",
        Some(Outcome::Running { .. }) | None => "not run",
    }
}

/// The scoreboard's folder and commit, then its plan.
fn print_plan(scoreboard: &Scoreboard, dir: &Path) {
    println!(
        "scoreboard {} in {}; commit {}",
        scoreboard.header.id,
        dir.display(),
        scoreboard.header.git_commit
    );
    print_parts(&scoreboard.plan, &scoreboard.parts);
}

/// The plan, each part with its apps, estimate and state, and the estimated end.
pub fn print_parts(plan: &Plan, parts: &[Part]) {
    let apps = parts.first().map_or(0, |part| part.apps.len());
    println!(
        "  {apps} apps, plan {}{}",
        plan.level,
        plan.budget_secs
            .map(|b| format!(" (budget {})", plan::clock(b)))
            .unwrap_or_default(),
    );
    println!(
        "  batch: {} rounds of {} s runs after {} s warm-ups, every route; sweep: {}, {} rounds \
         of {} s rates",
        plan.batch.rounds,
        plan.batch.duration_secs,
        plan.batch.warmup_secs,
        plan.sweep.routes.join(" and "),
        plan.sweep.rounds,
        plan.sweep.run_secs
    );
    for left in &plan.left_out {
        println!("  left out: {left}");
    }
    for part in parts {
        let state = match (&part.not_run, part.measured()) {
            (Some(reason), _) => format!("not run: {reason}"),
            (None, true) => format!(
                "measured in sitting {}",
                part.last().map_or(0, |a| a.sitting)
            ),
            (None, false) => format!("about {}", plan::clock(part.estimate_secs)),
        };
        println!("  {:<12} {:<40} {state}", part.name, part.apps.join(","));
    }
    let left: f64 = parts
        .iter()
        .filter(|p| p.pending())
        .map(|p| p.estimate_secs)
        .sum();
    println!(
        "  left to measure: about {}, ending about {}",
        plan::clock(left),
        end_at(left)
    );
}

/// How this sitting's parts compared with their estimates, by kind: the parts of a kind
/// differ from their estimates alike (the same runs, the same machine).
#[derive(Default)]
struct Pace(std::collections::BTreeMap<PartKind, (f64, f64)>);

impl Pace {
    fn add(&mut self, kind: PartKind, taken: f64, estimated: f64) {
        let entry = self.0.entry(kind).or_default();
        entry.0 += taken;
        entry.1 += estimated;
    }

    /// A part's estimate scaled by its kind's pace so far.
    fn estimate(&self, part: &Part) -> f64 {
        let scale = match self.0.get(&part.kind) {
            Some(&(taken, estimated)) if estimated > 0.0 => (taken / estimated).clamp(0.5, 2.0),
            _ => 1.0,
        };
        part.estimate_secs * scale
    }
}

/// Before a part: what is done, what is left and when it should end.
fn print_progress(scoreboard: &Scoreboard, index: usize, pace: &Pace) {
    let pending: Vec<&Part> = scoreboard.parts.iter().filter(|p| p.pending()).collect();
    let done = scoreboard.parts.iter().filter(|p| p.measured()).count();
    let left: f64 = pending.iter().map(|p| pace.estimate(p)).sum();
    let part = &scoreboard.parts[index];
    println!(
        "scoreboard: {} ({}): about {}; {done} parts measured, {} left (about {}), ending \
         about {}",
        part.name,
        part.apps.join(", "),
        plan::clock(pace.estimate(part)),
        pending.len(),
        plan::clock(left),
        end_at(left)
    );
}

/// Now plus `secs`, as UTC hours and minutes.
fn end_at(secs: f64) -> String {
    (chrono::Utc::now() + chrono::Duration::seconds(secs as i64))
        .format("%H:%M UTC")
        .to_string()
}
