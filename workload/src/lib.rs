//! What every blogbench app does alike besides SQL and HTML: the environment it reads
//! (docs/spec.md §1), the slug rule (§3.1), the `/compute` route's function (§3.6) and the
//! comment form's rule (§3.9, [`comment`]). The Go apps share the same four in
//! `go-shared/workload/`: `config.go`, `slug.go`, `compute.go` and `comment.go`.

pub mod comment;

use std::env;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};

/// The settings every app reads from its environment, with the defaults of docs/spec.md §1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    pub database_url: String,
    pub redis_url: String,
    pub bind: String,
    pub workers: usize,
    pub pool_max: u32,
    pub pool_min: u32,
    pub ping_on_acquire: PingOnAcquire,
}

/// When a pool pings a connection before handing it out (`PING_ON_ACQUIRE`, docs/spec.md §1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PingOnAcquire {
    /// Every checkout: one extra round trip per checkout.
    Always,
    /// Only a connection idle for more than [`PING_IDLE_AFTER`] (pgxpool's rule): no cost
    /// under load, and a connection left dead by a database restart is replaced instead of
    /// failing a request.
    Idle,
    /// Never: a dead connection fails the request that gets it.
    Never,
}

/// How long a connection must have been idle before [`PingOnAcquire::Idle`] pings it.
pub const PING_IDLE_AFTER: std::time::Duration = std::time::Duration::from_secs(1);

impl PingOnAcquire {
    /// Whether a connection idle for `idle_for` is to be pinged before use.
    pub fn should_ping(self, idle_for: std::time::Duration) -> bool {
        match self {
            PingOnAcquire::Always => true,
            PingOnAcquire::Idle => idle_for > PING_IDLE_AFTER,
            PingOnAcquire::Never => false,
        }
    }
}

/// Plain TCP on loopback: Debian's cluster has `ssl = on`, and TLS would add crypto work to
/// every round trip the benchmark measures.
pub const DEFAULT_DATABASE_URL: &str =
    "postgres://blogbench:blogbench@127.0.0.1:5432/blogbench?sslmode=disable";
pub const DEFAULT_REDIS_URL: &str = "redis://127.0.0.1:6379/0";
pub const DEFAULT_BIND: &str = "127.0.0.1:8080";
pub const DEFAULT_WORKERS: u32 = 4;
pub const DEFAULT_POOL_MAX: u32 = 16;
pub const DEFAULT_POOL_MIN: u32 = 4;

/// A setting whose value is not what it must be; the message names the variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

impl Config {
    /// Reads `DATABASE_URL`, `REDIS_URL`, `BIND`, `WORKERS`, `POOL_MAX`, `POOL_MIN`,
    /// `PING_ON_ACQUIRE`.
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_lookup(|name| env::var(name).ok())
    }

    fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let text = |name: &str, default: &str| lookup(name).unwrap_or_else(|| default.to_owned());
        let number = |name: &str, default: u32| -> Result<u32, ConfigError> {
            match lookup(name) {
                None => Ok(default),
                Some(value) => value.parse().ok().filter(|n| *n > 0).ok_or_else(|| {
                    ConfigError(format!("{name} must be a positive integer, got {value:?}"))
                }),
            }
        };
        let config = Config {
            database_url: text("DATABASE_URL", DEFAULT_DATABASE_URL),
            redis_url: text("REDIS_URL", DEFAULT_REDIS_URL),
            bind: text("BIND", DEFAULT_BIND),
            workers: number("WORKERS", DEFAULT_WORKERS)? as usize,
            pool_max: number("POOL_MAX", DEFAULT_POOL_MAX)?,
            pool_min: number("POOL_MIN", DEFAULT_POOL_MIN)?,
            ping_on_acquire: match lookup("PING_ON_ACQUIRE").as_deref() {
                None | Some("idle") => PingOnAcquire::Idle,
                Some("always") => PingOnAcquire::Always,
                Some("never") => PingOnAcquire::Never,
                Some(other) => {
                    return Err(ConfigError(format!(
                        "PING_ON_ACQUIRE must be always, idle or never, got {other:?}"
                    )));
                }
            },
        };
        if config.pool_min > config.pool_max {
            return Err(ConfigError(format!(
                "POOL_MIN ({}) must not exceed POOL_MAX ({})",
                config.pool_min, config.pool_max
            )));
        }
        Ok(config)
    }
}

