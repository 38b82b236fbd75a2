//! The accept loop, as hyper-util's `server_graceful` example writes it: each TCP connection
//! served by hyper's HTTP/1 connection on a task of its own, every one watched by a
//! `GracefulShutdown`, so a stop signal lets the requests in flight finish.

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use std::convert::Infallible;
use std::io::{self, ErrorKind};
use std::pin::pin;
use std::time::Duration;
use tokio::net::TcpListener;

/// How long a connection may take to send a request header (docs/spec.md §1; Go's
/// `ReadHeaderTimeout`).
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a stop waits for the connections to finish, as the Go reference waits.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// Serves `handler` on every connection `listener` accepts until `shutdown` completes.
pub async fn serve<H, F>(listener: TcpListener, handler: H, shutdown: impl Future<Output = ()>)
where
    H: Fn(Request<Incoming>) -> F + Clone + Send + 'static,
    F: Future<Output = Result<Response<Full<Bytes>>, Infallible>> + Send + 'static,
{
    let mut http = http1::Builder::new();
    http
        // Drives the header timeout; without a timer it never fires (axum::serve sets none).
        .timer(TokioTimer::new())
        // It runs whenever hyper waits for a request head (`poll_read_head` in hyper 1.12
        // src/proto/h1/conn.rs), so it also closes a keep-alive connection idle for 10 s
        // between requests, which Go does not (declared in bench.toml).
        .header_read_timeout(HEADER_TIMEOUT)
        // Without it, hyper reads the EOF of a client that sent its whole request and closed
        // its side, and drops the handler with the answer still pending
        // (`mid_message_detect_eof` in hyper 1.12 src/proto/h1/conn.rs): a comment could be
        // lost before the handler spawns its write. With it, hyper leaves the EOF unread until
        // the answer is written, so the comment is stored as Go stores it.
        .half_close(true);
    let graceful = GracefulShutdown::new();
    let mut shutdown = pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(err) => {
                    accept_error(err).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let connection = http.serve_connection(TokioIo::new(stream), service_fn(handler.clone()));
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            // A connection that ends in an error (the client went away, or sent no header in
            // time) is the client's doing: nothing to log, as axum::serve logs nothing.
            let _ = connection.await;
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(SHUTDOWN_GRACE) => {
            eprintln!("hyper: connections still open after {SHUTDOWN_GRACE:?}, stopping anyway");
        }
    }
}

/// As hyper 0.14's server and axum::serve treat it: a connection the client reset before it
/// was accepted is no error; any other (out of file descriptors) is logged, and the loop waits
/// a second for connections to close instead of spinning on it.
async fn accept_error(err: io::Error) {
    if matches!(
        err.kind(),
        ErrorKind::ConnectionRefused | ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset
    ) {
        return;
    }
    eprintln!("hyper: accept: {err}");
    tokio::time::sleep(Duration::from_secs(1)).await;
}
