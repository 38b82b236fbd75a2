//! What a sweep run shows: its counts, its latency, whether its rate was held within the
//! objective, whether a connection level held, and how an app came back from an overload
//! (docs/spec.md §8).

use crate::load::client::{Answer, Record};
use crate::load::open_loop::{self, OpenRun};
use crate::load::sampler::Usage;
use crate::results::Latency;
use crate::results::sweep::{
    ConnectionLevel, CpuBusy, Overload, OverloadPlan, OverloadSecond, RatePoint, generator_late,
    recovered_after_secs,
};
use hdrhistogram::Histogram;
use std::collections::BTreeMap;
use std::time::Duration;

fn count(run: &OpenRun, which: impl Fn(Answer) -> bool) -> u64 {
    run.records.iter().filter(|r| which(r.answer)).count() as u64
}

/// Right answers in by `grace` after the end of the run's schedule. Answers that come in
/// later while it drains are right but late: an app that keeps up has none, one that queues
/// has seconds'. With the route's SLO as the grace, a request due at the very end and answered
/// within the SLO counts, as it would have mid-run.
pub(super) fn delivered(run: &OpenRun, grace: Duration) -> u64 {
    run.records
        .iter()
        .filter(|r| r.answer == Answer::Page && r.due + r.latency <= run.length + grace)
        .count() as u64
}

fn answers(records: impl Iterator<Item = Answer>) -> BTreeMap<String, u64> {
    let mut answers = BTreeMap::new();
    for answer in records {
        let label = match answer {
            Answer::WrongBody => "200".to_owned(),
            other => other.label(),
        };
        *answers.entry(label).or_default() += 1;
    }
    answers
}

fn latency_ms(histogram: &Histogram<u64>) -> Latency {
    let ms = |q: f64| histogram.value_at_quantile(q) as f64 / 1000.0;
    Latency {
        p50: ms(0.50),
        p90: ms(0.90),
        p99: ms(0.99),
        p999: ms(0.999),
        max: histogram.max() as f64 / 1000.0,
    }
}

/// Where a run sits in the sweep: its round, its target rate and the fraction of a
/// closed-loop max that rate is.
pub(super) struct Scheduled {
    pub round: u32,
    pub rate: f64,
    pub fraction: f64,
}

