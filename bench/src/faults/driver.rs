//! Closed-loop load that keeps every request: when it was sent, how long it took and what
//! came back. A fault's cost is a question of *when* requests failed (before, during or
//! after an outage), which a load generator's totals cannot answer.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use tokio::net::TcpStream;

/// Longer than any stall the faults inject: a request this slow is a hang.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(15);

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Answer {
    /// 200 with the expected page.
    Page,
    /// 200 with another body.
    WrongBody,
    Status(u16),
    /// No connection could be opened.
    ConnectError,
    /// The connection failed while sending or receiving.
    IoError,
    /// No answer within [`REQUEST_TIMEOUT`].
    Timeout,
}

impl Answer {
    pub fn failed(self) -> bool {
        self != Answer::Page
    }

    /// How the answer is counted in the results.
    pub fn label(self) -> String {
        match self {
            Answer::Page => "200".to_owned(),
            Answer::WrongBody => "200 with a wrong body".to_owned(),
            Answer::Status(code) => code.to_string(),
            Answer::ConnectError => "error: connect".to_owned(),
            Answer::IoError => "error: connection".to_owned(),
            Answer::Timeout => "error: timeout".to_owned(),
        }
    }
}

/// One request: times are from the load's start.
#[derive(Debug, Clone, Copy)]
pub struct Record {
    pub sent: Duration,
    pub latency: Duration,
    pub answer: Answer,
}

impl Record {
    pub fn done(&self) -> Duration {
        self.sent + self.latency
    }
}

/// Load running in the background until [`Load::finish`].
pub struct Load {
    pub started: Instant,
    control: Arc<Control>,
    tasks: Vec<tokio::task::JoinHandle<Vec<Record>>>,
}

/// What the harness tells the clients, and how many requests they have out.
#[derive(Default)]
struct Control {
    stop: AtomicBool,
    paused: AtomicBool,
    in_flight: AtomicUsize,
}

/// How each client sends.
#[derive(Debug, Clone, Copy)]
pub enum Pace {
    /// The next request as soon as the previous answer is in (the fair run's closed loop).
    Flat,
    /// This long between an answer and the next request: light traffic.
    Gap(Duration),
}

impl Load {
    /// `connections` clients, each sending `GET path` to `addr` at `pace`, reconnecting
    /// after any failure.
    pub fn start(
        runtime: &tokio::runtime::Runtime,
        addr: &str,
        path: &str,
        connections: u32,
        pace: Pace,
        page: Arc<Vec<u8>>,
    ) -> Load {
        let started = Instant::now();
        let control = Arc::new(Control::default());
        let tasks = (0..connections)
            .map(|_| {
                let client = Client {
                    addr: addr.to_owned(),
                    path: path.to_owned(),
                    pace,
                    page: Arc::clone(&page),
                };
                runtime.spawn(client.run(started, Arc::clone(&control)))
            })
            .collect();
        Load {
            started,
            control,
            tasks,
        }
    }

    /// Stops sending until [`Load::resume`] and returns once the requests in flight are
    /// answered (at most [`REQUEST_TIMEOUT`] later): the app is idle in between.
    pub fn pause(&self) {
        self.control.paused.store(true, Ordering::SeqCst);
        let started = Instant::now();
        while self.control.in_flight.load(Ordering::SeqCst) > 0
            && started.elapsed() < REQUEST_TIMEOUT
        {
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    pub fn resume(&self) {
        self.control.paused.store(false, Ordering::SeqCst);
    }

    /// Stops sending and returns every request, ordered by send time. Requests in flight
    /// are waited for (at most [`REQUEST_TIMEOUT`]).
    pub fn finish(self, runtime: &tokio::runtime::Runtime) -> Vec<Record> {
        self.control.stop.store(true, Ordering::SeqCst);
        let mut records: Vec<Record> = runtime.block_on(async {
            let mut all = Vec::new();
            for task in self.tasks {
                all.extend(task.await.unwrap_or_default());
            }
            all
        });
        records.sort_by_key(|r| r.sent);
        records
    }
}

struct Client {
    addr: String,
    path: String,
    pace: Pace,
    page: Arc<Vec<u8>>,
}

type Sender = hyper::client::conn::http1::SendRequest<Empty<Bytes>>;

impl Client {
    async fn run(self, started: Instant, control: Arc<Control>) -> Vec<Record> {
        let mut records = Vec::new();
        let mut sender: Option<Sender> = None;
        while !control.stop.load(Ordering::Relaxed) {
            // Counted before the check, so a pause that sees none in flight sees none start.
            control.in_flight.fetch_add(1, Ordering::SeqCst);
            if control.paused.load(Ordering::SeqCst) {
                control.in_flight.fetch_sub(1, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
            let sent = Instant::now();
            let answer =
                match tokio::time::timeout(REQUEST_TIMEOUT, self.request(&mut sender)).await {
                    Ok(answer) => answer,
                    Err(_) => Answer::Timeout,
                };
            control.in_flight.fetch_sub(1, Ordering::SeqCst);
            if answer_breaks_connection(answer) {
                sender = None;
            }
            records.push(Record {
                sent: sent - started,
                latency: sent.elapsed(),
                answer,
            });
            match self.pace {
                Pace::Gap(gap) => tokio::time::sleep(gap).await,
                // Nothing listens: do not spin.
                Pace::Flat if answer == Answer::ConnectError => {
                    tokio::time::sleep(Duration::from_millis(10)).await
                }
                Pace::Flat => {}
            }
        }
        records
    }

    async fn request(&self, sender: &mut Option<Sender>) -> Answer {
        if sender.as_ref().is_none_or(|s| s.is_closed()) {
            match self.connect().await {
                Some(new) => *sender = Some(new),
                None => return Answer::ConnectError,
            }
        }
        let Some(open) = sender.as_mut() else {
            return Answer::ConnectError;
        };
        if open.ready().await.is_err() {
            return Answer::IoError;
        }
        let request = hyper::Request::get(self.path.as_str())
            .header(hyper::header::HOST, self.addr.as_str())
            .body(Empty::new())
            .expect("a valid request");
        let response = match open.send_request(request).await {
            Ok(response) => response,
            Err(_) => return Answer::IoError,
        };
        let status = response.status().as_u16();
        let body = match response.into_body().collect().await {
            Ok(body) => body.to_bytes(),
            Err(_) => return Answer::IoError,
        };
        match status {
            200 if body.as_ref() == self.page.as_slice() => Answer::Page,
            200 => Answer::WrongBody,
            other => Answer::Status(other),
        }
    }

    async fn connect(&self) -> Option<Sender> {
        let stream = TcpStream::connect(&self.addr).await.ok()?;
        stream.set_nodelay(true).ok()?;
        let io = hyper_util::rt::TokioIo::new(stream);
        let (sender, connection) = hyper::client::conn::http1::handshake(io).await.ok()?;
        tokio::spawn(connection);
        Some(sender)
    }
}

fn answer_breaks_connection(answer: Answer) -> bool {
    matches!(
        answer,
        Answer::IoError | Answer::Timeout | Answer::ConnectError
    )
}
