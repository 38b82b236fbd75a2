//! The sweep report's charts (`sweep-*.svg`): latency against the delivered rate per route,
//! req/s and memory against connections, and each app's overload second by second; and the
//! batch report's start-up warm-up curves (`warmup-*.svg`), drawn the same way. Line
//! charts on plotters' SVG backend, like the batch report's bars (charts.rs). A logarithmic
//! axis is drawn as log10 of its values on a linear one with ticks at 1-2-5 steps, so every
//! panel has one coordinate type and readable tick labels.

use super::charts::{self, Chart};
use super::numbers;
use super::sweep::{delivered_per_sec, ladder, slo_ms};
use crate::results::sweep::{AppSweep, ConnectionLevel, Overload, OverloadSecond, Sweep};
use crate::results::{Latency, StartUpWarmup};
use anyhow::Result;
use plotters::coord::Shift;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::types::RangedCoordf64;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

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

const GREY: RGBColor = RGBColor(0x55, 0x55, 0x55);
/// Dark red: failures stand out from any app's colour.
const FAILED: RGBColor = RGBColor(0xc0, 0x39, 0x2b);
const GRID: RGBColor = RGBColor(0xdd, 0xdd, 0xdd);

fn app_keys(sweep: &Sweep) -> Vec<Key> {
    sweep
        .apps
        .iter()
        .enumerate()
        .map(|(i, app)| Key::new(&app.label, colour(i), Swatch::Solid))
        .collect()
}

/// A tick label: at most three decimals, none when whole (`0.5`, `2`, `150`).
fn tick(value: f64) -> String {
    format!("{}", (value * 1000.0).round() / 1000.0)
}

struct Panel {
    caption: String,
    x: Axis,
    y: Axis,
    lines: Vec<Line>,
    /// Horizontal lines across the panel, labelled at their right end: an objective.
    levels: Vec<(f64, String)>,
    /// Vertical lines, labelled at their top: where a phase begins.
    marks: Vec<(f64, String)>,
}

struct Axis {
    title: &'static str,
    log: bool,
    label: fn(f64) -> String,
    /// Where the ticks go when the data has natural ones (the connection levels); else
    /// 1-2-5 steps across the range.
    ticks_at: Option<Vec<f64>>,
}

impl Axis {
    fn linear(title: &'static str, label: fn(f64) -> String) -> Axis {
        Axis {
            title,
            log: false,
            label,
            ticks_at: None,
        }
    }

    fn log(title: &'static str, label: fn(f64) -> String) -> Axis {
        Axis {
            log: true,
            ..Axis::linear(title, label)
        }
    }

    /// Where `value` is drawn; `None` for what the axis cannot show (≤ 0 on a log axis).
    fn plotted(&self, value: f64) -> Option<f64> {
        let plotted = if self.log { value.log10() } else { value };
        plotted.is_finite().then_some(plotted)
    }

    /// The value drawn at `plotted`, for the tick labels.
    fn value_at(&self, plotted: f64) -> f64 {
        if self.log {
            10f64.powf(plotted)
        } else {
            plotted
        }
    }

    /// The plotted range covering `values` (rates and memory from 0; a log axis with a
    /// margin either side) and its ticks, both in plotted units.
    fn layout(&self, values: &[f64]) -> (std::ops::Range<f64>, Vec<f64>) {
        let shown: Vec<f64> = values
            .iter()
            .copied()
            .filter(|v| self.plotted(*v).is_some())
            .collect();
        let min = shown.iter().copied().reduce(f64::min);
        let max = shown.iter().copied().reduce(f64::max);
        let (low, high) = match (self.log, min, max) {
            (true, Some(min), Some(max)) => (min / 1.3, max * 1.3),
            (true, _, _) => (1.0, 100.0),
            (false, _, Some(max)) if max > 0.0 => (0.0, max * 1.08),
            (false, _, _) => (0.0, 1.0),
        };
        let ticks = match &self.ticks_at {
            Some(ticks) => ticks.clone(),
            None if self.log => log_ticks(low, high),
            None => linear_ticks(high),
        };
        let at = |v: f64| self.plotted(v).unwrap_or(0.0);
        (
            at(low)..at(high),
            ticks.into_iter().filter_map(|t| self.plotted(t)).collect(),
        )
    }
}

/// 0 and multiples of a 1-2-5 step up to `max`, about six of them.
fn linear_ticks(max: f64) -> Vec<f64> {
    let rough = max / 6.0;
    let magnitude = 10f64.powf(rough.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * magnitude)
        .find(|step| *step >= rough)
        .unwrap_or(magnitude * 10.0);
    (0..)
        .map(|k| k as f64 * step)
        .take_while(|t| *t <= max)
        .collect()
}

