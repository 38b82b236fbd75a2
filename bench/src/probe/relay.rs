//! A loopback TCP relay between an app and a service (Postgres, Redis).
//!
//! Cutting it drops every connection through it and refuses new ones, as a service outage
//! does; resuming it listens on the same port again (the fault tests). In front of
//! PostgreSQL it also reads the protocol as it passes: it counts the statements the app
//! sends (`Query`, `Execute`) and the round trips it waits for, and declines TLS so the
//! stream stays readable.
//!
//! A round trip is a wait for the server: a request (a `Sync`, or a simple `Query`; each is
//! answered by one `ReadyForQuery`) sent while none of the connection's earlier requests is
//! unanswered starts one; a request sent while answers are still outstanding joins it. A
//! client that waits for each answer before its next request makes one round trip per
//! request; one that pipelines (tokio-postgres, for queries issued concurrently on one
//! client) makes one for all the requests it sent together.

use anyhow::{Context, Result};
use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

pub struct Relay {
    pub addr: SocketAddr,
    upstream: String,
    postgres: bool,
    shared: Arc<Shared>,
    acceptor: Option<JoinHandle<()>>,
}

#[derive(Default)]
struct Shared {
    stopping: AtomicBool,
    streams: Mutex<Vec<TcpStream>>,
    counts: Counts,
}

/// PostgreSQL protocol messages seen, over all connections. A connection's first
/// `ReadyForQuery` ends its start-up and is counted as a connection, not a round trip.
#[derive(Default)]
struct Counts {
    statements: AtomicU64,
    round_trips: AtomicU64,
    pings: AtomicU64,
    connections: AtomicU64,
}

/// What [`Relay::postgres_counts`] saw since the start or the last reset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PostgresCounts {
    /// `Query` and `Execute` messages sent.
    pub statements: u64,
    /// Flights of requests (a request sent while another is unanswered joins its flight).
    pub round_trips: u64,
    /// `Sync`s sent with no other message since the previous request: a pool's liveness
    /// check (sqlx and tokio-postgres ping with a bare `Sync`), whether or not it shared a
    /// flight with statements.
    pub pings: u64,
    /// Connections started up.
    pub connections: u64,
}

impl Counts {
    fn snapshot(&self) -> PostgresCounts {
        PostgresCounts {
            statements: self.statements.load(Ordering::SeqCst),
            round_trips: self.round_trips.load(Ordering::SeqCst),
            pings: self.pings.load(Ordering::SeqCst),
            connections: self.connections.load(Ordering::SeqCst),
        }
    }
}

impl Relay {
    /// Forwards every connection to `upstream` (`host:port`) byte for byte.
    pub fn start(upstream: &str) -> Result<Relay> {
        Self::start_with(upstream, false)
    }

    /// Forwards PostgreSQL connections to `upstream`, counting messages.
    pub fn start_postgres(upstream: &str) -> Result<Relay> {
        Self::start_with(upstream, true)
    }

    fn start_with(upstream: &str, postgres: bool) -> Result<Relay> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let mut relay = Relay {
            addr: listener.local_addr()?,
            upstream: upstream.to_owned(),
            postgres,
            shared: Arc::default(),
            acceptor: None,
        };
        relay.spawn_acceptor(listener)?;
        Ok(relay)
    }

    pub fn postgres_counts(&self) -> PostgresCounts {
        self.shared.counts.snapshot()
    }

    pub fn reset_counts(&self) {
        let counts = &self.shared.counts;
        for counter in [
            &counts.statements,
            &counts.round_trips,
            &counts.pings,
            &counts.connections,
        ] {
            counter.store(0, Ordering::SeqCst);
        }
    }

    /// Drops every relayed connection and stops listening.
    pub fn cut(&mut self) {
        self.shared.stopping.store(true, Ordering::SeqCst);
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
        for stream in self.shared.streams.lock().unwrap().drain(..) {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }

    /// Listens again on the same port.
    pub fn resume(&mut self) -> Result<()> {
        self.shared.stopping.store(false, Ordering::SeqCst);
        let listener =
            TcpListener::bind(self.addr).with_context(|| format!("rebind {}", self.addr))?;
        self.spawn_acceptor(listener)
    }

    fn spawn_acceptor(&mut self, listener: TcpListener) -> Result<()> {
        listener.set_nonblocking(true)?;
        let shared = Arc::clone(&self.shared);
        let (upstream, postgres) = (self.upstream.clone(), self.postgres);
        self.acceptor = Some(std::thread::spawn(move || {
            while !shared.stopping.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((client, _)) => {
                        let shared = Arc::clone(&shared);
                        let upstream = upstream.clone();
                        // Own thread: a Postgres start-up exchange must not hold up accept.
                        std::thread::spawn(move || {
                            if let Err(err) = relay_connection(client, &upstream, postgres, &shared)
                            {
                                eprintln!("relay: {err:#}");
                            }
                        });
                    }
                    Err(err) if err.kind() == ErrorKind::WouldBlock => {
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    Err(err) => eprintln!("relay: accept: {err}"),
                }
            }
        }));
        Ok(())
    }
}

