//! The report of a batch (`report.md`, `report.html`, `*.svg`), built from its
//! `results.json` alone (and the summary of the newest idioms page) with `verdicts.json`, the
//! statistics behind its claims; the comparison of two batches, the reliability table of a
//! faults run (`reliability.md`, from its
//! `faults.json`), the report of a sweep (`sweep.md`, `sweep.html`, `sweep-*.svg`, from its
//! `sweep.json`), and the idioms page (`idioms.md`, `idioms.html`, from its `idioms.json`).

mod batch;
mod charts;
mod compare;
mod html;
mod idioms;
mod line_chart;
mod markdown;
mod measures;
mod numbers;
mod outcome;
mod profiles;
mod ratios;
mod reliability;
mod routes;
mod scoreboard;
mod sweep;
mod sweep_charts;
pub(crate) mod verdicts;

pub use compare::{BAND, Comparison, differences};
pub use scoreboard::write as write_scoreboard;

use crate::results::faults::FaultsRun;
use crate::results::idioms::Idioms;
use crate::results::profile::{Profile, RenderTimes};
use crate::results::sweep::Sweep;
use crate::results::{Batch, RunKind, write_atomically};
use anyhow::Result;
use std::path::Path;

/// Writes `report.md`, `report.html` and the charts into the batch folder `dir`; with
/// `profiles` (a `blogbench profile` folder), also the "Where the time goes" section. The
/// newest idioms page in the `idioms/` folder beside the batch's results folder (for
/// `results/<batch>`, the workspace's `idioms/`) is summarised beside the throughput.
pub fn write(dir: &Path, profiles: Option<&Path>) -> Result<()> {
    let dir_path = dir.canonicalize().unwrap_or_else(|_| dir.to_owned());
    let idioms_root = dir_path
        .parent()
        .and_then(Path::parent)
        .map_or_else(|| dir_path.join("idioms"), |top| top.join("idioms"));
    write_with_idioms(dir, profiles, &idioms_root)
}

/// As [`write`], with the idioms pages looked for under `idioms_root`.
pub fn write_with_idioms(dir: &Path, profiles: Option<&Path>, idioms_root: &Path) -> Result<()> {
    let batch = Batch::load(&dir.join(RunKind::Batch.file()))?;
    let charts = charts::all(&batch)?;
    let idioms = idioms_section(dir, idioms_root);
    let columns = routes::columns(&batch);
    let verdicts = verdicts::of(&batch, &columns);
    let mut markdown = batch::markdown(&batch, &columns, &verdicts, &charts, &idioms);
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
    let title = format!("blogbench report: batch {}", batch.header.id);
    let html = html::render(&title, &markdown, &charts);
    for chart in &charts {
        write_atomically(&dir.join(&chart.file_name), chart.svg.as_bytes())?;
    }
    write_atomically(&dir.join("report.md"), markdown.as_bytes())?;
    write_atomically(&dir.join("report.html"), html.as_bytes())?;
    let verdicts = serde_json::to_vec_pretty(&verdicts)?;
    write_atomically(&dir.join(verdicts::FILE), &verdicts)?;
    let files: Vec<&str> = charts.iter().map(|c| c.file_name.as_str()).collect();
    println!(
        "report: wrote {}: report.md, report.html, {}, {}",
        dir.display(),
        verdicts::FILE,
        files.join(", ")
    );
    Ok(())
}

/// Writes `reliability.md` into the `blogbench faults` folder `dir`, from its `faults.json`.
pub fn write_reliability(dir: &Path) -> Result<()> {
    let run = FaultsRun::load(&dir.join(RunKind::Faults.file()))?;
    write_atomically(
        &dir.join("reliability.md"),
        reliability::markdown(&run).as_bytes(),
    )
}

/// Writes `sweep.md`, `sweep.html` and the charts into the `blogbench sweep` folder `dir`,
/// from its `sweep.json`.
pub fn write_sweep(dir: &Path) -> Result<()> {
    let sweep = Sweep::load(&dir.join(RunKind::Sweep.file()))?;
    let charts = sweep_charts::charts(&sweep)?;
    let markdown = sweep::markdown(&sweep, &charts);
    let html = html::render(
        &format!("blogbench sweep {}", sweep.header.id),
        &markdown,
        &charts,
    );
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

/// The benchmark report's section on the newest idioms page under `idioms_root`, linked from
/// the batch folder `batch_dir`: its summary table, or how to make one.
pub fn idioms_section(batch_dir: &Path, idioms_root: &Path) -> String {
    idioms::report_section(batch_dir, idioms_root)
}

/// Writes `idioms.md` and `idioms.html` into the `blogbench idioms` folder `dir`, from its
/// `idioms.json`; the HTML has the code highlighted and the apps' excerpts side by side.
pub fn write_idioms(dir: &Path) -> Result<()> {
    let page = Idioms::load(&dir.join(crate::results::idioms::FILE))?;
    let markdown = idioms::markdown(&page);
    let highlighter = idioms::Highlighter::new();
    let highlight = |language: &str, code: &str| highlighter.html(language, code);
    let html = html::render_with(
        &format!("blogbench idioms {}", page.header.id),
        &markdown,
        &[],
        &html::Extras {
            highlight: Some(&highlight),
            side_by_side: true,
            style: idioms::STYLE,
        },
    );
    write_atomically(&dir.join("idioms.md"), markdown.as_bytes())?;
    write_atomically(&dir.join("idioms.html"), html.as_bytes())?;
    println!("report: wrote {}: idioms.md, idioms.html", dir.display());
    Ok(())
}

/// Prints the change per app and route between two batches; `Ok(false)` when any change is
/// outside its band. Batches measured differently are an error listing the differences,
/// unless `force`: then the differences are printed first and the comparison follows.
pub fn compare(before: &Path, after: &Path, force: bool) -> Result<bool> {
    let comparison = Comparison::of(
        &Batch::load(&before.join(RunKind::Batch.file()))?,
        &Batch::load(&after.join(RunKind::Batch.file()))?,
        force,
    )?;
    print!("{}", comparison.text);
    Ok(comparison.within_band)
}