/// Worker `worker`'s share of `total` pool connections, for an app that gives each worker its
/// own pool: `total / workers`, one more for each of the first `total % workers` workers, so
/// the shares add up to `total` (16 over 3 workers: 6, 5, 5) and a worker's share of
/// POOL_MIN never exceeds its share of POOL_MAX.
pub fn pool_shard(total: u32, workers: usize, worker: usize) -> u32 {
    let total = total as usize;
    (total / workers + usize::from(worker < total % workers)) as u32
}

/// The 503 body when PostgreSQL cannot be reached or fails (the Go app sends the same bytes).
pub const DB_UNAVAILABLE_MESSAGE: &str = "database unavailable\n";

/// The 500 body when a page cannot be rendered (the Go app sends the same bytes).
pub const INTERNAL_ERROR_MESSAGE: &str = "internal server error\n";

/// The longest slug an app looks up (the seeded ones are at most 58 bytes).
pub const SLUG_MAX_LEN: usize = 100;

/// `[percent-encoded segment, is a slug]` pairs: the tests of every app's rule, Go's
/// included, and the odd segments of the parity sample.
pub const SLUG_VECTORS: &str = include_str!("../testdata/slugs.json");

/// Whether a percent-decoded path segment may be a slug (docs/spec.md §3.1): 1 to
/// [`SLUG_MAX_LEN`] bytes, each `a`–`z`, `0`–`9` or `-`. Anything else gets the 404 page
/// without a query: PostgreSQL rejects a NUL or invalid UTF-8 in a text parameter, which
/// would otherwise read as an outage. Vectors: `testdata/slugs.json` (Go checks them too).
pub fn is_slug(segment: &str) -> bool {
    (1..=SLUG_MAX_LEN).contains(&segment.len())
        && segment
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// `n` when the query string gives none.
pub const DEFAULT_N: i64 = 20_000;
/// The inclusive range of `n` that `/compute` accepts.
pub const N_RANGE: std::ops::RangeInclusive<i64> = 2..=1_000_000;
/// The 400 body for a bad `n` (the Go app sends the same bytes).
pub const BAD_N_MESSAGE: &str = "n must be an integer from 2 to 1000000\n";

/// Parses the `n` query value of `/compute`: `None` (absent) means [`DEFAULT_N`].
pub fn parse_n(raw: Option<&str>) -> Result<i64, &'static str> {
    match raw {
        None => Ok(DEFAULT_N),
        Some(text) => text
            .parse::<i64>()
            .ok()
            .filter(|n| N_RANGE.contains(n))
            .ok_or(BAD_N_MESSAGE),
    }
}

/// `n` from `/compute`'s raw query string, read as the Go apps' `workload.ParseN` reads it
/// (`url.ParseQuery`), so every app applies one rule: pairs split on `&`; a pair holding `;`
/// or a bad `%` escape is dropped, and makes the query bad when `n` is then missing; `+` is
/// a space; the first `n` counts. Vectors: `testdata/compute-queries.json` (Go checks them too).
pub fn parse_n_query(query: Option<&str>) -> Result<i64, &'static str> {
    let mut undecodable = false;
    for pair in query.unwrap_or_default().split('&') {
        if pair.is_empty() {
            continue;
        }
        if pair.contains(';') {
            undecodable = true;
            continue;
        }
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match (unescape(key), unescape(value)) {
            (Some(key), Some(value)) if key == "n" => return parse_n(Some(&value)),
            (Some(_), Some(_)) => {}
            _ => undecodable = true,
        }
    }
    if undecodable {
        Err(BAD_N_MESSAGE)
    } else {
        Ok(DEFAULT_N)
    }
}

/// Query-string unescaping: `+` → space, `%XX` → that byte; `None` for a bad escape.
fn unescape(text: &str) -> Option<String> {
    unescape_bytes(text.as_bytes()).map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
}

/// [`unescape`] on bytes, keeping the bytes as they decode (a form field must then be checked
/// for UTF-8, which lossy decoding would hide).
fn unescape_bytes(text: &[u8]) -> Option<Vec<u8>> {
    let mut bytes = Vec::with_capacity(text.len());
    let mut rest = text;
    while let Some((&first, tail)) = rest.split_first() {
        match first {
            b'+' => bytes.push(b' '),
            b'%' => {
                let hex = tail
                    .get(..2)
                    .filter(|h| h.iter().all(u8::is_ascii_hexdigit))?;
                bytes.push(u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?);
                rest = &tail[2..];
                continue;
            }
            byte => bytes.push(byte),
        }
        rest = tail;
    }
    Some(bytes)
}

