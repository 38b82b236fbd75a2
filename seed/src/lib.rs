//! The data set of docs/spec.md §2: generated deterministically ([`data`]), loaded and checked in
//! database `blogbench` ([`db`]). The `seed` binary is the command-line front end; the
//! harness uses the library for the parity sample and the checksum gate.

pub mod data;
pub mod db;
