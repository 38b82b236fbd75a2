//! The harness's own closed-loop client, which keeps every request: when it was sent, how long
//! it took and what came back. The faults need it (a fault's cost is a question of *when*
//! requests failed, which a load generator's totals cannot answer), and so do the routes that
//! write (docs/spec.md §5.2): each POST carries its own comment, and every read that follows
//! it must show that comment, which no load generator checks.

use super::loadgen::LoadRun;
use crate::results::Latency;
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
}

impl Answer {
    pub fn failed(self) -> bool {
        !matches!(self, Answer::Page | Answer::Stored)
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

/// A post the comment workloads use, with its page as seeded.
#[derive(Debug, Clone)]
pub struct PostPage {
    pub slug: String,
    shape: PageShape,
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

impl PostPage {
    /// `page` is `GET /posts/{slug}` on the seeded data; `None` when it is not a post page.
    pub fn new(slug: &str, page: &[u8]) -> Option<PostPage> {
        const COUNT: &[u8] = b"<h2>Comments (";
        const COUNT_END: &[u8] = b")</h2>";
        const SECTION_END: &[u8] = b"\n</section>";
        let head_end = find(page, COUNT)? + COUNT.len();
        let count_end = head_end + find(&page[head_end..], COUNT_END)?;
        let seeded_count = std::str::from_utf8(&page[head_end..count_end])
            .ok()?
            .parse()
            .ok()?;
        let comments_start = count_end + COUNT_END.len();
        let tail_start = comments_start + find(&page[comments_start..], SECTION_END)?;
        Some(PostPage {
            slug: slug.to_owned(),
            shape: PageShape {
                head: page[..head_end].to_vec(),
                seeded_count,
                seeded_comments: page[comments_start..tail_start].to_vec(),
                tail: page[tail_start..].to_vec(),
            },
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
            && rest[digits..].starts_with(b")</h2>")
            && rest[digits + 6..].starts_with(&shape.seeded_comments)
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
    let slugs: Vec<&str> = data
        .table("posts")
        .copy_text
        .lines()
        .rev()
        .take(connections as usize)
        .map(|row| row.split('\t').nth(3).expect("the slug column"))
        .collect();
    let posts = slugs
        .into_iter()
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
pub fn comment_text(n: u64) -> String {
    format!("load comment {n}")
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
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
    workload: Workload,
    pace: Pace,
}

/// One request, and what a right answer is.
enum Step<'a> {
    Read {
        path: &'a str,
        page: &'a [u8],
    },
    ReadPost {
        post: &'a PostPage,
        /// The client's last comment on it, which the page must show.
        last_comment: Option<u64>,
    },
    Post {
        post: &'a PostPage,
        comment: u64,
    },
}

type Sender = hyper::client::conn::http1::SendRequest<Full<Bytes>>;

impl Client {
    async fn run(self, started: Instant, control: Arc<Control>) -> Vec<Record> {
        let mut records = Vec::new();
        let mut sender: Option<Sender> = None;
        let mut sent_count: u64 = 0;
        let mut last_comment: Option<u64> = None;
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
                        Step::ReadPost { post, last_comment }
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
            if answer_breaks_connection(answer) {
                sender = None;
            }
            let comment = match step {
                Step::Post { comment, .. } => {
                    // A comment whose POST failed may or may not be stored: reads check
                    // only comments the app confirmed.
                    if answer == Answer::Stored {
                        last_comment = Some(comment);
                    }
                    Some(comment)
                }
                _ => None,
            };
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
        let request = match step {
            Step::Read { path, .. } => hyper::Request::get(*path).body(Full::default()),
            Step::ReadPost { post, .. } => {
                hyper::Request::get(format!("/cached/posts/{}", post.slug)).body(Full::default())
            }
            Step::Post { post, comment } => {
                let form = format!(
                    "author_name=blogbench&body={}",
                    comment_text(*comment).replace(' ', "+")
                );
                hyper::Request::post(format!("/posts/{}/comments", post.slug))
                    .header(
                        hyper::header::CONTENT_TYPE,
                        workload::comment::FORM_CONTENT_TYPE,
                    )
                    .body(Full::new(Bytes::from(form)))
            }
        };
        let mut request = request.expect("a valid request");
        request.headers_mut().insert(
            hyper::header::HOST,
            self.addr.parse().expect("a host:port header value"),
        );
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
                let shown = last_comment.is_none_or(|n| {
                    find(&body, format!("<p>{}</p>", comment_text(n)).as_bytes()).is_some()
                });
                if shown {
                    Answer::Page
                } else {
                    Answer::StaleRead
                }
            }
            (303, Step::Post { post, .. }) => {
                let to = format!("/posts/{}", post.slug);
                if location.is_some_and(|l| l == to.as_str()) && body.is_empty() {
                    Answer::Stored
                } else {
                    Answer::WrongBody
                }
            }
            (200, _) => Answer::WrongBody,
            (other, _) => Answer::Status(other),
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
    for record in records {
        let status = match record.answer {
            Answer::Page | Answer::WrongBody | Answer::StaleRead => "200".to_owned(),
            Answer::Stored => "303".to_owned(),
            Answer::Status(code) => code.to_string(),
            Answer::ConnectError | Answer::IoError | Answer::Timeout => {
                *run.errors.entry(record.answer.label()).or_default() += 1;
                continue;
            }
        };
        *run.status_codes.entry(status).or_default() += 1;
        match record.answer {
            Answer::WrongBody => *run.wrong_length.get_or_insert(0) += 1,
            Answer::StaleRead => {
                let post = &posts[record.client as usize % posts.len()];
                let stored = records
                    .iter()
                    .filter(|r| r.client == record.client && r.answer == Answer::Stored)
                    .map(Record::done)
                    .filter(|done| *done <= record.sent)
                    .max()
                    .unwrap_or_default();
                run.stale_reads.push(format!(
                    "/cached/posts/{} read {:.2} ms after its comment's 303",
                    post.slug,
                    (record.sent - stored).as_secs_f64() * 1000.0
                ));
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

fn answer_breaks_connection(answer: Answer) -> bool {
    matches!(
        answer,
        Answer::IoError | Answer::Timeout | Answer::ConnectError
    )
}
