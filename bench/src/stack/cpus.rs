//! CPU sets for the app, the services (PostgreSQL + Redis) and the load generator, in
//! `taskset -c` list syntax, and pinning the running services to theirs.

use super::processes::pids_named;
use crate::results::CpuSets;
use anyhow::{Context, Result, bail};
use std::path::Path;
use std::process::Command;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuSplit {
    pub app: Vec<usize>,
    pub services: Vec<usize>,
    pub load: Vec<usize>,
    pub note: String,
}

impl CpuSplit {
    /// The split as a results file records it, with what `taskset` could not pin.
    pub fn recorded(&self, unpinned: Vec<String>) -> CpuSets {
        CpuSets {
            app: format_list(&self.app),
            services: format_list(&self.services),
            load: format_list(&self.load),
            note: self.note.clone(),
            unpinned,
        }
    }

    /// The CPUs PostgreSQL, Redis and the load generator run on, each once.
    pub fn services_and_load(&self) -> Vec<usize> {
        let mut cpus: Vec<usize> = self.services.iter().chain(&self.load).copied().collect();
        cpus.sort_unstable();
        cpus.dedup();
        cpus
    }
}

/// The default split for a machine with `cores` CPUs: the reference report's 0–3 / 4–7 /
/// 8–11 from 12 cores up; below that, the app gets half, and the rest is shared out.
pub fn default_split(cores: usize) -> CpuSplit {
    let range = |from: usize, to: usize| (from..to).collect::<Vec<_>>();
    let (app, services, load, note) = match cores {
        0 | 1 => (
            vec![0],
            vec![0],
            vec![0],
            "1 core: everything shares CPU 0; numbers are indicative only",
        ),
        2 => (
            vec![0],
            vec![1],
            vec![1],
            "2 cores: app on CPU 0; services and load generator share CPU 1",
        ),
        3 => (vec![0], vec![1], vec![2], "3 cores: one CPU each"),
        4..=11 => {
            let app = cores / 2;
            let services = (cores - app) / 2;
            (
                range(0, app),
                range(app, app + services),
                range(app + services, cores),
                "fewer than 12 cores: half for the app, the rest split between services and load",
            )
        }
        _ => (
            range(0, 4),
            range(4, 8),
            range(8, 12),
            "the reference report's split: app 0-3, services 4-7, load 8-11",
        ),
    };
    CpuSplit {
        app,
        services,
        load,
        note: note.to_owned(),
    }
}

/// Parses `0-3,6` into `[0, 1, 2, 3, 6]`.
pub fn parse_list(list: &str) -> Result<Vec<usize>> {
    let mut cpus = Vec::new();
    for part in list.split(',').map(str::trim) {
        let (from, to) = part.split_once('-').unwrap_or((part, part));
        let (from, to): (usize, usize) = (
            from.parse()
                .with_context(|| format!("bad CPU list {list:?}"))?,
            to.parse()
                .with_context(|| format!("bad CPU list {list:?}"))?,
        );
        if from > to {
            bail!("bad CPU range {part:?} in {list:?}");
        }
        cpus.extend(from..=to);
    }
    Ok(cpus)
}

/// `[0, 1, 2, 3, 6]` as `0,1,2,3,6` (taskset reads it; people can too).
pub fn format_list(cpus: &[usize]) -> String {
    cpus.iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// Services pinned for the batch; dropping it gives each process back the affinity it had.
pub struct PinnedServices {
    originals: Vec<(u32, String)>,
    /// What could not be pinned, with taskset's reason.
    pub unpinned: Vec<String>,
}

impl PinnedServices {
    /// Pins every thread of every PostgreSQL and Redis process to `cpus`. New Postgres
    /// backends inherit the postmaster's affinity. A process that exits meanwhile (a
    /// backend closing) is no failure; one that stays unpinned is.
    pub fn pin(cpus: &[usize]) -> Result<PinnedServices> {
        let mut pinned = PinnedServices {
            originals: Vec::new(),
            unpinned: Vec::new(),
        };
        for service in ["postgres", "redis-server"] {
            let pids = pids_named(service);
            if pids.is_empty() {
                pinned.unpinned.push(format!(
                    "{service}: no process found; start it with `make services`"
                ));
            }
            for pid in pids {
                let Some(mask) = affinity_mask(pid) else {
                    continue;
                };
                match pin_process(pid, cpus) {
                    Ok(()) => pinned.originals.push((pid, mask)),
                    Err(_) if !Path::new(&format!("/proc/{pid}")).exists() => {}
                    Err(err) => pinned
                        .unpinned
                        .push(format!("{service} (pid {pid}): {err:#}")),
                }
            }
        }
        Ok(pinned)
    }
}

/// Pins every thread of `pid` (and the threads it starts later) to `cpus`.
pub fn pin_process(pid: u32, cpus: &[usize]) -> Result<()> {
    let list = format_list(cpus);
    let output = Command::new("taskset")
        .args(["-a", "-p", "-c", &list, &pid.to_string()])
        .output()
        .context("run taskset (Debian package util-linux)")?;
    if !output.status.success() {
        bail!(
            "taskset could not pin pid {pid} to CPUs {list}: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(())
}

/// Pins the calling thread to `cpu`.
pub fn pin_current_thread(cpu: usize) -> Result<()> {
    // SAFETY: sets the calling thread's affinity from a set this frame owns.
    let pinned = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set)
    };
    if pinned != 0 {
        bail!(
            "could not pin a thread to CPU {cpu}: {}",
            std::io::Error::last_os_error()
        );
    }
    Ok(())
}

/// Every CPU in `cpus` exists on this machine (taskset would fail later, app by app).
pub fn check_available(what: &str, cpus: &[usize], cores: usize) -> Result<()> {
    if cpus.is_empty() {
        bail!("no CPUs given for the {what}");
    }
    if let Some(cpu) = cpus.iter().find(|&&cpu| cpu >= cores) {
        bail!(
            "CPU {cpu} for the {what} does not exist: this machine has CPUs 0-{}",
            cores - 1
        );
    }
    Ok(())
}

/// `taskset -p`'s hexadecimal mask of `pid`.
fn affinity_mask(pid: u32) -> Option<String> {
    let output = Command::new("taskset")
        .args(["-p", &pid.to_string()])
        .output()
        .ok()?;
    let text = String::from_utf8(output.stdout).ok()?;
    Some(text.rsplit(": ").next()?.trim().to_owned())
}

impl Drop for PinnedServices {
    fn drop(&mut self) {
        for (pid, mask) in &self.originals {
            let _ = Command::new("taskset")
                .args(["-a", "-p", mask, &pid.to_string()])
                .output();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_splits() {
        let big = default_split(16);
        assert_eq!(
            (big.app, big.services, big.load),
            (vec![0, 1, 2, 3], vec![4, 5, 6, 7], vec![8, 9, 10, 11])
        );
        let two = default_split(2);
        assert_eq!(
            (two.app, two.services, two.load),
            (vec![0], vec![1], vec![1])
        );
        let eight = default_split(8);
        assert_eq!(
            (eight.app, eight.services, eight.load),
            (vec![0, 1, 2, 3], vec![4, 5], vec![6, 7])
        );
    }

    #[test]
    fn lists_round_trip() {
        assert_eq!(parse_list("0-3,6").unwrap(), vec![0, 1, 2, 3, 6]);
        assert_eq!(format_list(&[0, 1, 6]), "0,1,6");
        assert!(parse_list("3-1").is_err());
        assert!(parse_list("a").is_err());
    }
}
