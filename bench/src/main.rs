//! `blogbench`: the harness's command line.
//!
//! ```text
//! blogbench apps                       # the app names
//! blogbench run --app axum-sqlx        # one app in the foreground on 127.0.0.1:8080
//! blogbench parity --apps axum-sqlx    # the parity sample (docs/spec.md §4) against Go's
//! blogbench parity --url http://127.0.0.1:8080   # … for any running server
//! blogbench bench --quick              # the fair benchmark, smoke-test size
//! blogbench compare A B                # two batches, app by app and route by route
//! blogbench faults --quick --apps go   # services failing under load, bad input, floods
//! blogbench idioms --quick             # every app's code side by side, its build and run cost
//! ```

use anyhow::{Context, Result, bail};
use bench::cli_values::{parse_bytes, parse_duration, parse_share, parse_slo};
use bench::faults;
use bench::idioms;
use bench::load::loadgen::Loadgen;
use bench::load::{batch, ceilings, open_loop, sweep};
use bench::parity::{self, Fetched};
use bench::probe::{profile, roundtrips};
use bench::stack::apps::{self, App, Target};
use bench::stack::cpus;
use bench::stack::misbehaving;
use bench::stack::page_cache;
use bench::stack::server::RunningApp;
use bench::{report, results, routes};
use clap::{Parser, Subcommand};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

#[derive(Parser)]
#[command(
    name = "blogbench",
    about = "The blogbench harness: run apps, check parity with the Go oracle"
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand, Clone, Copy)]
enum AppsAction {
    /// Run each such app's `[build]` command where its lock file is newer than its last
    /// install (`make build`).
    Build,
    /// Run each such app's `[check] lint` command: its language's formatter and linter.
    Lint,
    /// Run each such app's `[check] test` command: its own tests.
    Test,
}

