//! An app made to misbehave, for the admission tests (`blogbench misbehaving-app`): it passes
//! every request on to a real app (the Go reference) and sends back its answer byte for byte,
//! so it passes the parity gate, and misbehaves only under load, i.e. while more than one
//! connection is open (the parity gate uses one).

use anyhow::{Context, Result};
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{CONTENT_TYPE, LOCATION};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioIo};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
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
    /// Under load, keeps the first answer to each `GET /cached/posts/…` and serves it again,
    /// whatever was posted since: a page cache that is never invalidated.
    StaleCache,
}

const EVERY: u64 = 10;
const ACCEPTED_AT_ONCE: usize = 10;

/// An answer as the upstream app gave it.
#[derive(Clone)]
struct Answer {
    status: StatusCode,
    content_type: Option<hyper::header::HeaderValue>,
    location: Option<hyper::header::HeaderValue>,
    body: Bytes,
}

struct State {
    mode: Mode,
    upstream: String,
    client: Client<HttpConnector, Full<Bytes>>,
    open_connections: AtomicUsize,
    requests: AtomicU64,
    /// [`Mode::StaleCache`]'s pages, by path.
    kept: Mutex<HashMap<String, Answer>>,
}

/// Serves on `BIND`, passing requests on to `upstream` (a base URL), until killed.
pub fn serve(mode: Mode, upstream: &str) -> Result<()> {
    let bind = std::env::var("BIND").unwrap_or_else(|_| workload::DEFAULT_BIND.to_owned());
    let state = Arc::new(State {
        mode,
        upstream: upstream.trim_end_matches('/').to_owned(),
        client: Client::builder(TokioExecutor::new()).build_http(),
        open_connections: AtomicUsize::new(0),
        requests: AtomicU64::new(0),
        kept: Mutex::new(HashMap::new()),
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
                async move { Ok::<_, hyper::Error>(respond(&state, request).await) }
            });
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
            state.open_connections.fetch_sub(1, Ordering::SeqCst);
            drop(slot);
        });
    }
}

async fn respond(state: &State, request: Request<Incoming>) -> Response<Full<Bytes>> {
    let under_load = state.open_connections.load(Ordering::SeqCst) > 1;
    let nth = state.requests.fetch_add(1, Ordering::SeqCst) + 1;
    let misbehave = under_load && nth.is_multiple_of(EVERY);
    let path = request.uri().path().to_owned();
    let keep = state.mode == Mode::StaleCache
        && under_load
        && request.method() == Method::GET
        && path.starts_with("/cached/posts/");
    if keep && let Some(kept) = state.kept.lock().expect("not poisoned").get(&path) {
        return reply(kept.clone());
    }
    let answer = match pass_on(state, request).await {
        Ok(answer) => answer,
        Err(err) => {
            return reply(Answer {
                status: StatusCode::BAD_GATEWAY,
                content_type: None,
                location: None,
                body: Bytes::from(format!("misbehaving-app: {err:#}\n")),
            });
        }
    };
    if keep {
        state
            .kept
            .lock()
            .expect("not poisoned")
            .insert(path, answer.clone());
    }
    match state.mode {
        Mode::Status500 if misbehave => reply(Answer {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            content_type: Some(hyper::header::HeaderValue::from_static(
                "text/plain; charset=utf-8",
            )),
            location: None,
            body: Bytes::from_static(b"internal server error\n"),
        }),
        Mode::ShortBody if misbehave => {
            let short = answer.body.slice(..answer.body.len().saturating_sub(1));
            reply(Answer {
                body: short,
                ..answer
            })
        }
        _ => reply(answer),
    }
}

/// The upstream's answer to the same method, path, content type and body.
async fn pass_on(state: &State, request: Request<Incoming>) -> Result<Answer> {
    let (parts, body) = request.into_parts();
    let body = body.collect().await?.to_bytes();
    let target = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let mut upstream = Request::builder()
        .method(parts.method)
        .uri(format!("{}{target}", state.upstream));
    if let Some(content_type) = parts.headers.get(CONTENT_TYPE) {
        upstream = upstream.header(CONTENT_TYPE, content_type);
    }
    let response = state
        .client
        .request(upstream.body(Full::new(body))?)
        .await
        .context("the upstream app")?;
    let headers = response.headers();
    Ok(Answer {
        status: response.status(),
        content_type: headers.get(CONTENT_TYPE).cloned(),
        location: headers.get(LOCATION).cloned(),
        body: response.into_body().collect().await?.to_bytes(),
    })
}

fn reply(answer: Answer) -> Response<Full<Bytes>> {
    let mut response = Response::builder().status(answer.status);
    if let Some(content_type) = answer.content_type {
        response = response.header(CONTENT_TYPE, content_type);
    }
    if let Some(location) = answer.location {
        response = response.header(LOCATION, location);
    }
    response
        .body(Full::new(answer.body))
        .expect("a status and valid headers")
}
