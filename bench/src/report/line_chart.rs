//! How the sweep report's line charts are drawn: panels with linear or logarithmic axes
//! (log10 of the values on a linear axis, ticks at 1-2-5 steps), lines, levels and marks,
//! a legend, on plotters' SVG backend.

use super::charts::Chart;
use anyhow::Result;
use plotters::coord::Shift;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::types::RangedCoordf64;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// A tick label: at most three decimals, none when whole (`0.5`, `2`, `150`).
pub(super) fn tick(value: f64) -> String {
    format!("{}", (value * 1000.0).round() / 1000.0)
}

pub(super) struct Panel {
    pub(super) caption: String,
    pub(super) x: Axis,
    pub(super) y: Axis,
    pub(super) lines: Vec<Line>,
    /// Horizontal lines across the panel, labelled at their right end: an objective.
    pub(super) levels: Vec<(f64, String)>,
    /// Vertical lines, labelled at their top: where a phase begins.
    pub(super) marks: Vec<(f64, String)>,
}

pub(super) struct Axis {
    pub(super) title: &'static str,
    pub(super) log: bool,
    pub(super) label: fn(f64) -> String,
    /// Where the ticks go when the data has natural ones (the connection levels); else
    /// 1-2-5 steps across the range.
    pub(super) ticks_at: Option<Vec<f64>>,
}

impl Axis {
    pub(super) fn linear(title: &'static str, label: fn(f64) -> String) -> Axis {
        Axis {
            title,
            log: false,
            label,
            ticks_at: None,
        }
    }

    pub(super) fn log(title: &'static str, label: fn(f64) -> String) -> Axis {
        Axis {
            log: true,
            ..Axis::linear(title, label)
        }
    }

    /// Where `value` is drawn; `None` for what the axis cannot show (≤ 0 on a log axis).
    pub(super) fn plotted(&self, value: f64) -> Option<f64> {
        let plotted = if self.log { value.log10() } else { value };
        plotted.is_finite().then_some(plotted)
    }

    /// The value drawn at `plotted`, for the tick labels.
    pub(super) fn value_at(&self, plotted: f64) -> f64 {
        if self.log {
            10f64.powf(plotted)
        } else {
            plotted
        }
    }

    /// The plotted range covering `values` (rates and memory from 0; a log axis with a
    /// margin either side) and its ticks, both in plotted units.
    pub(super) fn layout(&self, values: &[f64]) -> (std::ops::Range<f64>, Vec<f64>) {
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
pub(super) fn linear_ticks(max: f64) -> Vec<f64> {
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
pub(super) fn log_ticks(low: f64, high: f64) -> Vec<f64> {
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
pub(super) enum Stroke {
    Solid,
    Dashed,
}

pub(super) struct Line {
    pub(super) colour: RGBColor,
    pub(super) stroke: Stroke,
    /// A dot on each valid point; invalid ones get a cross whatever this says.
    pub(super) markers: bool,
    pub(super) points: Vec<Point>,
}

pub(super) struct Point {
    pub(super) x: f64,
    pub(super) y: f64,
    pub(super) valid: bool,
}

pub(super) struct Key {
    pub(super) label: String,
    pub(super) colour: RGBColor,
    pub(super) swatch: Swatch,
}

pub(super) enum Swatch {
    Solid,
    Dashed,
    Cross,
}

impl Key {
    pub(super) fn new(label: &str, colour: RGBColor, swatch: Swatch) -> Key {
        Key {
            label: label.to_owned(),
            colour,
            swatch,
        }
    }

    /// Its width in the legend: swatch, gap, label (about 9 px a character), space after.
    pub(super) fn width(&self) -> i32 {
        SWATCH + 8 + self.label.chars().count() as i32 * 9 + 24
    }
}

pub(super) const GREY: RGBColor = RGBColor(0x55, 0x55, 0x55);
const GRID: RGBColor = RGBColor(0xdd, 0xdd, 0xdd);

pub(super) const WIDTH: u32 = 960;
pub(super) const TITLE_HEIGHT: u32 = 40;
pub(super) const LEGEND_ROW: u32 = 26;
pub(super) const PANEL_HEIGHT: u32 = 420;
pub(super) const SWATCH: i32 = 28;
pub(super) const FONT: &str = "sans-serif";
/// Font sizes as plotters takes them, the batch charts' (charts.rs).
pub(super) const TITLE_SIZE: f64 = 26.0;
pub(super) const CAPTION_SIZE: f64 = 20.0;
pub(super) const LABEL_SIZE: f64 = 17.0;

/// The legend's keys, row by row, each with its x position.
pub(super) fn legend_rows(legend: &[Key]) -> Vec<Vec<(i32, &Key)>> {
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
pub(super) fn draw(
    file_name: String,
    title: String,
    legend: &[Key],
    panels: &[Panel],
) -> Result<Chart> {
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

pub(super) fn draw_legend(
    area: &DrawingArea<SVGBackend, Shift>,
    rows: &[Vec<(i32, &Key)>],
) -> Result<()> {
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

pub(super) fn draw_panel(area: &DrawingArea<SVGBackend, Shift>, panel: &Panel) -> Result<()> {
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
pub(super) struct Ticked {
    pub(super) coordinate: RangedCoordf64,
    pub(super) ticks: Vec<f64>,
}

impl Ticked {
    pub(super) fn new(range: std::ops::Range<f64>, ticks: Vec<f64>) -> Ticked {
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

pub(super) fn draw_line(chart: &mut Plot, panel: &Panel, line: &Line) -> Result<()> {
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
    }
}
