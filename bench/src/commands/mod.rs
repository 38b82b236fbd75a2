//! The command line, one module per command: each holds its flags, its `--quick` preset and
//! what it prints, on top of the stage library (`stack`, `parity`, `load`, `probe`, `faults`,
//! `idioms`, `report`) that does the work. Flags every command shares are in [`shared`].

pub mod apps;
pub mod bench;
pub mod faults;
pub mod hidden;
pub mod idioms;
pub mod parity;
pub mod profile;
pub mod report;
pub mod roundtrips;
pub mod scoreboard;
pub mod shared;
pub mod sweep;
pub mod values;

use anyhow::Result;
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "blogbench",
    about = "The blogbench harness: run apps, check parity with the Go oracle, benchmark them"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// List the apps by name, with their stacks; or install, lint or test the apps built and
    /// started by their manifests' commands (other languages than Rust and Go).
    Apps(apps::AppsArgs),
    /// Run one app in the foreground (what `make up` does); Ctrl-C stops it.
    Run(apps::RunArgs),
    /// Compare the parity sample of pages (docs/spec.md §4) with the Go reference's: status,
    /// Content-Type, Content-Length present, body bytes. Exits 1 and prints a diff on a
    /// mismatch.
    Parity(parity::ParityArgs),
    /// Count SQL statements and PostgreSQL round trips per page, at the protocol level
    /// (a counting relay between the app and Postgres), one request at a time.
    Roundtrips(roundtrips::RoundtripsArgs),
    /// The fair benchmark (docs/spec.md §5): rounds that each visit every app, each app run
    /// paired with a Go run; pinned, parity-gated, admitted; results in `results/<batch>/`,
    /// then the report. Exits non-zero when an app failed or a run did not count.
    Bench(bench::BenchArgs),
    /// Where each app spends its time under the fair run's load: CPU µs per request (app,
    /// kernel, PostgreSQL, Redis), PostgreSQL round trips and queries per page, Redis
    /// commands, syscalls and context switches per request, Go's GC, a flame graph. Separate
    /// from the fair runs (the probes perturb the app); in `profiles/<id>/`.
    Profile(profile::ProfileArgs),
    /// What each app loses when the real services fail under load (docs/spec.md §7):
    /// PostgreSQL and Redis restarted, PostgreSQL stalled past the pool's acquire timeout,
    /// bad input, idle-connection floods. Stops and starts the local PostgreSQL and Redis
    /// (root). Writes `results/faults-<id>/faults.json` and `reliability.md`; exits
    /// non-zero when an app broke a rule (wrong page, a non-503 database error, a hang, a
    /// 5xx for bad input, a death).
    Faults(faults::FaultsArgs),
    /// Latency at a given load (docs/spec.md §8): per app and route, open-loop runs at fixed
    /// rates (common to every app, and the app's own ladder) judged against a latency
    /// objective; a closed-loop connection sweep; an overload and its recovery; with
    /// `--memory-limit`, the connection sweep inside a memory cgroup. Writes
    /// `results/sweep-<id>/sweep.json` and the sweep report; exits non-zero when an app could
    /// not be swept or a run's accounting or answers were wrong.
    Sweep(sweep::SweepArgs),
    /// The same concerns in every app, side by side (each app's own source for the detail
    /// page, the pool, the cache, the error mapping, the comment POST), with what each costs:
    /// lines of code, packages pulled in, binary size, incremental rebuild, cold compile (for
    /// an app started by a command: its install, timed, and the folder it fills),
    /// start-up time and idle RSS. Writes `idioms/<id>/idioms.json`, `idioms.md` and
    /// `idioms.html`. Rebuilds the workspace (the timed rebuilds) unless `--quick`.
    Idioms(idioms::IdiomsArgs),
    /// Every app on every question from one commit on one machine (docs/spec.md §9): the
    /// round trips, the idioms page, fair batches, sweeps and faults runs over groups of
    /// apps, planned to fit `--budget` and printed before anything runs, resumable with
    /// `--resume <id>`; the page in `scoreboard/<id>/index.html`. Exits non-zero while a
    /// part is not measured or found failures.
    Scoreboard(scoreboard::ScoreboardArgs),
    /// Write the report of a results folder again from its results file: a batch's
    /// `report.md`, `report.html` and charts, a sweep's report, a faults run's
    /// `reliability.md`, an idioms page.
    Report(report::ReportArgs),
    /// Compare two batches: the change per app and route, flagged outside a band of ±15 %
    /// or the batches' own spread, whichever is larger. Refuses batches measured
    /// differently unless `--force`.
    Compare(report::CompareArgs),
    /// Serve a static page of `--bytes` bytes (the HTTP ceiling's server).
    #[command(hide = true)]
    StaticServer(hidden::StaticServerArgs),
    /// Pass every request on to another server and send back its answers, misbehaving under
    /// load (the admission and stale-read tests' app): listens on `BIND`.
    #[command(hide = true)]
    MisbehavingApp(hidden::MisbehavingAppArgs),
}

/// Runs the command; `Ok(false)` when it found failures (the exit status is then non-zero).
pub fn run(command: Command) -> Result<bool> {
    match command {
        Command::Apps(args) => apps::apps(args),
        Command::Run(args) => apps::run(args),
        Command::Parity(args) => parity::run(args),
        Command::Roundtrips(args) => roundtrips::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Profile(args) => profile::run(args),
        Command::Faults(args) => faults::run(args),
        Command::Sweep(args) => sweep::run(args),
        Command::Idioms(args) => idioms::run(args),
        Command::Scoreboard(args) => scoreboard::run(args),
        Command::Report(args) => report::report(args),
        Command::Compare(args) => report::compare(args),
        Command::StaticServer(args) => hidden::static_server(args),
        Command::MisbehavingApp(args) => hidden::misbehaving_app(args),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// clap's own consistency checks (unique names and aliases, defaults that parse, …),
    /// which a release build skips at run time.
    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    /// One `--routes` flag, each command with its own default.
    #[test]
    fn each_command_has_its_own_default_routes() {
        let routes = |args: &[&str]| match Cli::try_parse_from(args).unwrap().command {
            Command::Bench(args) => args.routes.routes,
            Command::Sweep(args) => args.routes.routes,
            Command::Profile(args) => args.routes.routes,
            _ => unreachable!(),
        };
        assert_eq!(routes(&["blogbench", "bench"]).len(), 8);
        assert_eq!(
            routes(&["blogbench", "sweep"]),
            ["detail", "home", "cached-detail", "compute"]
        );
        assert_eq!(routes(&["blogbench", "profile"]), ["detail"]);
        assert_eq!(
            routes(&["blogbench", "profile", "--route", "home"]),
            ["home"]
        );
    }
}
