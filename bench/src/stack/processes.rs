//! What `/proc` says about processes: CPU time, memory, descendants, names, and their TCP
//! sockets (asked one by one).

use std::collections::{HashMap, HashSet};
use std::os::fd::{AsRawFd, FromRawFd, RawFd};
use std::os::unix::fs::MetadataExt;
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
    /// Time the hypervisor ran something else while this virtual CPU had work (part of
    /// `busy`).
    pub steal: u64,
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
            steal: ticks[7],
        };
    }
    times
}

/// Voluntary and involuntary context switches so far over every thread of `pid`.
pub fn context_switches(pid: u32) -> (u64, u64) {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return (0, 0);
    };
    let mut totals = (0, 0);
    for task in tasks.flatten() {
        let Ok(status) = std::fs::read_to_string(task.path().join("status")) else {
            continue;
        };
        for line in status.lines() {
            let value = |prefix: &str| line.strip_prefix(prefix)?.trim().parse::<u64>().ok();
            if let Some(n) = value("voluntary_ctxt_switches:") {
                totals.0 += n;
            } else if let Some(n) = value("nonvoluntary_ctxt_switches:") {
                totals.1 += n;
            }
        }
    }
    totals
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

/// The TCP connections on an app's port, from its side.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PortConnections {
    /// Established connections open in one of the processes.
    pub held: u32,
    /// Handshakes the kernel completed that wait in the listen queue, accepted by none.
    pub unaccepted: u32,
}

