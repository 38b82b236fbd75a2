//! The harness's integration tests: the real `blogbench` binary, the real apps and services.
//! One test binary rather than one per file, because every test binary links the harness
//! and its dependencies again (with the workspace's thin LTO, half a minute each on two
//! cores). Each test holds [`common::serial`] throughout, so they run one at a time.

mod common;
mod screenshot;

mod actix_pool_modes;
mod admission;
mod bench_quick;
mod cache_ownership;
mod faults;
mod faults_under_load;
mod idioms;
mod open_loop;
mod parity;
mod profile;
mod report;
mod roundtrips;
mod scoreboard;
mod scoreboard_page;
mod services;
mod sweep_quick;
mod sweep_report;
mod terminate;
