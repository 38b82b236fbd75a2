//! One measured run of the batch, an app's or its pacer's: the page cache cleared (and
//! primed), a warm-up, the run on the load generator (or, on a route that writes, on the
//! harness's own client), sampled and admitted; or, in slices, both runs of a pair at once.

use super::Batcher;
use crate::load::admission::{Expected, admission};
use crate::load::client::{self, Load, Pace, Workload};
use crate::load::loadgen::LoadRun;
use crate::load::sampler::{Sampler, Usage, measured_window};
use crate::load::slices::{self, Endpoint, SideResult};
use crate::results::sweep::CpuBusy;
use crate::results::{Run, SlicedRound};
use crate::routes;
use crate::stack::page_cache;
use crate::stack::server::RunningApp;
use crate::stack::services;
use anyhow::{Context, Result};
use std::sync::Arc;
use std::time::Duration;

impl Batcher<'_> {
    /// One run of `target` on `route`: the page cache cleared (and primed for a cached
    /// route), a warm-up, then the measured run, sampled and admitted. The load generator's
    /// output goes to `<stem>.<ext>` (and `<stem>-warmup.<ext>`) in the batch folder.
    pub(super) fn measure(
        &self,
        target: &RunningApp,
        route: &str,
        round: u32,
        warmup: Duration,
        stem: &str,
    ) -> Result<Run> {
        if routes::writes(route) {
            return self.measure_comments(target, route, round, warmup, stem);
        }
        let options = self.options;
        let path = routes::path(route).with_context(|| format!("unknown route {route}"))?;
        let url = target.url(path);
        let expected = Expected {
            connections: options.settings.connections,
            body_bytes: Some(self.expected_bytes(route)?),
            writes: false,
        };
        // Apps share the `page:*` keys, and not every app stores the same value there.
        page_cache::clear()?;
        if path.starts_with("/cached/") {
            ureq::get(&url).call()?;
        }
        let raw = |what: &str| {
            self.dir
                .join(format!("{stem}{what}.{}", options.loadgen.extension()))
        };
        options.loadgen.run(
            &url,
            options.settings.connections,
            warmup,
            &options.cpus.load,
            &raw("-warmup"),
            expected.body_bytes,
        )?;
        let sampler = Sampler::start_once_held(
            target.pid(),
            target.port,
            measured_window(options.duration()),
            options.settings.connections,
        );
        let load = options.loadgen.run(
            &url,
            options.settings.connections,
            options.duration(),
            &options.cpus.load,
            &raw(""),
            expected.body_bytes,
        );
        let usage = sampler.finish();
        let raw_output = format!("{stem}.{}", options.loadgen.extension());
        let busy = usage.cpu_busy(&options.cpus);
        Ok(admitted_run(
            round, load?, expected, &usage, busy, raw_output,
        ))
    }

    /// The app's and the pacer's (`[app, pacer]`) runs of one round of a route that reads, in slices
    /// (docs/spec.md §5.5): the page cache cleared and, on a cached route, primed through both
    /// (the pacer keeps its pages in a Redis database of its own), then the slices, each side
    /// sampled over all of them and admitted on its own requests.
    pub(super) fn measure_sliced(
        &self,
        [app, pacer]: [&RunningApp; 2],
        route: &str,
        round: u32,
        pacer_first: bool,
        slice: Duration,
        stem: &str,
    ) -> Result<(Run, Run, SlicedRound)> {
        let options = self.options;
        let raw_output = format!("{stem}-slices.csv");
        let path = routes::path(route).with_context(|| format!("unknown route {route}"))?;
        let page = self
            .reference
            .page(path)
            .map(|page| Arc::new(page.body.clone()))
            .with_context(|| format!("route {route}: {path} is not in the parity sample"))?;
        page_cache::clear()?;
        if path.starts_with("/cached/") {
            for side in [app, pacer] {
                ureq::get(&side.url(path)).call()?;
            }
        }
        let plan = slices::Plan {
            connections: options.settings.connections,
            slice,
            slices: slice_count(options.duration(), slice),
            warmup_slices: slice_count(options.warmup(), slice),
            pacer_first,
        };
        let whole = slice * 2 * (plan.slices + plan.warmup_slices);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(options.cpus.load.len().max(1))
            .enable_all()
            .build()?;
        let samplers = [app, pacer].map(|side| {
            Sampler::start_once_held(
                side.pid(),
                side.port,
                measured_window(whole),
                options.settings.connections,
            )
        });
        let endpoints = [app, pacer].map(|side| Endpoint {
            addr: format!("127.0.0.1:{}", side.port),
            pid: side.pid(),
        });
        let sliced = slices::measure(&runtime, endpoints, path, Arc::clone(&page), plan);
        let [app_usage, pacer_usage] = samplers.map(Sampler::finish);
        let expected = Expected {
            connections: options.settings.connections,
            body_bytes: Some(page.len() as u64),
            writes: false,
        };
        let run = |side: &SideResult, usage: Usage| {
            let usage = Usage {
                app_cpu_percent: side.app_cpu_percent,
                postgres_cpu_percent: side.postgres_cpu_percent,
                redis_cpu_percent: side.redis_cpu_percent,
                ..usage
            };
            let busy = usage.cpu_busy(&options.cpus);
            admitted_run(
                round,
                side.load.clone(),
                expected,
                &usage,
                busy,
                raw_output.clone(),
            )
        };
        let mut rates = Vec::new();
        let (mut app_rates, mut pacer_rates) = (sliced.app.rates.iter(), sliced.pacer.rates.iter());
        for letter in sliced.order.chars() {
            let next = match letter {
                'A' => app_rates.next(),
                _ => pacer_rates.next(),
            };
            rates.extend(next);
        }
        let mut csv = String::from("slice,side,rate_per_sec\n");
        for (index, (side, rate)) in sliced.order.chars().zip(&rates).enumerate() {
            csv += &format!("{},{side},{rate:.3}\n", index + 1);
        }
        std::fs::write(self.dir.join(&raw_output), csv)?;
        Ok((
            run(&sliced.app, app_usage),
            run(&sliced.pacer, pacer_usage),
            SlicedRound {
                round,
                order: sliced.order,
                rates,
            },
        ))
    }

    /// One run of a route that writes (docs/spec.md §5.2), on the harness's own client: the
    /// comments reset and the page cache cleared, a warm-up, again, then the measured run.
    /// Client `i` comments on post `1000 − i` only; every request is kept (`<stem>.csv`).
    pub(super) fn measure_comments(
        &self,
        target: &RunningApp,
        route: &str,
        round: u32,
        warmup: Duration,
        stem: &str,
    ) -> Result<Run> {
        let options = self.options;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(options.cpus.load.len().max(1))
            .enable_all()
            .build()?;
        let start_over = || -> Result<()> {
            services::reset_comments()?;
            page_cache::clear()?;
            Ok(())
        };
        let _writing = services::lock_comments()?;
        start_over()?;
        let posts = client::seeded_posts(target, options.settings.connections)?;
        let workload = Workload::Comments {
            posts: Arc::clone(&posts),
            mixed: route == "mixed",
        };
        let addr = format!("127.0.0.1:{}", target.port);
        let load = |duration: Duration| {
            let load = Load::start(
                &runtime,
                &addr,
                &workload,
                options.settings.connections,
                Pace::Flat,
            );
            std::thread::sleep(duration);
            load.finish(&runtime)
        };
        load(warmup);
        start_over()?;
        let sampler = Sampler::start_once_held(
            target.pid(),
            target.port,
            measured_window(options.duration()),
            options.settings.connections,
        );
        let records = load(options.duration());
        let usage = sampler.finish();
        start_over()?;
        let raw_output = format!("{stem}.csv");
        std::fs::write(self.dir.join(&raw_output), client::records_csv(&records))?;
        let expected = Expected {
            connections: options.settings.connections,
            body_bytes: None,
            writes: true,
        };
        let load = client::summarise(&records, &posts);
        let busy = usage.cpu_busy(&options.cpus);
        Ok(admitted_run(
            round, load, expected, &usage, busy, raw_output,
        ))
    }
}

