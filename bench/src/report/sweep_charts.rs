//! The sweep report's charts (`sweep-*.svg`): latency against the delivered rate per route,
//! req/s and memory against connections, and each app's overload second by second; and the
//! batch report's start-up warm-up curves (`warmup-*.svg`), drawn the same way: what each
//! chart shows; line_chart.rs draws it.

use super::charts::{self, Chart};
use super::line_chart::{Axis, GREY, Key, Line, Panel, Point, Stroke, Swatch, draw, tick};
use super::numbers;
use super::sweep::{delivered_per_sec, ladder, slo_ms};
use crate::results::sweep::{AppSweep, ConnectionLevel, Overload, OverloadSecond, Sweep};
use crate::results::{Latency, StartUpWarmup};
use anyhow::Result;
use plotters::style::RGBColor;

pub fn latency_file(route: &str) -> String {
    format!("sweep-latency-{}.svg", slug(route))
}

pub const CONNECTIONS_RATE_FILE: &str = "sweep-connections-rate.svg";
pub const CONNECTIONS_RSS_FILE: &str = "sweep-connections-rss.svg";

pub fn overload_file(app: &str, round: u32) -> String {
    format!("sweep-overload-{}-r{round}.svg", slug(app))
}

/// `axum-sqlx+POOL_MODE=shared` → `axum-sqlx-pool-mode-shared`: safe in a file name.
fn slug(text: &str) -> String {
    let lowered: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let words: Vec<&str> = lowered.split('-').filter(|w| !w.is_empty()).collect();
    words.join("-")
}

/// Every chart the sweep has data for: latency per route, the connection sweep, each
/// app's overload.
pub fn charts(sweep: &Sweep) -> Result<Vec<Chart>> {
    let mut charts = Vec::new();
    for route in &sweep.settings.routes {
        let measured = sweep
            .apps
            .iter()
            .flat_map(|a| &a.routes)
            .any(|r| r.route == *route && !ladder(r).is_empty());
        if measured {
            charts.push(latency(sweep, route)?);
        }
    }
    if sweep.apps.iter().any(|a| !a.connections.is_empty()) {
        charts.push(connections(
            sweep,
            CONNECTIONS_RATE_FILE,
            "Connection sweep: requests per second",
            Axis::linear("req/s", numbers::per_sec),
            |level| level.requests_per_sec,
        )?);
        charts.push(connections(
            sweep,
            CONNECTIONS_RSS_FILE,
            "Connection sweep: the app's memory",
            Axis::linear("RSS, MiB", tick),
            |level| level.app_rss_max_mib,
        )?);
    }
    for (i, app) in sweep.apps.iter().enumerate() {
        for overload in app.overloads.iter().filter(|o| !o.seconds.is_empty()) {
            charts.push(overload_chart(sweep, app, colour(i), overload)?);
        }
    }
    Ok(charts)
}

fn latency(sweep: &Sweep, route: &str) -> Result<Chart> {
    let mut legend = app_keys(sweep);
    legend.extend([
        Key::new("p99", GREY, Swatch::Solid),
        Key::new("p50", GREY, Swatch::Dashed),
        Key::new("invalid run", GREY, Swatch::Cross),
    ]);
    let mut lines = Vec::new();
    for (i, app) in sweep.apps.iter().enumerate() {
        let Some(measured) = app.routes.iter().find(|r| r.route == route) else {
            continue;
        };
        let points = ladder(measured);
        let line = |latency: fn(&Latency) -> f64, stroke: Stroke| Line {
            colour: colour(i),
            stroke,
            markers: true,
            points: points
                .iter()
                .map(|p| Point {
                    x: delivered_per_sec(p),
                    y: latency(&p.latency_ms),
                    valid: p.valid,
                })
                .collect(),
        };
        lines.push(line(|l| l.p99, Stroke::Solid));
        lines.push(line(|l| l.p50, Stroke::Dashed));
    }
    let path = sweep
        .apps
        .iter()
        .flat_map(|a| &a.routes)
        .find(|r| r.route == route)
        .map(|r| format!("GET {} · ", r.path))
        .unwrap_or_default();
    let slo = slo_ms(sweep, route);
    let panel = Panel {
        caption: match slo {
            Some(slo) => format!("{path}objective: p99 ≤ {} ms", tick(slo)),
            None => format!("{path}no objective recorded"),
        },
        x: Axis::linear("delivered req/s", numbers::per_sec),
        y: Axis::log("latency from the due time, ms (log scale)", tick),
        lines,
        levels: slo
            .map(|slo| (slo, format!("SLO {} ms", tick(slo))))
            .into_iter()
            .collect(),
        marks: Vec::new(),
    };
    let title = format!("{route}: latency against delivered rate");
    draw(latency_file(route), title, &legend, &[panel])
}

