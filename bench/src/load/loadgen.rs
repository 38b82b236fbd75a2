//! The load generators: `oha` (JSON output) and `wrk` (a Lua `done()` hook prints JSON).
//! Both run pinned to the load CPU set; their raw output is kept beside the results.

use crate::results::Latency;
use anyhow::{Context, Result, bail};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Loadgen {
    Oha,
    Wrk,
}

/// What one load run measured.
#[derive(Debug, Clone, Default)]
pub struct LoadRun {
    pub requests: u64,
    pub requests_per_sec: f64,
    pub latency_ms: Latency,
    pub status_codes: BTreeMap<String, u64>,
    pub errors: BTreeMap<String, u64>,
    /// Body bytes over every response (oha).
    pub body_bytes: Option<u64>,
    /// Responses whose body was not the expected length (wrk counts them one by one), or
    /// not a page the app may serve (the harness's client).
    pub wrong_length: Option<u64>,
    /// Reads that did not show the comment their client had just posted (the harness's
    /// client, docs/spec.md §5.2), and the first of them described.
    pub stale_reads: u64,
    pub first_stale_read: Option<String>,
}

/// A request still unanswered after this counts as an error (a timeout), so a stalled app
/// ends its run instead of hanging the batch.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

impl Loadgen {
    pub fn name(self) -> &'static str {
        match self {
            Loadgen::Oha => "oha",
            Loadgen::Wrk => "wrk",
        }
    }

    /// `oha 1.16.0`, `wrk 4.1.0`, or why not.
    pub fn version(self) -> Result<String> {
        let output = match self {
            Loadgen::Oha => Command::new("oha").arg("--version").output(),
            Loadgen::Wrk => Command::new("wrk").arg("-v").output(),
        }
        .with_context(|| self.missing())?;
        let text = String::from_utf8_lossy(&output.stdout).to_string()
            + &String::from_utf8_lossy(&output.stderr);
        Ok(text.lines().next().unwrap_or_default().trim().to_owned())
    }

    /// The extension of its raw output files.
    pub fn extension(self) -> &'static str {
        match self {
            Loadgen::Oha => "json",
            Loadgen::Wrk => "txt",
        }
    }

    fn missing(self) -> String {
        match self {
            Loadgen::Oha => {
                "oha is not installed: run `make tools` (cargo install --locked oha)".to_owned()
            }
            Loadgen::Wrk => "wrk is not installed: apt-get install wrk".to_owned(),
        }
    }

    /// Loads `url` with `connections` for `duration`, pinned to `cpus`; writes the raw
    /// output to `raw`. With `expected_bytes`, every response body should have that length:
    /// oha reports the total, wrk counts the responses that differ.
    pub fn run(
        self,
        url: &str,
        connections: u32,
        duration: Duration,
        cpus: &[usize],
        raw: &Path,
        expected_bytes: Option<u64>,
    ) -> Result<LoadRun> {
        let timeout = format!("{}s", REQUEST_TIMEOUT.as_secs());
        let mut command = Command::new("taskset");
        command.args(["-c", &crate::stack::cpus::format_list(cpus)]);
        match self {
            // -w: wait for requests in flight at the deadline instead of counting them as
            // errors (oha cuts them otherwise).
            Loadgen::Oha => command.args([
                "oha",
                "--no-tui",
                "--output-format",
                "json",
                "-w",
                "-t",
                &timeout,
                "-z",
                &format!("{}ms", duration.as_millis()),
                "-c",
            ]),
            Loadgen::Wrk => {
                if duration.subsec_nanos() != 0 || duration.is_zero() {
                    bail!("wrk runs whole seconds: {duration:?} cannot be run as recorded");
                }
                let script = raw.with_extension("lua");
                std::fs::write(&script, wrk_script(expected_bytes))?;
                command
                    .args(["wrk", "--latency", "--timeout", &timeout])
                    .args(["-t", &cpus.len().max(1).to_string()])
                    .args(["-d", &format!("{}s", duration.as_secs()), "-s"])
                    .arg(script)
                    .arg("-c")
            }
        };
        command.arg(connections.to_string()).arg(url);
        let output = command.output().with_context(|| self.missing())?;
        std::fs::write(raw, &output.stdout)?;
        if !output.status.success() {
            bail!(
                "{} failed ({}): {}",
                self.name(),
                output.status,
                String::from_utf8_lossy(&output.stderr)
            );
        }
        let text = String::from_utf8_lossy(&output.stdout);
        match self {
            Loadgen::Oha => parse_oha(&text),
            Loadgen::Wrk => parse_wrk(&text),
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct OhaOutput {
    summary: OhaSummary,
    latency_percentiles: BTreeMap<String, Option<f64>>,
    #[serde(default)]
    status_code_distribution: BTreeMap<String, u64>,
    #[serde(default)]
    error_distribution: BTreeMap<String, u64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct OhaSummary {
    /// Seconds.
    total: f64,
    slowest: Option<f64>,
    /// Body bytes of every response.
    total_data: Option<u64>,
}

/// oha's JSON: latencies in seconds. Its own `requestsPerSec` counts failed requests too,
/// so the rate here is responses per second.
pub fn parse_oha(json: &str) -> Result<LoadRun> {
    let output: OhaOutput = serde_json::from_str(json).context("parse oha's JSON output")?;
    let percentile = |key: &str| {
        output
            .latency_percentiles
            .get(key)
            .copied()
            .flatten()
            .unwrap_or(0.0)
            * 1000.0
    };
    let ok: u64 = output.status_code_distribution.values().sum();
    let errors: u64 = output.error_distribution.values().sum();
    Ok(LoadRun {
        requests: ok + errors,
        requests_per_sec: ok as f64 / output.summary.total.max(1e-9),
        latency_ms: Latency {
            p50: percentile("p50"),
            p90: percentile("p90"),
            p99: percentile("p99"),
            p999: percentile("p99.9"),
            max: output.summary.slowest.unwrap_or(0.0) * 1000.0,
        },
        status_codes: output.status_code_distribution,
        errors: output.error_distribution,
        body_bytes: output.summary.total_data,
        wrong_length: None,
        stale_reads: 0,
        first_stale_read: None,
    })
}

/// wrk's Lua script: prints one JSON line when wrk finishes (latencies in microseconds) and,
/// with `expected_bytes`, counts responses whose body has another length (each thread
/// counts its own; `done` adds them up).
fn wrk_script(expected_bytes: Option<u64>) -> String {
    let check = match expected_bytes {
        Some(bytes) => format!(
            r#"
wrong_length = 0
response = function(status, headers, body)
  if #body ~= {bytes} then wrong_length = wrong_length + 1 end
end
"#
        ),
        None => String::new(),
    };
    format!(
        r#"
local threads = {{}}
setup = function(thread) table.insert(threads, thread) end
{check}
done = function(summary, latency, requests)
  local wrong = 0
  for _, thread in ipairs(threads) do wrong = wrong + (thread:get("wrong_length") or 0) end
  local e = summary.errors
  io.write(string.format(
    '{{"requests":%d,"duration_us":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,' ..
    '"wrong_length":%d,"p50":%f,"p90":%f,"p99":%f,"p999":%f,"max":%f}}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout, wrong,
    latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency:percentile(99.9), latency.max))
end
"#
    )
}

#[derive(Deserialize)]
struct WrkDone {
    requests: u64,
    duration_us: u64,
    connect: u64,
    read: u64,
    write: u64,
    status: u64,
    timeout: u64,
    #[serde(default)]
    wrong_length: u64,
    p50: f64,
    p90: f64,
    p99: f64,
    p999: f64,
    max: f64,
}

/// The JSON line of [`wrk_script`]. wrk does not break responses down by status: its
/// `status` count is every response outside 2xx/3xx, recorded here as `non-2xx/3xx`.
pub fn parse_wrk(text: &str) -> Result<LoadRun> {
    let line = text
        .lines()
        .rev()
        .find(|l| l.starts_with('{'))
        .context("no JSON line from wrk's done() hook")?;
    let done: WrkDone = serde_json::from_str(line).context("parse wrk's done() line")?;
    let mut errors = BTreeMap::new();
    for (name, count) in [
        ("connect", done.connect),
        ("read", done.read),
        ("write", done.write),
        ("timeout", done.timeout),
    ] {
        if count > 0 {
            errors.insert(name.to_owned(), count);
        }
    }
    let mut status_codes = BTreeMap::new();
    status_codes.insert("2xx/3xx".to_owned(), done.requests - done.status);
    if done.status > 0 {
        status_codes.insert("non-2xx/3xx".to_owned(), done.status);
    }
    Ok(LoadRun {
        requests: done.requests,
        requests_per_sec: done.requests as f64 / (done.duration_us as f64 / 1e6),
        latency_ms: Latency {
            p50: done.p50 / 1000.0,
            p90: done.p90 / 1000.0,
            p99: done.p99 / 1000.0,
            p999: done.p999 / 1000.0,
            max: done.max / 1000.0,
        },
        status_codes,
        errors,
        body_bytes: None,
        wrong_length: Some(done.wrong_length),
        stale_reads: 0,
        first_stale_read: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_oha_json_counting_responses_not_failures() {
        let json = r#"{"summary":{"total":2.0,"slowest":0.05,"requestsPerSec":9999.0},
            "latencyPercentiles":{"p50":0.001,"p90":0.002,"p99":0.003,"p99.9":0.004,"p99.99":null},
            "statusCodeDistribution":{"200":1000},"errorDistribution":{"connection closed":10}}"#;
        let run = parse_oha(json).unwrap();
        assert_eq!(run.requests_per_sec, 500.0);
        assert_eq!(run.requests, 1010);
        assert_eq!(
            (run.latency_ms.p50, run.latency_ms.p999, run.latency_ms.max),
            (1.0, 4.0, 50.0)
        );
        assert_eq!(run.errors["connection closed"], 10);
        assert_eq!(run.body_bytes, None, "no totalData in this output");
        let with_data = json.replace(r#""total":2.0,"#, r#""total":2.0,"totalData":10698000,"#);
        assert_eq!(parse_oha(&with_data).unwrap().body_bytes, Some(10_698_000));
    }

    #[test]
    fn the_wrk_script_checks_lengths_only_when_asked() {
        assert!(wrk_script(Some(10698)).contains("#body ~= 10698"));
        assert!(!wrk_script(None).contains("response ="));
    }

    #[test]
    fn parses_wrk_done_line() {
        let text = "Running 1s test\n{\"requests\":1000,\"duration_us\":2000000,\"connect\":0,\"read\":2,\"write\":0,\"status\":5,\"timeout\":0,\"wrong_length\":3,\"p50\":1500.0,\"p90\":2000.0,\"p99\":3000.0,\"p999\":4000.0,\"max\":9000.0}\n";
        let run = parse_wrk(text).unwrap();
        assert_eq!(run.requests_per_sec, 500.0);
        assert_eq!(run.latency_ms.p50, 1.5);
        assert_eq!(run.errors["read"], 2);
        assert_eq!(run.status_codes["non-2xx/3xx"], 5);
        assert_eq!(run.wrong_length, Some(3));
    }
}
