//! `axum-sqlx-jemalloc`: axum-sqlx (its library, `apps/axum-sqlx`) with jemalloc as its global
//! allocator.

use std::process::ExitCode;
use tikv_jemallocator::Jemalloc;

#[global_allocator]
static GLOBAL: Jemalloc = Jemalloc;

fn main() -> ExitCode {
    axum_sqlx::main(env!("CARGO_BIN_NAME"))
}
