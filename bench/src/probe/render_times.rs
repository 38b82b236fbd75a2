//! Each template engine alone on the pages' real view data (`blogbench profile --templates`).

use crate::results::profile::RenderTimes;
use crate::stack::apps;
use anyhow::{Context, Result, ensure};
use std::path::Path;
use std::process::Command;

/// Runs the Criterion benchmark `templates/benches/render.rs` (Tera) and Go's
/// `BenchmarkRender` (html/template), both on the same pages from the database; Criterion's
/// own files go to `raw`.
pub fn render_times(raw: &Path) -> Result<RenderTimes> {
    let workspace = apps::workspace_dir();
    let mut times = RenderTimes::default();
    let mut run = |dir: &Path, program: &str, args: &[&str]| -> Result<String> {
        times.commands.push(format!("{program} {}", args.join(" ")));
        let output = Command::new(program)
            .current_dir(dir)
            .env("CRITERION_HOME", raw.join("criterion"))
            .args(args)
            .output()
            .with_context(|| format!("run {program}"))?;
        ensure!(
            output.status.success(),
            "{program} {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        );
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    };
    // `cargo test --profile … -- --bench` runs the Criterion benchmark `make build` built;
    // `cargo bench` would build everything again in the bench profile.
    let criterion = run(
        &workspace,
        "cargo",
        &[
            "test",
            "--profile",
            apps::PROFILE,
            "--workspace",
            "--bench",
            "render",
            "--",
            "--bench",
            "--output-format",
            "bencher",
        ],
    )?;
    let go = run(
        &workspace.join("go-reference"),
        "go",
        &[
            "test",
            "-run",
            "^$",
            "-bench",
            "^BenchmarkRender$",
            "-benchtime",
            "2s",
            ".",
        ],
    )?;
    for (engine, page, nanos) in parse_bencher(&criterion)
        .into_iter()
        .chain(parse_go_bench(&go))
    {
        times
            .micros
            .entry(engine)
            .or_default()
            .insert(page, nanos / 1000.0);
    }
    ensure!(
        !times.micros.is_empty(),
        "no benchmark results in:\n{criterion}\n{go}"
    );
    Ok(times)
}

/// Criterion's `--output-format bencher`: `test tera/home ... bench:  123,456 ns/iter (+/- 7)`.
pub fn parse_bencher(text: &str) -> Vec<(String, String, f64)> {
    text.lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("test ")?;
            let (name, rest) = rest.split_once(" ... bench:")?;
            let (engine, page) = name.trim().split_once('/')?;
            let nanos = rest
                .split_whitespace()
                .next()?
                .replace(',', "")
                .parse()
                .ok()?;
            Some((engine.to_owned(), page.to_owned(), nanos))
        })
        .collect()
}

/// `go test -bench`: `BenchmarkRender/home-2   12345   98765 ns/op` (the suffix is GOMAXPROCS).
pub fn parse_go_bench(text: &str) -> Vec<(String, String, f64)> {
    text.lines()
        .filter_map(|line| {
            let cols: Vec<&str> = line.split_whitespace().collect();
            let name = cols.first()?.strip_prefix("BenchmarkRender/")?;
            let page = name.rsplit_once('-').map_or(name, |(page, _)| page);
            let at = cols.iter().position(|c| *c == "ns/op")?;
            let nanos = cols.get(at.checked_sub(1)?)?.parse().ok()?;
            Some(("html/template".to_owned(), page.to_owned(), nanos))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_both_benchmark_outputs() {
        let criterion = "Gnuplot not found\ntest tera/home ... bench:       61,234 ns/iter (+/- 1,020)\n\
                         test tera/post ... bench:        9876 ns/iter (+/- 20)\n";
        assert_eq!(
            parse_bencher(criterion),
            [
                ("tera".to_owned(), "home".to_owned(), 61234.0),
                ("tera".to_owned(), "post".to_owned(), 9876.0)
            ]
        );
        let go = "goos: linux\nBenchmarkRender/home-2   \t   30000\t     40123 ns/op\n\
                  BenchmarkRender/tag-2 1000 5.5 ns/op\nPASS\n";
        assert_eq!(
            parse_go_bench(go),
            [
                ("html/template".to_owned(), "home".to_owned(), 40123.0),
                ("html/template".to_owned(), "tag".to_owned(), 5.5)
            ]
        );
    }
}
