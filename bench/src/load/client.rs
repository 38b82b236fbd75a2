//! The harness's own closed-loop client, which keeps every request: when it was sent, how long
//! it took and what came back. The faults need it (a fault's cost is a question of *when*
//! requests failed, which a load generator's totals cannot answer), and so do the routes that
//! write (docs/spec.md §5.2): each POST carries its own comment, and every read that follows
//! it must show that comment, which no load generator checks.

use super::arrival::{ArrivalClock, ArrivalStream};
use super::loadgen::LoadRun;
use crate::results::Latency;
use memchr::memmem;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use tokio::net::TcpStream;

/// Longer than any stall the faults inject: a request this slow is a hang.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(15);

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Answer {
    /// 200 with the expected page.
    Page,
    /// 303 to the post: a comment stored.
    Stored,
    /// 200 with another body (or a 303 elsewhere).
    WrongBody,
    /// 200 with the post's page as it was before the comment this client just posted.
    StaleRead,
    Status(u16),
    /// No connection could be opened.
    ConnectError,
    /// The connection failed while sending or receiving.
    IoError,
    /// No answer within [`REQUEST_TIMEOUT`].
    Timeout,
    /// The open-loop generator's latency limit passed after the request fell due, before
    /// it was answered.
    TooLate,
}

impl Answer {
    pub fn failed(self) -> bool {
        !matches!(self, Answer::Page | Answer::Stored)
    }

    /// No HTTP answer came back: the request failed on the way (and its connection, if
    /// any, is not fit to reuse).
    pub fn unanswered(self) -> bool {
        matches!(
            self,
            Answer::ConnectError | Answer::IoError | Answer::Timeout | Answer::TooLate
        )
    }

    /// How the answer is counted in the results.
    pub fn label(self) -> String {
        match self {
            Answer::Page => "200".to_owned(),
            Answer::Stored => "303".to_owned(),
            Answer::WrongBody => "200 with a wrong body".to_owned(),
            Answer::StaleRead => "200 without the comment just posted".to_owned(),
            Answer::Status(code) => code.to_string(),
            Answer::ConnectError => "error: connect".to_owned(),
            Answer::IoError => "error: connection".to_owned(),
            Answer::Timeout => "error: timeout".to_owned(),
            Answer::TooLate => "error: over the latency limit".to_owned(),
        }
    }
}

/// One request: times are from the load's start.
#[derive(Debug, Clone, Copy)]
pub struct Record {
    /// Which client sent it (0-based).
    pub client: u32,
    pub sent: Duration,
    pub latency: Duration,
    pub answer: Answer,
    /// The comment it posted ([`comment_text`]), for a POST.
    pub comment: Option<u64>,
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
    /// The last comment number handed out, so every comment of a load is unique.
    comments: AtomicU64,
}

/// What the clients send.
#[derive(Debug, Clone)]
pub enum Workload {
    /// `GET path`, answered by `page`.
    Read { path: String, page: Arc<Vec<u8>> },
    /// Comments, client `i` on `posts[i % posts.len()]` only, so no two clients touch one
    /// post: with `mixed`, every [`WRITE_EVERY`]th request is a POST and the others read the
    /// post's cached page, each read checked for the client's last comment; without, only
    /// POSTs.
    Comments {
        posts: Arc<Vec<PostPage>>,
        mixed: bool,
    },
}

/// One request in this many is a POST in the mixed workload (docs/spec.md §5.2: 10 %).
pub const WRITE_EVERY: u64 = 10;

/// A post the comment workloads use, with its page as seeded and the paths the clients
/// send, made once rather than per request.
#[derive(Debug, Clone)]
pub struct PostPage {
    pub slug: String,
    shape: PageShape,
    /// `/cached/posts/{slug}`.
    read_path: String,
    /// `/posts/{slug}/comments`.
    comment_path: String,
    /// `/posts/{slug}`, where a stored comment's 303 points.
    location: String,
}