/// How many slices of `slice` make up `length` (at least one).
pub(super) fn slice_count(length: Duration, slice: Duration) -> u32 {
    ((length.as_secs_f64() / slice.as_secs_f64()).round() as u32).max(1)
}

/// A run's numbers, with whether it counts (docs/spec.md §5.6) and why not.
fn admitted_run(
    round: u32,
    load: LoadRun,
    expected: Expected,
    usage: &Usage,
    cpu_busy: Option<CpuBusy>,
    raw_output: String,
) -> Run {
    let invalid_reason = admission(&load, expected, usage);
    Run {
        index: round,
        requests: load.requests,
        requests_per_sec: load.requests_per_sec,
        latency_ms: load.latency_ms,
        status_codes: load.status_codes,
        errors: load.errors,
        connections: usage.connections_min,
        body_bytes: load.body_bytes,
        wrong_length: load.wrong_length,
        valid: invalid_reason.is_none(),
        invalid_reason,
        app_cpu_percent: usage.app_cpu_percent,
        app_rss_max_mib: usage.app_rss_max_mib,
        postgres_cpu_percent: usage.postgres_cpu_percent,
        redis_cpu_percent: usage.redis_cpu_percent,
        raw_output,
        stale_reads: expected.writes.then_some(load.stale_reads),
        cpu_busy,
    }
}