#[derive(Subcommand)]
enum Cmd {
    /// List the apps by name, with their stacks; or install, lint or test the apps built and
    /// started by their manifests' commands (other languages than Rust and Go).
    Apps {
        #[command(subcommand)]
        action: Option<AppsAction>,
    },
    /// Run one app in the foreground (what `make up` does); Ctrl-C stops it.
    Run {
        /// The app's name (see `blogbench apps`).
        #[arg(long)]
        app: String,
        /// The address to listen on.
        #[arg(long, env = "BIND", default_value = workload::DEFAULT_BIND)]
        bind: String,
    },
    /// Compare the parity sample of pages (docs/spec.md §4) with the Go reference's: status,
    /// Content-Type, Content-Length present, body bytes. Exits 1 and prints a diff on a
    /// mismatch.
    Parity {
        /// Apps to check, comma-separated, or `all`; each is started on a free port and
        /// stopped.
        #[arg(
            long,
            visible_alias = "app",
            value_delimiter = ',',
            required_unless_present = "url"
        )]
        apps: Vec<String>,
        /// Check an already running server at this base URL instead.
        #[arg(long, conflicts_with = "apps")]
        url: Option<String>,
    },
    /// Count SQL statements and PostgreSQL round trips per page, at the protocol level
    /// (a counting relay between the app and Postgres), one request at a time.
    Roundtrips {
        /// Apps to measure, comma-separated, or `all`.
        #[arg(long, visible_alias = "app", value_delimiter = ',', required = true)]
        apps: Vec<String>,
        /// Requests per page after the warm-up.
        #[arg(long, default_value_t = 100)]
        requests: u32,
    },
    /// The fair benchmark (docs/spec.md §5): rounds that each visit every app, each app run
    /// paired with a Go run; pinned, parity-gated, admitted; results in `results/<batch>/`,
    /// then the report. Exits non-zero when an app failed or a run did not count.
    Bench(BenchArgs),
    /// Where each app spends its time under the fair run's load: CPU µs per request (app,
    /// kernel, PostgreSQL, Redis), PostgreSQL round trips and queries per page, Redis
    /// commands, syscalls and context switches per request, Go's GC, a flame graph. Separate
    /// from the fair runs (the probes perturb the app); in `profiles/<id>/`.
    Profile(ProfileArgs),
    /// What each app loses when the real services fail under load (docs/spec.md §7):
    /// PostgreSQL and Redis restarted, PostgreSQL stalled past the pool's acquire timeout,
    /// bad input, idle-connection floods. Stops and starts the local PostgreSQL and Redis
    /// (root). Writes `results/faults-<id>/faults.json` and `reliability.md`; exits
    /// non-zero when an app broke a rule (wrong page, a non-503 database error, a hang, a
    /// 5xx for bad input, a death).
    Faults {
        /// Apps, comma-separated, or `all`; `name+KEY=VALUE` tests the app with that
        /// environment (e.g. `actix-sqlx+PING_ON_ACQUIRE=never`).
        #[arg(
            long,
            visible_alias = "app",
            value_delimiter = ',',
            default_value = "all"
        )]
        apps: Vec<String>,
        /// Concurrent connections of the load during each fault (the fair run's).
        #[arg(long, default_value_t = 50)]
        connections: u32,
        /// Shorter faults and windows, for tests.
        #[arg(long)]
        quick: bool,
        /// Where the `faults-<id>` folder is written.
        #[arg(long)]
        results: Option<PathBuf>,
    },
    /// Latency at a given load (docs/spec.md §8): per app and route, open-loop runs at fixed
    /// rates (common to every app, and the app's own ladder) judged against a latency
    /// objective; a closed-loop connection sweep; an overload and its recovery; with
    /// `--memory-limit`, the connection sweep inside a memory cgroup. Writes
    /// `results/sweep-<id>/sweep.json` and the sweep report; exits non-zero when an app could
    /// not be swept or a run's accounting or answers were wrong.
    Sweep(SweepArgs),
    /// The same concerns in every app, side by side (each app's own source for the detail
    /// page, the pool, the cache, the error mapping, the comment POST), with what each costs:
    /// lines of code, packages pulled in, binary size, incremental rebuild, cold compile (for
    /// an app started by a command: its install, timed, and the folder it fills),
    /// start-up time and idle RSS. Writes `idioms/<id>/idioms.json`, `idioms.md` and
    /// `idioms.html`. Rebuilds the workspace (the timed rebuilds) unless `--quick`.
    Idioms {
        /// Apps, comma-separated, or `all`.
        #[arg(
            long,
            visible_alias = "app",
            value_delimiter = ',',
            default_value = "all"
        )]
        apps: Vec<String>,
        /// Everything but the incremental rebuild, and 3 starts per app instead of 5: for
        /// tests.
        #[arg(long)]
        quick: bool,
        /// Where the `<id>` folder is written (default: `idioms/` in the workspace).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Serve a static page of `--bytes` bytes (the HTTP ceiling's server).
    #[command(hide = true)]
    StaticServer {
        #[arg(long)]
        bind: String,
        #[arg(long)]
        bytes: usize,
        #[arg(long, default_value_t = 1)]
        workers: usize,
    },
    /// Pass every request on to another server and send back its answers, misbehaving under
    /// load (the admission and stale-read tests' app): listens on `BIND`.
    #[command(hide = true)]
    MisbehavingApp {
        #[arg(long, value_enum)]
        mode: misbehaving::Mode,
        /// The server whose answers to send back (a base URL).
        #[arg(long)]
        pages_from: String,
    },
    /// Write `report.md`, `report.html` and the charts (`*.svg`) of a batch from its
    /// `results.json`, or `reliability.md` of a faults run from its `faults.json`.
    Report {
        /// The batch id (`YYYYMMDDhhmmss`) under `--results`, or a path to its folder.
        batch: String,
        /// Where batches live.
        #[arg(long, default_value = "results")]
        results: PathBuf,
        /// Add a "Where the time goes" section from this `blogbench profile` folder.
        #[arg(long)]
        profiles: Option<PathBuf>,
    },
    /// Compare two batches: the change per app and route, flagged outside a band of ±15 %
    /// or the batches' own spread, whichever is larger. Refuses batches measured
    /// differently unless `--force`.
    Compare {
        /// The earlier batch (id under `--results`, or a folder).
        before: String,
        /// The later batch.
        after: String,
        #[arg(long, default_value = "results")]
        results: PathBuf,
        /// Compare even when the batches' settings differ (the differences are printed).
        #[arg(long)]
        force: bool,
    },
}

