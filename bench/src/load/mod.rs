//! The load stage: the load generators (and the harness's own closed- and open-loop clients),
//! what is sampled during a run, which runs count, two apps loaded in turn in slices, the
//! ceilings, the batch that puts them together, and the sweep of fixed rates.

pub mod admission;
pub mod arrival;
pub mod batch;
pub mod ceilings;
pub mod client;
pub mod loadgen;
pub mod open_loop;
pub mod sampler;
pub mod slices;
pub mod sweep;
pub mod warmup;
