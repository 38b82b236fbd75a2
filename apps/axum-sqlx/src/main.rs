//! The `axum-sqlx` binary: the app (`lib.rs`) with mimalloc as its global allocator, the
//! allocator every Rust app of the benchmark uses.

use mimalloc::MiMalloc;
use std::process::ExitCode;

#[global_allocator]
static GLOBAL: MiMalloc = MiMalloc;

fn main() -> ExitCode {
    axum_sqlx::main(env!("CARGO_BIN_NAME"))
}