/// A run's numbers and whether the rate was held (docs/spec.md §8).
pub(super) fn rate_point(
    run: &OpenRun,
    Scheduled {
        round,
        rate,
        fraction,
    }: Scheduled,
    slo_ms: f64,
    usage: &Usage,
    cpu_busy: Option<CpuBusy>,
    client_bound: bool,
    histogram: String,
) -> RatePoint {
    let wrong_bodies = count(run, |a| a == Answer::WrongBody);
    // Of the requests sent, not of rate × length: Poisson arrivals make due a few percent
    // more or fewer than that. No gate of its own: an answer it leaves out took longer than
    // the SLO, so a p99 within the SLO means at least 99 % delivered (docs/spec.md §8).
    let delivered_ratio =
        delivered(run, Duration::from_secs_f64(slo_ms / 1000.0)) as f64 / run.sent.max(1) as f64;
    let latency = latency_ms(&open_loop::histogram(&run.records));
    let send_delay = latency_ms(&open_loop::send_delay_histogram(&run.records));
    let read_delay = latency_ms(&open_loop::read_delay_histogram(&run.records));
    let latency_less_generator =
        latency_ms(&open_loop::latency_less_generator_histogram(&run.records));
    let connection_wait = latency_ms(&open_loop::connection_wait_histogram(&run.records));
    let answers = answers(run.records.iter().map(|r| r.answer));
    let per_request = |percent: f64| {
        (run.completed > 0).then(|| percent / 100.0 * usage.seconds * 1e6 / run.completed as f64)
    };
    let mut reasons = Vec::new();
    let bookkeeping = bookkeeping_error(run);
    reasons.extend(bookkeeping.clone());
    if run.in_flight > 0 {
        reasons.push(format!("{} still in flight at the end", run.in_flight));
    }
    for (label, n) in answers.iter().filter(|(label, _)| *label != "200") {
        reasons.push(format!("{n} × {label}"));
    }
    if wrong_bodies > 0 {
        reasons.push(format!("{wrong_bodies} wrong bodies"));
    }
    let valid = reasons.is_empty();
    // A request given up at the latency limit was slow, not wrong: such a run is judged by
    // its latency like a valid one, and its lateness may be the generator's.
    let only_given_up = bookkeeping.is_none()
        && run.in_flight == 0
        && wrong_bodies == 0
        && answers
            .keys()
            .all(|label| label == "200" || *label == Answer::TooLate.label());
    let generator_late = generator_late(
        only_given_up,
        latency.p99,
        latency_less_generator.p99,
        slo_ms,
    );
    RatePoint {
        round,
        target_per_sec: rate,
        fraction,
        duration_secs: run.length.as_secs_f64(),
        sent: run.sent,
        completed: run.completed,
        failed: run.failed,
        in_flight: run.in_flight,
        delivered_ratio,
        within_slo: valid && latency.p99 <= slo_ms,
        read_delay_ms: Some(read_delay),
        latency_less_generator_ms: Some(latency_less_generator),
        generator_late,
        latency_ms: latency,
        send_delay_ms: Some(send_delay),
        connection_wait_ms: Some(connection_wait),
        answers,
        wrong_bodies,
        connections_opened: run.connections_opened,
        app_cpu_us_per_request: per_request(usage.app_cpu_percent),
        postgres_cpu_us_per_request: per_request(usage.postgres_cpu_percent),
        redis_cpu_us_per_request: per_request(usage.redis_cpu_percent),
        app_rss_max_mib: usage.app_rss_max_mib,
        cpu_busy,
        client_bound,
        valid,
        invalid_reason: (!valid).then(|| reasons.join("; ")),
        bookkeeping,
        histogram,
    }
}

/// Where the generator's records disagree with its counters. The dispatcher counts what it
/// sent; each request's task counts what became of it and leaves a record. They disagree only
/// when a request was lost or miscounted: a check of the generator's bookkeeping, not of the
/// app.
fn bookkeeping_error(run: &OpenRun) -> Option<String> {
    let recorded = run.records.len() as u64;
    let answered = run
        .records
        .iter()
        .filter(|r| !r.answer.unanswered())
        .count() as u64;
    if (answered, recorded - answered) != (run.completed, run.failed) {
        return Some(format!(
            "records ≠ counters: {answered} answered and {} not in the records, {} and {} counted",
            recorded - answered,
            run.completed,
            run.failed
        ));
    }
    (run.sent != recorded + run.in_flight).then(|| {
        format!(
            "sent {} ≠ {recorded} recorded + {} in flight",
            run.sent, run.in_flight
        )
    })
}

