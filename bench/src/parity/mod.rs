//! The parity stage: the sample of paths, fetching it from an app, and comparing the
//! responses with the Go reference's.

pub mod compare;
pub mod fetch;
pub mod sample;

pub use compare::{Mismatch, compare};
pub use fetch::{Fetched, fetch_all};
pub use sample::{not_slugs, parity_paths};