/// 1, 2 and 5 times each power of ten in `low..=high`; only the powers when that is too many.
fn log_ticks(low: f64, high: f64) -> Vec<f64> {
    let in_range = |multiples: &[f64]| -> Vec<f64> {
        let first = low.log10().floor() as i32;
        let last = high.log10().ceil() as i32;
        (first..=last)
            .flat_map(|power| multiples.iter().map(move |m| m * 10f64.powi(power)))
            .filter(|t| (low..=high).contains(t))
            .collect()
    };
    let ticks = in_range(&[1.0, 2.0, 5.0]);
    if ticks.len() > 10 {
        in_range(&[1.0])
    } else {
        ticks
    }
}

#[derive(Clone, Copy)]
enum Stroke {
    Solid,
    Dashed,
}

struct Line {
    colour: RGBColor,
    stroke: Stroke,
    /// A dot on each valid point; invalid ones get a cross whatever this says.
    markers: bool,
    points: Vec<Point>,
}

struct Point {
    x: f64,
    y: f64,
    valid: bool,
}

struct Key {
    label: String,
    colour: RGBColor,
    swatch: Swatch,
}

enum Swatch {
    Solid,
    Dashed,
    Cross,
}

impl Key {
    fn new(label: &str, colour: RGBColor, swatch: Swatch) -> Key {
        Key {
            label: label.to_owned(),
            colour,
            swatch,
        }
    }

    /// Its width in the legend: swatch, gap, label (about 9 px a character), space after.
    fn width(&self) -> i32 {
        SWATCH + 8 + self.label.chars().count() as i32 * 9 + 24
    }
}

const WIDTH: u32 = 960;
const TITLE_HEIGHT: u32 = 40;
const LEGEND_ROW: u32 = 26;
const PANEL_HEIGHT: u32 = 420;
const SWATCH: i32 = 28;
const FONT: &str = "sans-serif";
/// Font sizes as plotters takes them, the batch charts' (charts.rs).
const TITLE_SIZE: f64 = 26.0;
const CAPTION_SIZE: f64 = 20.0;
const LABEL_SIZE: f64 = 17.0;

/// The legend's keys, row by row, each with its x position.
fn legend_rows(legend: &[Key]) -> Vec<Vec<(i32, &Key)>> {
    let mut rows: Vec<Vec<(i32, &Key)>> = Vec::new();
    let mut x = 12;
    for key in legend {
        if rows.is_empty() || x + key.width() > WIDTH as i32 {
            rows.push(Vec::new());
            x = 12;
        }
        rows.last_mut().expect("a row").push((x, key));
        x += key.width();
    }
    rows
}

/// `panels` stacked under `title` and the legend, one SVG.
fn draw(file_name: String, title: String, legend: &[Key], panels: &[Panel]) -> Result<Chart> {
    let rows = legend_rows(legend);
    let legend_height = LEGEND_ROW * rows.len() as u32 + 6;
    let height = TITLE_HEIGHT + legend_height + PANEL_HEIGHT * panels.len() as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE)?;
        let (title_area, rest) = root.split_vertically(TITLE_HEIGHT);
        title_area.draw(&Text::new(
            title.as_str(),
            (12, 12),
            (FONT, TITLE_SIZE).into_font(),
        ))?;
        let (legend_area, body) = rest.split_vertically(legend_height);
        draw_legend(&legend_area, &rows)?;
        for (panel, area) in panels
            .iter()
            .zip(body.split_evenly((panels.len().max(1), 1)))
        {
            draw_panel(&area, panel)?;
        }
        root.present()?;
    }
    Ok(Chart {
        file_name,
        title,
        svg,
    })
}

fn draw_legend(area: &DrawingArea<SVGBackend, Shift>, rows: &[Vec<(i32, &Key)>]) -> Result<()> {
    let text = (FONT, LABEL_SIZE)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Left, VPos::Center));
    for (row, keys) in rows.iter().enumerate() {
        let y = LEGEND_ROW as i32 * row as i32 + LEGEND_ROW as i32 / 2;
        for &(x, key) in keys {
            let style = key.colour.stroke_width(3);
            match key.swatch {
                Swatch::Solid => area.draw(&PathElement::new([(x, y), (x + SWATCH, y)], style))?,
                Swatch::Dashed => area.draw(&DashedPathElement::new(
                    [(x, y), (x + SWATCH, y)],
                    6,
                    4,
                    style,
                ))?,
                Swatch::Cross => area.draw(&Cross::new((x + SWATCH / 2, y), 5, style))?,
            }
            area.draw(&Text::new(
                key.label.as_str(),
                (x + SWATCH + 8, y),
                text.clone(),
            ))?;
        }
    }
    Ok(())
}