/// A post page with any number of comments added: the seeded page's bytes up to its comment
/// count, the count, its seeded comments, then new ones, then the seeded page's end.
#[derive(Debug, Clone)]
struct PageShape {
    head: Vec<u8>,
    seeded_count: u64,
    seeded_comments: Vec<u8>,
    tail: Vec<u8>,
}

/// Where a post page's comment count starts and ends, and where its comments end.
const COUNT: &[u8] = b"<h2>Comments (";
const COUNT_END: &[u8] = b")</h2>";
const SECTION_END: &[u8] = b"\n</section>";

impl PostPage {
    /// `page` is `GET /posts/{slug}` on the seeded data; `None` when it is not a post page.
    pub fn new(slug: &str, page: &[u8]) -> Option<PostPage> {
        let head_end = memmem::find(page, COUNT)? + COUNT.len();
        let count_end = head_end + memmem::find(&page[head_end..], COUNT_END)?;
        let seeded_count = std::str::from_utf8(&page[head_end..count_end])
            .ok()?
            .parse()
            .ok()?;
        let comments_start = count_end + COUNT_END.len();
        let tail_start = comments_start + memmem::find(&page[comments_start..], SECTION_END)?;
        Some(PostPage {
            slug: slug.to_owned(),
            shape: PageShape {
                head: page[..head_end].to_vec(),
                seeded_count,
                seeded_comments: page[comments_start..tail_start].to_vec(),
                tail: page[tail_start..].to_vec(),
            },
            read_path: format!("/cached/posts/{slug}"),
            comment_path: format!("/posts/{slug}/comments"),
            location: format!("/posts/{slug}"),
        })
    }

    /// Whether `body` is this post's page with zero or more comments added.
    fn is_page(&self, body: &[u8]) -> bool {
        let shape = &self.shape;
        let Some(rest) = body.strip_prefix(shape.head.as_slice()) else {
            return false;
        };
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        let count: u64 = match std::str::from_utf8(&rest[..digits]).map(str::parse) {
            Ok(Ok(count)) => count,
            _ => return false,
        };
        count >= shape.seeded_count
            && rest[digits..].starts_with(COUNT_END)
            && rest[digits + COUNT_END.len()..].starts_with(&shape.seeded_comments)
            && body.ends_with(&shape.tail)
    }
}