fn connections(
    sweep: &Sweep,
    file_name: &str,
    title: &str,
    y: Axis,
    value: fn(&ConnectionLevel) -> f64,
) -> Result<Chart> {
    let mut legend = app_keys(sweep);
    legend.push(Key::new("invalid level", GREY, Swatch::Cross));
    let lines = sweep
        .apps
        .iter()
        .enumerate()
        .map(|(i, app)| Line {
            colour: colour(i),
            stroke: Stroke::Solid,
            markers: true,
            points: app
                .connections
                .iter()
                .map(|level| Point {
                    x: f64::from(level.connections),
                    y: value(level),
                    valid: level.valid,
                })
                .collect(),
        })
        .collect();
    let mut levels: Vec<f64> = sweep
        .apps
        .iter()
        .flat_map(|a| &a.connections)
        .map(|level| f64::from(level.connections))
        .collect();
    levels.sort_by(f64::total_cmp);
    levels.dedup();
    let panel = Panel {
        caption: "closed loop, the harness's client; one point per level".to_owned(),
        x: Axis {
            ticks_at: Some(levels),
            ..Axis::log("connections (log scale)", numbers::per_sec)
        },
        y,
        lines,
        levels: Vec::new(),
        marks: Vec::new(),
    };
    draw(file_name.to_owned(), title.to_owned(), &legend, &[panel])
}

fn overload_chart(
    sweep: &Sweep,
    app: &AppSweep,
    app_colour: RGBColor,
    overload: &Overload,
) -> Result<Chart> {
    let plan = &sweep.settings.overload;
    let marks = vec![
        (plan.before_secs, "overload".to_owned()),
        (
            plan.before_secs + plan.overload_secs,
            "base again".to_owned(),
        ),
    ];
    // Each second as a step across its width: the numbers are of the requests due in it.
    let per_second = |value: fn(&OverloadSecond) -> f64| -> Vec<Point> {
        overload
            .seconds
            .iter()
            .flat_map(|s| {
                let start = f64::from(s.second);
                [start, start + 1.0].map(|x| Point {
                    x,
                    y: value(s),
                    valid: true,
                })
            })
            .collect()
    };
    let throughput = Panel {
        caption: "right answers and failures per second".to_owned(),
        x: Axis::linear("second of the schedule (by due time)", tick),
        y: Axis::linear("per second", numbers::per_sec),
        lines: vec![
            Line {
                colour: GREY,
                stroke: Stroke::Dashed,
                markers: false,
                points: per_second(|s| s.target_per_sec),
            },
            Line {
                colour: app_colour,
                stroke: Stroke::Solid,
                markers: false,
                points: per_second(|s| s.right as f64),
            },
            Line {
                colour: FAILED,
                stroke: Stroke::Dashed,
                markers: false,
                points: per_second(|s| s.failed as f64),
            },
        ],
        levels: Vec::new(),
        marks: marks.clone(),
    };
    let mut levels = vec![(
        overload.baseline_p99_ms,
        format!("baseline p99 {} ms", tick(overload.baseline_p99_ms)),
    )];
    if let Some(slo) = slo_ms(sweep, &overload.route) {
        levels.push((slo, format!("SLO {} ms", tick(slo))));
    }
    let latency = Panel {
        caption: "p99 of the requests due in each second".to_owned(),
        x: Axis::linear("second of the schedule (by due time)", tick),
        y: Axis::log("p99, ms (log scale)", tick),
        lines: vec![Line {
            colour: app_colour,
            stroke: Stroke::Solid,
            markers: false,
            points: per_second(|s| s.p99_ms),
        }],
        levels,
        marks,
    };
    let legend = [
        Key::new("right answers/s, p99", app_colour, Swatch::Solid),
        Key::new("target/s", GREY, Swatch::Dashed),
        Key::new("failed/s", FAILED, Swatch::Dashed),
    ];
    let title = format!(
        "{}: overload on {}, round {}, {} → {} → {} req/s",
        app.label,
        overload.route,
        overload.round,
        numbers::per_sec(overload.base_per_sec),
        numbers::per_sec(overload.overload_per_sec),
        numbers::per_sec(overload.base_per_sec)
    );
    draw(
        overload_file(&app.label, overload.round),
        title,
        &legend,
        &[throughput, latency],
    )
}

