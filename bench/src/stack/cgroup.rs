//! A memory cgroup for one app: the limit, the process moved in before it runs a line of its
//! own code, and the OOM kills the kernel made in it. cgroup v1 (`memory.limit_in_bytes`,
//! what this project's machines have) or v2 (`memory.max`), whichever the machine mounts.

use anyhow::{Context, Result, bail};
use std::ffi::CString;
use std::path::{Path, PathBuf};

const V1_ROOT: &str = "/sys/fs/cgroup/memory";
const V2_ROOTS: [&str; 2] = ["/sys/fs/cgroup/unified", "/sys/fs/cgroup"];

#[derive(Debug)]
pub struct MemoryCgroup {
    dir: PathBuf,
    version: Version,
    /// `<dir>/cgroup.procs`, ready for the child between fork and exec.
    procs: CString,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Version {
    V1,
    V2,
}

impl MemoryCgroup {
    /// Creates `blogbench-<name>` with `limit_bytes` of memory (swap included on v1 when
    /// the kernel accounts it, so the limit cannot be dodged by swapping).
    pub fn create(name: &str, limit_bytes: u64) -> Result<MemoryCgroup> {
        let (root, version) = if Path::new(V1_ROOT).join("memory.limit_in_bytes").is_file() {
            (PathBuf::from(V1_ROOT), Version::V1)
        } else if let Some(root) = V2_ROOTS
            .iter()
            .map(PathBuf::from)
            .find(|root| controllers(root).contains("memory"))
        {
            (root, Version::V2)
        } else {
            bail!(
                "no memory cgroup: neither {V1_ROOT} (v1) nor a v2 hierarchy with the memory controller is mounted"
            );
        };
        let dir = root.join(format!("blogbench-{name}"));
        if dir.is_dir() {
            // Left by a run that was killed; empty, or removing it fails and says so.
            std::fs::remove_dir(&dir).with_context(|| format!("remove stale {}", dir.display()))?;
        }
        std::fs::create_dir(&dir).with_context(|| format!("create {} (root?)", dir.display()))?;
        let limit = limit_bytes.to_string();
        match version {
            Version::V1 => {
                write(&dir.join("memory.limit_in_bytes"), &limit)?;
                let memsw = dir.join("memory.memsw.limit_in_bytes");
                if memsw.is_file() {
                    write(&memsw, &limit)?;
                }
            }
            Version::V2 => {
                write(&dir.join("memory.max"), &limit)?;
                write(&dir.join("memory.swap.max"), "0").ok();
            }
        }
        let procs = CString::new(dir.join("cgroup.procs").as_os_str().as_encoded_bytes())?;
        Ok(MemoryCgroup {
            dir,
            version,
            procs,
        })
    }

    /// How the limit is set, for the results.
    pub fn mechanism(&self) -> &'static str {
        match self.version {
            Version::V1 => "cgroup v1 memory.limit_in_bytes",
            Version::V2 => "cgroup v2 memory.max",
        }
    }

    /// OOM kills in the cgroup so far.
    pub fn oom_kills(&self) -> u64 {
        let (file, key) = match self.version {
            Version::V1 => ("memory.oom_control", "oom_kill"),
            Version::V2 => ("memory.events", "oom_kill"),
        };
        std::fs::read_to_string(self.dir.join(file))
            .unwrap_or_default()
            .lines()
            .find_map(|line| line.strip_prefix(key)?.trim().parse().ok())
            .unwrap_or(0)
    }

    /// Moves the calling process into the cgroup. Meant for `Command::pre_exec`: only
    /// `open(2)`, `write(2)` and `close(2)`, which are safe between fork and exec.
    pub fn enter(&self) -> std::io::Result<()> {
        // SAFETY: the path is a valid C string owned by self; the buffer outlives the call.
        unsafe {
            let fd = libc::open(self.procs.as_ptr(), libc::O_WRONLY);
            if fd < 0 {
                return Err(std::io::Error::last_os_error());
            }
            // "0" is the writing process itself.
            let written = libc::write(fd, b"0".as_ptr().cast(), 1);
            libc::close(fd);
            if written != 1 {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(())
    }
}

impl Drop for MemoryCgroup {
    fn drop(&mut self) {
        // The kernel may hold an exited process's charges for a moment; past a second, the
        // next `create` reports what is left.
        for _ in 0..50 {
            if std::fs::remove_dir(&self.dir).is_ok() || !self.dir.exists() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}

fn controllers(root: &Path) -> String {
    std::fs::read_to_string(root.join("cgroup.controllers")).unwrap_or_default()
}

fn write(path: &Path, value: &str) -> Result<()> {
    std::fs::write(path, value).with_context(|| format!("write {value} to {}", path.display()))
}
