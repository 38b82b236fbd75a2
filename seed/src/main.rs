//! `seed`: the data of docs/spec.md §2 in database `blogbench`.
//!
//! ```text
//! seed            # load the data unless the database already holds exactly it (default)
//! seed reset      # delete the comments added since the load, then check
//! seed load       # drop and reload the five tables
//! seed check      # exit 1 unless the database's content checksum is the expected one
//! seed checksum   # print the expected checksum (no database needed)
//! ```

use anyhow::Result;
use clap::{Parser, Subcommand};
use seed::data::Dataset;
use seed::db;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser)]
#[command(about = "Generates, loads and checks the blogbench data set")]
struct Cli {
    /// PostgreSQL URL; the database must be `blogbench`.
    #[arg(
        long,
        env = "DATABASE_URL",
        default_value = workload::DEFAULT_DATABASE_URL
    )]
    database_url: String,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Load the data unless the database already holds exactly it (after a reset).
    Ensure,
    /// Delete the comments added since the load and restart their ids; exit 1 unless the
    /// checksum is then the expected one.
    Reset,
    /// Drop and reload the five tables.
    Load,
    /// Exit 1 unless the database's content checksum is the expected one.
    Check,
    /// Print the expected content checksum.
    Checksum,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    match run(Cli::parse()).await {
        Ok(code) => code,
        Err(err) => {
            eprintln!("seed: {err:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> Result<ExitCode> {
    let data = Dataset::generate();
    let expected = data.checksum();
    let command = cli.command.unwrap_or(Command::Ensure);
    if let Command::Checksum = command {
        println!("{expected}");
        return Ok(ExitCode::SUCCESS);
    }
    let mut conn = db::connect(&cli.database_url).await?;
    // Comments posted since the load are the only change the apps make; removing them is
    // a few milliseconds, a reload a few seconds.
    let reset = match command {
        Command::Ensure | Command::Reset => db::reset(&mut conn).await?,
        _ => false,
    };
    let found = db::checksum(&mut conn, &data).await?;
    match command {
        Command::Check if found.as_deref() == Some(expected.as_str()) => {
            println!("seed: database holds the expected data (checksum {expected})");
        }
        Command::Reset if reset && found.as_deref() == Some(expected.as_str()) => {
            println!("seed: comments reset (checksum {expected})");
        }
        Command::Check | Command::Reset => {
            println!(
                "seed: database checksum is {}, expected {expected}; run `make services` to reload",
                found.as_deref().unwrap_or("(no tables)")
            );
            return Ok(ExitCode::FAILURE);
        }
        Command::Ensure if reset && found.as_deref() == Some(expected.as_str()) => {
            println!("seed: data already loaded (checksum {expected})");
        }
        Command::Ensure | Command::Load => {
            let started = Instant::now();
            println!("seed: loading {}", summary(&data));
            db::load(&mut conn, &data).await?;
            let loaded = db::checksum(&mut conn, &data).await?;
            anyhow::ensure!(
                loaded.as_deref() == Some(expected.as_str()),
                "loaded data has checksum {loaded:?}, expected {expected}"
            );
            println!(
                "seed: loaded in {:.1} s, checksum {expected}",
                started.elapsed().as_secs_f64()
            );
        }
        Command::Checksum => unreachable!("handled above"),
    }
    Ok(ExitCode::SUCCESS)
}

fn summary(data: &Dataset) -> String {
    data.tables
        .iter()
        .map(|t| format!("{} {}", t.rows, t.name))
        .collect::<Vec<_>>()
        .join(", ")
}
