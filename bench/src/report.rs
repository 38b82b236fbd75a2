//! The report of a batch (`report.md`, `report.html`, `*.svg`), built from its
//! `results.json` alone, and the comparison of two batches.

mod charts;
mod compare;
mod document;
mod html;
mod markdown;
mod numbers;
mod outcome;
mod routes;

pub use compare::{BAND, Comparison};

use crate::results::{Batch, write_atomically};
use anyhow::Result;
use std::path::Path;

/// Writes `report.md`, `report.html` and the charts into the batch folder `dir`.
pub fn write(dir: &Path) -> Result<()> {
    let batch = Batch::load(&dir.join("results.json"))?;
    let charts = charts::all(&batch)?;
    let markdown = document::markdown(&batch, &charts);
    let title = format!("blogbench report: batch {}", batch.id);
    let html = html::render(&title, &markdown, &charts);
    for chart in &charts {
        write_atomically(&dir.join(&chart.file_name), chart.svg.as_bytes())?;
    }
    write_atomically(&dir.join("report.md"), markdown.as_bytes())?;
    write_atomically(&dir.join("report.html"), html.as_bytes())?;
    let files: Vec<&str> = charts.iter().map(|c| c.file_name.as_str()).collect();
    println!(
        "report: wrote {}: report.md, report.html, {}",
        dir.display(),
        files.join(", ")
    );
    Ok(())
}

/// Prints the change per app and route between two batches; `Ok(false)` when any change is
/// outside the ±15 % band.
pub fn compare(before: &Path, after: &Path) -> Result<bool> {
    let comparison = Comparison::of(
        &Batch::load(&before.join("results.json"))?,
        &Batch::load(&after.join("results.json"))?,
    );
    print!("{}", comparison.text);
    Ok(comparison.within_band)
}