pub fn start_up_warmup_file(app: &str) -> String {
    format!("warmup-{}.svg", slug(app))
}

/// An app's start-up warm-ups, right answers per second from its start, one line per round;
/// a mark where each route's part begins.
pub fn start_up_warmup(app: &str, app_colour: RGBColor, parts: &[StartUpWarmup]) -> Result<Chart> {
    let mut rounds: Vec<u32> = parts.iter().map(|p| p.round).collect();
    rounds.dedup();
    let strokes = [Stroke::Solid, Stroke::Dashed];
    let mut marks = Vec::new();
    let lines = rounds
        .iter()
        .enumerate()
        .map(|(i, &round)| {
            let mut points = Vec::new();
            let mut start = 0.0;
            for part in parts.iter().filter(|p| p.round == round) {
                if i == 0 {
                    marks.push((start, part.route.clone()));
                }
                for (second, &right) in part.right_per_sec.iter().enumerate() {
                    let x = start + second as f64;
                    points.extend([x, x + 1.0].map(|x| Point {
                        x,
                        y: f64::from(right),
                        valid: true,
                    }));
                }
                start += part.right_per_sec.len() as f64;
            }
            Line {
                colour: app_colour,
                stroke: strokes[i % strokes.len()],
                markers: false,
                points,
            }
        })
        .collect();
    let panel = Panel {
        caption: "closed loop, the batch's connections; each route's part in turn".to_owned(),
        x: Axis::linear("second of load since the app started", tick),
        y: Axis::linear("right answers per second", numbers::per_sec),
        lines,
        levels: Vec::new(),
        marks,
    };
    let legend: Vec<Key> = rounds
        .iter()
        .enumerate()
        .map(|(i, round)| {
            let swatch = match strokes[i % strokes.len()] {
                Stroke::Solid => Swatch::Solid,
                Stroke::Dashed => Swatch::Dashed,
            };
            Key::new(&format!("round {round}"), app_colour, swatch)
        })
        .collect();
    draw(
        start_up_warmup_file(app),
        format!("{app}: start-up warm-up, req/s from a cold start"),
        &legend,
        &[panel],
    )
}

/// The batch report's palette: an app keeps its colour, by its place in the sweep, across
/// every chart.
fn colour(app_index: usize) -> RGBColor {
    charts::APP_COLOURS[app_index % charts::APP_COLOURS.len()]
}

/// Dark red: failures stand out from any app's colour.
const FAILED: RGBColor = RGBColor(0xc0, 0x39, 0x2b);

fn app_keys(sweep: &Sweep) -> Vec<Key> {
    sweep
        .apps
        .iter()
        .enumerate()
        .map(|(i, app)| Key::new(&app.label, colour(i), Swatch::Solid))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_are_slugs() {
        assert_eq!(
            slug("axum-sqlx+POOL_MODE=shared"),
            "axum-sqlx-pool-mode-shared"
        );
    }
}
