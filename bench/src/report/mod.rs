//! The report of a batch (`report.md`, `report.html`, `*.svg`), built from its
//! `results.json` alone, the comparison of two batches, the reliability table of a faults
//! run (`reliability.md`, from its `faults.json`), and the report of a sweep (`sweep.md`,
//! `sweep.html`, `sweep-*.svg`, from its `sweep.json`).

mod charts;
mod compare;
mod document;
mod html;
mod markdown;
mod numbers;
mod outcome;
mod profiles;
mod reliability;
mod routes;
mod sweep;
mod sweep_charts;

pub use compare::{BAND, Comparison, differences};

use crate::results::faults::FaultsRun;
use crate::results::profile::{Profile, RenderTimes};
use crate::results::sweep::Sweep;
use crate::results::{Batch, write_atomically};
use anyhow::Result;
use std::path::Path;

/// Writes `report.md`, `report.html` and the charts into the batch folder `dir`; with
/// `profiles` (a `blogbench profile` folder), also the "Where the time goes" section.
pub fn write(dir: &Path, profiles: Option<&Path>) -> Result<()> {
    let batch = Batch::load(&dir.join("results.json"))?;
    let charts = charts::all(&batch)?;
    let mut markdown = document::markdown(&batch, &charts);
    if let Some(profiles_dir) = profiles {
        let id = profiles_dir
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        markdown.push('\n');
        markdown.push_str(&profiles::section(
            &id,
            &Profile::load_all(profiles_dir)?,
            RenderTimes::load(profiles_dir)?.as_ref(),
        ));
    }
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

/// Writes `reliability.md` into the `blogbench faults` folder `dir`, from its `faults.json`.
pub fn write_reliability(dir: &Path) -> Result<()> {
    let run = FaultsRun::load(&dir.join("faults.json"))?;
    write_atomically(
        &dir.join("reliability.md"),
        reliability::markdown(&run).as_bytes(),
    )
}

/// Writes `sweep.md`, `sweep.html` and the charts into the `blogbench sweep` folder `dir`,
/// from its `sweep.json`.
pub fn write_sweep(dir: &Path) -> Result<()> {
    let sweep = Sweep::load(&dir.join("sweep.json"))?;
    let charts = sweep_charts::charts(&sweep)?;
    let markdown = sweep::markdown(&sweep, &charts);
    let html = html::render(&format!("blogbench sweep {}", sweep.id), &markdown, &charts);
    for chart in &charts {
        write_atomically(&dir.join(&chart.file_name), chart.svg.as_bytes())?;
    }
    write_atomically(&dir.join("sweep.md"), markdown.as_bytes())?;
    write_atomically(&dir.join("sweep.html"), html.as_bytes())?;
    let files: Vec<&str> = ["sweep.md", "sweep.html"]
        .into_iter()
        .chain(charts.iter().map(|c| c.file_name.as_str()))
        .collect();
    println!("report: wrote {}: {}", dir.display(), files.join(", "));
    Ok(())
}

/// Prints the change per app and route between two batches; `Ok(false)` when any change is
/// outside its band. Batches measured differently are an error listing the differences,
/// unless `force`: then the differences are printed first and the comparison follows.
pub fn compare(before: &Path, after: &Path, force: bool) -> Result<bool> {
    let comparison = Comparison::of(
        &Batch::load(&before.join("results.json"))?,
        &Batch::load(&after.join("results.json"))?,
        force,
    )?;
    print!("{}", comparison.text);
    Ok(comparison.within_band)
}
