//! What `/proc` says about processes: CPU time, memory, descendants, names.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

pub struct Stat {
    /// utime + stime, in clock ticks.
    pub ticks: u64,
    pub user_ticks: u64,
    pub system_ticks: u64,
    pub rss_bytes: u64,
}

/// CPU time and RSS from `/proc/<pid>/stat`.
pub fn stat(pid: u32) -> Option<Stat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces; fields after it are plain.
    let fields: Vec<&str> = text.rsplit_once(')')?.1.split_whitespace().collect();
    let field = |n: usize| fields.get(n - 3)?.parse::<u64>().ok();
    let (user_ticks, system_ticks) = (field(14)?, field(15)?);
    Some(Stat {
        ticks: user_ticks + system_ticks,
        user_ticks,
        system_ticks,
        rss_bytes: field(24)? * page_size(),
    })
}

/// One CPU's time from `/proc/stat`, in clock ticks.
#[derive(Debug, Clone, Copy, Default)]
pub struct CpuTime {
    pub busy: u64,
    /// Busy plus idle and waiting for I/O.
    pub total: u64,
}

/// Every CPU's time so far, indexed by CPU number (`cpuN` lines of `/proc/stat`).
pub fn cpu_times() -> Vec<CpuTime> {
    let text = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let mut times = Vec::new();
    for line in text.lines() {
        let mut fields = line.split_whitespace();
        let Some(cpu) = fields
            .next()
            .and_then(|name| name.strip_prefix("cpu")?.parse::<usize>().ok())
        else {
            continue;
        };
        // user nice system idle iowait irq softirq steal; guest time is already in user.
        let ticks: Vec<u64> = fields.take(8).filter_map(|f| f.parse().ok()).collect();
        if ticks.len() < 8 {
            continue;
        }
        let idle = ticks[3] + ticks[4];
        let total: u64 = ticks.iter().sum();
        if times.len() <= cpu {
            times.resize(cpu + 1, CpuTime::default());
        }
        times[cpu] = CpuTime {
            busy: total - idle,
            total,
        };
    }
    times
}

/// `pid` and all its descendants.
pub fn process_tree(pid: u32) -> Vec<u32> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for child in entries
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        {
            let parent = std::fs::read_to_string(format!("/proc/{child}/stat"))
                .ok()
                .and_then(|t| {
                    t.rsplit_once(')')?
                        .1
                        .split_whitespace()
                        .nth(1)?
                        .parse::<u32>()
                        .ok()
                });
            if let Some(parent) = parent {
                children.entry(parent).or_default().push(child);
            }
        }
    }
    let mut tree = vec![pid];
    let mut i = 0;
    while i < tree.len() {
        tree.extend(children.get(&tree[i]).into_iter().flatten());
        i += 1;
    }
    tree
}

/// The resident memory of `pid` and all its descendants, bytes.
pub fn tree_rss_bytes(pid: u32) -> u64 {
    process_tree(pid)
        .into_iter()
        .filter_map(stat)
        .map(|s| s.rss_bytes)
        .sum()
}

pub fn clock_ticks() -> f64 {
    // SAFETY: sysconf only reads a configuration value.
    (unsafe { libc::sysconf(libc::_SC_CLK_TCK) }) as f64
}

fn page_size() -> u64 {
    // SAFETY: as above.
    (unsafe { libc::sysconf(libc::_SC_PAGESIZE) }) as u64
}

/// The processes whose command name is `comm` (e.g. `postgres`, `redis-server`).
pub fn pids_named(comm: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.trim() == comm)
        })
        .collect()
}

/// The established TCP connections whose local port is `port`, split by whether one of
/// `pids` accepted them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PortConnections {
    /// Open in one of the processes (the socket's inode in `/proc/<pid>/fd`).
    pub held: u32,
    /// Handshakes the kernel completed that wait in the listen queue, accepted by none.
    pub unaccepted: u32,
}

