//! An app made to misbehave, for the admission tests (`blogbench misbehaving-app`): it
//! serves another server's parity pages byte for byte, so it passes the parity gate, and
//! misbehaves only under load, i.e. while more than one connection is open (the parity
//! gate uses one).

use crate::parity;
use anyhow::{Context, Result};
use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::CONTENT_TYPE;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use tokio::sync::Semaphore;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    /// Every tenth response under load is a 500.
    #[value(name = "status-500")]
    Status500,
    /// Every tenth response under load is one byte short (with a matching Content-Length).
    ShortBody,
    /// Accepts at most ten connections at a time; the others wait in the listen backlog.
    FewConnections,
}

const EVERY: u64 = 10;
const ACCEPTED_AT_ONCE: usize = 10;

struct Page {
    status: StatusCode,
    content_type: Option<String>,
    body: Bytes,
}

struct State {
    mode: Mode,
    pages: HashMap<String, Page>,
    open_connections: AtomicUsize,
    requests: AtomicU64,
}

/// Fetches the parity pages from `pages_from`, then serves them on `BIND` until killed.
pub fn serve(mode: Mode, pages_from: &str) -> Result<()> {
    let bind = std::env::var("BIND").unwrap_or_else(|_| workload::DEFAULT_BIND.to_owned());
    let pages = parity::fetch_all(pages_from.trim_end_matches('/'), &parity::parity_paths())?
        .into_iter()
        .map(|page| {
            let served = Page {
                status: StatusCode::from_u16(page.status)?,
                content_type: page.content_type,
                body: Bytes::from(page.body),
            };
            Ok((page.path, served))
        })
        .collect::<Result<_>>()?;
    let state = Arc::new(State {
        mode,
        pages,
        open_connections: AtomicUsize::new(0),
        requests: AtomicU64::new(0),
    });
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(accept(state, &bind))
}

async fn accept(state: Arc<State>, bind: &str) -> Result<()> {
    let listener = tokio::net::TcpListener::bind(bind)
        .await
        .with_context(|| format!("listen on {bind}"))?;
    let slots = Arc::new(Semaphore::new(match state.mode {
        Mode::FewConnections => ACCEPTED_AT_ONCE,
        _ => Semaphore::MAX_PERMITS,
    }));
    loop {
        let slot = Arc::clone(&slots).acquire_owned().await?;
        let (stream, _) = listener.accept().await?;
        let state = Arc::clone(&state);
        tokio::spawn(async move {
            state.open_connections.fetch_add(1, Ordering::SeqCst);
            let service = service_fn(|request| {
                let state = Arc::clone(&state);
                async move { Ok::<_, hyper::Error>(respond(&state, &request)) }
            });
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
            state.open_connections.fetch_sub(1, Ordering::SeqCst);
            drop(slot);
        });
    }
}

fn respond(state: &State, request: &Request<Incoming>) -> Response<Full<Bytes>> {
    let path = request.uri().path_and_query().map_or("/", |p| p.as_str());
    let Some(page) = state.pages.get(path) else {
        return reply(StatusCode::NOT_FOUND, None, Bytes::new());
    };
    let under_load = state.open_connections.load(Ordering::SeqCst) > 1;
    let nth = state.requests.fetch_add(1, Ordering::SeqCst) + 1;
    let misbehave = under_load && nth.is_multiple_of(EVERY);
    let content_type = page.content_type.as_deref();
    match state.mode {
        Mode::Status500 if misbehave => reply(
            StatusCode::INTERNAL_SERVER_ERROR,
            Some("text/plain; charset=utf-8"),
            Bytes::from_static(b"internal server error\n"),
        ),
        Mode::ShortBody if misbehave => reply(
            page.status,
            content_type,
            page.body.slice(..page.body.len().saturating_sub(1)),
        ),
        _ => reply(page.status, content_type, page.body.clone()),
    }
}

fn reply(status: StatusCode, content_type: Option<&str>, body: Bytes) -> Response<Full<Bytes>> {
    let mut response = Response::builder().status(status);
    if let Some(content_type) = content_type {
        response = response.header(CONTENT_TYPE, content_type);
    }
    response
        .body(Full::new(body))
        .expect("a status and a valid header")
}
