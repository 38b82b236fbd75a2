//! "Where the time goes": the report section made from a `blogbench profile` folder.

use super::markdown::{Table, escape};
use super::numbers;
use crate::results::profile::{Gc, Profile, RenderTimes};

pub fn section(id: &str, profiles: &[Profile], render_times: Option<&RenderTimes>) -> String {
    if profiles.is_empty() {
        return String::new();
    }
    let first = &profiles[0];
    let mut text = format!(
        "## Where the time goes\n\n\
         From `blogbench profile` run {id}, separate from the fair runs above because its probes \
         perturb the apps: each app reaches PostgreSQL through a relay that counts protocol \
         messages, and `strace` and `perf` attach in windows of their own after the measured one. \
         Load as in a fair run ({} connections, {:.0} s measured); every figure is per request \
         (per page) in that window.\n\n",
        first.connections, first.duration_secs,
    );

    text.push_str("### CPU time per request (µs)\n\n");
    let mut cpu = Table::new([
        "app",
        "route",
        "req/s (profiled)",
        "app",
        "kernel (app's syscalls)",
        "PostgreSQL",
        "Redis",
        "total",
    ])
    .numbers(2..);
    for p in profiles {
        let c = &p.cpu_us_per_request;
        cpu.row(vec![
            p.app.clone(),
            p.route.clone(),
            numbers::per_sec(p.requests_per_sec),
            format!("{:.1}", c.app),
            format!("{:.1}", c.kernel),
            format!("{:.1}", c.postgres),
            format!("{:.1}", c.redis),
            format!("{:.1}", c.app + c.kernel + c.postgres + c.redis),
        ]);
    }
    text.push_str(&cpu.to_markdown());

    text.push_str(
        "\n### PostgreSQL round trips and Redis commands per page\n\n\
         Round trips = flights of requests on the app's connections (requests sent together \
         share one); queries = executions `pg_stat_statements` counted; pings = the pool's \
         liveness checks (a `Sync` with nothing before it), counted on the wire whether or \
         not they shared a flight with statements. An app that sends statements together \
         has fewer round trips than queries.\n\n",
    );
    let mut trips = Table::new([
        "app",
        "route",
        "round trips",
        "queries",
        "pings",
        "new connections",
        "Redis commands",
    ])
    .numbers(2..6);
    for p in profiles {
        let pg = &p.postgres_per_page;
        let queries = pg.queries_executed;
        trips.row(vec![
            p.app.clone(),
            p.route.clone(),
            format!("{:.2}", pg.round_trips),
            queries.map_or("n/a".to_owned(), |q| format!("{q:.2}")),
            pg.pings.map_or("n/a".to_owned(), |n| format!("{n:.2}")),
            pg.connections_opened.to_string(),
            per_name(p.redis_commands_per_request.iter(), 4),
        ]);
    }
    text.push_str(&trips.to_markdown());

    text.push_str("\n### Context switches and syscalls per request\n\n");
    let mut kernel = Table::new([
        "app",
        "route",
        "voluntary switches",
        "involuntary switches",
        "syscalls",
        "most frequent syscalls",
    ])
    .numbers(2..5);
    for p in profiles {
        let switches = &p.context_switches_per_request;
        let (total, top) = match &p.syscalls_per_request {
            Some(calls) => {
                let mut by_count: Vec<(&String, &f64)> =
                    calls.iter().filter(|(name, _)| *name != "total").collect();
                by_count.sort_by(|a, b| b.1.total_cmp(a.1));
                (
                    calls
                        .get("total")
                        .map_or("n/a".to_owned(), |t| format!("{t:.1}")),
                    per_name(by_count.into_iter(), 4),
                )
            }
            None => ("n/a".to_owned(), "not measured".to_owned()),
        };
        kernel.row(vec![
            p.app.clone(),
            p.route.clone(),
            format!("{:.2}", switches.voluntary),
            format!("{:.2}", switches.involuntary),
            total,
            top,
        ]);
    }
    text.push_str(&kernel.to_markdown());

    for (heading, collector) in [
        (
            "Go garbage collector (`GODEBUG=gctrace=1`)",
            (|p: &Profile| p.go_gc.as_ref()) as fn(&Profile) -> Option<&Gc>,
        ),
        ("JVM garbage collector (`-Xlog:gc`)", |p| p.jvm_gc.as_ref()),
    ] {
        let gc: Vec<(&Profile, &Gc)> = profiles
            .iter()
            .filter_map(|p| Some((p, collector(p)?)))
            .collect();
        if gc.is_empty() {
            continue;
        }
        text.push_str(&format!("\n### {heading}\n\n"));
        let mut table =
            Table::new(["app", "route", "collections/s", "stop-the-world share"]).numbers(2..);
        for (p, g) in gc {
            table.row(vec![
                p.app.clone(),
                p.route.clone(),
                format!("{:.1}", g.collections_per_sec),
                format!("{:.2} %", g.pause_percent),
            ]);
        }
        text.push_str(&table.to_markdown());
    }

    if let Some(times) = render_times {
        text.push_str(&format!(
            "\n### Template render time (µs per page, the engine alone)\n\n\
             Each engine on the same pages' view data, loaded once from the database: `{}`.\n\n",
            times.commands.join("`, `")
        ));
        let mut table = Table::new(["engine", "home", "post", "tag"]).numbers(1..);
        for (engine, pages) in &times.micros {
            let cell = |page: &str| {
                pages
                    .get(page)
                    .map_or("n/a".to_owned(), |us| format!("{us:.1}"))
            };
            table.row(vec![
                engine.clone(),
                cell("home"),
                cell("post"),
                cell("tag"),
            ]);
        }
        text.push_str(&table.to_markdown());
    }

    let graphs: Vec<String> = profiles
        .iter()
        .filter_map(|p| p.flamegraph.as_ref())
        .map(|file| escape(file))
        .collect();
    if !graphs.is_empty() {
        text.push_str(&format!(
            "\nFlame graphs (perf + inferno) in the profile folder: {}.\n",
            graphs.join(", ")
        ));
    }
    let missing: Vec<String> = profiles
        .iter()
        .flat_map(|p| {
            p.unavailable.iter().map(move |(what, why)| {
                format!(
                    "- {} {}: {}: {}",
                    escape(&p.app),
                    p.route,
                    what,
                    escape(why)
                )
            })
        })
        .collect();
    if !missing.is_empty() {
        text.push_str(&format!(
            "\nNot measured on this machine:\n\n{}\n",
            missing.join("\n")
        ));
    }
    text
}