/// The connections on `port` that `pids` accepted and those still waiting for it: a plain
/// look at `/proc/net/tcp` would count both as the app's.
pub fn port_connections(pids: &[u32], port: u16) -> PortConnections {
    let inodes = socket_inodes(pids);
    let mut connections = PortConnections::default();
    for socket in tcp_sockets().filter(|s| s.local_port == port && s.established) {
        if inodes.contains(&socket.inode) {
            connections.held += 1;
        } else {
            connections.unaccepted += 1;
        }
    }
    connections
}

/// The connections on `port` that `pids` really accepted ([`port_connections`]).
pub fn connections_held(pids: &[u32], port: u16) -> u32 {
    port_connections(pids, port).held
}

/// The kernel's machine-wide counts of TCP handshakes that went wrong (`TcpExt` in
/// `/proc/net/netstat`): a client whose SYN was dropped sends it again only a second later,
/// so its connection reaches the app late in a short run, or never.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HandshakeTrouble {
    /// SYNs and SYN-ACKs sent again (`TCPSynRetrans`).
    pub syns_resent: u64,
    /// Connection attempts a listener dropped, its queue full or otherwise (`ListenDrops`).
    pub listen_drops: u64,
}

impl HandshakeTrouble {
    /// The counts so far (zero where the kernel does not give them).
    pub fn now() -> HandshakeTrouble {
        let text = std::fs::read_to_string("/proc/net/netstat").unwrap_or_default();
        // Each group is two lines: `TcpExt: Name …`, then `TcpExt: value …`.
        let lines: Vec<&str> = text.lines().collect();
        let counters: HashMap<&str, u64> = lines
            .chunks(2)
            .filter(|pair| pair.len() == 2 && pair[0].starts_with("TcpExt:"))
            .flat_map(|pair| {
                pair[0]
                    .split_whitespace()
                    .zip(pair[1].split_whitespace())
                    .skip(1)
                    .filter_map(|(name, value)| Some((name, value.parse().ok()?)))
            })
            .collect();
        let counter = |name| counters.get(name).copied().unwrap_or(0);
        HandshakeTrouble {
            syns_resent: counter("TCPSynRetrans"),
            listen_drops: counter("ListenDrops"),
        }
    }

    /// What happened between `earlier` and `self`.
    pub fn since(self, earlier: HandshakeTrouble) -> HandshakeTrouble {
        HandshakeTrouble {
            syns_resent: self.syns_resent.saturating_sub(earlier.syns_resent),
            listen_drops: self.listen_drops.saturating_sub(earlier.listen_drops),
        }
    }
}

