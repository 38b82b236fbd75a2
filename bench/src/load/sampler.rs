//! CPU and memory of the app (its whole process tree), PostgreSQL and Redis during a run,
//! sampled from `/proc` five times a second, the connections the app held, and what the
//! machine took besides: steal time and involuntary context switches.

use crate::results::sweep::{CpuBusy, Taken};
use crate::stack::cpus::CpuSplit;
use crate::stack::processes::{
    CpuTime, HandshakeTrouble, clock_ticks, context_switches, cpu_times, pids_named,
    port_connections, process_tree, stat,
};
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

const INTERVAL: Duration = Duration::from_millis(200);

#[derive(Debug, Clone, Default)]
pub struct Usage {
    pub app_cpu_percent: f64,
    pub app_rss_max_mib: f64,
    pub postgres_cpu_percent: f64,
    pub redis_cpu_percent: f64,
    /// The fewest connections the app held at once in the measured window, counted from
    /// the first sample where it held all it was expected to; the most it held when it
    /// never did (0 when no sample fell in the window).
    pub connections_min: u32,
    /// The most connections waiting in the app's listen queue, not accepted, at once in the
    /// measured window.
    pub unaccepted_max: u32,
    /// The kernel's handshake trouble, machine-wide, while the sampler ran.
    pub handshake_trouble: HandshakeTrouble,
    /// How long the sampler ran: the CPU percentages are of this time.
    pub seconds: f64,
    /// Per CPU (by number), the share of its time that was not idle while the sampler ran.
    pub cpu_busy: Vec<f64>,
    /// Per CPU (by number), the share of its time the hypervisor stole.
    pub cpu_steal: Vec<f64>,
    /// Involuntary context switches per second of the app's processes, and of PostgreSQL's
    /// and Redis's together.
    pub involuntary_switches_app: f64,
    pub involuntary_switches_services: f64,
}

impl Usage {
    /// Why the run does not count when the app held fewer than `expected` connections, with
    /// where the kernel says the others were; `None` when it held them all.
    pub fn connections_short(&self, expected: u32) -> Option<String> {
        let trouble = self.handshake_trouble;
        (self.connections_min < expected).then(|| {
            format!(
                "the app held {} of {expected} connections (at most {} more waited in its \
                 listen queue, not accepted; machine-wide during the run, {} SYNs resent and \
                 {} dropped by a listener)",
                self.connections_min,
                self.unaccepted_max,
                trouble.syns_resent,
                trouble.listen_drops
            )
        })
    }

    /// How busy the split's app CPUs and its services' and generator's CPUs were; `None`
    /// when `/proc/stat` had neither.
    pub fn cpu_busy(&self, cpus: &CpuSplit) -> Option<CpuBusy> {
        let services_and_load = cpus.services_and_load();
        Some(CpuBusy {
            app: self.busy(&cpus.app)?,
            services_and_load: self.busy(&services_and_load)?,
            taken: Some(Taken {
                steal_app: mean_of(&self.cpu_steal, &cpus.app)?,
                steal_services_and_load: mean_of(&self.cpu_steal, &services_and_load)?,
                involuntary_switches_app: self.involuntary_switches_app,
                involuntary_switches_services: self.involuntary_switches_services,
            }),
        })
    }

    /// The mean busy share of `cpus`; `None` when `/proc/stat` had none of them.
    pub fn busy(&self, cpus: &[usize]) -> Option<f64> {
        mean_of(&self.cpu_busy, cpus)
    }
}

/// The mean of `per_cpu` over `cpus`; `None` when it has none of them.
fn mean_of(per_cpu: &[f64], cpus: &[usize]) -> Option<f64> {
    let shares: Vec<f64> = cpus
        .iter()
        .filter_map(|&cpu| per_cpu.get(cpu).copied())
        .collect();
    (!shares.is_empty()).then(|| shares.iter().sum::<f64>() / shares.len() as f64)
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
        Sampler::start_once_held(app_pid, app_port, window, 0)
    }

    /// Like [`Sampler::start`], but connections count only once the app holds `connections`
    /// within `window`: a load generator opens them all at once, and the kernel resends a SYN
    /// it dropped (or the app accepts one it left queued) only later in the run.
    pub fn start_once_held(
        app_pid: u32,
        app_port: u16,
        window: Range<Duration>,
        connections: u32,
    ) -> Sampler {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let handle =
            std::thread::spawn(move || sample(app_pid, app_port, &window, connections, &flag));
        Sampler { stop, handle }
    }

    pub fn finish(self) -> Usage {
        self.stop.store(true, Ordering::SeqCst);
        self.handle.join().unwrap_or_default()
    }
}

