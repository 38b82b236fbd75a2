//! Fetching the parity sample from a running app: the page cache cleared before and after,
//! so the app renders (and stores) its own pages, and the comments reset before and after
//! the writes, so every app starts them from the seeded data.

use super::sample::{Method, Sample, SampleRequest};
use crate::stack::server::http_agent;
use crate::stack::{page_cache, services};
use anyhow::{Context, Result};
use std::time::Duration;

/// One response, as far as parity looks at it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    /// The request, as [`SampleRequest::label`] shows it.
    pub request: String,
    pub status: u16,
    pub content_type: Option<String>,
    pub content_length: Option<String>,
    pub location: Option<String>,
    pub body: Vec<u8>,
}

/// Sends the sample to `base_url`, in order, one request at a time, redirects not followed.
pub fn fetch_all(base_url: &str, sample: &Sample) -> Result<Vec<Fetched>> {
    let agent = http_agent(Duration::from_secs(30));
    let send_all = |requests: &[SampleRequest]| -> Result<Vec<Fetched>> {
        requests
            .iter()
            .map(|request| send(&agent, base_url, request))
            .collect()
    };
    page_cache::clear()?;
    let mut fetched = send_all(&sample.reads);
    if fetched.is_ok() && !sample.writes.is_empty() {
        let _writing = services::lock_comments()?;
        services::reset_comments()?;
        page_cache::clear()?;
        let writes = send_all(&sample.writes);
        services::reset_comments()?;
        fetched = fetched.and_then(|mut all| {
            all.extend(writes?);
            Ok(all)
        });
    }
    page_cache::clear()?;
    fetched
}

fn send(agent: &ureq::Agent, base_url: &str, request: &SampleRequest) -> Result<Fetched> {
    let url = format!("{base_url}{}", request.path);
    let label = request.label();
    let response = match request.method {
        Method::Get => agent.get(&url).call(),
        Method::Post => {
            let mut post = agent.post(&url);
            if let Some(content_type) = &request.content_type {
                post = post.header("content-type", content_type);
            }
            post.send(request.body.as_slice())
        }
    };
    let mut response = response.with_context(|| label.clone())?;
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let (content_type, content_length, location) = (
        header("content-type"),
        header("content-length"),
        header("location"),
    );
    Ok(Fetched {
        status: response.status().as_u16(),
        content_type,
        content_length,
        location,
        body: response
            .body_mut()
            .read_to_vec()
            .with_context(|| format!("read the answer to {label}"))?,
        request: label,
    })
}