#[derive(clap::Args)]
struct ProfileArgs {
    /// Apps, comma-separated, or `all`; `name+KEY=VALUE` profiles the app with that
    /// environment (e.g. `actix-sqlx+POOL_MODE=shared`, `axum-sqlx+PING_ON_ACQUIRE=always`).
    #[arg(long, visible_alias = "app", value_delimiter = ',', required = true)]
    apps: Vec<String>,
    /// Routes, comma-separated (see `blogbench bench --help`).
    #[arg(
        long,
        visible_alias = "route",
        value_delimiter = ',',
        default_value = "detail"
    )]
    routes: Vec<String>,
    /// Concurrent connections of the load generator (as in the fair run).
    #[arg(long, default_value_t = 50)]
    connections: u32,
    /// The measured window.
    #[arg(long, default_value = "25s", value_parser = parse_duration)]
    duration: Duration,
    #[arg(long, default_value = "5s", value_parser = parse_duration)]
    warmup: Duration,
    /// The strace window and the perf window, each (`0s` skips both).
    #[arg(long, default_value = "5s", value_parser = parse_duration)]
    tool_window: Duration,
    /// Also time each template engine alone on the same pages (`cargo bench` of
    /// templates/benches/render.rs, `go test -bench Render`).
    #[arg(long)]
    templates: bool,
    /// Where profiles are written.
    #[arg(long)]
    out: Option<PathBuf>,
}

#[derive(clap::Args)]
struct SweepArgs {
    /// Apps, comma-separated, or `all`; `name+KEY=VALUE` sweeps the app with that
    /// environment (e.g. `go+GOMEMLIMIT=384MiB`). Go runs first whatever the order.
    #[arg(
        long,
        visible_alias = "app",
        value_delimiter = ',',
        default_value = "all"
    )]
    apps: Vec<String>,
    /// Routes that read, comma-separated.
    #[arg(
        long,
        visible_alias = "route",
        value_delimiter = ',',
        default_value = "detail,home,cached-detail,compute"
    )]
    routes: Vec<String>,
    /// A route's latency objective (p99), e.g. `detail=50ms`; repeatable. Default 50 ms for
    /// home, detail and tag, 10 ms for the cached pages and compute.
    #[arg(long, value_delimiter = ',', value_parser = parse_slo)]
    slo: Vec<(String, Duration)>,
    /// Each rate's measured run.
    #[arg(long, default_value = "5s", value_parser = parse_duration)]
    run: Duration,
    /// Rounds of the closed-loop maxima and of the rate ladders, the apps visited in a
    /// rotated order each round: a rate is sustained when more than half of the rounds held
    /// it, and the closed-loop max is the rounds' median.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=20))]
    rounds: u32,
    /// The warm-up at each rate before its run (and at each connection level).
    #[arg(long, default_value = "1s", value_parser = parse_duration)]
    warmup: Duration,
    /// The common rates, as fractions of Go's closed-loop max on the route.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "0.1,0.25,0.5,0.75,0.9,1.1"
    )]
    common: Vec<f64>,
    /// Each app's own ladder, as fractions of its closed-loop max.
    #[arg(long, value_delimiter = ',', default_value = "0.5,0.7,0.9,1.0,1.1,1.2")]
    own: Vec<f64>,
    #[arg(long, value_enum, default_value = "constant")]
    arrivals: open_loop::Arrivals,
    /// A request unanswered this long after it fell due is given up, and the run invalid.
    #[arg(long, default_value = "2s", value_parser = parse_duration)]
    latency_limit: Duration,
    /// The most connections the open-loop generator opens.
    #[arg(long, default_value_t = open_loop::DEFAULT_MAX_CONNECTIONS)]
    max_connections: u32,
    /// The closed loop's connections, for each route's max (the fair run's).
    #[arg(long, default_value_t = 50)]
    connections: u32,
    /// The connection sweep's levels (closed loop).
    #[arg(long, value_delimiter = ',', default_value = "16,64,256,1024,4096")]
    connection_levels: Vec<u32>,
    /// The route of the connection sweeps.
    #[arg(long, default_value = "cached-detail")]
    connection_route: String,
    /// The route of the overload (one of `--routes`).
    #[arg(long, default_value = "detail")]
    overload_route: String,
    /// Also run the connection sweep with each app in a memory cgroup of this size (e.g.
    /// `512MiB`).
    #[arg(long, value_parser = parse_bytes)]
    memory_limit: Option<u64>,
    /// Variants swept only under `--memory-limit`, comma-separated (e.g.
    /// `go+GOMEMLIMIT=384MiB`).
    #[arg(long, value_delimiter = ',', requires = "memory_limit")]
    memory_variants: Vec<String>,
    /// Smoke-test size: 2 rounds, 2 s runs after 0.5 s warm-ups, two rates per ladder, 16
    /// and 256 connections, a 2 + 4 + 4 s overload.
    #[arg(long)]
    quick: bool,
    /// Sweep even when taskset cannot pin the services or the harness.
    #[arg(long)]
    allow_unpinned: bool,
    #[command(flatten)]
    cpus: CpuArgs,
    /// Where the `sweep-<id>` folder is written.
    #[arg(long)]
    results: Option<PathBuf>,
}

