//! `blogbench profile`: where an app spends its time under a fair run's load (the same
//! connections, the app pinned the same way), and why it sits where it does in the report.
//!
//! Profiles are separate from the fair runs because every probe perturbs the app: PostgreSQL
//! is reached through the counting [`Relay`] for the whole profile, and `strace` and `perf`
//! each get a load window of their own after the measured one. Per app and route this writes
//! `profiles/<id>/<app>-<route>.json` (a [`Profile`]) and, where `perf` works, a flame graph
//! `<app>-<route>.svg`.

use crate::load::loadgen::{LoadRun, Loadgen};
use crate::probe::relay::Relay;
use crate::probe::render_times::render_times;
use crate::progress::Progress;
use crate::results::profile::{
    ContextSwitches, CpuPerRequest, Gc, PostgresPerPage, Profile, RenderTimes,
};
use crate::results::write_atomically;
use crate::routes;
use crate::session;
use crate::stack::apps;
pub use crate::stack::apps::Target;
use crate::stack::cpus::{CpuSplit, PinnedServices, pin_process};
use crate::stack::page_cache;
use crate::stack::processes::{clock_ticks, context_switches, pids_named, process_tree, stat};
use crate::stack::server::RunningApp;
use crate::stack::services;
use anyhow::{Context, Result, bail, ensure};
use inferno::collapse::Collapse;
use sqlx::{Connection, PgConnection};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

pub struct Options {
    pub targets: Vec<Target>,
    pub routes: Vec<String>,
    pub connections: u32,
    /// The measured window: CPU, round trips, queries, Redis commands, switches, GC.
    pub duration: Duration,
    pub warmup: Duration,
    /// The `strace` window and the `perf` window, each; zero skips both.
    pub tool_window: Duration,
    pub cpus: CpuSplit,
    /// Also time each template engine alone ([`render_times`]).
    pub templates: bool,
    pub out_dir: PathBuf,
}

/// Profiles every target on every route; returns the folder.
pub fn run(options: &Options) -> Result<PathBuf> {
    let (_, dir) = session::new_folder(&options.out_dir, "")?;
    session::raw_dir(&dir)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut monitor = runtime.block_on(PgConnection::connect(&services::database_url()))?;
    let mut redis = redis::Client::open(services::redis_url())?
        .get_connection()
        .context("redis: cannot connect; start it with `make services`")?;
    let pinned = PinnedServices::pin(&options.cpus.services)?;
    ensure!(
        pinned.unpinned.is_empty(),
        "cannot pin the services: {}",
        pinned.unpinned.join("; ")
    );
    // The relay's threads run in this process: keep them on the services' CPUs, off the
    // app's, where they would preempt the app at every PostgreSQL message.
    pin_process(std::process::id(), &options.cpus.services)?;

    let progress = Progress::new(
        (options.targets.len() * options.routes.len()) as u64,
        "profiles",
    );
    for target in &options.targets {
        for route in &options.routes {
            progress.step(format!("{} · {route}", target.label));
            let mut probes = Probes {
                runtime: &runtime,
                monitor: &mut monitor,
                redis: &mut redis,
            };
            let profile = profile_one(target, route, options, &dir, &mut probes)
                .with_context(|| format!("{} {route}", target.label))?;
            let file = dir.join(format!("{}.json", Profile::file_stem(&target.label, route)));
            write_atomically(&file, serde_json::to_string_pretty(&profile)?.as_bytes())?;
            progress.say(summary_line(&profile));
            progress.inc();
        }
    }
    if options.templates {
        progress.step("template engines alone (Criterion, go test -bench)");
        let times = render_times(&dir.join("raw"))?;
        write_atomically(
            &dir.join(RenderTimes::FILE),
            serde_json::to_string_pretty(&times)?.as_bytes(),
        )?;
    }
    progress.finish();
    Ok(dir)
}

/// One line for the terminal.
pub fn summary_line(p: &Profile) -> String {
    let cpu = &p.cpu_us_per_request;
    format!(
        "{} {}: {:.0} req/s · CPU µs/req app {:.1} kernel {:.1} postgres {:.1} redis {:.1} · round trips/page {:.2} (queries {}) · ctx switches/req {:.2}",
        p.app,
        p.route,
        p.requests_per_sec,
        cpu.app,
        cpu.kernel,
        cpu.postgres,
        cpu.redis,
        p.postgres_per_page.round_trips,
        p.postgres_per_page
            .queries_executed
            .map_or("n/a".to_owned(), |q| format!("{q:.2}")),
        p.context_switches_per_request.voluntary + p.context_switches_per_request.involuntary,
    )
}