/// `get 1.00, set 0.02`: the first `limit` entries.
fn per_name<'a>(entries: impl Iterator<Item = (&'a String, &'a f64)>, limit: usize) -> String {
    let listed: Vec<String> = entries
        .take(limit)
        .map(|(name, n)| format!("{name} {n:.2}"))
        .collect();
    if listed.is_empty() {
        "none".to_owned()
    } else {
        listed.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::profile::{CpuPerRequest, Gc, PostgresPerPage};
    use std::collections::BTreeMap;

    fn profile(app: &str, round_trips: f64, queries: Option<f64>, pings: Option<f64>) -> Profile {
        Profile {
            app: app.to_owned(),
            route: "detail".to_owned(),
            connections: 50,
            duration_secs: 25.0,
            requests_per_sec: 3000.0,
            cpu_us_per_request: CpuPerRequest {
                app: 100.0,
                kernel: 50.0,
                postgres: 200.0,
                redis: 0.0,
            },
            postgres_per_page: PostgresPerPage {
                round_trips,
                pings,
                statements_sent: 3.0,
                queries_executed: queries,
                connections_opened: 0,
            },
            ..Profile::default()
        }
    }

    #[test]
    fn tables_show_pings_gc_render_times_and_what_was_not_measured() {
        let mut go = profile("go", 3.0, Some(3.0), Some(0.0));
        go.go_gc = Some(Gc {
            collections_per_sec: 12.5,
            pause_percent: 0.25,
        });
        let mut axum = profile("axum-sqlx", 4.0, None, Some(1.0));
        // Pipelined: its ping shares a flight, so round trips − queries would say none.
        let pipelining = profile("axum-postgres", 2.0, Some(3.0), Some(1.0));
        let recorded_before_pings = profile("rocket", 4.0, Some(3.0), None);
        axum.unavailable
            .insert("flame graph".to_owned(), "perf: <denied>".to_owned());
        let times = RenderTimes {
            micros: BTreeMap::from([(
                "tera".to_owned(),
                BTreeMap::from([("home".to_owned(), 61.23)]),
            )]),
            commands: vec!["cargo bench".to_owned()],
        };
        let text = section(
            "20261130050000",
            &[go, axum, pipelining, recorded_before_pings],
            Some(&times),
        );
        assert!(text.contains("## Where the time goes"));
        assert!(text.contains("run 20261130050000"));
        // Total CPU µs: 100 + 50 + 200 + 0.
        assert!(text.contains("| 350.0 |"), "{text}");
        for row in [
            "| go            | detail |        3.00 |    3.00 |  0.00 |",
            "| axum-sqlx     | detail |        4.00 |     n/a |  1.00 |",
            "| axum-postgres | detail |        2.00 |    3.00 |  1.00 |",
            "| rocket        | detail |        4.00 |    3.00 |   n/a |",
        ] {
            assert!(text.contains(row), "{row}\n{text}");
        }
        assert!(
            text.contains("| go  | detail |          12.5 |               0.25 % |"),
            "{text}"
        );
        assert!(text.contains("| tera   | 61.2 |  n/a | n/a |"), "{text}");
        assert!(
            text.contains("- axum-sqlx detail: flame graph: perf: \\<denied\\>"),
            "{text}"
        );
        assert!(section("x", &[], None).is_empty());
    }
}