fn sample(
    app_pid: u32,
    app_port: u16,
    window: &Range<Duration>,
    expected: u32,
    stop: &AtomicBool,
) -> Usage {
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
    let involuntary = |pids: &[u32]| pids.iter().map(|&pid| context_switches(pid).1).sum::<u64>();
    let started = Instant::now();
    let first_cpus = cpu_times();
    let first_trouble = HandshakeTrouble::now();
    let first_groups = groups();
    let first = first_groups.clone().map(|pids| cpu_ticks(&pids));
    let first_switches = [
        involuntary(&first_groups[0]),
        involuntary(&first_groups[1]) + involuntary(&first_groups[2]),
    ];
    let mut last = first;
    let mut last_switches = first_switches;
    let mut usage = Usage::default();
    let mut connections_min: Option<u32> = None;
    let mut connections_most = 0;
    loop {
        let [tree, postgres, redis] = groups();
        let rss: u64 = tree
            .iter()
            .filter_map(|&p| stat(p).map(|s| s.rss_bytes))
            .sum();
        usage.app_rss_max_mib = usage.app_rss_max_mib.max(rss as f64 / (1024.0 * 1024.0));
        if window.contains(&started.elapsed()) {
            let connections = port_connections(&tree, app_port);
            let held = connections.held;
            usage.unaccepted_max = usage.unaccepted_max.max(connections.unaccepted);
            connections_most = connections_most.max(held);
            if connections_min.is_some() || held >= expected {
                connections_min = Some(connections_min.map_or(held, |min| min.min(held)));
            }
        }
        let now = [&tree, &postgres, &redis].map(|pids| cpu_ticks(pids));
        let switches_now = [
            involuntary(&tree),
            involuntary(&postgres) + involuntary(&redis),
        ];
        // A process that exited takes its ticks and switches with it; keep the highest
        // totals seen.
        for (l, n) in last.iter_mut().zip(now) {
            *l = (*l).max(n);
        }
        for (l, n) in last_switches.iter_mut().zip(switches_now) {
            *l = (*l).max(n);
        }
        if stop.load(Ordering::SeqCst) {
            break;
        }
        std::thread::sleep(INTERVAL);
    }
    usage.handshake_trouble = HandshakeTrouble::now().since(first_trouble);
    let cpus_now = cpu_times();
    let share = |part: fn(&CpuTime) -> u64| -> Vec<f64> {
        cpus_now
            .iter()
            .zip(&first_cpus)
            .map(|(now, then)| {
                let total = now.total.saturating_sub(then.total);
                part(now).saturating_sub(part(then)) as f64 / total.max(1) as f64
            })
            .collect()
    };
    usage.cpu_busy = share(|time| time.busy);
    usage.cpu_steal = share(|time| time.steal);
    let seconds = started.elapsed().as_secs_f64().max(1e-3);
    let per_second = |i: usize| last_switches[i].saturating_sub(first_switches[i]) as f64 / seconds;
    usage.involuntary_switches_app = per_second(0);
    usage.involuntary_switches_services = per_second(1);
    let percent = |i: usize| (last[i] - first[i]) as f64 / ticks_per_sec / seconds * 100.0;
    usage.app_cpu_percent = percent(0);
    usage.postgres_cpu_percent = percent(1);
    usage.redis_cpu_percent = percent(2);
    usage.connections_min = connections_min.unwrap_or(connections_most);
    usage.seconds = seconds;
    usage
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{TcpListener, TcpStream};

    const WINDOW: Range<Duration> = Duration::from_millis(150)..Duration::from_millis(1300);

    /// This process as the app: two connections open at once, the second accepted only after
    /// 600 ms (a slow accept loop, or a SYN resent later).
    fn second_held_late(sampler: impl FnOnce(u32, u16) -> Sampler) -> Usage {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let clients = [(); 2].map(|_| TcpStream::connect(("127.0.0.1", port)).unwrap());
        let first = listener.accept().unwrap();
        let sampler = sampler(std::process::id(), port);
        std::thread::sleep(Duration::from_millis(600));
        let second = listener.accept().unwrap();
        std::thread::sleep(Duration::from_millis(900));
        let usage = sampler.finish();
        drop((clients, first, second));
        usage
    }

    #[test]
    fn a_thread_spinning_on_cpu_0_shows_as_cpu_0_busy() {
        let sampler = Sampler::start(std::process::id(), 0, Duration::ZERO..Duration::ZERO);
        std::thread::spawn(|| {
            crate::stack::cpus::pin_current_thread(0).unwrap();
            let until = Instant::now() + Duration::from_millis(800);
            while Instant::now() < until {
                std::hint::spin_loop();
            }
        })
        .join()
        .unwrap();
        let usage = sampler.finish();
        let busy = usage.busy(&[0]).expect("CPU 0 in /proc/stat");
        assert!(busy >= 0.8, "CPU 0 busy {busy}: {:?}", usage.cpu_busy);
        assert!(
            usage
                .cpu_busy
                .iter()
                .all(|share| (0.0..=1.0).contains(share))
        );
        assert_eq!(usage.busy(&[usage.cpu_busy.len()]), None);
    }

    #[test]
    fn a_plain_window_counts_connections_from_its_start() {
        let usage = second_held_late(|pid, port| Sampler::start(pid, port, WINDOW));
        assert_eq!(usage.connections_min, 1);
        assert_eq!(usage.unaccepted_max, 1, "the second waited to be accepted");
        let reason = usage.connections_short(2).unwrap();
        assert!(
            reason.starts_with("the app held 1 of 2 connections (at most 1 more waited"),
            "{reason}"
        );
        assert_eq!(usage.connections_short(1), None);
    }

    #[test]
    fn connections_count_once_the_app_holds_them_all() {
        let usage = second_held_late(|pid, port| Sampler::start_once_held(pid, port, WINDOW, 2));
        assert_eq!(usage.connections_min, 2);
    }

    #[test]
    fn an_app_that_never_holds_them_all_reports_the_most_it_held() {
        let usage = second_held_late(|pid, port| Sampler::start_once_held(pid, port, WINDOW, 3));
        assert_eq!(usage.connections_min, 2);
    }
}