/// The connections on `port` that `pids` accepted and those waiting in their listen queue.
/// Each socket the processes hold is asked in turn ([`tcp_sockets_of`]): the kernel serves
/// `/proc/net/tcp` a page at a time while its table changes, so a walk of it can miss
/// established connections (docs/spec.md §5.6).
pub fn port_connections(pids: &[u32], port: u16) -> PortConnections {
    let mut connections = PortConnections::default();
    for socket in tcp_sockets_of(pids)
        .into_iter()
        .filter(|s| s.local_port == port)
    {
        match socket.state {
            TcpState::Established => connections.held += 1,
            TcpState::Listening { queued } => connections.unaccepted += queued,
            TcpState::Other => {}
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

/// A TCP socket as the process holding it sees it.
struct TcpSocket {
    local_port: u16,
    state: TcpState,
}

/// `tcpi_state` values (the kernel's include/net/tcp_states.h; libc does not name them).
const TCP_ESTABLISHED: u8 = 1;
const TCP_LISTEN: u8 = 10;

enum TcpState {
    Established,
    /// A listener, with the connections in its accept queue.
    Listening {
        queued: u32,
    },
    Other,
}

/// The TCP sockets open in `pids`, each once however many of them share it: every socket in
/// `/proc/<pid>/fd` copied into this process (`pidfd_getfd`, allowed to root or a parent) and
/// asked for its inode, address and state. A process or descriptor gone meanwhile is
/// skipped.
fn tcp_sockets_of(pids: &[u32]) -> Vec<TcpSocket> {
    let mut seen = HashSet::new();
    let mut sockets = Vec::new();
    for &pid in pids {
        let Ok(process) = Pidfd::open(pid) else {
            continue;
        };
        let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            let is_socket = std::fs::read_link(fd.path()).is_ok_and(|target| {
                target
                    .as_os_str()
                    .as_encoded_bytes()
                    .starts_with(b"socket:")
            });
            let number = fd.file_name().to_str().and_then(|n| n.parse().ok());
            let (true, Some(number)) = (is_socket, number) else {
                continue;
            };
            // The copy, not the listing, names the socket: a descriptor closed (or its number
            // reused) between the two must not mark a socket seen that was never asked.
            let Some(copy) = process.copy_fd(number).map(std::fs::File::from) else {
                continue;
            };
            if let Ok(metadata) = copy.metadata()
                && seen.insert(metadata.ino())
                && let Some(socket) = tcp_socket(&copy)
            {
                sockets.push(socket);
            }
        }
    }
    sockets
}

/// A process, by a pidfd: its file descriptors can be copied without a race on its pid.
struct Pidfd(std::os::fd::OwnedFd);

impl Pidfd {
    fn open(pid: u32) -> std::io::Result<Pidfd> {
        // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: the descriptor was just opened and nothing else owns it.
        Ok(Pidfd(unsafe {
            std::os::fd::OwnedFd::from_raw_fd(fd as RawFd)
        }))
    }

    /// This process's copy of the process's descriptor `fd` (closed on drop).
    fn copy_fd(&self, fd: RawFd) -> Option<std::os::fd::OwnedFd> {
        // SAFETY: pidfd_getfd reads two descriptors and flags and returns a new descriptor
        // or -1.
        let copy = unsafe { libc::syscall(libc::SYS_pidfd_getfd, self.0.as_raw_fd(), fd, 0) };
        // SAFETY: as in `open`.
        (copy >= 0).then(|| unsafe { std::os::fd::OwnedFd::from_raw_fd(copy as RawFd) })
    }
}

/// The local port and state of `socket` when it is TCP (`getsockname`, `TCP_INFO`).
fn tcp_socket(socket: &impl AsRawFd) -> Option<TcpSocket> {
    let fd = socket.as_raw_fd();
    // SAFETY: tcp_info is plain integers, for which all zeros is a value.
    let mut info: libc::tcp_info = unsafe { std::mem::zeroed() };
    let mut length = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
    // SAFETY: getsockopt writes at most `length` bytes into `info`; a socket that is not TCP
    // makes it fail.
    let asked = unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            (&raw mut info).cast(),
            &mut length,
        )
    };
    if asked != 0 {
        return None;
    }
    // SAFETY: as for tcp_info.
    let mut address: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    let mut address_length = std::mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t;
    // SAFETY: getsockname writes at most `address_length` bytes into `address`.
    let named = unsafe { libc::getsockname(fd, (&raw mut address).cast(), &mut address_length) };
    if named != 0 {
        return None;
    }
    // sin_port and sin6_port sit at the same offset, in network byte order.
    // SAFETY: the storage holds an AF_INET or AF_INET6 address, both starting like sockaddr_in.
    let port = unsafe { (*(&raw const address).cast::<libc::sockaddr_in>()).sin_port };
    let state = match info.tcpi_state {
        TCP_ESTABLISHED => TcpState::Established,
        // A listener's unacked count is the length of its accept queue.
        TCP_LISTEN => TcpState::Listening {
            queued: info.tcpi_unacked,
        },
        _ => TcpState::Other,
    };
    Some(TcpSocket {
        local_port: u16::from_be(port),
        state,
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

    /// Fifty connections held throughout while others open and close beside them (each
    /// leaving a TIME_WAIT socket): every look counts the fifty, each once even when two
    /// processes of the tree share a socket (here: this process named twice).
    #[test]
    fn counts_every_held_connection_once_while_others_come_and_go() {
        use std::net::{TcpListener, TcpStream};
        use std::sync::atomic::{AtomicBool, Ordering};
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let clients: Vec<_> = (0..50)
            .map(|_| TcpStream::connect(("127.0.0.1", port)).unwrap())
            .collect();
        let held: Vec<_> = (0..50).map(|_| listener.accept().unwrap()).collect();
        let other = TcpListener::bind("127.0.0.1:0").unwrap();
        let other_addr = other.local_addr().unwrap();
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let churn = {
            let stop = std::sync::Arc::clone(&stop);
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let client = TcpStream::connect(other_addr).unwrap();
                    drop(other.accept().unwrap());
                    drop(client);
                }
            })
        };
        let me = std::process::id();
        for _ in 0..100 {
            let connections = super::port_connections(&[me, me], port);
            let all_held = super::PortConnections {
                held: 50,
                unaccepted: 0,
            };
            assert_eq!(connections, all_held);
        }
        stop.store(true, Ordering::Relaxed);
        churn.join().unwrap();
        drop((clients, held));
    }

    /// A socket whose descriptor is copied and closed again and again beside the count (as
    /// a process tree passes descriptors around, or as another count copies every socket of
    /// this process) is counted in every look, once. The copies take free numbers below the
    /// held socket's, so a listing meets a copy first.
    #[test]
    fn counts_a_socket_once_while_copies_of_it_come_and_go() {
        use std::net::{TcpListener, TcpStream};
        use std::sync::Arc;
        use std::sync::atomic::{AtomicBool, Ordering};
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let _client = TcpStream::connect(("127.0.0.1", port)).unwrap();
        // Free numbers below the held socket's, more than the count itself opens.
        let gap: Vec<_> = (0..16)
            .map(|_| std::fs::File::open("/dev/null").unwrap())
            .collect();
        let held = Arc::new(listener.accept().unwrap().0);
        drop(gap);
        let stop = Arc::new(AtomicBool::new(false));
        let copies = {
            let (held, stop) = (Arc::clone(&held), Arc::clone(&stop));
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    drop(held.try_clone().unwrap());
                }
            })
        };
        let me = std::process::id();
        let looks: Vec<u32> = (0..20_000)
            .map(|_| super::connections_held(&[me], port))
            .collect();
        stop.store(true, Ordering::Relaxed);
        copies.join().unwrap();
        let wrong: Vec<&u32> = looks.iter().filter(|&&held| held != 1).collect();
        assert!(
            wrong.is_empty(),
            "{} of 20000 looks counted other than the one held connection: {:?}",
            wrong.len(),
            &wrong[..wrong.len().min(10)]
        );
    }

    /// The kernel serves `/proc/net/tcp` a page at a time and starts each page again at a
    /// count of sockets into one bucket of its established-socket hash table, so sockets
    /// added to or removed from that bucket between two pages make a walk list one socket
    /// twice or skip one that stayed. In a network namespace whose table has the fewest
    /// buckets the kernel allows (128, `net.ipv4.tcp_child_ehash_entries`), with connections
    /// opened and reset beside fifty held ones, a count from that file goes wrong within a
    /// fraction of a second; asking each socket never does.
    #[test]
    fn counts_every_held_connection_while_others_are_reset_in_a_crowded_socket_table() {
        let looks = std::thread::spawn(|| {
            crowded_socket_table::enter();
            let (port, held) = crowded_socket_table::fifty_held_connections();
            let churn = crowded_socket_table::Churn::start();
            let me = std::process::id();
            let all_held = super::PortConnections {
                held: 50,
                unaccepted: 0,
            };
            for _ in 0..2_000 {
                assert_eq!(super::port_connections(&[me], port), all_held);
            }
            churn.stop();
            drop(held);
        });
        looks
            .join()
            .expect("every look counts the fifty held connections");
    }

    /// A network namespace with a small established-socket table, entered by the calling
    /// thread only (network namespaces are per thread), and the threads that churn in it.
    mod crowded_socket_table {
        use std::net::{TcpListener, TcpStream};
        use std::os::fd::AsRawFd;
        use std::sync::Arc;
        use std::sync::atomic::{AtomicBool, Ordering};

        /// Moves this thread into a new namespace whose child namespaces get 128 buckets,
        /// sets that size there (so the machine's own setting is untouched), then into such a
        /// child, and brings its loopback up. Its ports are taken above Linux's default
        /// ephemeral range (32768–60999), where no socket this process holds in the machine's
        /// namespace has one: a count looks at every socket of the process, whatever its
        /// namespace, so two sockets on one port number would both be counted.
        pub fn enter() {
            unshare_network();
            std::fs::write("/proc/sys/net/ipv4/tcp_child_ehash_entries", "128")
                .expect("setting the child table size in the test's own namespace");
            unshare_network();
            let up = std::process::Command::new("ip")
                .args(["link", "set", "lo", "up"])
                .status()
                .expect("running ip (iproute2)");
            assert!(up.success(), "ip link set lo up: {up}");
            let buckets = std::fs::read_to_string("/proc/sys/net/ipv4/tcp_ehash_entries")
                .expect("reading the namespace's table size");
            assert_eq!(buckets.trim(), "128");
            std::fs::write("/proc/sys/net/ipv4/ip_local_port_range", "61000 65000")
                .expect("setting the namespace's own port range");
        }

        fn unshare_network() {
            // SAFETY: a plain system call on this thread's own namespaces.
            let unshared = unsafe { libc::unshare(libc::CLONE_NEWNET) };
            assert_eq!(
                unshared,
                0,
                "unshare(CLONE_NEWNET), which needs root: {}",
                std::io::Error::last_os_error()
            );
        }

        pub fn fifty_held_connections() -> (u16, Vec<(TcpStream, TcpStream)>) {
            let listener = TcpListener::bind("127.0.0.1:0").unwrap();
            let port = listener.local_addr().unwrap().port();
            let held = (0..50)
                .map(|_| {
                    let client = TcpStream::connect(("127.0.0.1", port)).unwrap();
                    (client, listener.accept().unwrap().0)
                })
                .collect();
            (port, held)
        }

        /// Two threads, in the caller's namespace, that open connections and reset both
        /// ends (no TIME_WAIT: the kernel takes them out of the table at once).
        pub struct Churn {
            stop: Arc<AtomicBool>,
            threads: Vec<std::thread::JoinHandle<()>>,
        }

        impl Churn {
            pub fn start() -> Churn {
                let namespace = std::fs::File::open("/proc/thread-self/ns/net").unwrap();
                let stop = Arc::new(AtomicBool::new(false));
                let threads = (0..2)
                    .map(|_| {
                        // One listener per thread, so each accepts the connection it opened.
                        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
                        let namespace = namespace.try_clone().unwrap();
                        let stop = Arc::clone(&stop);
                        std::thread::spawn(move || {
                            // SAFETY: joins this new thread to the namespace the file names.
                            let joined =
                                unsafe { libc::setns(namespace.as_raw_fd(), libc::CLONE_NEWNET) };
                            assert_eq!(joined, 0, "{}", std::io::Error::last_os_error());
                            let address = listener.local_addr().unwrap();
                            while !stop.load(Ordering::Relaxed) {
                                let client = TcpStream::connect(address).unwrap();
                                let (served, _) = listener.accept().unwrap();
                                for end in [&client, &served] {
                                    reset_on_close(end);
                                }
                            }
                        })
                    })
                    .collect();
                Churn { stop, threads }
            }

            pub fn stop(self) {
                self.stop.store(true, Ordering::Relaxed);
                for thread in self.threads {
                    thread.join().unwrap();
                }
            }
        }

        fn reset_on_close(stream: &TcpStream) {
            let linger = libc::linger {
                l_onoff: 1,
                l_linger: 0,
            };
            // SAFETY: setsockopt reads `linger`, of the size given, from this stack frame.
            let set = unsafe {
                libc::setsockopt(
                    stream.as_raw_fd(),
                    libc::SOL_SOCKET,
                    libc::SO_LINGER,
                    (&raw const linger).cast(),
                    std::mem::size_of::<libc::linger>() as libc::socklen_t,
                )
            };
            assert_eq!(set, 0, "{}", std::io::Error::last_os_error());
        }
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
    fn reads_this_process() {
        let me = std::process::id();
        let stat = super::stat(me).unwrap();
        assert!(stat.rss_bytes > 1024 * 1024);
        assert!(super::process_tree(me).contains(&me));
    }
}