/// The posts the comment workloads use, one per connection, newest first (post 1000 −
/// `i` for client `i`), with their pages as `target` serves them on the seeded data.
pub fn seeded_posts(
    target: &crate::stack::server::RunningApp,
    connections: u32,
) -> anyhow::Result<Arc<Vec<PostPage>>> {
    use anyhow::Context;
    let data = seed::data::Dataset::generate();
    let slugs: Vec<&str> = data.table("posts").column("slug").collect();
    let posts = slugs
        .into_iter()
        .rev()
        .take(connections as usize)
        .map(|slug| {
            let url = target.url(&format!("/posts/{slug}"));
            let page = ureq::get(&url)
                .call()
                .with_context(|| format!("GET {url}"))?
                .body_mut()
                .read_to_vec()?;
            PostPage::new(slug, &page).with_context(|| format!("{url} is not a post page"))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok(Arc::new(posts))
}

/// The body text of comment `n`, unique within a load.
fn comment_text(n: u64) -> String {
    format!("{COMMENT_PREFIX}{n}")
}

const COMMENT_PREFIX: &str = "load comment ";

/// `n` of a body [`comment_text`] wrote.
pub fn comment_number(body: &str) -> Option<u64> {
    body.strip_prefix(COMMENT_PREFIX)?.parse().ok()
}

/// Comment `n` as its post page shows it.
fn shown_comment(n: u64) -> Vec<u8> {
    format!("<p>{}</p>", comment_text(n)).into_bytes()
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
    /// `connections` clients, each sending `workload`'s requests to `addr` at `pace`,
    /// reconnecting after any failure.
    pub fn start(
        runtime: &tokio::runtime::Runtime,
        addr: &str,
        workload: &Workload,
        connections: u32,
        pace: Pace,
    ) -> Load {
        let started = Instant::now();
        let control = Arc::new(Control::default());
        let tasks = (0..connections)
            .map(|index| {
                let client = Client {
                    index,
                    addr: addr.to_owned(),
                    host: addr.parse().expect("a host:port header value"),
                    workload: workload.clone(),
                    pace,
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
    index: u32,
    addr: String,
    /// `addr` as the `Host` header of every request.
    host: hyper::header::HeaderValue,
    workload: Workload,
    pace: Pace,
}

/// One request, and what a right answer is.
pub(crate) enum Step<'a> {
    Read {
        path: &'a str,
        page: &'a [u8],
    },
    ReadPost {
        post: &'a PostPage,
        /// The client's last comment on it as the page must show it ([`shown_comment`]).
        last_comment: Option<&'a [u8]>,
    },
    Post {
        post: &'a PostPage,
        comment: u64,
    },
}

/// One HTTP/1.1 connection's request side.
pub(crate) type Sender = hyper::client::conn::http1::SendRequest<Full<Bytes>>;

impl Client {
    async fn run(self, started: Instant, control: Arc<Control>) -> Vec<Record> {
        let mut records = Vec::new();
        let mut sender: Option<Sender> = None;
        let mut sent_count: u64 = 0;
        let mut last_comment: Option<Vec<u8>> = None;
        while !control.stop.load(Ordering::Relaxed) {
            // Counted before the check, so a pause that sees none in flight sees none start.
            control.in_flight.fetch_add(1, Ordering::SeqCst);
            if control.paused.load(Ordering::SeqCst) {
                control.in_flight.fetch_sub(1, Ordering::SeqCst);
                // A pause can outlast the server's keep-alive timeout (actix-web: 5 s), and a
                // request sent as the server closes the idle connection fails on the wire:
                // the client starts again on a new connection, as a browser would.
                sender = None;
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
            let step = match &self.workload {
                Workload::Read { path, page } => Step::Read { path, page },
                Workload::Comments { posts, mixed } => {
                    let post = &posts[self.index as usize % posts.len()];
                    if !mixed || sent_count.is_multiple_of(WRITE_EVERY) {
                        Step::Post {
                            post,
                            comment: control.comments.fetch_add(1, Ordering::Relaxed) + 1,
                        }
                    } else {
                        Step::ReadPost {
                            post,
                            last_comment: last_comment.as_deref(),
                        }
                    }
                }
            };
            sent_count += 1;
            let sent = Instant::now();
            let answer =
                match tokio::time::timeout(REQUEST_TIMEOUT, self.request(&mut sender, &step)).await
                {
                    Ok(answer) => answer,
                    Err(_) => Answer::Timeout,
                };
            control.in_flight.fetch_sub(1, Ordering::SeqCst);
            if answer.unanswered() {
                sender = None;
            }
            let comment = match step {
                Step::Post { comment, .. } => Some(comment),
                _ => None,
            };
            // A comment whose POST failed may or may not be stored: reads check only the
            // comments the app confirmed.
            if let Some(n) = comment.filter(|_| answer == Answer::Stored) {
                last_comment = Some(shown_comment(n));
            }
            records.push(Record {
                client: self.index,
                sent: sent - started,
                latency: sent.elapsed(),
                answer,
                comment,
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

    async fn request(&self, sender: &mut Option<Sender>, step: &Step<'_>) -> Answer {
        if sender.as_ref().is_none_or(|s| s.is_closed()) {
            match connect(&self.addr).await {
                Some(new) => *sender = Some(new),
                None => return Answer::ConnectError,
            }
        }
        match sender.as_mut() {
            Some(open) => exchange(open, &self.host, step).await,
            None => Answer::ConnectError,
        }
    }
}

/// A new keep-alive connection to `addr`, Nagle off, its I/O driven by a task of its own.
pub(crate) async fn connect(addr: &str) -> Option<Sender> {
    let stream = TcpStream::connect(addr).await.ok()?;
    stream.set_nodelay(true).ok()?;
    let io = hyper_util::rt::TokioIo::new(stream);
    let (sender, connection) = hyper::client::conn::http1::handshake(io).await.ok()?;
    tokio::spawn(connection);
    Some(sender)
}

/// As [`connect`], on a stream whose reads note how long each answer waited in the socket.
pub(crate) async fn connect_noting_arrivals(addr: &str) -> Option<(Sender, Arc<ArrivalClock>)> {
    let stream = TcpStream::connect(addr).await.ok()?;
    stream.set_nodelay(true).ok()?;
    let (stream, clock) = ArrivalStream::new(stream).ok()?;
    let io = hyper_util::rt::TokioIo::new(stream);
    let (sender, connection) = hyper::client::conn::http1::handshake(io).await.ok()?;
    tokio::spawn(connection);
    Some((sender, clock))
}

/// Sends `step`'s request on `open` with `host` as its `Host` header, and judges the answer.
pub(crate) async fn exchange(
    open: &mut Sender,
    host: &hyper::header::HeaderValue,
    step: &Step<'_>,
) -> Answer {
    if open.ready().await.is_err() {
        return Answer::IoError;
    }
    let request = match step {
        Step::Read { path, .. } => hyper::Request::get(*path).body(Full::default()),
        Step::ReadPost { post, .. } => {
            hyper::Request::get(post.read_path.as_str()).body(Full::default())
        }
        Step::Post { post, comment } => {
            let form = format!(
                "author_name=blogbench&body={}",
                comment_text(*comment).replace(' ', "+")
            );
            hyper::Request::post(post.comment_path.as_str())
                .header(
                    hyper::header::CONTENT_TYPE,
                    workload::comment::FORM_CONTENT_TYPE,
                )
                .body(Full::new(Bytes::from(form)))
        }
    };
    let mut request = request.expect("a valid request");
    request
        .headers_mut()
        .insert(hyper::header::HOST, host.clone());
    let response = match open.send_request(request).await {
        Ok(response) => response,
        Err(_) => return Answer::IoError,
    };
    let status = response.status().as_u16();
    let location = response.headers().get(hyper::header::LOCATION).cloned();
    let body = match response.into_body().collect().await {
        Ok(body) => body.to_bytes(),
        Err(_) => return Answer::IoError,
    };
    match (status, step) {
        (200, Step::Read { page, .. }) if body.as_ref() == *page => Answer::Page,
        (200, Step::ReadPost { post, last_comment }) if post.is_page(&body) => {
            let shown = last_comment.is_none_or(|comment| memmem::find(&body, comment).is_some());
            if shown {
                Answer::Page
            } else {
                Answer::StaleRead
            }
        }
        (303, Step::Post { post, .. }) => {
            if location.is_some_and(|l| l == post.location.as_str()) && body.is_empty() {
                Answer::Stored
            } else {
                Answer::WrongBody
            }
        }
        (200, _) => Answer::WrongBody,
        (other, _) => Answer::Status(other),
    }
}

/// A load's records as the load generators' runs are summarised: requests, req/s over the
/// time from the first send to the last answer, latency percentiles, answers by status,
/// failures by kind, wrong bodies and stale reads (with the first one described).
pub fn summarise(records: &[Record], posts: &[PostPage]) -> LoadRun {
    let elapsed = records.iter().map(Record::done).max().unwrap_or_default();
    let mut latencies: Vec<f64> = records
        .iter()
        .map(|r| r.latency.as_secs_f64() * 1000.0)
        .collect();
    latencies.sort_by(f64::total_cmp);
    let percentile = |q: f64| -> f64 {
        let rank = ((q * latencies.len() as f64).ceil() as usize).clamp(1, latencies.len().max(1));
        latencies.get(rank - 1).copied().unwrap_or_default()
    };
    let mut run = LoadRun {
        requests: records.len() as u64,
        requests_per_sec: records.len() as f64 / elapsed.as_secs_f64().max(f64::EPSILON),
        latency_ms: Latency {
            p50: percentile(0.50),
            p90: percentile(0.90),
            p99: percentile(0.99),
            p999: percentile(0.999),
            max: latencies.last().copied().unwrap_or_default(),
        },
        wrong_length: Some(0),
        ..LoadRun::default()
    };
    // When each client's last comment was answered 303, for the stale reads' description.
    let mut stored_at: std::collections::HashMap<u32, Duration> = Default::default();
    for record in records {
        if record.answer.unanswered() {
            *run.errors.entry(record.answer.label()).or_default() += 1;
            continue;
        }
        let status = match record.answer {
            Answer::Stored => "303".to_owned(),
            Answer::Status(code) => code.to_string(),
            _ => "200".to_owned(),
        };
        *run.status_codes.entry(status).or_default() += 1;
        match record.answer {
            Answer::WrongBody => *run.wrong_length.get_or_insert(0) += 1,
            Answer::Stored => {
                stored_at.insert(record.client, record.done());
            }
            Answer::StaleRead => {
                run.stale_reads += 1;
                if run.first_stale_read.is_none() {
                    let post = &posts[record.client as usize % posts.len()];
                    let stored = stored_at.get(&record.client).copied().unwrap_or_default();
                    run.first_stale_read = Some(format!(
                        "{} read {:.2} ms after its comment's 303",
                        post.read_path,
                        record.sent.saturating_sub(stored).as_secs_f64() * 1000.0
                    ));
                }
            }
            _ => {}
        }
    }
    run
}

/// The records as CSV, the harness client's raw output: one line per request.
pub fn records_csv(records: &[Record]) -> String {
    let mut csv = String::from("client,sent_ms,latency_ms,answer,comment\n");
    for r in records {
        csv += &format!(
            "{},{:.3},{:.3},{},{}\n",
            r.client,
            r.sent.as_secs_f64() * 1000.0,
            r.latency.as_secs_f64() * 1000.0,
            r.answer.label(),
            r.comment.map(|n| n.to_string()).unwrap_or_default()
        );
    }
    csv
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEEDED: &[u8] = b"<h1>T</h1>\n<section class=\"comments\">\n<h2>Comments (1)</h2>\n<div class=\"comment\">\n<p>old</p>\n</div>\n</section>\n</main>";

    #[test]
    fn a_post_page_may_only_gain_comments() {
        let post = PostPage::new("t-1", SEEDED).unwrap();
        assert!(post.is_page(SEEDED));
        let added = String::from_utf8_lossy(SEEDED).replace(
            "(1)</h2>\n<div class=\"comment\">\n<p>old</p>\n</div>",
            "(2)</h2>\n<div class=\"comment\">\n<p>old</p>\n</div>\n<div class=\"comment\">\n<p>load comment 7</p>\n</div>",
        );
        assert!(post.is_page(added.as_bytes()));
        assert!(memmem::find(added.as_bytes(), &shown_comment(7)).is_some());
        assert_eq!(comment_number(&comment_text(7)), Some(7));
        let lost_one = String::from_utf8_lossy(SEEDED)
            .replace("(1)", "(0)")
            .replace("<p>old</p>\n", "");
        assert!(!post.is_page(lost_one.as_bytes()));
        let other_post = String::from_utf8_lossy(SEEDED).replace("<h1>T</h1>", "<h1>U</h1>");
        assert!(!post.is_page(other_post.as_bytes()));
        assert!(PostPage::new("t-1", b"<p>no comments section</p>").is_none());
    }
}