/// The connections the probes read counters through (none of them goes through the relay).
struct Probes<'a> {
    runtime: &'a tokio::runtime::Runtime,
    monitor: &'a mut PgConnection,
    redis: &'a mut redis::Connection,
}

/// Counters read before and after the measured window.
struct Snapshot {
    app_user_ticks: u64,
    app_system_ticks: u64,
    postgres_ticks: u64,
    redis_ticks: u64,
    voluntary: u64,
    involuntary: u64,
    /// `None` when pg_stat_statements is not there.
    queries: Option<i64>,
    redis_commands: BTreeMap<String, u64>,
    log_bytes: u64,
}

impl Probes<'_> {
    fn snapshot(&mut self, app: &RunningApp) -> Snapshot {
        let tree = process_tree(app.pid());
        let (mut user, mut system, mut voluntary, mut involuntary) = (0, 0, 0, 0);
        for &pid in &tree {
            if let Some(s) = stat(pid) {
                user += s.user_ticks;
                system += s.system_ticks;
            }
            let (v, i) = context_switches(pid);
            voluntary += v;
            involuntary += i;
        }
        let ticks = |comm: &str| -> u64 {
            pids_named(comm)
                .into_iter()
                .filter_map(|p| stat(p).map(|s| s.ticks))
                .sum()
        };
        Snapshot {
            app_user_ticks: user,
            app_system_ticks: system,
            postgres_ticks: ticks("postgres"),
            redis_ticks: ticks("redis-server"),
            voluntary,
            involuntary,
            queries: self.queries_executed().ok(),
            redis_commands: self.redis_commands().unwrap_or_default(),
            log_bytes: std::fs::metadata(&app.log_path).map_or(0, |m| m.len()),
        }
    }

    /// Statements executed in database blogbench, as pg_stat_statements counts them
    /// (this query excluded).
    fn queries_executed(&mut self) -> Result<i64> {
        let query = sqlx::query_scalar(
            "SELECT coalesce(sum(s.calls), 0)::bigint FROM pg_stat_statements s \
             JOIN pg_database d ON d.oid = s.dbid \
             WHERE d.datname = 'blogbench' AND s.query NOT LIKE '%pg_stat_statements%'",
        );
        Ok(self.runtime.block_on(query.fetch_one(&mut *self.monitor))?)
    }

    fn redis_commands(&mut self) -> Result<BTreeMap<String, u64>> {
        let info: String = redis::cmd("INFO")
            .arg("commandstats")
            .query(&mut *self.redis)?;
        Ok(parse_commandstats(&info))
    }
}

/// `cmdstat_get:calls=12,usec=…` lines → calls by command; `info` (the probe's own) left out.
pub fn parse_commandstats(info: &str) -> BTreeMap<String, u64> {
    info.lines()
        .filter_map(|line| {
            let (name, rest) = line.trim().strip_prefix("cmdstat_")?.split_once(':')?;
            let calls = rest.split(',').find_map(|kv| kv.strip_prefix("calls="))?;
            Some((name.to_owned(), calls.parse().ok()?))
        })
        .filter(|(name, _)| name != "info")
        .collect()
}

