//! What `/proc` says about processes: CPU time, memory, descendants, names.

use std::collections::HashMap;

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

#[cfg(test)]
mod tests {
    #[test]
    fn reads_this_process() {
        let me = std::process::id();
        let stat = super::stat(me).unwrap();
        assert!(stat.rss_bytes > 1024 * 1024);
        assert!(super::process_tree(me).contains(&me));
    }
}
