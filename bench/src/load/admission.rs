//! Admission (docs/spec.md §5): which runs count. A run counts only when every condition
//! holds; the reason of one that does not lists every condition that failed.

use super::loadgen::LoadRun;
use super::sampler::Usage;
use std::collections::BTreeMap;

/// What a run is held to.
#[derive(Debug, Clone, Copy)]
pub struct Expected {
    /// The load generator's connections: the app must hold all of them.
    pub connections: u32,
    /// The body length of the page the parity gate fetched for the path.
    pub body_bytes: Option<u64>,
    /// A route that writes: 303 (a comment stored) counts as well as 200.
    pub writes: bool,
}

/// `None` when the run counts, else every reason it does not; `usage` is what the sampler
/// saw of the app during the run.
pub fn admission(load: &LoadRun, expected: Expected, usage: &Usage) -> Option<String> {
    let mut reasons = Vec::new();
    if load.requests == 0 {
        reasons.push("no responses".to_owned());
    }
    if !load.errors.is_empty() {
        reasons.push(format!("errors: {}", summarise(&load.errors)));
    }
    let non_200: BTreeMap<String, u64> = load
        .status_codes
        .iter()
        .filter(|(code, _)| match code.as_str() {
            "200" | "2xx/3xx" => false,
            "303" => !expected.writes,
            _ => true,
        })
        .map(|(code, n)| (code.clone(), *n))
        .collect();
    if !non_200.is_empty() {
        reasons.push(format!("non-200 responses: {}", summarise(&non_200)));
    }
    if let Some(expected_bytes) = expected.body_bytes {
        reasons.extend(body_lengths(load, expected_bytes));
    }
    if expected.writes
        && let Some(wrong) = load.wrong_length.filter(|&n| n > 0)
    {
        reasons.push(format!(
            "{wrong} answers that are not the post's page or a 303 to it"
        ));
    }
    if let Some(first) = &load.first_stale_read {
        reasons.push(format!("{} stale reads; first: {first}", load.stale_reads));
    }
    reasons.extend(usage.connections_short(expected.connections));
    (!reasons.is_empty()).then(|| reasons.join("; "))
}

/// Bodies of another length than the parity page's: counted by the load generator (wrk),
/// or seen in the total (oha: total body bytes must be responses × the expected length).
fn body_lengths(load: &LoadRun, expected_bytes: u64) -> Option<String> {
    if let Some(wrong) = load.wrong_length.filter(|&n| n > 0) {
        return Some(format!(
            "{wrong} responses with a body other than {expected_bytes} bytes"
        ));
    }
    let total = load.body_bytes?;
    let responses: u64 = load.status_codes.values().sum();
    (total != responses * expected_bytes).then(|| {
        format!(
            "body bytes {total} ≠ {responses} responses × {expected_bytes} (mean {:.1} bytes)",
            total as f64 / responses.max(1) as f64
        )
    })
}

fn summarise(counts: &BTreeMap<String, u64>) -> String {
    counts
        .iter()
        .map(|(k, n)| format!("{k} ×{n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXPECTED: Expected = Expected {
        connections: 50,
        body_bytes: Some(1000),
        writes: false,
    };

    /// A run where the app held `connections` at once.
    fn held(connections: u32) -> Usage {
        Usage {
            connections_min: connections,
            ..Usage::default()
        }
    }

    fn load(codes: &[(&str, u64)], errors: &[(&str, u64)]) -> LoadRun {
        let responses: u64 = codes.iter().map(|(_, n)| n).sum();
        LoadRun {
            requests: responses + errors.iter().map(|(_, n)| n).sum::<u64>(),
            status_codes: codes.iter().map(|(c, n)| (c.to_string(), *n)).collect(),
            errors: errors.iter().map(|(c, n)| (c.to_string(), *n)).collect(),
            body_bytes: Some(responses * 1000),
            ..LoadRun::default()
        }
    }

    #[test]
    fn admits_only_clean_runs() {
        assert_eq!(
            admission(&load(&[("200", 100)], &[]), EXPECTED, &held(50)),
            None
        );
        assert!(
            admission(&load(&[("200", 99), ("503", 1)], &[]), EXPECTED, &held(50))
                .unwrap()
                .contains("503")
        );
        assert!(
            admission(
                &load(&[("200", 99)], &[("connection reset", 1)]),
                EXPECTED,
                &held(50)
            )
            .unwrap()
            .contains("errors")
        );
        assert!(
            admission(&load(&[("200", 100)], &[]), EXPECTED, &held(42))
                .unwrap()
                .contains("held 42 of 50")
        );
    }

    #[test]
    fn lists_every_failed_condition() {
        let reason =
            admission(&load(&[("200", 90), ("500", 10)], &[]), EXPECTED, &held(10)).unwrap();
        assert!(reason.contains("500 ×10"), "{reason}");
        assert!(reason.contains("held 10 of 50"), "{reason}");
    }

    #[test]
    fn checks_body_lengths() {
        let mut short = load(&[("200", 100)], &[]);
        short.body_bytes = Some(100 * 1000 - 7);
        let reason = admission(&short, EXPECTED, &held(50)).unwrap();
        assert!(reason.contains("body bytes 99993"), "{reason}");
        let counted = LoadRun {
            body_bytes: None,
            wrong_length: Some(3),
            ..load(&[("200", 100)], &[])
        };
        assert!(
            admission(&counted, EXPECTED, &held(50))
                .unwrap()
                .contains("3 responses with a body other than 1000 bytes")
        );
        let unchecked = Expected {
            body_bytes: None,
            ..EXPECTED
        };
        assert_eq!(admission(&short, unchecked, &held(50)), None);
    }

    #[test]
    fn a_write_route_admits_303_and_refuses_stale_reads() {
        let writes = Expected {
            body_bytes: None,
            writes: true,
            ..EXPECTED
        };
        let mut load = LoadRun {
            requests: 100,
            status_codes: BTreeMap::from([("200".to_owned(), 90), ("303".to_owned(), 10)]),
            wrong_length: Some(0),
            ..LoadRun::default()
        };
        assert_eq!(admission(&load, writes, &held(50)), None);
        assert!(
            admission(&load, EXPECTED, &held(50))
                .unwrap()
                .contains("303 ×10")
        );
        load.stale_reads = 1;
        load.first_stale_read =
            Some("/cached/posts/a-1 read 0.4 ms after its comment's 303".into());
        load.wrong_length = Some(2);
        let reason = admission(&load, writes, &held(50)).unwrap();
        assert!(
            reason.contains("1 stale reads; first: /cached/posts/a-1"),
            "{reason}"
        );
        assert!(
            reason.contains("2 answers that are not the post's page"),
            "{reason}"
        );
    }
}
