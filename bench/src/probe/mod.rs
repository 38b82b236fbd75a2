//! Probes, apart from the fair runs because they perturb the app: `blogbench profile`, the
//! template engines alone, PostgreSQL round trips per page, and the counting relay.

pub mod profile;
pub mod relay;
pub mod render_times;
pub mod roundtrips;
