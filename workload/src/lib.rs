//! What every blogbench app does alike besides SQL and HTML: the environment it reads
//! (docs/spec.md §1) and the `/compute` route's function (docs/spec.md §3.6). Go's reference
//! app implements the same two things in `go-reference/config.go` and
//! `go-reference/compute.go`.

use std::env;
use std::fmt;

/// The settings every app reads from its environment, with the defaults of docs/spec.md §1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    pub database_url: String,
    pub redis_url: String,
    pub bind: String,
    pub workers: usize,
    pub pool_max: u32,
    pub pool_min: u32,
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
    /// Reads `DATABASE_URL`, `REDIS_URL`, `BIND`, `WORKERS`, `POOL_MAX`, `POOL_MIN`.
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

/// The 503 body when PostgreSQL cannot be reached or fails (the Go app sends the same bytes).
pub const DB_UNAVAILABLE_MESSAGE: &str = "database unavailable\n";

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

/// `n` from `/compute`'s raw query string, read as the Go reference's `parseN` reads it
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
    let mut bytes = Vec::with_capacity(text.len());
    let mut rest = text.as_bytes();
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
    Some(String::from_utf8_lossy(&bytes).into_owned())
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

#[cfg(test)]
mod tests {
    use super::*;

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
    use std::collections::HashMap;

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