/// Where the app, the services and the load generator run.
#[derive(clap::Args)]
struct CpuArgs {
    /// CPUs for the app (taskset list, e.g. 0-3); default from the core count.
    #[arg(long)]
    cpus_app: Option<String>,
    /// CPUs for PostgreSQL and Redis.
    #[arg(long)]
    cpus_db: Option<String>,
    /// CPUs for the load generator.
    #[arg(long)]
    cpus_load: Option<String>,
}

impl CpuArgs {
    /// The default split for this machine with the sets given replaced, each checked to exist.
    fn split(&self) -> Result<cpus::CpuSplit> {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let mut split = cpus::default_split(cores);
        for (list, set) in [
            (&self.cpus_app, &mut split.app),
            (&self.cpus_db, &mut split.services),
            (&self.cpus_load, &mut split.load),
        ] {
            if let Some(list) = list {
                *set = cpus::parse_list(list)?;
                split.note = "set on the command line".to_owned();
            }
        }
        for (what, set) in [
            ("app", &split.app),
            ("services", &split.services),
            ("load generator", &split.load),
        ] {
            cpus::check_available(what, set, cores)?;
        }
        Ok(split)
    }
}

#[derive(clap::Args)]
struct BenchArgs {
    /// Apps to benchmark, comma-separated, or `all`; `name+KEY=VALUE` benchmarks the app with
    /// that environment (`go,go+TWIN=1,go+TWIN=2`: Go against its twins, the A/A check).
    #[arg(
        long,
        visible_alias = "app",
        value_delimiter = ',',
        default_value = "all"
    )]
    apps: Vec<String>,
    /// Routes, comma-separated: home, detail, tag, cached-home, cached-detail, compute, write,
    /// mixed.
    #[arg(
        long,
        visible_alias = "route",
        value_delimiter = ',',
        default_value = "home,detail,tag,cached-home,cached-detail,compute,write,mixed"
    )]
    routes: Vec<String>,
    /// Concurrent connections of the load generator (and of the harness's client on the
    /// routes that write).
    #[arg(long, default_value_t = 50)]
    connections: u32,
    /// Length of each measured run (the app's, and the Go pacer's after it).
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    duration: Duration,
    /// Rounds: each visits every app once (in a shuffled order) and runs each route once.
    #[arg(long, visible_alias = "runs", default_value_t = 3)]
    rounds: u32,
    /// After `--rounds`, add rounds for the app/route cells whose ratio to Go is not yet
    /// known to this share (the 95 % interval's half width, e.g. `5%`), up to
    /// `--max-rounds` (docs/spec.md §5.12).
    #[arg(long, value_parser = parse_share)]
    precision: Option<f64>,
    /// The most rounds `--precision` may take.
    #[arg(long, default_value_t = 12, requires = "precision")]
    max_rounds: u32,
    /// The seed of the visiting order (the apps' order in each round, and which side of each
    /// pair runs first); recorded in the results. Default: drawn from the clock.
    #[arg(long)]
    seed: Option<u64>,
    /// The warm-up before each route's run, the app's and the Go pacer's alike.
    #[arg(long, default_value = "5s", value_parser = parse_duration)]
    warmup: Duration,
    /// Smoke-test size: 1 round of 1 s runs after 0.5 s warm-ups.
    #[arg(long)]
    quick: bool,
    /// Benchmark even when taskset cannot pin the services or the harness (the results
    /// and the report say what was not pinned).
    #[arg(long)]
    allow_unpinned: bool,
    #[arg(long, value_enum, default_value = "oha")]
    loadgen: Loadgen,
    #[command(flatten)]
    cpus: CpuArgs,
    /// Where batches are written.
    #[arg(long)]
    results: Option<PathBuf>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Cmd::Apps { action: None } => list_apps().map(|()| true),
        Cmd::Apps {
            action: Some(action),
        } => command_apps(action),
        Cmd::Run { app, bind } => run(&app, &bind).map(|()| true),
        Cmd::Parity { apps, url } => check_parity(&apps, url.as_deref()),
        Cmd::Roundtrips { apps, requests } => count_round_trips(&apps, requests).map(|()| true),
        Cmd::Bench(args) => bench(args),
        Cmd::Profile(args) => run_profile(args).map(|()| true),
        Cmd::Sweep(args) => run_sweep(args),
        Cmd::Faults {
            apps,
            connections,
            quick,
            results,
        } => run_faults(&apps, connections, quick, results),
        Cmd::Idioms { apps, quick, out } => run_idioms(&apps, quick, out),
        Cmd::StaticServer {
            bind,
            bytes,
            workers,
        } => ceilings::serve_static(&bind, bytes, workers).map(|()| true),
        Cmd::Report {
            batch,
            results,
            profiles,
        } => {
            let dir = results::batch_dir(&results, &batch);
            if dir.join("faults.json").is_file() {
                report::write_reliability(&dir).map(|()| true)
            } else if dir.join(results::idioms::FILE).is_file() {
                report::write_idioms(&dir).map(|()| true)
            } else if dir.join("sweep.json").is_file() {
                report::write_sweep(&dir).map(|()| true)
            } else {
                report::write(&dir, profiles.as_deref()).map(|()| true)
            }
        }
        Cmd::Compare {
            before,
            after,
            results,
            force,
        } => report::compare(
            &results::batch_dir(&results, &before),
            &results::batch_dir(&results, &after),
            force,
        ),
        Cmd::MisbehavingApp { mode, pages_from } => {
            misbehaving::serve(mode, &pages_from).map(|()| true)
        }
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(err) => {
            eprintln!("blogbench: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// Installs, lints or tests every app built by its manifest's command, each in turn; true
/// when all passed.
fn command_apps(action: AppsAction) -> Result<bool> {
    let mut failed = Vec::new();
    for app in apps::all()? {
        let Some(check) = &app.manifest.check else {
            continue;
        };
        if let Err(err) = app.ensure_built() {
            eprintln!("blogbench: {err:#}");
            failed.push(app.name.clone());
            continue;
        }
        let line = match action {
            AppsAction::Build => continue,
            AppsAction::Lint => &check.lint,
            AppsAction::Test => &check.test,
        };
        println!("blogbench: {}: {}", app.name, line.join(" "));
        let status = app
            .manifest_command(line)
            .status()
            .with_context(|| format!("{}: run {}", app.name, line.join(" ")))?;
        if !status.success() {
            failed.push(app.name.clone());
        }
    }
    if !failed.is_empty() {
        eprintln!("blogbench: failed: {}", failed.join(", "));
    }
    Ok(failed.is_empty())
}

fn list_apps() -> Result<()> {
    for app in apps::all()? {
        let versions = app.versions()?;
        let versions: Vec<String> = versions
            .iter()
            .map(|(name, v)| format!("{name} {v}"))
            .collect();
        println!(
            "{:<12} {} [{}]",
            app.name,
            app.manifest.stack,
            versions.join(", ")
        );
    }
    Ok(())
}

/// A seed nobody chose: the clock's nanoseconds.
fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos() as u64)
}