/// The overload run summarised per second of due time, and whether the app came back.
#[allow(clippy::too_many_arguments)]
pub(super) fn overload_outcome(
    run: &OpenRun,
    round: u32,
    route: &str,
    slo_ms: f64,
    max: f64,
    (base, over): (f64, f64),
    plan: &OverloadPlan,
    peak_rss_mib: f64,
    survived: bool,
    histogram: String,
) -> Overload {
    let seconds_total = run.length.as_secs_f64().ceil() as usize;
    let overload_start = plan.before_secs;
    let overload_end = plan.before_secs + plan.overload_secs;
    let mut seconds: Vec<(Histogram<u64>, u64, u64)> =
        vec![(open_loop::new_histogram(), 0, 0); seconds_total];
    for record in &run.records {
        let slot = &mut seconds[(record.due.as_secs() as usize).min(seconds_total - 1)];
        if open_loop::has_latency(record.answer) {
            slot.0.saturating_record(record.latency.as_micros() as u64);
        }
        if record.answer == Answer::Page {
            slot.1 += 1;
        } else if record.answer.unanswered() {
            slot.2 += 1;
        }
    }
    let seconds: Vec<OverloadSecond> = seconds
        .into_iter()
        .enumerate()
        .map(|(second, (histogram, right, failed))| {
            let at = second as f64;
            OverloadSecond {
                second: second as u32,
                target_per_sec: if (overload_start..overload_end).contains(&at) {
                    over
                } else {
                    base
                },
                right,
                failed,
                p99_ms: histogram.value_at_quantile(0.99) as f64 / 1000.0,
            }
        })
        .collect();
    // The base phase's first second warms the app up.
    let mut baseline = open_loop::new_histogram();
    let mut baseline_right = 0;
    for record in run.records.iter().filter(|r| {
        let at = r.due.as_secs_f64();
        (1.0..overload_start).contains(&at) && r.answer == Answer::Page
    }) {
        baseline.saturating_record(record.latency.as_micros() as u64);
        baseline_right += 1;
    }
    let baseline_p99_ms = baseline.value_at_quantile(0.99) as f64 / 1000.0;
    let baseline_per_sec = baseline_right as f64 / (overload_start - 1.0).max(1.0);
    let recovered_after_secs = recovered_after_secs(&seconds, overload_end, slo_ms, base);
    let answers_during = answers(
        run.records
            .iter()
            .filter(|r| (overload_start..overload_end).contains(&r.due.as_secs_f64()))
            .map(|r| r.answer),
    );
    Overload {
        round,
        route: route.to_owned(),
        max_sustainable_per_sec: max,
        base_per_sec: base,
        overload_per_sec: over,
        answers_during,
        wrong_bodies: count(run, |a| a == Answer::WrongBody),
        peak_rss_mib,
        baseline_p99_ms,
        baseline_per_sec,
        back_p99_bound_ms: Some(slo_ms),
        recovered: survived
            && recovered_after_secs.is_some_and(|secs| secs <= plan.recover_within_secs),
        recovered_after_secs,
        survived,
        seconds,
        histogram,
    }
}

