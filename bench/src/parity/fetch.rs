//! Fetching the parity sample from a running app, with the page cache cleared before and
//! after, so the app renders (and stores) its own pages.

use crate::stack::page_cache;
use anyhow::{Context, Result};
use std::time::Duration;

/// One response, as far as parity looks at it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    pub path: String,
    pub status: u16,
    pub content_type: Option<String>,
    pub content_length: Option<String>,
    pub body: Vec<u8>,
}

/// Fetches every path from `base_url`, in order, after clearing the page cache so the app
/// renders (and stores) its own pages.
pub fn fetch_all(base_url: &str, paths: &[String]) -> Result<Vec<Fetched>> {
    page_cache::clear()?;
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into();
    let fetched = paths
        .iter()
        .map(|path| {
            let url = format!("{base_url}{path}");
            let mut response = agent
                .get(&url)
                .call()
                .with_context(|| format!("GET {url}"))?;
            let header = |name: &str| {
                response
                    .headers()
                    .get(name)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned)
            };
            let (content_type, content_length) = (header("content-type"), header("content-length"));
            Ok(Fetched {
                path: path.clone(),
                status: response.status().as_u16(),
                content_type,
                content_length,
                body: response
                    .body_mut()
                    .read_to_vec()
                    .with_context(|| format!("read {url}"))?,
            })
        })
        .collect::<Result<Vec<_>>>();
    page_cache::clear()?;
    fetched
}