/// The sum of the primes below `n`, by i64 trial division on every call (docs/spec.md §3.6: the
/// work is the point, so no sieve and no caching).
pub fn sum_of_primes_below(n: i64) -> i64 {
    (2..n)
        .filter(|&i| {
            let mut d = 2;
            while d * d <= i {
                if i % d == 0 {
                    return false;
                }
                d += 1;
            }
            true
        })
        .sum()
}

/// The body `/compute` answers with.
pub fn compute_body(n: i64) -> String {
    format!("{}\n", sum_of_primes_below(n))
}

/// Reads the configuration, then runs `serve` on a multi-threaded tokio runtime of `WORKERS`
/// threads until it returns; a failure of either is reported under the app's name and exits
/// non-zero. The `main` of the apps on tokio whose framework does not start the runtime.
#[cfg(feature = "tokio")]
pub fn run_on_tokio<Serving, Error>(
    app: &str,
    serve: impl FnOnce(Config) -> Serving,
) -> std::process::ExitCode
where
    Serving: std::future::Future<Output = Result<(), Error>>,
    Error: fmt::Display,
{
    use std::process::ExitCode;
    let config = match Config::from_env() {
        Ok(config) => config,
        Err(err) => {
            eprintln!("{app}: {err}");
            return ExitCode::FAILURE;
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(config.workers)
        .enable_all()
        .build()
        .expect("build the Tokio runtime");
    match runtime.block_on(serve(config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("{app}: {err}");
            ExitCode::FAILURE
        }
    }
}

/// Resolves at Ctrl-C or SIGTERM (how the harness stops an app): the future the apps on
/// tokio hand to their server's graceful shutdown.
#[cfg(feature = "tokio")]
pub async fn shutdown_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate()).expect("install the SIGTERM handler");
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {},
        _ = term.recv() => {},
    }
}

/// A service's outage, logged when it starts and when it ends instead of on every request:
/// the hot path (the service answering, as it did) only reads a flag, so requests do not
/// contend on it.
#[derive(Debug, Default)]
pub struct Outage {
    failing: AtomicBool,
}

impl Outage {
    pub const fn new() -> Self {
        Outage {
            failing: AtomicBool::new(false),
        }
    }

    /// Notes a failed call; true when it starts an outage.
    fn failed(&self) -> bool {
        !self.failing.swap(true, Ordering::Relaxed)
    }

    /// Notes a call that succeeded; true when it ends an outage.
    fn answered(&self) -> bool {
        self.failing.load(Ordering::Relaxed) && self.failing.swap(false, Ordering::Relaxed)
    }

