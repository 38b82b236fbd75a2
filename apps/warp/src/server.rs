//! The accept loop. warp's own `Server` (warp 0.4.3 src/server.rs) serves each connection with
//! hyper-util's `auto::Builder` and no timer, so it has no request header timeout, and it
//! exposes no connection setting but pipelining. warp documents running a filter as a service
//! (`warp::service`, warp 0.4.3 src/service.rs) to customize the hyper server: this loop does
//! what warp's graceful `Server` does (each connection on its own task, watched by hyper-util's
//! `GracefulShutdown`), with hyper's HTTP/1 connection configured as the hyper app's is.

use hyper::Request;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::Service;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use std::error::Error;
use std::io::{self, ErrorKind};
use std::pin::pin;
use std::time::Duration;
use tokio::net::TcpListener;

/// How long a connection may take to send a request header (docs/spec.md §1; Go's
/// `ReadHeaderTimeout`).
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a stop waits for the connections to finish, as the Go reference waits.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// Serves `service` on every connection `listener` accepts until `shutdown` completes.
pub async fn serve<S>(listener: TcpListener, service: S, shutdown: impl Future<Output = ()>)
where
    S: Service<Request<Incoming>, Response = warp::reply::Response> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<Box<dyn Error + Send + Sync>>,
{
    let mut http = http1::Builder::new();
    http
        // Drives the header timeout; without a timer it never fires (warp's Server sets none).
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
        let connection = http.serve_connection(TokioIo::new(stream), service.clone());
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            // A connection that ends in an error (the client went away, or sent no header in
            // time) is the client's doing: nothing to log.
            let _ = connection.await;
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(SHUTDOWN_GRACE) => {
            eprintln!("warp: connections still open after {SHUTDOWN_GRACE:?}, stopping anyway");
        }
    }
}

/// As warp's `Server` treats it (`handle_accept_error`, from hyper 0.14's server): a connection
/// the client reset before it was accepted is no error; any other (out of file descriptors) is
/// logged, and the loop waits a second for connections to close instead of spinning on it.
async fn accept_error(err: io::Error) {
    if matches!(
        err.kind(),
        ErrorKind::ConnectionRefused | ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset
    ) {
        return;
    }
    eprintln!("warp: accept: {err}");
    tokio::time::sleep(Duration::from_secs(1)).await;
}
