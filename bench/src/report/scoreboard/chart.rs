//! The throughput chart: per route, each app's ratio to Go as a dot at the geometric mean of
//! its rounds with its confidence interval as a whisker, the line at 1, and Go's own interval
//! against its pacer (the noise floor) as a grey band. One scale for every route.

use crate::report::charts::{APP_COLOURS, Chart};
use crate::report::line_chart::{
    CAPTION_SIZE, FONT, GREY, LABEL_SIZE, TITLE_HEIGHT, TITLE_SIZE, WIDTH,
};
use crate::report::numbers;
use crate::statistics::{CONFIDENCE, RatioInterval};
use anyhow::Result;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

pub(super) const FILE: &str = "scoreboard-throughput.svg";

pub(super) struct Panel {
    pub route: String,
    /// Go's own interval against its pacer.
    pub noise: Option<RatioInterval>,
    pub rows: Vec<Whisker>,
}

pub(super) struct Whisker {
    pub app: String,
    /// The app's place among the scoreboard's apps, which picks its colour.
    pub colour: usize,
    /// The interval, or why there is none (drawn as text).
    pub interval: Result<RatioInterval, String>,
}

const ROW_HEIGHT: u32 = 24;
/// Space above a panel, its caption, tick labels and axis title.
const PANEL_CHROME: u32 = 14 + 30 + 50;
/// Half the height of a whisker's caps, in rows.
const CAP: f64 = 0.2;
const MISSING: RGBColor = RGBColor(0x66, 0x66, 0x66);

/// `None` without a panel.
pub(super) fn throughput(panels: &[Panel]) -> Result<Option<Chart>> {
    if panels.is_empty() {
        return Ok(None);
    }
    let heights: Vec<u32> = panels
        .iter()
        .map(|p| PANEL_CHROME + ROW_HEIGHT * p.rows.len() as u32)
        .collect();
    let size = (WIDTH, TITLE_HEIGHT + heights.iter().sum::<u32>());
    let longest_name = panels
        .iter()
        .flat_map(|p| &p.rows)
        .map(|row| row.app.chars().count())
        .max()
        .unwrap_or(0);
    let name_width = longest_name as u32 * 9 + 20;
    let intervals = panels.iter().flat_map(|p| {
        let rows = p.rows.iter().filter_map(|row| row.interval.as_ref().ok());
        rows.chain(&p.noise)
    });
    // Room right of the widest whisker for its label.
    let high = intervals.map(|i| i.high).fold(1.0, f64::max) * 1.25;
    let title = format!(
        "Throughput: app req/s ÷ Go req/s, {} interval",
        numbers::share(CONFIDENCE)
    );
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE)?;
        let (title_area, body) = root.split_vertically(TITLE_HEIGHT);
        title_area.draw(&Text::new(
            title.as_str(),
            (12, 12),
            (FONT, TITLE_SIZE).into_font(),
        ))?;
        let breaks: Vec<u32> = heights
            .iter()
            .scan(0, |y, h| {
                *y += h;
                Some(*y)
            })
            .collect();
        let areas = body.split_by_breakpoints(Vec::<u32>::new(), &breaks[..breaks.len() - 1]);
        for (panel, area) in panels.iter().zip(&areas) {
            draw_panel(area, panel, high, name_width)?;
        }
        root.present()?;
    }
    Ok(Some(Chart {
        file_name: FILE.to_owned(),
        title,
        svg,
    }))
}

fn draw_panel(
    area: &DrawingArea<SVGBackend, Shift>,
    panel: &Panel,
    high: f64,
    name_width: u32,
) -> Result<()> {
    let rows = panel.rows.len();
    let top = rows as f64 - 0.5;
    // Row k (top to bottom) is centred on y = rows-1-k, so whole-number ticks name the rows.
    let name_at = |y: f64| -> String {
        let row = y.round();
        if (y - row).abs() > 0.01 || row < 0.0 || row as usize >= rows {
            return String::new();
        }
        panel.rows[rows - 1 - row as usize].app.clone()
    };
    let mut chart = ChartBuilder::on(area)
        .caption(&panel.route, (FONT, CAPTION_SIZE))
        .margin_top(14)
        .margin_left(12)
        .margin_right(24)
        .x_label_area_size(46)
        .y_label_area_size(name_width)
        .build_cartesian_2d(0.0..high, -0.5..top)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(rows)
        .y_label_formatter(&|y| name_at(*y))
        .x_labels(8)
        .x_label_formatter(&|x| numbers::times(*x))
        .x_desc("app ÷ Go · higher is better · grey: Go against itself")
        .label_style((FONT, LABEL_SIZE))
        .axis_desc_style((FONT, LABEL_SIZE))
        .max_light_lines(0)
        .bold_line_style(RGBColor(0xdd, 0xdd, 0xdd))
        .draw()?;
    if let Some(noise) = &panel.noise {
        chart.draw_series([Rectangle::new(
            [(noise.low, -0.5), (noise.high, top)],
            GREY.mix(0.18).filled(),
        )])?;
    }
    chart.draw_series([PathElement::new([(1.0, -0.5), (1.0, top)], GREY)])?;
    let label = (FONT, LABEL_SIZE)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Left, VPos::Center));
    for (k, row) in panel.rows.iter().enumerate() {
        let y = (rows - 1 - k) as f64;
        match &row.interval {
            Ok(interval) => {
                let colour = APP_COLOURS[row.colour % APP_COLOURS.len()];
                let (low, high) = (interval.low, interval.high);
                chart.draw_series([PathElement::new(
                    [
                        (low, y - CAP),
                        (low, y + CAP),
                        (low, y),
                        (high, y),
                        (high, y + CAP),
                        (high, y - CAP),
                    ],
                    colour.stroke_width(2),
                )])?;
                chart.draw_series([Circle::new(
                    (interval.geometric_mean, y),
                    5,
                    colour.filled(),
                )])?;
                let text = numbers::times(interval.geometric_mean);
                chart.draw_series([
                    EmptyElement::at((high, y)) + Text::new(text, (8, 0), label.clone())
                ])?;
            }
            Err(why) => {
                let style = label.color(&MISSING);
                chart.draw_series([
                    EmptyElement::at((0.0, y)) + Text::new(why.clone(), (6, 0), style)
                ])?;
            }
        }
    }
    Ok(())
}
