//! Admission: which runs count.

use super::loadgen::LoadRun;
use std::collections::BTreeMap;

/// Seed 003's admission rule: a run counts only with no connection, read or protocol
/// errors, only 200s (no route in the benchmark is meant to give a 4xx), and every
/// connection established.
pub fn admission(load: &LoadRun, connections: u32, connections_reached: u32) -> Option<String> {
    if load.requests == 0 {
        return Some("no responses".to_owned());
    }
    if !load.errors.is_empty() {
        return Some(format!("errors: {}", summarise(&load.errors)));
    }
    let non_200: BTreeMap<String, u64> = load
        .status_codes
        .iter()
        .filter(|(code, _)| !matches!(code.as_str(), "200" | "2xx/3xx"))
        .map(|(code, n)| (code.clone(), *n))
        .collect();
    if !non_200.is_empty() {
        return Some(format!("non-200 responses: {}", summarise(&non_200)));
    }
    if connections_reached < connections {
        return Some(format!(
            "reached {connections_reached} of {connections} connections"
        ));
    }
    None
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

    fn load(codes: &[(&str, u64)], errors: &[(&str, u64)]) -> LoadRun {
        LoadRun {
            requests: 100,
            status_codes: codes.iter().map(|(c, n)| (c.to_string(), *n)).collect(),
            errors: errors.iter().map(|(c, n)| (c.to_string(), *n)).collect(),
            ..LoadRun::default()
        }
    }

    #[test]
    fn admits_only_clean_runs() {
        assert_eq!(admission(&load(&[("200", 100)], &[]), 50, 50), None);
        assert!(
            admission(&load(&[("200", 99), ("503", 1)], &[]), 50, 50)
                .unwrap()
                .contains("503")
        );
        assert!(
            admission(&load(&[("200", 99)], &[("connection reset", 1)]), 50, 50)
                .unwrap()
                .contains("errors")
        );
        assert!(
            admission(&load(&[("200", 100)], &[]), 50, 42)
                .unwrap()
                .contains("42 of 50")
        );
    }
}
