//! The harness's own servers, started by other commands and tests: the HTTP ceiling's static
//! page server and the misbehaving app.

use crate::load::ceilings;
use crate::stack::misbehaving;
use anyhow::Result;

#[derive(clap::Args)]
pub struct StaticServerArgs {
    #[arg(long)]
    bind: String,
    #[arg(long)]
    bytes: usize,
    #[arg(long, default_value_t = 1)]
    workers: usize,
}

#[derive(clap::Args)]
pub struct MisbehavingAppArgs {
    #[arg(long, value_enum)]
    mode: misbehaving::Mode,
    /// The server whose answers to send back (a base URL).
    #[arg(long)]
    pages_from: String,
}

pub fn static_server(args: StaticServerArgs) -> Result<bool> {
    ceilings::serve_static(&args.bind, args.bytes, args.workers).map(|()| true)
}

pub fn misbehaving_app(args: MisbehavingAppArgs) -> Result<bool> {
    misbehaving::serve(args.mode, &args.pages_from).map(|()| true)
}