fn relay_connection(
    mut client: TcpStream,
    upstream: &str,
    postgres: bool,
    shared: &Arc<Shared>,
) -> Result<()> {
    client.set_nonblocking(false)?;
    let mut server = TcpStream::connect(upstream).with_context(|| format!("connect {upstream}"))?;
    for stream in [&client, &server] {
        stream.set_nodelay(true)?;
        shared.streams.lock().unwrap().push(stream.try_clone()?);
    }
    if postgres {
        let startup = read_startup(&mut client)?;
        server.write_all(&startup)?;
    }
    let exchange = Arc::new(Exchange::default());
    let directions = [
        (
            client.try_clone()?,
            server.try_clone()?,
            Direction::ToServer,
        ),
        (server, client, Direction::ToClient),
    ];
    for (from, to, direction) in directions {
        let (shared, exchange) = (Arc::clone(shared), Arc::clone(&exchange));
        std::thread::spawn(move || {
            let counting = postgres.then_some((direction, &*exchange, &shared.counts));
            let _ = copy(from, &to, counting);
            let _ = to.shutdown(Shutdown::Both);
        });
    }
    Ok(())
}

const SSL_REQUEST: u32 = 80_877_103;
const GSSENC_REQUEST: u32 = 80_877_104;

/// Reads the client's start-up message, declining TLS and GSS encryption requests first
/// (the client then carries on in plain text, as `sslmode=prefer` allows).
fn read_startup(client: &mut TcpStream) -> Result<Vec<u8>> {
    loop {
        let mut header = [0u8; 8];
        client.read_exact(&mut header)?;
        let length = u32::from_be_bytes(header[..4].try_into().unwrap()) as usize;
        let code = u32::from_be_bytes(header[4..].try_into().unwrap());
        if length == 8 && (code == SSL_REQUEST || code == GSSENC_REQUEST) {
            client.write_all(b"N")?;
            continue;
        }
        let mut message = header.to_vec();
        message.resize(length.max(8), 0);
        client.read_exact(&mut message[8..])?;
        return Ok(message);
    }
}

#[derive(Clone, Copy)]
enum Direction {
    ToServer,
    ToClient,
}

/// One connection's protocol state, shared by its two directions.
#[derive(Default)]
struct Exchange {
    started_up: AtomicBool,
    /// Requests sent (`Sync`s and simple `Query`s) minus `ReadyForQuery`s received since
    /// start-up.
    unanswered: AtomicU64,
    /// Whether a message other than `Sync` went to the server since the last request (or
    /// start-up): a `Sync` without one is a ping.
    request_begun: AtomicBool,
}