/// Waits until the process tree of `pid` holds `connections` on `port` ([`connections_held`]),
/// for at most `limit`.
pub fn await_connections_held(pid: u32, port: u16, connections: u32, limit: Duration) {
    let started = Instant::now();
    while connections_held(&process_tree(pid), port) < connections && started.elapsed() < limit {
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The local ports of the TCP sockets open in `pids` (e.g. an app's PostgreSQL
/// connections, as `pg_stat_activity.client_port` shows them).
pub fn local_ports(pids: &[u32]) -> HashSet<u16> {
    let inodes = socket_inodes(pids);
    tcp_sockets()
        .filter(|s| inodes.contains(&s.inode))
        .map(|s| s.local_port)
        .collect()
}

/// The inodes of the sockets `pids` have open (`socket:[1234]` links in `/proc/<pid>/fd`).
fn socket_inodes(pids: &[u32]) -> HashSet<u64> {
    pids.iter()
        .filter_map(|pid| std::fs::read_dir(format!("/proc/{pid}/fd")).ok())
        .flat_map(|fds| fds.flatten())
        .filter_map(|fd| {
            let target = std::fs::read_link(fd.path()).ok()?;
            target
                .to_str()?
                .strip_prefix("socket:[")?
                .strip_suffix(']')?
                .parse()
                .ok()
        })
        .collect()
}

struct TcpSocket {
    local_port: u16,
    established: bool,
    inode: u64,
}

/// Every IPv4 and IPv6 TCP socket (`/proc/net/tcp`, `/proc/net/tcp6`).
fn tcp_sockets() -> impl Iterator<Item = TcpSocket> {
    ["/proc/net/tcp", "/proc/net/tcp6"]
        .into_iter()
        .filter_map(|table| std::fs::read_to_string(table).ok())
        .flat_map(|table| {
            table
                .lines()
                .skip(1)
                .filter_map(tcp_socket)
                .collect::<Vec<_>>()
        })
}

/// One row of `/proc/net/tcp`: local address, remote address, state (`01` = ESTABLISHED), …,
/// inode in the tenth column.
fn tcp_socket(row: &str) -> Option<TcpSocket> {
    let cols: Vec<&str> = row.split_whitespace().collect();
    Some(TcpSocket {
        local_port: u16::from_str_radix(cols.get(1)?.rsplit_once(':')?.1, 16).ok()?,
        established: *cols.get(3)? == "01",
        inode: cols.get(9)?.parse().ok()?,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_only_connections_the_process_accepted() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let me = [std::process::id()];
        // Two handshakes completed by the kernel, none accepted: the client sockets are ours
        // too, but on other local ports.
        let _a = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        let _b = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        assert_eq!(super::connections_held(&me, port), 0);
        let (_accepted, _) = listener.accept().unwrap();
        assert_eq!(super::connections_held(&me, port), 1);
        assert_eq!(super::connections_held(&[], port), 0);
        let waiting = super::PortConnections {
            held: 1,
            unaccepted: 1,
        };
        assert_eq!(super::port_connections(&me, port), waiting);
    }

    /// A listener with a queue of one that accepts nothing: a third or fourth client's SYN
    /// finds the queue full (Linux queues one more than asked), the kernel drops it, and
    /// the client sends it again a second later.
    #[test]
    fn a_full_listen_queue_shows_as_dropped_and_resent_syns() {
        use std::os::fd::AsRawFd;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        // Linux takes a second listen() on a listening socket as its new queue length.
        // SAFETY: a plain call on a socket this test owns.
        let queue_set = unsafe { libc::listen(listener.as_raw_fd(), 1) };
        assert_eq!(queue_set, 0, "{}", std::io::Error::last_os_error());
        let addr = listener.local_addr().unwrap();
        let before = super::HandshakeTrouble::now();
        let clients: Vec<_> = (0..4)
            .map(|_| {
                std::thread::spawn(move || {
                    std::net::TcpStream::connect_timeout(
                        &addr,
                        std::time::Duration::from_millis(1500),
                    )
                })
            })
            .collect();
        std::thread::sleep(std::time::Duration::from_millis(1200));
        let trouble = super::HandshakeTrouble::now().since(before);
        assert!(trouble.listen_drops >= 1, "{trouble:?}");
        assert!(trouble.syns_resent >= 1, "{trouble:?}");
        drop(listener);
        for client in clients {
            let _ = client.join();
        }
    }

    #[test]
    fn waits_for_connections_until_they_are_accepted() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let me = std::process::id();
        let limit = std::time::Duration::from_secs(2);
        let _client = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        let waited = std::time::Instant::now();
        super::await_connections_held(me, port, 1, limit);
        assert!(
            waited.elapsed() >= limit,
            "returned before the connection was accepted"
        );
        let (_accepted, _) = listener.accept().unwrap();
        let waited = std::time::Instant::now();
        super::await_connections_held(me, port, 1, limit);
        assert!(
            waited.elapsed() < limit,
            "waited for a connection already held"
        );
    }

    #[test]
    fn reads_tcp_rows() {
        let row = "   0: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 4242 1 0000000000000000 20 4 30 10 -1";
        let socket = super::tcp_socket(row).unwrap();
        assert_eq!(
            (socket.local_port, socket.established, socket.inode),
            (8080, true, 4242)
        );
        let listening = row.replacen(" 01 ", " 0A ", 1);
        assert!(!super::tcp_socket(&listening).unwrap().established);
    }

    #[test]
    fn reads_this_process() {
        let me = std::process::id();
        let stat = super::stat(me).unwrap();
        assert!(stat.rss_bytes > 1024 * 1024);
        assert!(super::process_tree(me).contains(&me));
    }
}