fn bench(args: BenchArgs) -> Result<bool> {
    let cpus = args.cpus.split()?;
    let (duration, warmup, rounds) = if args.quick {
        (Duration::from_secs(1), Duration::from_millis(500), 1)
    } else {
        (args.duration, args.warmup, args.rounds)
    };
    check_routes(&args.routes)?;
    args.loadgen.version()?;
    let options = batch::Options {
        apps: targets(&args.apps)?,
        routes: args.routes,
        connections: args.connections,
        duration,
        warmup,
        rounds,
        precision: args.precision,
        max_rounds: args.max_rounds,
        order_seed: args.seed.unwrap_or_else(clock_seed),
        quick: args.quick,
        loadgen: args.loadgen,
        cpus,
        allow_unpinned: args.allow_unpinned,
        results_dir: args.results.unwrap_or_else(batch::default_results_dir),
        command: std::env::args().collect::<Vec<_>>().join(" "),
    };
    let interrupted = interrupt_flag()?;
    let dir = batch::run(&options, &interrupted)?;
    println!(
        "blogbench: results in {}",
        dir.join("results.json").display()
    );
    report::write(&dir, None)?;
    println!("blogbench: report in {}", dir.join("report.md").display());
    let problems = results::Batch::load(&dir.join("results.json"))?.problems();
    print_problems(
        &problems,
        "failed apps, runs that did not count: see the report's failures section",
    );
    Ok(problems.is_empty() && !interrupted.load(Ordering::SeqCst))
}

