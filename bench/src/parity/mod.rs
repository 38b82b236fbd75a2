//! The parity stage: the sample of paths, fetching it from an app, and comparing the
//! responses with the Go reference's.

pub mod compare;
pub mod fetch;
pub mod sample;

pub use compare::{Mismatch, compare};
pub use fetch::{Fetched, fetch_all};
pub use sample::{Method, Sample, SampleRequest, not_slugs, parity_paths, parity_sample};

/// Go's answers to the sample, fetched once; every app's are compared with them. The one
/// parity gate of every command.
#[derive(Default)]
pub struct Reference {
    pub sample: Sample,
    pub answers: Vec<Fetched>,
}

impl Reference {
    pub fn fetch(go_base_url: &str) -> anyhow::Result<Reference> {
        let sample = parity_sample();
        let answers = fetch_all(go_base_url, &sample)?;
        Ok(Reference { sample, answers })
    }

    /// How the app at `base_url` answers differently from Go.
    pub fn check(&self, base_url: &str, app_name: &str) -> anyhow::Result<Vec<Mismatch>> {
        let fetched = fetch_all(base_url, &self.sample)?;
        Ok(compare(&self.answers, &fetched, app_name))
    }

    /// Go's answer to `GET path` on the seeded data.
    pub fn page(&self, path: &str) -> Option<&Fetched> {
        read_page(&self.answers, path)
    }
}

/// The answer to `GET path` among the reads of a fetched sample (the seeded data's page).
pub fn read_page<'a>(fetched: &'a [Fetched], path: &str) -> Option<&'a Fetched> {
    let request = SampleRequest::get(path).label();
    fetched.iter().find(|f| f.request == request)
}
