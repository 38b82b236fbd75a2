//! The stack under test: the apps and their manifests, starting and stopping them, CPUs,
//! processes, and the services (PostgreSQL, Redis, the page cache) they share.

pub mod apps;
pub mod cgroup;
pub mod cpus;
pub mod manifest;
pub mod misbehaving;
pub mod page_cache;
pub mod processes;
pub mod server;
pub mod services;
