//! `axum-sqlx-sysalloc`: axum-sqlx (its library, `apps/axum-sqlx`) with the system allocator.

use std::process::ExitCode;

// No `#[global_allocator]`: a Rust binary that declares none allocates with
// `std::alloc::System`, glibc's malloc here, which is what this variant measures.
fn main() -> ExitCode {
    axum_sqlx::main(env!("CARGO_BIN_NAME"))
}