    /// Notes a page-cache call to Redis (`error`: how it failed, if it did) and logs, under
    /// the app's name, when Redis starts failing and when it answers again; in between a
    /// cached route is served from the database.
    pub fn note_redis(&self, app: &str, error: Option<&impl fmt::Display>) {
        match error {
            None if self.answered() => eprintln!("{app}: redis is back: caching pages again"),
            Some(err) if self.failed() => eprintln!(
                "{app}: redis unavailable, serving cached routes from the database: {err}"
            ),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn an_outage_is_reported_when_it_starts_and_when_it_ends() {
        let outage = Outage::new();
        assert!(!outage.answered(), "no outage yet");
        assert!(outage.failed(), "the first failure starts it");
        assert!(!outage.failed(), "later failures are the same outage");
        assert!(outage.answered(), "the first answer ends it");
        assert!(!outage.answered());
        assert!(outage.failed(), "a new outage");
    }

    #[test]
    fn pool_shards_add_up_to_the_total() {
        let shares = |total, workers| -> Vec<u32> {
            (0..workers)
                .map(|w| pool_shard(total, workers, w))
                .collect()
        };
        assert_eq!(shares(16, 4), vec![4, 4, 4, 4]);
        assert_eq!(shares(4, 4), vec![1, 1, 1, 1]);
        assert_eq!(shares(16, 3), vec![6, 5, 5]);
        assert_eq!(shares(4, 3), vec![2, 1, 1]);
        assert_eq!(shares(2, 4), vec![1, 1, 0, 0]);
    }

    #[test]
    fn parses_queries_as_go_does() {
        let text = include_str!("../testdata/compute-queries.json");
        let vectors: Vec<(String, Option<i64>)> = serde_json::from_str(text).unwrap();
        assert!(vectors.len() >= 20);
        for (query, want) in vectors {
            let got = parse_n_query(Some(&query));
            assert_eq!(got.ok(), want, "query {query:?}");
        }
        assert_eq!(parse_n_query(None), Ok(DEFAULT_N));
    }

    /// Each vector is a percent-encoded segment and whether it is a slug; a segment that
    /// does not decode to UTF-8 never reaches `is_slug` in an app, and must not be one.
    #[test]
    fn slugs_follow_the_rule_go_follows() {
        let vectors: Vec<(String, bool)> = serde_json::from_str(SLUG_VECTORS).unwrap();
        assert!(vectors.iter().filter(|(_, ok)| !ok).count() >= 20);
        for (encoded, want) in vectors {
            let decoded = percent_encoding::percent_decode_str(&encoded).decode_utf8();
            let got = decoded.is_ok_and(|segment| is_slug(&segment));
            assert_eq!(got, want, "segment {encoded:?}");
        }
    }

    #[test]
    fn sums_primes_below_n() {
        assert_eq!(sum_of_primes_below(2), 0);
        assert_eq!(sum_of_primes_below(3), 2);
        assert_eq!(sum_of_primes_below(10), 2 + 3 + 5 + 7);
        assert_eq!(sum_of_primes_below(12), 2 + 3 + 5 + 7 + 11);
        assert_eq!(sum_of_primes_below(DEFAULT_N), 21_171_191);
        assert_eq!(compute_body(DEFAULT_N), "21171191\n");
    }

    #[test]
    fn parses_n_strictly() {
        assert_eq!(parse_n(None), Ok(20_000));
        assert_eq!(parse_n(Some("2")), Ok(2));
        assert_eq!(parse_n(Some("1000000")), Ok(1_000_000));
        for bad in [
            "", "abc", "1", "0", "-5", "1000001", "10000000", "2.5", " 7", "0x10",
        ] {
            assert_eq!(parse_n(Some(bad)), Err(BAD_N_MESSAGE), "n={bad:?}");
        }
    }

    fn config_from(pairs: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::from_lookup(|name| map.get(name).cloned())
    }

    #[test]
    fn config_defaults_follow_the_spec() {
        let config = config_from(&[]).unwrap();
        assert_eq!(config.bind, "127.0.0.1:8080");
        assert_eq!(
            (config.workers, config.pool_max, config.pool_min),
            (4, 16, 4)
        );
        assert_eq!(config.database_url, DEFAULT_DATABASE_URL);
        assert_eq!(config.redis_url, DEFAULT_REDIS_URL);
        assert_eq!(config.ping_on_acquire, PingOnAcquire::Idle);
    }

    #[test]
    fn ping_on_acquire_is_one_of_three_rules() {
        let rule = |value| config_from(&[("PING_ON_ACQUIRE", value)]).map(|c| c.ping_on_acquire);
        assert_eq!(rule("always"), Ok(PingOnAcquire::Always));
        assert_eq!(rule("never"), Ok(PingOnAcquire::Never));
        let err = rule("1").unwrap_err();
        assert!(err.to_string().starts_with("PING_ON_ACQUIRE"), "{err}");
        let second = std::time::Duration::from_secs(1);
        assert!(!PingOnAcquire::Idle.should_ping(second));
        assert!(PingOnAcquire::Idle.should_ping(second + std::time::Duration::from_millis(1)));
        assert!(PingOnAcquire::Always.should_ping(std::time::Duration::ZERO));
        assert!(!PingOnAcquire::Never.should_ping(second * 60));
    }

    #[test]
    fn config_rejects_bad_numbers_by_name() {
        let err = config_from(&[("WORKERS", "four")]).unwrap_err();
        assert!(err.to_string().starts_with("WORKERS"), "{err}");
        let err = config_from(&[("POOL_MAX", "0")]).unwrap_err();
        assert!(err.to_string().starts_with("POOL_MAX"), "{err}");
        let err = config_from(&[("POOL_MAX", "2"), ("POOL_MIN", "3")]).unwrap_err();
        assert!(err.to_string().contains("POOL_MIN"), "{err}");
        let config = config_from(&[("WORKERS", "2"), ("BIND", "127.0.0.1:9000")]).unwrap();
        assert_eq!(
            (config.workers, config.bind.as_str()),
            (2, "127.0.0.1:9000")
        );
    }
}