fn profile_one(
    target: &Target,
    route: &str,
    options: &Options,
    dir: &Path,
    probes: &mut Probes,
) -> Result<Profile> {
    anyhow::ensure!(
        !routes::writes(route),
        "{route}: profiles are taken on the routes that only read"
    );
    let path = routes::path(route).with_context(|| format!("unknown route {route}"))?;
    let database_url = services::database_url();
    let relay = Relay::start_postgres(services::host_port(&database_url))?;
    let via_relay = services::with_host_port(&database_url, &relay.addr.to_string());
    let workers = options.cpus.app.len().to_string();
    let mut env = vec![
        ("DATABASE_URL", via_relay.as_str()),
        ("WORKERS", workers.as_str()),
    ];
    let jvm = target.app.is_java();
    if target.app.is_go() {
        env.push(("GODEBUG", "gctrace=1"));
    }
    if jvm {
        // Every JVM reads it, whatever the app's command line.
        env.push(("JAVA_TOOL_OPTIONS", "-Xlog:gc:stderr"));
    }
    env.extend(target.env_pairs());
    page_cache::clear()?;
    let running = RunningApp::start_pinned(&target.app, &env, Some(&options.cpus.app))?;
    let url = running.url(path);
    let first = ureq::get(&url).call()?;
    ensure!(
        first.status() == 200,
        "GET {path}: status {}",
        first.status()
    );

    let stem = Profile::file_stem(&target.label, route);
    let raw = |what: &str| dir.join(format!("raw/{stem}-{what}"));
    let load = |duration: Duration, what: &str| {
        Loadgen::Oha.run(
            &url,
            options.connections,
            duration,
            &options.cpus.load,
            &raw(what),
            None,
        )
    };
    // An app whose manifest asks for a longer warm-up (a JIT) gets it here too.
    let warmup = target.app.manifest.settings.warmup()?.unwrap_or_default();
    load(options.warmup.max(warmup), "warmup.json")?;

    let before = probes.snapshot(&running);
    relay.reset_counts();
    let measured = load(options.duration, "load.json")?;
    // The release ping of the last responses may still be on its way.
    std::thread::sleep(Duration::from_millis(200));
    let after = probes.snapshot(&running);
    let postgres = relay.postgres_counts();

    let requests = measured.requests.max(1) as f64;
    let seconds = measured.requests as f64 / measured.requests_per_sec.max(1e-9);
    let micros = |ticks: u64| ticks as f64 / clock_ticks() * 1e6 / requests;
    let mut profile = Profile {
        app: target.label.clone(),
        route: route.to_owned(),
        path: path.to_owned(),
        connections: options.connections,
        duration_secs: options.duration.as_secs_f64(),
        requests: measured.requests,
        not_ok: not_ok(&measured),
        requests_per_sec: measured.requests_per_sec,
        cpu_us_per_request: CpuPerRequest {
            app: micros(after.app_user_ticks - before.app_user_ticks),
            kernel: micros(after.app_system_ticks - before.app_system_ticks),
            postgres: micros(after.postgres_ticks.saturating_sub(before.postgres_ticks)),
            redis: micros(after.redis_ticks.saturating_sub(before.redis_ticks)),
        },
        postgres_per_page: PostgresPerPage {
            round_trips: postgres.round_trips as f64 / requests,
            pings: Some(postgres.pings as f64 / requests),
            statements_sent: postgres.statements as f64 / requests,
            queries_executed: before
                .queries
                .zip(after.queries)
                .map(|(b, a)| (a - b) as f64 / requests),
            connections_opened: postgres.connections,
        },
        redis_commands_per_request: after
            .redis_commands
            .iter()
            .map(|(name, calls)| {
                let delta = calls - before.redis_commands.get(name).copied().unwrap_or(0);
                (name.clone(), delta as f64 / requests)
            })
            .filter(|(_, per_request)| *per_request > 0.0)
            .collect(),
        context_switches_per_request: ContextSwitches {
            voluntary: (after.voluntary - before.voluntary) as f64 / requests,
            involuntary: (after.involuntary - before.involuntary) as f64 / requests,
        },
        ..Profile::default()
    };
    if after.queries.is_none() {
        profile.unavailable.insert(
            "queries per page".to_owned(),
            "pg_stat_statements is not loaded; `scripts/services.sh up` enables it (shared_preload_libraries, then a restart of a cluster it started)".to_owned(),
        );
    }
    if target.app.is_go() || jvm {
        let log = std::fs::read(&running.log_path).unwrap_or_default();
        let window = log
            .get(before.log_bytes as usize..after.log_bytes as usize)
            .unwrap_or_default();
        let window = String::from_utf8_lossy(window);
        match jvm {
            true => profile.jvm_gc = Some(jvm_gc(&window, seconds)),
            false => profile.go_gc = Some(go_gc(&window, seconds)),
        }
    }

    if !options.tool_window.is_zero() {
        match syscalls(
            &running,
            || load(options.tool_window, "strace-load.json"),
            &raw("strace.txt"),
        ) {
            Ok(per_request) => profile.syscalls_per_request = Some(per_request),
            Err(err) => {
                profile
                    .unavailable
                    .insert("syscalls".to_owned(), format!("{err:#}"));
            }
        }
        let svg = format!("{stem}.svg");
        match flamegraph(
            &running,
            || load(options.tool_window, "perf-load.json"),
            &raw("perf.data"),
            &dir.join(&svg),
        ) {
            Ok(()) => profile.flamegraph = Some(svg),
            Err(err) => {
                profile
                    .unavailable
                    .insert("flame graph".to_owned(), format!("{err:#}"));
            }
        }
    }
    running.stop();
    Ok(profile)
}

fn not_ok(load: &LoadRun) -> u64 {
    let codes: u64 = load
        .status_codes
        .iter()
        .filter(|(code, _)| code.as_str() != "200")
        .map(|(_, n)| n)
        .sum();
    codes + load.errors.values().sum::<u64>()
}