/// Each problem on its own line, then how many and where to read more.
fn print_problems(problems: &[String], what: &str) {
    for problem in problems {
        eprintln!("blogbench: {problem}");
    }
    if !problems.is_empty() {
        eprintln!("blogbench: {} problems ({what})", problems.len());
    }
}

/// Set by Ctrl-C, SIGTERM or SIGHUP: the long commands finish the step they are in, save,
/// stop what they started, and exit non-zero.
fn interrupt_flag() -> Result<Arc<AtomicBool>> {
    let interrupted = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&interrupted);
    ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst))?;
    Ok(interrupted)
}

fn check_routes(names: &[String]) -> Result<()> {
    for route in names {
        if routes::path(route).is_none() {
            bail!(
                "unknown route {route:?}; valid: {}",
                routes::names().join(", ")
            );
        }
    }
    Ok(())
}

/// `all`, names and `name+KEY=VALUE` variants.
fn targets(specs: &[String]) -> Result<Vec<Target>> {
    let mut targets = Vec::new();
    for spec in specs {
        if spec == "all" {
            for app in apps::all()? {
                targets.push(Target::parse(&app.name)?);
            }
        } else {
            targets.push(Target::parse(spec)?);
        }
    }
    Ok(targets)
}

fn run_faults(
    specs: &[String],
    connections: u32,
    quick: bool,
    results: Option<PathBuf>,
) -> Result<bool> {
    let options = faults::Options {
        targets: targets(specs)?,
        connections,
        quick,
        results_dir: results.unwrap_or_else(batch::default_results_dir),
        command: std::env::args().collect::<Vec<_>>().join(" "),
    };
    let interrupted = interrupt_flag()?;
    let dir = faults::run(&options, &interrupted)?;
    report::write_reliability(&dir)?;
    println!(
        "blogbench: reliability table in {}",
        dir.join("reliability.md").display()
    );
    let problems = results::faults::FaultsRun::load(&dir.join("faults.json"))?.problems();
    print_problems(&problems, "broken rules: see reliability.md");
    Ok(problems.is_empty() && !interrupted.load(Ordering::SeqCst))
}