/// A connection level's figures from the requests sent in its measured window, and whether
/// it counts: the app held every connection, answered every request with the page, and
/// survived.
pub(super) fn level_outcome(
    connections: u32,
    measured: &[Record],
    run: Duration,
    usage: &Usage,
    idle_rss_mib: f64,
    survived: bool,
) -> ConnectionLevel {
    let mut histogram = open_loop::new_histogram();
    for record in measured {
        histogram.saturating_record(record.latency.as_micros() as u64);
    }
    let answers = answers(measured.iter().map(|r| r.answer));
    let wrong_bodies = measured
        .iter()
        .filter(|r| r.answer == Answer::WrongBody)
        .count() as u64;
    let held = usage.connections_min;
    let mut reasons: Vec<String> = usage.connections_short(connections).into_iter().collect();
    for (label, n) in answers.iter().filter(|(label, _)| *label != "200") {
        reasons.push(format!("{n} × {label}"));
    }
    if wrong_bodies > 0 {
        reasons.push(format!("{wrong_bodies} wrong bodies"));
    }
    if !survived {
        reasons.push("the app died".to_owned());
    }
    let valid = reasons.is_empty();
    ConnectionLevel {
        connections,
        connections_held: held,
        requests_per_sec: measured.len() as f64 / run.as_secs_f64(),
        latency_ms: latency_ms(&histogram),
        answers,
        wrong_bodies,
        app_rss_max_mib: usage.app_rss_max_mib,
        rss_per_connection_kib: (usage.app_rss_max_mib - idle_rss_mib).max(0.0) * 1024.0
            / f64::from(held.max(1)),
        oom_kills: None,
        survived,
        valid,
        invalid_reason: (!valid).then(|| reasons.join("; ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::open_loop::OpenRecord;

    /// A run of `sent` requests due evenly over one second, each answered with the right
    /// page after `latency(k)` for request k.
    fn run_of(sent: u64, latency: impl Fn(u64) -> Duration) -> OpenRun {
        let records = (0..sent)
            .map(|k| OpenRecord {
                due: Duration::from_secs_f64(k as f64 / sent as f64),
                latency: latency(k),
                send_delay: Duration::ZERO,
                connection_wait: Some(Duration::ZERO),
                answer_arrived: Some(latency(k)),
                read_delay: Some(Duration::ZERO),
                answer: Answer::Page,
            })
            .collect();
        OpenRun {
            records,
            sent,
            completed: sent,
            failed: 0,
            in_flight: 0,
            connections_opened: 8,
            length: Duration::from_secs(1),
        }
    }

    /// A run whose answers all took 15 ms against a 10 ms SLO, the generator late on 5 % of
    /// them: `late(k)` is request k's (send delay, read delay).
    fn run_with_a_late_generator(late: impl Fn(u64) -> (Duration, Duration)) -> OpenRun {
        let mut run = run_of(1000, |_| Duration::from_millis(15));
        for (k, record) in run.records.iter_mut().enumerate() {
            let (send, read) = late(k as u64);
            record.send_delay = send;
            record.read_delay = Some(read);
        }
        run
    }

    #[test]
    fn a_run_the_generator_was_late_for_is_generator_late_not_failed() {
        let ms = Duration::from_millis;
        // Every answer waited 6 ms in the socket: the app's share, 9 ms, is within the SLO.
        let read_late = run_with_a_late_generator(|_| (ms(0), ms(6)));
        let read_late = point(&read_late, 1000.0, 10.0);
        assert!(read_late.valid && !read_late.within_slo);
        assert!(
            read_late.generator_late,
            "{:?}",
            read_late.latency_less_generator_ms
        );
        // Taken up 12 ms late for the last 2 %: the generator's own p99 is over the SLO, but
        // the app took 15 ms for every other request, over the SLO by itself: the app's miss.
        let send_late = run_with_a_late_generator(|k| match k >= 980 {
            true => (ms(12), ms(0)),
            false => (ms(0), ms(0)),
        });
        let send_late = point(&send_late, 1000.0, 10.0);
        assert!(
            send_late.valid && !send_late.within_slo && !send_late.generator_late,
            "{:?}",
            send_late.latency_less_generator_ms
        );
        // Late by 1 ms both ways: the app's 13 ms misses the SLO on its own.
        let slow_app = run_with_a_late_generator(|_| (ms(1), ms(1)));
        let slow_app = point(&slow_app, 1000.0, 10.0);
        assert!(!slow_app.generator_late && !slow_app.within_slo);
        // The app answered in 5 ms; the last 2 % were taken up 2 s late and given up at the
        // latency limit: the run is invalid, but slow, not wrong, and the generator's.
        let mut given_up = run_of(1000, |_| ms(5));
        for record in given_up.records.iter_mut().skip(980) {
            record.answer = Answer::TooLate;
            record.latency = ms(2000);
            record.send_delay = ms(2000);
            record.read_delay = None;
        }
        (given_up.completed, given_up.failed) = (980, 20);
        let given_up = point(&given_up, 1000.0, 10.0);
        assert!(!given_up.valid && given_up.generator_late, "{given_up:?}");
        // A wrong answer is the app's, however late the generator.
        let mut wrong = run_with_a_late_generator(|_| (ms(0), ms(6)));
        wrong.records[0].answer = Answer::WrongBody;
        assert!(!point(&wrong, 1000.0, 10.0).generator_late);
        // A run that held is held, however late the generator.
        let held = point(&run_with_a_late_generator(|_| (ms(8), ms(6))), 1000.0, 20.0);
        assert!(held.within_slo && !held.generator_late);
    }

    #[test]
    fn a_connection_level_counts_only_when_every_connection_was_held_and_answered_right() {
        let records = |answer: Answer| -> Vec<Record> {
            (0..100)
                .map(|k| Record {
                    client: k % 16,
                    sent: Duration::from_millis(u64::from(k) * 10),
                    latency: Duration::from_millis(2),
                    answer,
                    comment: None,
                })
                .collect()
        };
        let usage = Usage {
            connections_min: 16,
            app_rss_max_mib: 36.0,
            ..Usage::default()
        };
        let second = Duration::from_secs(1);
        let held = level_outcome(16, &records(Answer::Page), second, &usage, 20.0, true);
        assert!(held.valid, "{:?}", held.invalid_reason);
        assert_eq!(held.requests_per_sec, 100.0);
        assert_eq!(
            held.rss_per_connection_kib, 1024.0,
            "16 MiB over 16 connections"
        );
        let short = Usage {
            connections_min: 12,
            ..usage.clone()
        };
        let short = level_outcome(16, &records(Answer::Page), second, &short, 20.0, true);
        assert!(!short.valid && short.invalid_reason.unwrap().contains("held 12 of 16"));
        let wrong = level_outcome(16, &records(Answer::WrongBody), second, &usage, 20.0, true);
        assert!(!wrong.valid && wrong.invalid_reason.unwrap().contains("100 wrong bodies"));
        let died = level_outcome(16, &records(Answer::Page), second, &usage, 20.0, false);
        assert_eq!(died.invalid_reason.as_deref(), Some("the app died"));
    }

    fn point(run: &OpenRun, rate: f64, slo_ms: f64) -> RatePoint {
        let scheduled = Scheduled {
            round: 1,
            rate,
            fraction: 0.5,
        };
        let usage = Usage::default();
        rate_point(run, scheduled, slo_ms, &usage, None, false, String::new())
    }

    #[test]
    fn a_run_whose_answers_are_right_and_within_the_slo_holds_though_some_come_after_its_end() {
        // Every answer takes 40 ms of a 50 ms SLO, so those due in the last 40 ms come in
        // after the schedule's end: 4 % of the run, as late as the rest.
        let steady = run_of(1000, |_| Duration::from_millis(40));
        let held = point(&steady, 1000.0, 50.0);
        assert!(held.valid && held.within_slo, "{:?}", held.invalid_reason);
        assert_eq!(held.delivered_ratio, 1.0);
    }

    #[test]
    fn poisson_arrivals_are_judged_against_the_requests_sent() {
        // Poisson arrivals made 970 due in a second at 1,000 req/s; all answered in 1 ms.
        let fewer = run_of(970, |_| Duration::from_millis(1));
        let held = point(&fewer, 1000.0, 10.0);
        assert!(held.valid && held.within_slo, "{:?}", held.invalid_reason);
        assert_eq!(held.delivered_ratio, 1.0);
    }

    #[test]
    fn an_app_that_queues_delivers_too_little_and_misses_its_slo() {
        // Each answer a millisecond later than the one before: the queue grows to a second.
        // Every answer is right, so the run measured the app correctly; it did not hold.
        let queueing = run_of(1000, Duration::from_millis);
        let missed = point(&queueing, 1000.0, 50.0);
        assert!(missed.valid && !missed.within_slo);
        // Answered by the run's end plus 50 ms: requests 0 to 525 of 1,000.
        assert_eq!(missed.delivered_ratio, 0.526);
    }

    #[test]
    fn records_that_disagree_with_the_counters_make_the_run_invalid() {
        // Counted as one failed, recorded as answered: `sent = completed + failed` holds.
        let mut miscounted = run_of(1000, |_| Duration::from_millis(1));
        (miscounted.completed, miscounted.failed) = (999, 1);
        let reason = point(&miscounted, 1000.0, 10.0).invalid_reason.unwrap();
        assert_eq!(
            reason,
            "records ≠ counters: 1000 answered and 0 not in the records, 999 and 1 counted"
        );
        // A request counted but never recorded.
        let mut lost = run_of(1000, |_| Duration::from_millis(1));
        lost.records.pop();
        (lost.completed, lost.failed) = (999, 0);
        lost.sent = 1000;
        let lost = point(&lost, 1000.0, 10.0);
        assert_eq!(
            lost.bookkeeping.as_deref(),
            Some("sent 1000 ≠ 999 recorded + 0 in flight")
        );
        assert_eq!(lost.invalid_reason, lost.bookkeeping);
    }

    const OVERLOAD_PLAN: OverloadPlan = OverloadPlan {
        base_fraction: 0.5,
        overload_fraction: 1.5,
        before_secs: 10.0,
        overload_secs: 30.0,
        after_secs: 20.0,
        recover_within_secs: 10.0,
    };

    /// An overload run of 100 req/s, 300 req/s from second 10 to 40, 100 req/s again to 60;
    /// request `k` of second `s` answered right after `latency(s, k)`.
    fn overload_of(latency: impl Fn(u64, u64) -> Duration) -> Overload {
        let mut records = Vec::new();
        for second in 0..60 {
            let rate = if (10..40).contains(&second) { 300 } else { 100 };
            for k in 0..rate {
                records.push(OpenRecord {
                    due: Duration::from_secs(second) + Duration::from_secs(k) / rate as u32,
                    latency: latency(second, k),
                    send_delay: Duration::ZERO,
                    connection_wait: Some(Duration::ZERO),
                    answer_arrived: Some(latency(second, k)),
                    read_delay: Some(Duration::ZERO),
                    answer: Answer::Page,
                });
            }
        }
        let sent = records.len() as u64;
        let run = OpenRun {
            records,
            sent,
            completed: sent,
            failed: 0,
            in_flight: 0,
            connections_opened: 64,
            length: Duration::from_secs(60),
        };
        let rates = (100.0, 300.0);
        overload_outcome(
            &run,
            1,
            "detail",
            50.0,
            200.0,
            rates,
            &OVERLOAD_PLAN,
            40.0,
            true,
            String::new(),
        )
    }

    #[test]
    fn an_app_is_back_from_an_overload_at_three_seconds_in_a_row_within_the_slo() {
        // Slow while overloaded and for two seconds after; a one-second blip at second 56.
        let overload = overload_of(|second, _| match second {
            10..42 => Duration::from_millis(200),
            56 => Duration::from_millis(80),
            _ => Duration::from_millis(5),
        });
        assert_eq!(overload.recovered_after_secs, Some(2.0));
        assert!(overload.recovered);
        assert_eq!(overload.back_p99_bound_ms, Some(50.0));
    }

    #[test]
    fn a_noisy_baseline_does_not_loosen_the_recovery_bound() {
        // A baseline p99 of 69 ms (2 % of its requests), then 100 ms answers after the
        // overload: twice a noisy baseline, but twice the SLO too.
        let overload = overload_of(|second, k| match second {
            0..10 if k % 50 == 0 => Duration::from_millis(69),
            10.. => Duration::from_millis(100),
            _ => Duration::from_millis(5),
        });
        assert!(
            overload.baseline_p99_ms > 68.0,
            "{}",
            overload.baseline_p99_ms
        );
        assert_eq!(overload.recovered_after_secs, None);
        assert!(!overload.recovered);
    }

    #[test]
    fn a_stall_at_the_end_of_a_run_counts_as_one_in_its_middle() {
        // 30 ms of requests (3 %) held up to 60 ms by a stall, at the end or mid-run: neither
        // run holds a 10 ms SLO, both are valid measurements.
        let stall = |from: u64| {
            move |k: u64| match k >= from && k < from + 30 {
                true => Duration::from_millis(60 - (k - from)),
                false => Duration::from_millis(1),
            }
        };
        let at_end = point(&run_of(1000, stall(970)), 1000.0, 10.0);
        let mid_run = point(&run_of(1000, stall(500)), 1000.0, 10.0);
        for run in [&at_end, &mid_run] {
            assert!(run.valid && !run.within_slo, "{:?}", run.invalid_reason);
        }
        assert_eq!(mid_run.delivered_ratio, 1.0);
        // The stall at the end delivered late what the p99 already counts as slow.
        assert_eq!(at_end.delivered_ratio, 0.97);
    }
}