/// Runs `tool` (already given its arguments) attached to the app while `load` runs, then
/// stops it with SIGINT, which makes both strace and perf write their results.
fn attached(
    mut tool: Command,
    load: impl FnOnce() -> Result<LoadRun>,
) -> Result<(LoadRun, String)> {
    let program = tool.get_program().to_string_lossy().into_owned();
    let mut child: Child = tool
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| {
            format!(
                "{program} is not installed (Debian package: {})",
                debian_package(&program)
            )
        })?;
    // Attaching to every thread takes a moment.
    std::thread::sleep(Duration::from_millis(500));
    if let Some(status) = child.try_wait()? {
        let stderr = child.wait_with_output()?.stderr;
        bail!(
            "{program} exited at once ({status}): {}",
            String::from_utf8_lossy(&stderr).trim()
        );
    }
    let load = load();
    // SAFETY: kill(2) on our own child's pid has no memory effects.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let output = child.wait_with_output()?;
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    Ok((load?, stderr))
}

fn debian_package(program: &str) -> &str {
    if program == "perf" {
        "linux-perf"
    } else {
        program
    }
}

fn syscalls(
    app: &RunningApp,
    load: impl FnOnce() -> Result<LoadRun>,
    out: &Path,
) -> Result<BTreeMap<String, f64>> {
    let mut strace = Command::new("strace");
    strace
        .args(["-c", "-f", "-q", "-o"])
        .arg(out)
        .args(["-p", &app.pid().to_string()]);
    let (load, stderr) = attached(strace, load)?;
    let table = std::fs::read_to_string(out)
        .with_context(|| format!("strace wrote no summary: {}", stderr.trim()))?;
    let calls = parse_strace_summary(&table);
    ensure!(
        !calls.is_empty(),
        "strace summary had no rows: {}",
        stderr.trim()
    );
    let requests = load.requests.max(1) as f64;
    Ok(calls
        .into_iter()
        .map(|(name, n)| (name, n as f64 / requests))
        .collect())
}

/// `strace -c`'s table → calls by syscall (the `total` row included).
pub fn parse_strace_summary(table: &str) -> BTreeMap<String, u64> {
    table
        .lines()
        .filter_map(|line| {
            let cols: Vec<&str> = line.split_whitespace().collect();
            // % time, seconds, usecs/call, calls, [errors], syscall
            if cols.len() < 5 || cols[0].parse::<f64>().is_err() {
                return None;
            }
            let calls = cols[3].parse().ok()?;
            Some(((*cols.last()?).to_owned(), calls))
        })
        .collect()
}

fn flamegraph(
    app: &RunningApp,
    load: impl FnOnce() -> Result<LoadRun>,
    data: &Path,
    svg: &Path,
) -> Result<()> {
    let mut perf = Command::new("perf");
    // DWARF unwinding: the Rust release builds keep no frame pointers.
    perf.args(["record", "-F", "199", "--call-graph", "dwarf,16384", "-o"])
        .arg(data)
        .args(["-p", &app.pid().to_string()]);
    let (_, stderr) = attached(perf, load)?;
    ensure!(
        data.is_file(),
        "perf record wrote nothing: {}",
        stderr.trim()
    );
    let script = Command::new("perf")
        .args(["script", "--no-inline", "-i"])
        .arg(data)
        .output()
        .context("perf script")?;
    let _ = std::fs::remove_file(data);
    ensure!(
        script.status.success() && !script.stdout.is_empty(),
        "perf script failed: {}",
        String::from_utf8_lossy(&script.stderr).trim()
    );
    let mut folded = Vec::new();
    inferno::collapse::perf::Folder::default()
        .collapse(&script.stdout[..], &mut folded)
        .context("fold perf stacks")?;
    let mut options = inferno::flamegraph::Options::default();
    options.title = format!("{}: CPU under load", app.name);
    let mut out = Vec::new();
    inferno::flamegraph::from_reader(&mut options, &folded[..], &mut out)
        .context("draw the flame graph")?;
    write_atomically(svg, &out)
}

/// `GODEBUG=gctrace=1` lines (`gc 7 @1.2s 3%: 0.02+1.1+0.01 ms clock, …`) → collections per
/// second and the stop-the-world share (the first and third clock phases) of `seconds`.
pub fn go_gc(log: &str, seconds: f64) -> Gc {
    let mut collections = 0u32;
    let mut pause_ms = 0.0;
    for line in log.lines().filter(|l| l.starts_with("gc ")) {
        let Some(clock) = line
            .split_once(": ")
            .and_then(|(_, rest)| rest.split(" ms clock").next())
        else {
            continue;
        };
        let phases: Vec<f64> = clock.split('+').filter_map(|p| p.parse().ok()).collect();
        if phases.len() == 3 {
            collections += 1;
            pause_ms += phases[0] + phases[2];
        }
    }
    gc_share(collections, pause_ms, seconds)
}

