//! From a fault run's requests to its numbers: what failed before the service was back and
//! after, how long errors went on, and when p99 returned to the baseline (docs/spec.md §7).

use crate::load::client::{Answer, Record};
use std::collections::BTreeMap;
use std::time::Duration;

/// The windows p99 is judged in after the service is back.
const P99_WINDOW: Duration = Duration::from_millis(500);

#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    pub requests: u64,
    /// Failed requests answered before the fault started (the baseline must have none).
    pub failed_before: u64,
    pub failed_during: u64,
    pub failed_after: u64,
    pub answers: BTreeMap<Answer, u64>,
    pub errors_for_secs: f64,
    pub p99_baseline_ms: f64,
    pub p99_back_after_secs: Option<f64>,
    pub max_latency_ms: f64,
}

/// `fault` is when the fault started and `back` when the service answered again, both from
/// the load's start; `end` is when the load stopped sending.
pub fn analyse(records: &[Record], fault: Duration, back: Duration, end: Duration) -> Timeline {
    let mut answers = BTreeMap::new();
    for record in records {
        *answers.entry(record.answer).or_default() += 1;
    }
    let failed = |keep: &dyn Fn(&Record) -> bool| {
        records
            .iter()
            .filter(|r| r.answer.failed() && keep(r))
            .count() as u64
    };
    let baseline: Vec<Duration> = records
        .iter()
        .filter(|r| r.done() < fault)
        .map(|r| r.latency)
        .collect();
    let p99_baseline = p99(baseline).unwrap_or_default();
    let last_error_after = records
        .iter()
        .filter(|r| r.sent >= back && r.answer.failed())
        .map(Record::done)
        .max();
    Timeline {
        requests: records.len() as u64,
        failed_before: failed(&|r| r.done() < fault),
        failed_during: failed(&|r| r.done() >= fault && r.sent < back),
        failed_after: failed(&|r| r.sent >= back),
        answers,
        errors_for_secs: last_error_after.map_or(0.0, |t| (t - back).as_secs_f64()),
        p99_baseline_ms: ms(p99_baseline),
        p99_back_after_secs: p99_back_after(records, p99_baseline, back, end),
        max_latency_ms: records.iter().map(|r| ms(r.latency)).fold(0.0, f64::max),
    }
}

/// The first window start from which every window up to `end` has no failure and a p99
/// within twice the baseline (plus 5 ms, so a sub-millisecond baseline is not held to
/// noise): how long after `back` the app was itself again.
fn p99_back_after(
    records: &[Record],
    baseline: Duration,
    back: Duration,
    end: Duration,
) -> Option<f64> {
    let limit = baseline * 2 + Duration::from_millis(5);
    let mut starts = Vec::new();
    let mut start = back;
    while start + P99_WINDOW <= end {
        starts.push(start);
        start += P99_WINDOW;
    }
    let healthy = |from: Duration| {
        let window: Vec<&Record> = records
            .iter()
            .filter(|r| r.sent >= from && r.sent < from + P99_WINDOW)
            .collect();
        !window.is_empty()
            && window.iter().all(|r| !r.answer.failed())
            && p99(window.iter().map(|r| r.latency).collect()).is_some_and(|p| p <= limit)
    };
    let mut first_of_the_healthy_tail = None;
    for &from in starts.iter().rev() {
        if !healthy(from) {
            break;
        }
        first_of_the_healthy_tail = Some(from);
    }
    first_of_the_healthy_tail.map(|from| (from - back).as_secs_f64())
}

fn p99(mut latencies: Vec<Duration>) -> Option<Duration> {
    if latencies.is_empty() {
        return None;
    }
    latencies.sort_unstable();
    let index = ((latencies.len() as f64 * 0.99).ceil() as usize).clamp(1, latencies.len()) - 1;
    Some(latencies[index])
}

/// Every request as CSV, times in ms from the load's start, to the nanosecond the clock gave.
pub fn records_csv(records: &[Record]) -> String {
    let mut csv = "client,sent_ms,latency_ms,answer\n".to_owned();
    for record in records {
        csv.push_str(&format!(
            "{},{:.6},{:.6},{}\n",
            record.client,
            ms(record.sent),
            ms(record.latency),
            record.answer.label()
        ));
    }
    csv
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(sent_ms: u64, latency_ms: u64, answer: Answer) -> Record {
        Record {
            client: 0,
            sent: Duration::from_millis(sent_ms),
            latency: Duration::from_millis(latency_ms),
            answer,
            comment: None,
        }
    }

    /// One request every 10 ms for 6 s, 2 ms each; 503s from 2.0 s to 3.0 s (the outage),
    /// then two more 503s after the service was back at 3.0 s, the last answered at 3.305 s.
    #[test]
    fn splits_failures_at_the_fault_and_the_return() {
        let mut records = Vec::new();
        for i in 0..600 {
            let sent = i * 10;
            let answer = if (2000..3000).contains(&sent) || sent == 3100 || sent == 3300 {
                Answer::Status(503)
            } else {
                Answer::Page
            };
            records.push(at(sent, if sent == 3300 { 5 } else { 2 }, answer));
        }
        let secs = Duration::from_secs;
        let timeline = analyse(&records, secs(2), secs(3), secs(6));
        assert_eq!(timeline.requests, 600);
        assert_eq!(timeline.failed_before, 0);
        assert_eq!(timeline.failed_during, 100);
        assert_eq!(timeline.failed_after, 2);
        assert_eq!(timeline.answers[&Answer::Status(503)], 102);
        assert!((timeline.errors_for_secs - 0.305).abs() < 1e-9);
        assert_eq!(timeline.p99_baseline_ms, 2.0);
        // The window holding the 503 sent at 3.3 s is the last unhealthy one.
        assert_eq!(timeline.p99_back_after_secs, Some(0.5));
        assert_eq!(timeline.max_latency_ms, 5.0);
    }

    #[test]
    fn p99_that_never_returns_is_none() {
        let records: Vec<Record> = (0..600)
            .map(|i| at(i * 10, if i < 200 { 2 } else { 80 }, Answer::Page))
            .collect();
        let secs = Duration::from_secs;
        let timeline = analyse(&records, secs(2), secs(3), secs(6));
        assert_eq!(timeline.failed_during + timeline.failed_after, 0);
        assert_eq!(timeline.p99_back_after_secs, None);
    }
}
