//! The charts: horizontal bars, one per app per route, drawn with plotters' SVG backend.
//! Its text is real SVG `<text>` laid out by the viewer's own fonts, so nothing here needs a
//! font file. An app keeps its colour across every chart.

use super::numbers;
use super::outcome;
use super::routes::{self, Group};
use crate::results::{AppResult, Batch};
use anyhow::Result;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

pub struct Chart {
    pub file_name: String,
    pub title: String,
    pub svg: String,
}

pub const LATENCY_FILE: &str = "latency.svg";
pub const MEMORY_FILE: &str = "memory.svg";

pub fn requests_file(group: Group) -> String {
    format!("requests-per-sec-{}.svg", group.slug())
}

/// Every chart of the batch: req/s per route group, latency, memory, and the start-up
/// warm-ups of the apps that had one.
pub fn all(batch: &Batch) -> Result<Vec<Chart>> {
    let columns = routes::columns(batch);
    // A batch stopped before its first app or route has no bar to draw.
    if batch.apps.is_empty() || columns.is_empty() {
        return Ok(Vec::new());
    }
    let mut charts = Vec::new();
    for group in Group::ALL {
        let group_routes = routes::in_group(&columns, group);
        if !group_routes.is_empty() {
            charts.push(requests(batch, group, &group_routes)?);
        }
    }
    charts.push(latency(batch, &columns)?);
    charts.push(memory(batch)?);
    for (i, app) in batch.apps.iter().enumerate() {
        if !app.start_up_warmups.is_empty() {
            let colour = APP_COLOURS[i % APP_COLOURS.len()];
            charts.push(super::sweep_charts::start_up_warmup(
                &app.name,
                colour,
                &app.start_up_warmups,
            )?);
        }
    }
    Ok(charts)
}

fn requests(batch: &Batch, group: Group, group_routes: &[String]) -> Result<Chart> {
    let panels: Vec<Panel> = group_routes
        .iter()
        .map(|route| Panel::per_app(batch, route, requests_bar))
        .collect();
    let look = Look {
        axis: "req/s · higher is better",
        ticks: numbers::per_sec,
        // The routes of a group are read against each other: one scale.
        shared_scale: true,
    };
    let title = format!("{}: requests per second", group.title());
    Chart::draw(requests_file(group), title, &look, &panels)
}

fn latency(batch: &Batch, columns: &[String]) -> Result<Chart> {
    let panels: Vec<Panel> = columns
        .iter()
        .map(|route| Panel::per_app(batch, route, latency_bar))
        .collect();
    let look = Look {
        axis: "ms · lower is better",
        ticks: numbers::ms,
        // Cached pages answer in a tenth of a database page's time: one scale would hide them.
        shared_scale: false,
    };
    let title = "Latency, ms: p50 (dark) and p99 (light)".to_owned();
    Chart::draw(LATENCY_FILE.to_owned(), title, &look, &panels)
}

fn memory(batch: &Batch) -> Result<Chart> {
    let panel = Panel {
        caption: "app RSS, max of the samples during the first home run".to_owned(),
        bars: coloured(batch, memory_bar),
    };
    let look = Look {
        axis: "MiB · lower is better",
        ticks: numbers::mib,
        shared_scale: true,
    };
    let title = "Memory under load".to_owned();
    Chart::draw(MEMORY_FILE.to_owned(), title, &look, &[panel])
}

/// One horizontal bar: `value` solid, `extent` (≥ `value`) behind it in a lighter shade, an
/// optional whisker over the runs' min–max, or the reason there is no bar.
struct Bar {
    app: String,
    colour: RGBColor,
    length: Result<Length, String>,
}

struct Length {
    value: f64,
    extent: f64,
    /// The lowest and highest valid run, drawn as a line with caps across the bar.
    whisker: Option<(f64, f64)>,
    label: String,
}

impl Length {
    /// Where the drawing ends: the bar or its whisker, whichever reaches further.
    fn end(&self) -> f64 {
        self.whisker
            .map_or(self.extent, |(_, max)| max.max(self.extent))
    }
}

struct Panel {
    caption: String,
    bars: Vec<Bar>,
}

impl Panel {
    fn per_app(
        batch: &Batch,
        route: &str,
        bar: impl Fn(&AppResult, &str) -> Result<Length, String>,
    ) -> Panel {
        let path = batch
            .apps
            .iter()
            .flat_map(|a| &a.routes)
            .find(|r| r.route == route)
            .map(|r| format!(" · GET {}", r.path))
            .unwrap_or_default();
        Panel {
            caption: format!("{route}{path}"),
            bars: coloured(batch, |app| bar(app, route)),
        }
    }
}

fn coloured(batch: &Batch, length: impl Fn(&AppResult) -> Result<Length, String>) -> Vec<Bar> {
    batch
        .apps
        .iter()
        .enumerate()
        .map(|(i, app)| Bar {
            app: app.name.clone(),
            colour: APP_COLOURS[i % APP_COLOURS.len()],
            length: length(app),
        })
        .collect()
}

