//! `blogbench`: the harness's command line; each command lives in `bench::commands`.
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

use bench::commands::{self, Cli};
use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    match commands::run(Cli::parse().command) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(err) => {
            eprintln!("blogbench: {err:#}");
            ExitCode::FAILURE
        }
    }
}