fn run_sweep(args: SweepArgs) -> Result<bool> {
    check_routes(&args.routes)?;
    for route in args.routes.iter().chain([&args.connection_route]) {
        if routes::writes(route) {
            bail!("sweep: {route} writes; the sweep loads routes that read");
        }
    }
    if !args.routes.contains(&args.overload_route) {
        bail!(
            "sweep: the overload route {} is not among --routes",
            args.overload_route
        );
    }
    let mut slo_ms: std::collections::BTreeMap<String, f64> = args
        .routes
        .iter()
        .map(|r| (r.clone(), sweep::default_slo_ms(r)))
        .collect();
    for (route, slo) in &args.slo {
        check_routes(std::slice::from_ref(route))?;
        slo_ms.insert(route.clone(), slo.as_secs_f64() * 1000.0);
    }
    let mut swept = targets(&args.apps)?;
    swept.retain(|t| t.label != apps::GO);
    swept.insert(0, Target::parse(apps::GO)?);
    let memory_variants = targets(&args.memory_variants)?;
    let secs = Duration::from_secs_f64;
    let (rounds, run, warmup, common, own, connection_levels, overload) = if args.quick {
        (
            2,
            secs(2.0),
            secs(0.5),
            vec![0.25, 0.5],
            vec![0.5, 1.0],
            vec![16, 256],
            (2.0, 4.0, 4.0),
        )
    } else {
        (
            args.rounds,
            args.run,
            args.warmup,
            args.common,
            args.own,
            args.connection_levels,
            (10.0, 30.0, 20.0),
        )
    };
    let options = sweep::Options {
        targets: swept,
        routes: args.routes,
        slo_ms,
        quick: args.quick,
        rounds,
        run,
        warmup,
        common_fractions: common,
        own_fractions: own,
        arrivals: args.arrivals,
        latency_limit: args.latency_limit,
        max_connections: args.max_connections,
        connections: args.connections,
        connection_levels,
        connection_route: args.connection_route,
        overload_route: args.overload_route,
        overload: results::sweep::OverloadPlan {
            base_fraction: 0.5,
            overload_fraction: 1.5,
            before_secs: overload.0,
            overload_secs: overload.1,
            after_secs: overload.2,
            recover_within_secs: 10.0,
        },
        memory_limit_bytes: args.memory_limit,
        memory_variants,
        cpus: args.cpus.split()?,
        allow_unpinned: args.allow_unpinned,
        results_dir: args.results.unwrap_or_else(batch::default_results_dir),
        command: std::env::args().collect::<Vec<_>>().join(" "),
    };
    Loadgen::Oha.version()?;
    let interrupted = interrupt_flag()?;
    let dir = sweep::run(&options, &interrupted)?;
    println!("blogbench: results in {}", dir.join("sweep.json").display());
    report::write_sweep(&dir)?;
    let problems = results::sweep::Sweep::load(&dir.join("sweep.json"))?.problems();
    print_problems(&problems, "see the sweep report's failures section");
    Ok(problems.is_empty() && !interrupted.load(Ordering::SeqCst))
}

fn run_idioms(specs: &[String], quick: bool, out: Option<PathBuf>) -> Result<bool> {
    let options = idioms::Options {
        apps: selected(specs, true)?,
        quick,
        out_dir: out.unwrap_or_else(results::idioms::default_dir),
        command: std::env::args().collect::<Vec<_>>().join(" "),
    };
    // Caught, so a Ctrl-C during a timed rebuild ends only the build, and the Go file it
    // changed is put back before the harness stops.
    let interrupted = interrupt_flag()?;
    let dir = idioms::run(&options, &interrupted)?;
    println!(
        "blogbench: results in {}",
        dir.join(results::idioms::FILE).display()
    );
    report::write_idioms(&dir)?;
    println!("blogbench: page in {}", dir.join("idioms.html").display());
    let failed = results::idioms::Idioms::load(&dir.join(results::idioms::FILE))?.problems();
    print_problems(&failed, "measurements that failed: see the page");
    Ok(failed.is_empty() && !interrupted.load(Ordering::SeqCst))
}

fn run_profile(args: ProfileArgs) -> Result<()> {
    check_routes(&args.routes)?;
    let targets = targets(&args.apps)?;
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let options = profile::Options {
        targets,
        routes: args.routes,
        connections: args.connections,
        duration: args.duration,
        warmup: args.warmup,
        tool_window: args.tool_window,
        cpus: cpus::default_split(cores),
        templates: args.templates,
        out_dir: args.out.unwrap_or_else(profile::default_profiles_dir),
    };
    let dir = profile::run(&options)?;
    println!("blogbench: profiles in {}", dir.display());
    Ok(())
}