/// Tableau 10: ten categories told apart on screen, in print and by most colour-blind readers.
pub(super) const APP_COLOURS: [RGBColor; 10] = [
    RGBColor(0x4e, 0x79, 0xa7),
    RGBColor(0xf2, 0x8e, 0x2b),
    RGBColor(0xe1, 0x57, 0x59),
    RGBColor(0x76, 0xb7, 0xb2),
    RGBColor(0x59, 0xa1, 0x4f),
    RGBColor(0xed, 0xc9, 0x48),
    RGBColor(0xb0, 0x7a, 0xa1),
    RGBColor(0xff, 0x9d, 0xa7),
    RGBColor(0x9c, 0x75, 0x5f),
    RGBColor(0xba, 0xb0, 0xac),
];

fn requests_bar(app: &AppResult, route: &str) -> Result<Length, String> {
    let summary = outcome::route(app, route)
        .map_err(|m| m.short())?
        .summary(|r| r.requests_per_sec);
    let mut label = numbers::per_sec(summary.median);
    if summary.valid < summary.runs {
        label.push_str(&format!(" ({}/{} valid)", summary.valid, summary.runs));
    }
    Ok(Length {
        value: summary.median,
        extent: summary.median,
        whisker: Some((summary.min, summary.max)),
        label,
    })
}

fn latency_bar(app: &AppResult, route: &str) -> Result<Length, String> {
    let measured = outcome::route(app, route).map_err(|m| m.short())?;
    let p50 = measured.median(|r| r.latency_ms.p50);
    let p99 = measured.median(|r| r.latency_ms.p99);
    Ok(Length {
        value: p50,
        extent: p99.max(p50),
        whisker: None,
        label: format!("{} / {}", numbers::ms(p50), numbers::ms(p99)),
    })
}

fn memory_bar(app: &AppResult) -> Result<Length, String> {
    let run = outcome::first_home_run(app).map_err(|m| m.short())?;
    Ok(Length {
        value: run.app_rss_max_mib,
        extent: run.app_rss_max_mib,
        whisker: None,
        label: format!("{} MiB", numbers::mib(run.app_rss_max_mib)),
    })
}

struct Look {
    axis: &'static str,
    ticks: fn(f64) -> String,
    shared_scale: bool,
}

const WIDTH: u32 = 960;
const TITLE_HEIGHT: u32 = 40;
const ROW_HEIGHT: u32 = 28;
/// Space above a panel, its caption above its bars, tick labels and axis title below.
const PANEL_CHROME: u32 = 14 + 34 + 52;
const FONT: &str = "sans-serif";
/// Font sizes as plotters takes them; its SVG backend writes them divided by 1.24.
const TITLE_SIZE: f64 = 26.0;
const CAPTION_SIZE: f64 = 20.0;
const LABEL_SIZE: f64 = 17.0;

impl Chart {
    fn draw(file_name: String, title: String, look: &Look, panels: &[Panel]) -> Result<Chart> {
        let svg = draw(&title, look, panels)?;
        Ok(Chart {
            file_name,
            title,
            svg,
        })
    }
}

/// Stacks `panels` under `title`, one SVG.
fn draw(title: &str, look: &Look, panels: &[Panel]) -> Result<String> {
    let heights: Vec<u32> = panels
        .iter()
        .map(|p| PANEL_CHROME + ROW_HEIGHT * p.bars.len() as u32)
        .collect();
    let size = (WIDTH, TITLE_HEIGHT + heights.iter().sum::<u32>());
    let longest_name = panels
        .iter()
        .flat_map(|p| &p.bars)
        .map(|b| b.app.chars().count())
        .max()
        .unwrap_or(0);
    let name_width = longest_name as u32 * 9 + 20;
    let shared_max = longest(panels.iter().flat_map(|p| &p.bars));

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE)?;
        let (title_area, body) = root.split_vertically(TITLE_HEIGHT);
        title_area.draw(&Text::new(title, (12, 12), (FONT, TITLE_SIZE).into_font()))?;
        let breaks: Vec<u32> = heights
            .iter()
            .scan(0, |y, h| {
                *y += h;
                Some(*y)
            })
            .collect();
        let areas = body.split_by_breakpoints(Vec::<u32>::new(), &breaks[..breaks.len() - 1]);
        for (panel, area) in panels.iter().zip(&areas) {
            let max = if look.shared_scale {
                shared_max
            } else {
                longest(&panel.bars)
            };
            draw_panel(area, panel, look, max, name_width)?;
        }
        root.present()?;
    }
    Ok(svg)
}

/// The longest bar, or 1 when there is none, so an empty panel still has an axis.
fn longest<'a>(bars: impl IntoIterator<Item = &'a Bar>) -> f64 {
    let longest = bars
        .into_iter()
        .filter_map(|b| b.length.as_ref().ok())
        .map(Length::end)
        .fold(0.0, f64::max);
    if longest > 0.0 { longest } else { 1.0 }
}

