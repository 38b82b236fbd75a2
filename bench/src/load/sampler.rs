//! CPU and memory of the app (its whole process tree), PostgreSQL and Redis during a run,
//! sampled from `/proc` five times a second, and the connections the app held.

use crate::stack::processes::{clock_ticks, connections_held, pids_named, process_tree, stat};
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

const INTERVAL: Duration = Duration::from_millis(200);

#[derive(Debug, Clone, Copy, Default)]
pub struct Usage {
    pub app_cpu_percent: f64,
    pub app_rss_max_mib: f64,
    pub postgres_cpu_percent: f64,
    pub redis_cpu_percent: f64,
    /// The fewest connections the app held at once in the measured window (0 when no
    /// sample fell in it).
    pub connections_min: u32,
    /// How long the sampler ran: the CPU percentages are of this time.
    pub seconds: f64,
}

pub struct Sampler {
    stop: Arc<AtomicBool>,
    handle: JoinHandle<Usage>,
}

/// The part of a run of `duration` whose connection samples count: from 20 % to 90 %, so
/// the load generator's connecting and closing stay out of it.
pub fn measured_window(duration: Duration) -> Range<Duration> {
    duration.mul_f64(0.2)..duration.mul_f64(0.9)
}

impl Sampler {
    /// Samples from now until [`Sampler::finish`]; connections count within `window`
    /// (measured from now).
    pub fn start(app_pid: u32, app_port: u16, window: Range<Duration>) -> Sampler {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let handle = std::thread::spawn(move || sample(app_pid, app_port, &window, &flag));
        Sampler { stop, handle }
    }

    pub fn finish(self) -> Usage {
        self.stop.store(true, Ordering::SeqCst);
        self.handle.join().unwrap_or_default()
    }
}

fn sample(app_pid: u32, app_port: u16, window: &Range<Duration>, stop: &AtomicBool) -> Usage {
    let ticks_per_sec = clock_ticks();
    let cpu_ticks = |pids: &[u32]| {
        pids.iter()
            .filter_map(|&p| stat(p).map(|s| s.ticks))
            .sum::<u64>()
    };
    let groups = || {
        [
            process_tree(app_pid),
            pids_named("postgres"),
            pids_named("redis-server"),
        ]
    };
    let started = Instant::now();
    let first = groups().map(|pids| cpu_ticks(&pids));
    let mut last = first;
    let mut usage = Usage::default();
    let mut connections_min: Option<u32> = None;
    loop {
        let [tree, postgres, redis] = groups();
        let rss: u64 = tree
            .iter()
            .filter_map(|&p| stat(p).map(|s| s.rss_bytes))
            .sum();
        usage.app_rss_max_mib = usage.app_rss_max_mib.max(rss as f64 / (1024.0 * 1024.0));
        if window.contains(&started.elapsed()) {
            let held = connections_held(&tree, app_port);
            connections_min = Some(connections_min.map_or(held, |min| min.min(held)));
        }
        let now = [&tree, &postgres, &redis].map(|pids| cpu_ticks(pids));
        // A process that exited takes its ticks with it; keep the highest total seen.
        for (l, n) in last.iter_mut().zip(now) {
            *l = (*l).max(n);
        }
        if stop.load(Ordering::SeqCst) {
            break;
        }
        std::thread::sleep(INTERVAL);
    }
    let seconds = started.elapsed().as_secs_f64().max(1e-3);
    let percent = |i: usize| (last[i] - first[i]) as f64 / ticks_per_sec / seconds * 100.0;
    usage.app_cpu_percent = percent(0);
    usage.postgres_cpu_percent = percent(1);
    usage.redis_cpu_percent = percent(2);
    usage.connections_min = connections_min.unwrap_or(0);
    usage.seconds = seconds;
    usage
}