fn draw_panel(area: &DrawingArea<SVGBackend, Shift>, panel: &Panel) -> Result<()> {
    let points = || panel.lines.iter().flat_map(|l| &l.points);
    let xs: Vec<f64> = points()
        .map(|p| p.x)
        .chain(panel.marks.iter().map(|(x, _)| *x))
        .collect();
    let ys: Vec<f64> = points()
        .map(|p| p.y)
        .chain(panel.levels.iter().map(|(y, _)| *y))
        .collect();
    let (x_range, x_ticks) = panel.x.layout(&xs);
    let (y_range, y_ticks) = panel.y.layout(&ys);
    let (x_low, x_high) = (x_range.start, x_range.end);
    let (y_low, y_high) = (y_range.start, y_range.end);
    let mut chart = ChartBuilder::on(area)
        .caption(&panel.caption, (FONT, CAPTION_SIZE))
        .margin_top(8)
        .margin_left(12)
        .margin_right(24)
        .x_label_area_size(50)
        .y_label_area_size(90)
        .build_cartesian_2d(Ticked::new(x_range, x_ticks), Ticked::new(y_range, y_ticks))?;
    chart
        .configure_mesh()
        .x_label_formatter(&|x| (panel.x.label)(panel.x.value_at(*x)))
        .y_label_formatter(&|y| (panel.y.label)(panel.y.value_at(*y)))
        .x_desc(panel.x.title)
        .y_desc(panel.y.title)
        .label_style((FONT, LABEL_SIZE))
        .axis_desc_style((FONT, LABEL_SIZE))
        .bold_line_style(GRID)
        .draw()?;

    let label = |pos: Pos| (FONT, LABEL_SIZE).into_font().color(&GREY).pos(pos);
    for (x, text) in &panel.marks {
        let Some(x) = panel.x.plotted(*x) else {
            continue;
        };
        chart.draw_series([PathElement::new(
            [(x, y_low), (x, y_high)],
            GREY.stroke_width(1),
        )])?;
        chart.draw_series([EmptyElement::at((x, y_high))
            + Text::new(text.clone(), (4, 4), label(Pos::new(HPos::Left, VPos::Top)))])?;
    }
    for (y, text) in &panel.levels {
        let Some(y) = panel.y.plotted(*y) else {
            continue;
        };
        chart.draw_series([DashedPathElement::new(
            [(x_low, y), (x_high, y)],
            8,
            5,
            GREY.stroke_width(2),
        )])?;
        chart.draw_series([EmptyElement::at((x_high, y))
            + Text::new(
                text.clone(),
                (-6, -4),
                label(Pos::new(HPos::Right, VPos::Bottom)),
            )])?;
    }
    for line in &panel.lines {
        draw_line(&mut chart, panel, line)?;
    }
    Ok(())
}

/// A panel's axes, in plotted units (log10 on a log axis).
type Plot<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<Ticked, Ticked>>;

/// A linear coordinate with its ticks where [`Axis::layout`] put them. plotters' own
/// `WithKeyPoints` does the same but loses the tick formatter the mesh needs.
struct Ticked {
    coordinate: RangedCoordf64,
    ticks: Vec<f64>,
}

impl Ticked {
    fn new(range: std::ops::Range<f64>, ticks: Vec<f64>) -> Ticked {
        Ticked {
            coordinate: range.into(),
            ticks,
        }
    }
}

impl Ranged for Ticked {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.coordinate.map(value, limit)
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        // The ticks are the bold grid lines; no light ones between them.
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.coordinate.range()
    }
}

fn draw_line(chart: &mut Plot, panel: &Panel, line: &Line) -> Result<()> {
    let plotted: Vec<((f64, f64), bool)> = line
        .points
        .iter()
        .filter_map(|p| Some(((panel.x.plotted(p.x)?, panel.y.plotted(p.y)?), p.valid)))
        .collect();
    let path: Vec<(f64, f64)> = plotted.iter().map(|(at, _)| *at).collect();
    match line.stroke {
        Stroke::Solid => {
            chart.draw_series([PathElement::new(path, line.colour.stroke_width(2))])?;
        }
        Stroke::Dashed => {
            chart.draw_series([DashedPathElement::new(
                path,
                7,
                5,
                line.colour.stroke_width(1),
            )])?;
        }
    }
    let dot = match line.stroke {
        Stroke::Solid => 4,
        Stroke::Dashed => 3,
    };
    for &(at, valid) in &plotted {
        if !valid {
            chart.draw_series([Cross::new(at, 6, line.colour.stroke_width(2))])?;
        } else if line.markers {
            chart.draw_series([Circle::new(at, dot, line.colour.filled())])?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_fall_on_round_numbers() {
        assert_eq!(
            linear_ticks(5_400.0),
            [0.0, 1_000.0, 2_000.0, 3_000.0, 4_000.0, 5_000.0]
        );
        assert_eq!(log_ticks(0.8, 60.0), [1.0, 2.0, 5.0, 10.0, 20.0, 50.0]);
        assert_eq!(
            log_ticks(0.5, 20_000.0),
            [1.0, 10.0, 100.0, 1_000.0, 10_000.0]
        );
        assert_eq!(tick(2.000_000_000_000_4), "2");
        assert_eq!(
            slug("axum-sqlx+POOL_MODE=shared"),
            "axum-sqlx-pool-mode-shared"
        );
    }
}
