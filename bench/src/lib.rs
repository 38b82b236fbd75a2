//! The blogbench harness as a library, in pipeline order: the stack (apps, manifests,
//! running apps, CPUs, services, memory cgroups), parity against the Go reference, load
//! (generators, the open-loop generator, sampling, admission, ceilings, the batch, the
//! sweep), faults (services failing under load, bad input, floods), probes (profiles, round
//! trips, the relay), idioms (each app's code for the same concerns, its size, packages, build
//! and run cost), the results models, the reports read from them, and the scoreboard that runs the
//! measuring commands over every app and puts their results on one page. `commands` is the
//! command line, one module per command, and `session` what every measuring command does
//! alike; the `blogbench` binary only dispatches to them.

pub mod commands;
pub mod faults;
pub mod idioms;
pub mod load;
pub mod parity;
pub mod probe;
pub mod progress;
pub mod report;
pub mod results;
pub mod routes;
pub mod scoreboard;
pub mod session;
pub mod stack;
pub mod statistics;
