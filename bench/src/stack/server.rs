//! Starting an app's binary on a free loopback port and stopping it again.

use crate::stack::apps::App;
use crate::stack::cgroup::MemoryCgroup;
use anyhow::{Context, Result, bail};
use std::fs::File;
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Child;
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

/// The harness's HTTP client for single requests to an app: statuses are answers, not errors;
/// redirects are not followed; each request gets at most `timeout`. A pooled connection is
/// reused only within 1 s: the contract lets a server close one idle for 10 s (hyper's header
/// timeout also bounds the wait for the next request), and a POST sent on a connection the
/// server is closing fails, where ureq's default (15 s) would reuse it.
pub fn http_agent(timeout: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .max_idle_age(Duration::from_secs(1))
        .timeout_global(Some(timeout))
        .build()
        .into()
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
        app.ensure_built()?;
        let port = free_port()?;
        let addr = format!("127.0.0.1:{port}");
        let log_path =
            std::env::temp_dir().join(format!("blogbench-{}-{}.log", app.name, &addr[10..]));
        let log =
            File::create(&log_path).with_context(|| format!("create {}", log_path.display()))?;
        let prefix = match cpus {
            Some(cpus) => vec![
                "taskset".to_owned(),
                "-c".to_owned(),
                crate::stack::cpus::format_list(cpus),
            ],
            None => Vec::new(),
        };
        let mut command = app.command(&prefix);
        if let Some(cgroup) = cgroup {
            // SAFETY: `enter` makes only async-signal-safe calls.
            unsafe { command.pre_exec(move || cgroup.enter()) };
        }
        let child = command
            .env("BIND", &addr)
            .envs(env.iter().copied())
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn()
            .with_context(|| format!("start {}", app.name))?;
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
            // Fine enough to time a start-up (`blogbench idioms`); a refused connect is cheap.
            std::thread::sleep(Duration::from_millis(5));
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

#[cfg(test)]
mod tests {
    use super::http_agent;
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::TcpListener;
    use std::time::{Duration, Instant};

    /// A server that closes a keep-alive connection whose next request comes over 300 ms after
    /// its last answer, without answering it: the request crossed the close of a server that
    /// gave up waiting (hyper does so after its 10 s header timeout).
    fn start_closing_idle_connections() -> String {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let mut writer = stream.unwrap();
                let mut reader = BufReader::new(writer.try_clone().unwrap());
                std::thread::spawn(move || {
                    let mut answered: Option<Instant> = None;
                    loop {
                        let mut length = 0;
                        let mut line = String::new();
                        loop {
                            line.clear();
                            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                                return;
                            }
                            if line == "\r\n" {
                                break;
                            }
                            if let Some(value) =
                                line.to_ascii_lowercase().strip_prefix("content-length:")
                            {
                                length = value.trim().parse().unwrap();
                            }
                        }
                        let mut body = vec![0; length];
                        reader.read_exact(&mut body).unwrap();
                        if answered.is_some_and(|at| at.elapsed() > Duration::from_millis(300)) {
                            return;
                        }
                        let answer =
                            "HTTP/1.1 303 See Other\r\nlocation: /\r\ncontent-length: 0\r\n\r\n";
                        writer.write_all(answer.as_bytes()).unwrap();
                        answered = Some(Instant::now());
                    }
                });
            }
        });
        addr
    }

    #[test]
    fn a_post_after_an_idle_second_goes_on_a_new_connection() {
        let url = format!(
            "http://{}/posts/a/comments",
            start_closing_idle_connections()
        );
        let agent = http_agent(Duration::from_secs(5));
        for _ in 0..2 {
            let response = agent.post(&url).send(&b"author_name=A&body=B"[..]).unwrap();
            assert_eq!(response.status().as_u16(), 303);
            std::thread::sleep(Duration::from_millis(1_200));
        }
    }
}
