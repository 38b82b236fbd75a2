//! Requests a load generator never sends, over raw TCP: segments that are not slugs, paths,
//! queries and headers far past any page's, and connections that send nothing or a byte a
//! second while another client asks for pages (docs/spec.md §7).

use crate::results::faults::{BadInputAnswer, FloodOutcome};
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

const ANSWER_TIMEOUT: Duration = Duration::from_secs(5);

/// One bad request: the request line's path, extra header lines, and the status the contract
/// requires (`None`: any answer below 500, or none at all).
struct BadRequest {
    what: String,
    path: String,
    headers: String,
    must_be: Option<u16>,
}

fn bad_requests() -> Vec<BadRequest> {
    let mut requests = Vec::new();
    let long = "a".repeat(workload::SLUG_MAX_LEN + 1);
    for segment in [
        "%00",
        "rust%00",
        "%ff%fe",
        long.as_str(),
        "Rust",
        "rust%27%3B--",
    ] {
        for prefix in ["/posts/", "/tags/", "/cached/posts/"] {
            let path = format!("{prefix}{segment}");
            requests.push(BadRequest {
                what: format!("GET {}", shorten(&path)),
                path,
                headers: String::new(),
                must_be: Some(404),
            });
        }
    }
    let mut add = |what: &str, path: String, headers: String| {
        requests.push(BadRequest {
            what: what.to_owned(),
            path,
            headers,
            must_be: None,
        })
    };
    add(
        "GET /posts/ and a 10 KiB segment",
        format!("/posts/{}", "a".repeat(10 * 1024)),
        String::new(),
    );
    add(
        "GET /compute with an 8 KiB query",
        format!("/compute?x={}&n=10", "a".repeat(8 * 1024)),
        String::new(),
    );
    add(
        "GET /compute with a 1 MiB query",
        format!("/compute?x={}&n=10", "a".repeat(1024 * 1024)),
        String::new(),
    );
    add(
        "GET / with 500 headers",
        "/".to_owned(),
        (0..500).map(|i| format!("X-Flood-{i}: {i}\r\n")).collect(),
    );
    add(
        "GET / with a 64 KiB header",
        "/".to_owned(),
        format!("X-Big: {}\r\n", "b".repeat(64 * 1024)),
    );
    add(
        "GET / with 1 MiB of headers",
        "/".to_owned(),
        (0..1024)
            .map(|i| format!("X-Mib-{i}: {}\r\n", "c".repeat(1000)))
            .collect(),
    );
    requests
}

fn shorten(path: &str) -> String {
    if path.len() <= 40 {
        path.to_owned()
    } else {
        format!("{}… ({} bytes)", &path[..30], path.len())
    }
}

/// Sends every bad request, then checks the app still serves `/`.
pub fn bad_input(addr: &str) -> Vec<BadInputAnswer> {
    let mut answers: Vec<BadInputAnswer> = bad_requests()
        .into_iter()
        .map(|request| {
            let status = status_of(addr, &request.path, &request.headers);
            let problem = match (request.must_be, status) {
                (_, Some(code)) if code >= 500 => Some(format!("answered {code}")),
                (Some(want), Some(code)) if code != want => {
                    Some(format!("answered {code}, not {want}"))
                }
                (Some(want), None) => Some(format!("no answer, not {want}")),
                _ => None,
            };
            BadInputAnswer {
                request: request.what,
                status,
                problem,
            }
        })
        .collect();
    let status = status_of(addr, "/", "");
    answers.push(BadInputAnswer {
        request: "GET / afterwards".to_owned(),
        status,
        problem: (status != Some(200)).then(|| "the app no longer serves /".to_owned()),
    });
    answers
}

/// The status of one request on a new connection; `None` when the app closed it or sent
/// nothing in time.
fn status_of(addr: &str, path: &str, headers: &str) -> Option<u16> {
    let mut stream = TcpStream::connect(addr).ok()?;
    stream.set_read_timeout(Some(ANSWER_TIMEOUT)).ok()?;
    stream.set_write_timeout(Some(ANSWER_TIMEOUT)).ok()?;
    let request =
        format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n{headers}Connection: close\r\n\r\n");
    // A server may answer and close before the whole request is sent: read regardless.
    let _ = stream.write_all(request.as_bytes());
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(2).any(|w| w == b"\r\n") {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let line = String::from_utf8_lossy(&head);
    line.strip_prefix("HTTP/1.")?.get(2..5)?.parse().ok()
}

/// Opens `idle` connections that send nothing and `slow` ones that send a request header a
/// byte a second, then asks for `/compute?n=2` on new connections for `held`.
pub fn flood(addr: &str, idle: u32, slow: u32, held: Duration) -> FloodOutcome {
    let mut idlers: Vec<TcpStream> = (0..idle)
        .filter_map(|_| TcpStream::connect(addr).ok())
        .collect();
    let mut crawlers: Vec<TcpStream> = (0..slow)
        .filter_map(|_| TcpStream::connect(addr).ok())
        .collect();
    for stream in &mut crawlers {
        let _ = stream.write_all(b"GET / HTTP/1.1\r\nX-Slow: ");
    }
    let opened = (idlers.len() + crawlers.len()) as u32;
    let started = Instant::now();
    let (mut requests, mut answered, mut max_latency) = (0, 0, None::<f64>);
    let mut crawler_open = vec![true; crawlers.len()];
    let mut next_byte = Instant::now();
    while started.elapsed() < held {
        if Instant::now() >= next_byte {
            for (stream, open) in crawlers.iter_mut().zip(&mut crawler_open) {
                *open = *open && stream.write_all(b"a").is_ok();
            }
            next_byte += Duration::from_secs(1);
        }
        let sent = Instant::now();
        requests += 1;
        if status_of(addr, "/compute?n=2", "") == Some(200) {
            answered += 1;
            let ms = sent.elapsed().as_secs_f64() * 1000.0;
            max_latency = Some(max_latency.map_or(ms, |m: f64| m.max(ms)));
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    let closed_idle = idlers
        .iter_mut()
        .map(closed_by_peer)
        .filter(|closed| *closed)
        .count();
    let closed_slow = crawler_open.iter().filter(|open| !**open).count();
    let problem = if opened < idle + slow {
        Some(format!(
            "only {opened} of {} connections opened",
            idle + slow
        ))
    } else if answered < requests {
        Some(format!(
            "answered {answered} of {requests} requests during the flood"
        ))
    } else {
        None
    };
    FloodOutcome {
        idle_connections: idle,
        slow_connections: slow,
        held_secs: held.as_secs_f64(),
        requests,
        answered,
        max_latency_ms: max_latency,
        closed_by_app: (closed_idle + closed_slow) as u32,
        problem,
    }
}

/// Whether the other end has closed `stream` (or answered on it, which servers do only to
/// say they are closing it).
fn closed_by_peer(stream: &mut TcpStream) -> bool {
    if stream.set_nonblocking(true).is_err() {
        return true;
    }
    let mut buf = [0u8; 64];
    match stream.read(&mut buf) {
        Ok(0) => true,
        Ok(_answered) => true,
        Err(err) => err.kind() != ErrorKind::WouldBlock,
    }
}