/// Replaces this process with the app, so Ctrl-C reaches it directly.
fn run(name: &str, bind: &str) -> Result<()> {
    let app = apps::find(name)?;
    app.ensure_built()?;
    // Every app stores its pages under the same keys (docs/spec.md §3.5), some in a format
    // of their own: the pages another app left would be served as this one's.
    match page_cache::clear() {
        Ok(0) => {}
        Ok(cleared) => {
            println!("blogbench: cleared {cleared} cached pages (page:*) left by an earlier app")
        }
        Err(err) => println!(
            "blogbench: could not clear cached pages ({err:#}); the app will treat Redis as down until it answers"
        ),
    }
    println!(
        "blogbench: starting {name} ({}) on http://{bind}/",
        app.manifest.stack
    );
    println!(
        "blogbench: open http://{bind}/  http://{bind}/posts/<slug>  http://{bind}/tags/rust  http://{bind}/cached/  http://{bind}/compute?n=20000"
    );
    println!("blogbench: Ctrl-C stops it");
    let err = app.command(&[]).env("BIND", bind).exec();
    bail!("cannot run {name}: {err}")
}

/// The named apps; `all` = every app, the reference included when `with_reference`.
fn selected(names: &[String], with_reference: bool) -> Result<Vec<App>> {
    if names.iter().any(|n| n == "all") {
        let all = apps::all()?.into_iter();
        return Ok(all
            .filter(|a| with_reference || !a.is_reference())
            .collect());
    }
    names.iter().map(|n| apps::find(n)).collect()
}

fn count_round_trips(names: &[String], requests: u32) -> Result<()> {
    let apps = selected(names, true)?;
    let width = apps.iter().map(|a| a.name.len()).max().unwrap_or(0).max(3);
    println!(
        "{:<width$} {:<18} {:>10} {:>11} {:>5} {:>16}",
        "app", "page", "statements", "round trips", "pings", "new connections"
    );
    for app in apps {
        for count in roundtrips::measure(&app, &[], requests)? {
            println!(
                "{:<width$} {:<18} {:>10.2} {:>11.2} {:>5.2} {:>16}",
                app.name,
                count.page,
                count.statements,
                count.round_trips,
                count.pings,
                count.connections_opened
            );
        }
    }
    Ok(())
}

fn fetch_from(app: &App, sample: &parity::Sample) -> Result<Vec<Fetched>> {
    let running = RunningApp::start(app, &[])?;
    let fetched = parity::fetch_all(&running.base_url, sample);
    running.stop();
    fetched
}

fn check_parity(names: &[String], url: Option<&str>) -> Result<bool> {
    let targets = selected(names, false)?;
    let sample = parity::parity_sample();
    let reference = fetch_from(&apps::find(apps::GO)?, &sample)?;
    println!("parity: reference go: {} responses", reference.len());
    let mut all_match = true;
    let mut check = |name: &str, fetched: Vec<Fetched>| {
        let mismatches = parity::compare(&reference, &fetched, name);
        match mismatches.first() {
            None => println!(
                "parity: {name}: {}/{} responses identical to go",
                fetched.len(),
                reference.len()
            ),
            Some(first) => {
                all_match = false;
                println!(
                    "parity: {name}: {} of {} responses differ; first: {} ({})",
                    mismatches.len(),
                    reference.len(),
                    first.request,
                    first.what
                );
                const LISTED: usize = 10;
                for other in mismatches.iter().skip(1).take(LISTED) {
                    println!("parity: {name}:   {} ({})", other.request, other.what);
                }
                if mismatches.len() > LISTED + 1 {
                    println!(
                        "parity: {name}:   … and {} more",
                        mismatches.len() - LISTED - 1
                    );
                }
                print!("{}", first.diff);
            }
        }
    };
    match url {
        Some(url) => check(url, parity::fetch_all(url.trim_end_matches('/'), &sample)?),
        None => {
            for app in &targets {
                check(&app.name, fetch_from(app, &sample)?);
            }
        }
    }
    Ok(all_match)
}
