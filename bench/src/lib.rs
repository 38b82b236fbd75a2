//! The blogbench harness as a library: the app registry, starting and stopping apps, the
//! parity sample and check, the benchmark and its report, and a TCP relay for fault and
//! protocol tests. The `blogbench` binary is its command-line front end.

pub mod apps;
pub mod batch;
pub mod ceilings;
pub mod cpus;
pub mod loadgen;
pub mod manifest;
pub mod page_cache;
pub mod parity;
pub mod profile;
pub mod progress;
pub mod relay;
pub mod report;
pub mod results;
pub mod roundtrips;
pub mod routes;
pub mod sample;
pub mod sampler;
pub mod server;
pub mod services;