fn draw_panel(
    area: &DrawingArea<SVGBackend, Shift>,
    panel: &Panel,
    look: &Look,
    max: f64,
    name_width: u32,
) -> Result<()> {
    let rows = panel.bars.len();
    // Bar k (top to bottom) is centred on y = rows-1-k, so the y axis's whole-number ticks
    // fall on the bars' centres and carry the app names.
    let name_at = |y: f64| -> String {
        let row = y.round();
        if (y - row).abs() > 0.01 || row < 0.0 || row as usize >= rows {
            return String::new();
        }
        panel.bars[rows - 1 - row as usize].app.clone()
    };
    let mut chart = ChartBuilder::on(area)
        .caption(&panel.caption, (FONT, CAPTION_SIZE))
        .margin_top(14)
        .margin_left(12)
        .margin_right(24)
        .x_label_area_size(46)
        .y_label_area_size(name_width)
        // Room right of the longest bar for its label.
        .build_cartesian_2d(0.0..max * 1.3, -0.5..rows as f64 - 0.5)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(rows)
        .y_label_formatter(&|y| name_at(*y))
        .x_labels(6)
        .x_label_formatter(&|x| (look.ticks)(*x))
        .x_desc(look.axis)
        .label_style((FONT, LABEL_SIZE))
        .axis_desc_style((FONT, LABEL_SIZE))
        .max_light_lines(0)
        .bold_line_style(RGBColor(0xdd, 0xdd, 0xdd))
        .draw()?;

    let label_style = (FONT, LABEL_SIZE)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Left, VPos::Center));
    for (k, bar) in panel.bars.iter().enumerate() {
        let y = (rows - 1 - k) as f64;
        let (end, label, style) = match &bar.length {
            Ok(length) => {
                let rectangle = |to: f64, colour: RGBAColor| {
                    Rectangle::new([(0.0, y - 0.36), (to, y + 0.36)], colour.filled())
                };
                chart.draw_series([
                    rectangle(length.extent, bar.colour.mix(0.35)),
                    rectangle(length.value, bar.colour.to_rgba()),
                ])?;
                if let Some((min, max)) = length.whisker {
                    chart.draw_series([whisker(min, max, y)])?;
                }
                (length.end(), length.label.clone(), label_style.clone())
            }
            Err(why) => (
                0.0,
                why.clone(),
                label_style.color(&RGBColor(0x66, 0x66, 0x66)),
            ),
        };
        chart.draw_series([EmptyElement::at((end, y)) + Text::new(label, (6, 0), style)])?;
    }
    Ok(())
}

/// Half the height of a whisker's caps, in rows (a bar is 0.72 high).
const CAP: f64 = 0.18;

/// One polyline: the cap at `min`, the line to `max`, the cap at `max`.
fn whisker(min: f64, max: f64, y: f64) -> PathElement<(f64, f64)> {
    PathElement::new(
        [
            (min, y - CAP),
            (min, y + CAP),
            (min, y),
            (max, y),
            (max, y + CAP),
            (max, y - CAP),
        ],
        WHISKER.stroke_width(2),
    )
}

const WHISKER: RGBColor = RGBColor(0x33, 0x33, 0x33);

#[cfg(test)]
mod tests {
    use super::*;

    fn panel(apps: usize) -> Panel {
        Panel {
            caption: "home".to_owned(),
            bars: (0..apps)
                .map(|i| Bar {
                    app: format!("app-{i}"),
                    colour: APP_COLOURS[i % APP_COLOURS.len()],
                    length: if i == 0 {
                        Err("failed: parity".to_owned())
                    } else {
                        Ok(Length {
                            value: 1000.0 * i as f64,
                            extent: 1000.0 * i as f64,
                            whisker: Some((900.0 * i as f64, 1100.0 * i as f64)),
                            label: format!("{i},000"),
                        })
                    },
                })
                .collect(),
        }
    }

    /// The y axis names every bar, for any number of apps: its ticks must land on whole
    /// numbers, one per bar.
    #[test]
    fn every_bar_is_named_once() {
        let look = Look {
            axis: "req/s",
            ticks: numbers::per_sec,
            shared_scale: true,
        };
        for apps in 1..=12 {
            let svg = draw("t", &look, &[panel(apps)]).unwrap();
            for i in 0..apps {
                let name = format!(">\napp-{i}\n</text>");
                assert_eq!(
                    svg.matches(&name).count(),
                    1,
                    "{apps} apps, app-{i}:\n{svg}"
                );
            }
            assert!(svg.contains(">\nfailed: parity\n</text>"));
            let whiskers = svg.matches(r##"stroke="#333333""##).count();
            assert_eq!(whiskers, apps - 1, "one whisker per drawn bar:\n{svg}");
        }
    }
}