impl Exchange {
    /// Counts one message passing in `direction`. Each side counts a message before
    /// forwarding it, so a request is counted before its answer can come back, and an
    /// answer before the client can send what it was waiting for.
    fn observe(&self, direction: Direction, kind: u8, counts: &Counts) {
        match (direction, kind) {
            (Direction::ToServer, b'Q') => {
                counts.statements.fetch_add(1, Ordering::Relaxed);
                self.request_begun.store(false, Ordering::SeqCst);
                self.request(counts);
            }
            (Direction::ToServer, b'S') => {
                if !self.request_begun.swap(false, Ordering::SeqCst) {
                    counts.pings.fetch_add(1, Ordering::Relaxed);
                }
                self.request(counts);
            }
            (Direction::ToServer, kind) => {
                if kind == b'E' {
                    counts.statements.fetch_add(1, Ordering::Relaxed);
                }
                self.request_begun.store(true, Ordering::SeqCst);
            }
            (Direction::ToClient, b'Z') if !self.started_up.swap(true, Ordering::SeqCst) => {
                // The authentication messages are not a request.
                self.request_begun.store(false, Ordering::SeqCst);
                counts.connections.fetch_add(1, Ordering::Relaxed);
            }
            (Direction::ToClient, b'Z') => {
                let _ = self
                    .unanswered
                    .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
            }
            _ => {}
        }
    }