/// `-Xlog:gc` lines (`[12.345s][info][gc] GC(7) Pause Young (Allocation Failure)
/// 80M->21M(256M) 1.234ms`) → collections per second and the share of `seconds` the pauses
/// took. The serial collector stops the world for all of each collection.
pub fn jvm_gc(log: &str, seconds: f64) -> Gc {
    let mut collections = 0u32;
    let mut pause_ms = 0.0;
    for line in log
        .lines()
        .filter(|l| l.contains("][gc] GC(") && l.contains(" Pause "))
    {
        let Some(ms) = line
            .rsplit(' ')
            .next()
            .and_then(|last| last.strip_suffix("ms"))
            .and_then(|ms| ms.parse::<f64>().ok())
        else {
            continue;
        };
        collections += 1;
        pause_ms += ms;
    }
    gc_share(collections, pause_ms, seconds)
}

fn gc_share(collections: u32, pause_ms: f64, seconds: f64) -> Gc {
    let seconds = seconds.max(1e-9);
    Gc {
        collections_per_sec: f64::from(collections) / seconds,
        pause_percent: pause_ms / 1000.0 / seconds * 100.0,
    }
}

/// The folder profiles go to by default: `<workspace>/profiles`.
pub fn default_profiles_dir() -> PathBuf {
    apps::workspace_dir().join("profiles")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_redis_commandstats() {
        let info = "# Commandstats\r\ncmdstat_get:calls=120,usec=300,usec_per_call=2.50\r\n\
                    cmdstat_info:calls=4,usec=1\r\ncmdstat_set:calls=1,usec=5\r\n";
        let calls = parse_commandstats(info);
        assert_eq!(calls.get("get"), Some(&120));
        assert_eq!(calls.get("set"), Some(&1));
        assert!(!calls.contains_key("info"));
    }

    #[test]
    fn parses_the_jvm_s_gc_log() {
        let log = "Picked up JAVA_TOOL_OPTIONS: -Xlog:gc:stderr\n\
[0.011s][info][gc] Using Serial\n\
[12.345s][info][gc] GC(7) Pause Young (Allocation Failure) 80M->21M(256M) 1.500ms\n\
a line of the app's own\n\
[13.000s][info][gc] GC(8) Pause Full (System.gc()) 30M->20M(256M) 8.500ms\n";
        let gc = jvm_gc(log, 2.0);
        assert_eq!(gc.collections_per_sec, 1.0);
        assert!(
            (gc.pause_percent - 0.5).abs() < 1e-9,
            "{}",
            gc.pause_percent
        );
    }

    #[test]
    fn parses_strace_summary() {
        let table = "% time     seconds  usecs/call     calls    errors syscall\n\
------ ----------- ----------- --------- --------- ----------------\n\
 41.20    0.004120           2      1520           sendto\n\
 30.00    0.003000           1      1800       312 recvfrom\n\
------ ----------- ----------- --------- --------- ----------------\n\
100.00    0.010000           2      3320       312 total\n";
        let calls = parse_strace_summary(table);
        assert_eq!(calls.get("sendto"), Some(&1520));
        assert_eq!(calls.get("recvfrom"), Some(&1800));
        assert_eq!(calls.get("total"), Some(&3320));
        assert_eq!(calls.len(), 3);
    }

    #[test]
    fn parses_go_gctrace() {
        let log = "listening\n\
gc 1 @0.010s 2%: 0.010+1.0+0.040 ms clock, 0.020+0.5/1.0/0+0.080 ms cpu, 4->4->1 MB, 4 MB goal, 0 MB stacks, 0 MB globals, 2 P\n\
gc 2 @0.510s 2%: 0.050+2.0+0.100 ms clock, 0.1+1/2/0+0.2 ms cpu, 4->5->1 MB, 5 MB goal, 0 MB stacks, 0 MB globals, 2 P\n";
        let gc = go_gc(log, 2.0);
        assert!((gc.collections_per_sec - 1.0).abs() < 1e-9);
        // (0.05 + 0.15) ms of 2 s.
        assert!((gc.pause_percent - 0.01).abs() < 1e-9, "{gc:?}");
    }
}
