//! Starting an app's release binary on a free loopback port and stopping it again.

use crate::stack::apps::App;
use crate::stack::cgroup::MemoryCgroup;
use anyhow::{Context, Result, bail};
use std::fs::File;
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command};
use std::sync::Arc;
use std::time::{Duration, Instant};

const READY_TIMEOUT: Duration = Duration::from_secs(30);
const STOP_TIMEOUT: Duration = Duration::from_secs(5);

/// A running app; dropping it stops the process (SIGTERM, then SIGKILL after 5 s).
pub struct RunningApp {
    pub name: String,
    pub base_url: String,
    pub port: u16,
    pub log_path: PathBuf,
    child: Child,
}

/// A port the kernel has just handed out and released.
pub fn free_port() -> Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

impl RunningApp {
    /// Starts `app` on `127.0.0.1:<free port>` with `env` added to this process's
    /// environment, and waits until it answers HTTP.
    pub fn start(app: &App, env: &[(&str, &str)]) -> Result<Self> {
        Self::start_pinned(app, env, None)
    }

    /// As [`RunningApp::start`], pinned to `cpus` with `taskset` when given (taskset execs
    /// the app, so the child's pid is the app's).
    pub fn start_pinned(app: &App, env: &[(&str, &str)], cpus: Option<&[usize]>) -> Result<Self> {
        Self::start_in(app, env, cpus, None)
    }

    /// As [`RunningApp::start_pinned`], inside `cgroup` when given (entered before exec, so
    /// nothing the app allocates escapes the limit).
    pub fn start_in(
        app: &App,
        env: &[(&str, &str)],
        cpus: Option<&[usize]>,
        cgroup: Option<Arc<MemoryCgroup>>,
    ) -> Result<Self> {
        let binary = app.binary_path();
        if !binary.is_file() {
            bail!(
                "{}: no release binary at {}; build it with `make build`",
                app.name,
                binary.display()
            );
        }
        let port = free_port()?;
        let addr = format!("127.0.0.1:{port}");
        let log_path =
            std::env::temp_dir().join(format!("blogbench-{}-{}.log", app.name, &addr[10..]));
        let log =
            File::create(&log_path).with_context(|| format!("create {}", log_path.display()))?;
        let mut command = match cpus {
            Some(cpus) => {
                let mut taskset = Command::new("taskset");
                taskset
                    .args(["-c", &crate::stack::cpus::format_list(cpus)])
                    .arg(&binary);
                taskset
            }
            None => Command::new(&binary),
        };
        if let Some(cgroup) = cgroup {
            // SAFETY: `enter` makes only async-signal-safe calls.
            unsafe { command.pre_exec(move || cgroup.enter()) };
        }
        let child = command
            .args(&app.manifest.args)
            .env("BIND", &addr)
            .envs(env.iter().copied())
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn()
            .with_context(|| format!("start {}", binary.display()))?;
        let mut running = RunningApp {
            name: app.name.clone(),
            base_url: format!("http://{addr}"),
            port,
            log_path,
            child,
        };
        running.wait_ready(&addr)?;
        Ok(running)
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url)
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the process is alive (not exited, not a zombie waiting to be reaped).
    pub fn is_running(&self) -> bool {
        std::fs::read_to_string(format!("/proc/{}/stat", self.pid()))
            .ok()
            .and_then(|stat| Some(stat.rsplit_once(')')?.1.trim_start().starts_with('Z')))
            .is_some_and(|zombie| !zombie)
    }

    fn wait_ready(&mut self, addr: &str) -> Result<()> {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait()? {
                bail!(
                    "{} exited during start-up ({status}):\n{}",
                    self.name,
                    self.log_tail()
                );
            }
            if TcpStream::connect(addr).is_ok() {
                return Ok(());
            }
            if started.elapsed() > READY_TIMEOUT {
                bail!(
                    "{} did not listen on {addr} within {READY_TIMEOUT:?}:\n{}",
                    self.name,
                    self.log_tail()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The last lines the app printed.
    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log_path).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }

    /// Stops the app and waits for it to exit.
    pub fn stop(mut self) {
        self.terminate();
    }

    fn terminate(&mut self) {
        if self.child.try_wait().ok().flatten().is_some() {
            return;
        }
        // SAFETY: kill(2) on our own child's pid has no memory effects.
        unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM) };
        let deadline = Instant::now() + STOP_TIMEOUT;
        while Instant::now() < deadline {
            if self.child.try_wait().ok().flatten().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for RunningApp {
    fn drop(&mut self) {
        self.terminate();
    }
}