    /// A request sent while none is unanswered starts a round trip; one sent while some
    /// are joins the round trip already under way.
    fn request(&self, counts: &Counts) {
        if self.unanswered.fetch_add(1, Ordering::SeqCst) == 0 {
            counts.round_trips.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Copies `from` to `to`; when counting, also walks the typed messages (1 type byte, a
/// 4-byte length that counts itself, the body) and counts the ones that matter.
fn copy(
    mut from: TcpStream,
    mut to: &TcpStream,
    counting: Option<(Direction, &Exchange, &Counts)>,
) -> std::io::Result<()> {
    let mut buffer = vec![0u8; 64 * 1024];
    let mut walker = MessageWalker::default();
    loop {
        let n = from.read(&mut buffer)?;
        if n == 0 {
            return Ok(());
        }
        if let Some((direction, exchange, counts)) = counting {
            walker.feed(&buffer[..n], |kind| {
                exchange.observe(direction, kind, counts);
            });
        }
        to.write_all(&buffer[..n])?;
    }
}

/// Finds message boundaries in a PostgreSQL byte stream that arrives in arbitrary chunks.
#[derive(Default)]
struct MessageWalker {
    header: Vec<u8>,
    body_left: usize,
}

impl MessageWalker {
    fn feed(&mut self, mut bytes: &[u8], mut on_message: impl FnMut(u8)) {
        while !bytes.is_empty() {
            if self.body_left > 0 {
                let skip = self.body_left.min(bytes.len());
                self.body_left -= skip;
                bytes = &bytes[skip..];
                continue;
            }
            let take = (5 - self.header.len()).min(bytes.len());
            self.header.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.header.len() == 5 {
                on_message(self.header[0]);
                let length = u32::from_be_bytes(self.header[1..5].try_into().unwrap()) as usize;
                self.body_left = length.saturating_sub(4);
                self.header.clear();
            }
        }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.cut();
    }
}

#[cfg(test)]
mod tests {
    use super::{Counts, Direction, Exchange, MessageWalker};

    fn message(kind: u8, body: &[u8]) -> Vec<u8> {
        let mut m = vec![kind];
        m.extend_from_slice(&(body.len() as u32 + 4).to_be_bytes());
        m.extend_from_slice(body);
        m
    }

    #[test]
    fn walks_messages_split_across_chunks_at_any_byte() {
        let stream: Vec<u8> = [
            message(b'T', b"row description"),
            message(b'D', &[7; 300]),
            message(b'C', b"SELECT 20\0"),
            message(b'Z', b"I"),
            message(b'Z', b"I"),
        ]
        .concat();
        for chunk in [1, 2, 3, 5, 7, 64, stream.len()] {
            let mut walker = MessageWalker::default();
            let mut kinds = Vec::new();
            for piece in stream.chunks(chunk) {
                walker.feed(piece, |kind| kinds.push(kind));
            }
            assert_eq!(kinds, b"TDCZZ", "chunk size {chunk}");
        }
    }

    /// Feeds `flights` (bytes in one direction each) through one connection's walkers and
    /// returns the (statements, round trips, pings) counted after its start-up.
    fn count(flights: &[(Direction, Vec<u8>)]) -> (u64, u64, u64) {
        let (exchange, counts) = (Exchange::default(), Counts::default());
        let (mut to_server, mut to_client) = (MessageWalker::default(), MessageWalker::default());
        exchange.observe(Direction::ToServer, b'p', &counts);
        exchange.observe(Direction::ToClient, b'Z', &counts);
        for (direction, bytes) in flights {
            let walker = match direction {
                Direction::ToServer => &mut to_server,
                Direction::ToClient => &mut to_client,
            };
            walker.feed(bytes, |kind| exchange.observe(*direction, kind, &counts));
        }
        let counts = counts.snapshot();
        assert_eq!(counts.connections, 1);
        (counts.statements, counts.round_trips, counts.pings)
    }

    /// A statement by the extended protocol: Parse, Bind, Execute, Sync.
    fn statement() -> Vec<u8> {
        [
            message(b'P', b"\0SELECT 1\0\0\0"),
            message(b'B', b"\0\0\0\0\0\0\0\0"),
            message(b'E', b"\0\0\0\0\0"),
            message(b'S', b""),
        ]
        .concat()
    }

    /// Its answer: ParseComplete, BindComplete, a row, CommandComplete, ReadyForQuery.
    fn answer() -> Vec<u8> {
        [
            message(b'1', b""),
            message(b'2', b""),
            message(b'D', &[0, 1, 0, 0, 0, 1, 7]),
            message(b'C', b"SELECT 1\0"),
            message(b'Z', b"I"),
        ]
        .concat()
    }

    #[test]
    fn statements_sent_before_any_answer_share_one_round_trip() {
        let pipelined = count(&[
            (Direction::ToServer, [statement(), statement()].concat()),
            (Direction::ToClient, answer()),
            (Direction::ToClient, answer()),
        ]);
        assert_eq!(pipelined, (2, 1, 0));
        // The second request sent on its own, before the first answer came back: the
        // client did not wait, so it is still the one round trip.
        let sent_apart = count(&[
            (Direction::ToServer, statement()),
            (Direction::ToServer, statement()),
            (Direction::ToClient, [answer(), answer()].concat()),
        ]);
        assert_eq!(sent_apart, (2, 1, 0));
    }

    #[test]
    fn a_statement_sent_after_the_answer_is_another_round_trip() {
        let sequential = count(&[
            (Direction::ToServer, statement()),
            (Direction::ToClient, answer()),
            (Direction::ToServer, statement()),
            (Direction::ToClient, answer()),
        ]);
        assert_eq!(sequential, (2, 2, 0));
        // A ping (sqlx, tokio-postgres: a bare Sync) and a simple query count as requests.
        let ping_then_query = count(&[
            (Direction::ToServer, message(b'S', b"")),
            (Direction::ToClient, message(b'Z', b"I")),
            (Direction::ToServer, message(b'Q', b"BEGIN\0")),
            (
                Direction::ToClient,
                [message(b'C', b"BEGIN\0"), message(b'Z', b"T")].concat(),
            ),
        ]);
        assert_eq!(ping_then_query, (1, 2, 1));
    }

    #[test]
    fn a_bare_sync_is_a_ping_even_in_a_flight_with_statements() {
        let ping_with_statement = count(&[
            (
                Direction::ToServer,
                [message(b'S', b""), statement()].concat(),
            ),
            (
                Direction::ToClient,
                [message(b'Z', b"I"), answer()].concat(),
            ),
        ]);
        assert_eq!(ping_with_statement, (1, 1, 1));
        // Preparing a statement (Parse, Describe, Sync) executes nothing but is no ping.
        let prepare = count(&[
            (
                Direction::ToServer,
                [
                    message(b'P', b"s1\0SELECT 1\0\0\0"),
                    message(b'D', b"Ss1\0"),
                    message(b'S', b""),
                ]
                .concat(),
            ),
            (
                Direction::ToClient,
                [message(b'1', b""), message(b'Z', b"I")].concat(),
            ),
        ]);
        assert_eq!(prepare, (0, 1, 0));
    }
}
