//! The load stage: the load generators, what is sampled during a run, which runs count, the
//! ceilings, and the batch that puts them together.

pub mod admission;
pub mod batch;
pub mod ceilings;
pub mod client;
pub mod loadgen;
pub mod open_loop;
pub mod sampler;
pub mod setup;
pub mod sweep;
