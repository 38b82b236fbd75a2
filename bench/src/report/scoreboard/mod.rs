//! The scoreboard's page (`scoreboard.md`, `index.html`, `scoreboard-throughput.svg`), built
//! from `scoreboard.json` and its parts' own results files: the headline table, one section
//! per question, a card per app. Every table's Markdown in the HTML (what *Copy as Markdown*
//! copies) is the same text `scoreboard.md` holds, made once here.

mod cells;
mod chart;
mod html;
mod questions;
mod rates;
mod sections;
mod sources;
#[cfg(test)]
mod tests;

use super::charts::Chart;
use super::markdown::Table;
use crate::results::scoreboard::Scoreboard;
use crate::results::{RunKind, write_atomically};
use anyhow::Result;
use sources::Sources;
use std::ops::Range;
use std::path::Path;

pub const MARKDOWN_FILE: &str = "scoreboard.md";
pub const HTML_FILE: &str = "index.html";

/// Writes `scoreboard.md`, `index.html` and the chart into the scoreboard folder `dir`, from
/// its `scoreboard.json` and the parts' results files under it.
pub fn write(dir: &Path) -> Result<()> {
    let scoreboard = Scoreboard::load(&dir.join(RunKind::Scoreboard.file()))?;
    let sources = Sources::load(dir, &scoreboard);
    let blocks = sections::page(&sources)?;
    let title = format!("blogbench scoreboard {}", scoreboard.header.id);
    let mut files = vec![MARKDOWN_FILE, HTML_FILE];
    for block in &blocks {
        if let Block::Chart(chart) = block {
            write_atomically(&dir.join(&chart.file_name), chart.svg.as_bytes())?;
            files.push(&chart.file_name);
        }
    }
    write_atomically(&dir.join(MARKDOWN_FILE), markdown(&blocks).as_bytes())?;
    write_atomically(&dir.join(HTML_FILE), html::page(&title, &blocks).as_bytes())?;
    println!("report: wrote {}: {}", dir.display(), files.join(", "));
    Ok(())
}

/// A piece of the page, written to both files.
pub(super) enum Block {
    /// Markdown, rendered to HTML as it stands.
    Text(String),
    Table(ScoreTable),
    Chart(Chart),
    /// An app's card: hidden, with the app's rows, when other apps are picked.
    Card {
        app: String,
        text: String,
    },
    /// The checkboxes that pick apps (the HTML's only).
    Picker(Vec<String>),
}

/// A table whose Markdown and HTML come from the same cells.
pub(super) struct ScoreTable {
    /// The HTML id of the table's box.
    pub id: String,
    pub header: Vec<String>,
    /// The columns that hold numbers, so are right-aligned.
    pub numbers: Range<usize>,
    pub rows: Vec<Row>,
}

pub(super) struct Row {
    /// The app the row is about: `None` for a row every pick keeps (the noise floor).
    pub app: Option<String>,
    pub cells: Vec<Cell>,
}

/// A number with the part report it came from, or the reason there is none.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Cell {
    pub text: String,
    /// Relative to the scoreboard's folder.
    pub link: Option<String>,
}

impl Cell {
    /// A cell linked to nothing: why there is no number, a name, or a count made by the
    /// scoreboard itself.
    pub fn plain(text: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            link: None,
        }
    }

    pub fn linked(text: impl Into<String>, link: Option<String>) -> Cell {
        Cell {
            text: text.into(),
            link,
        }
    }
}

impl ScoreTable {
    pub fn new(id: &str, header: Vec<String>, numbers: Range<usize>) -> ScoreTable {
        ScoreTable {
            id: id.to_owned(),
            header,
            numbers,
            rows: Vec::new(),
        }
    }

    pub fn row(&mut self, app: Option<&str>, cells: Vec<Cell>) {
        self.rows.push(Row {
            app: app.map(str::to_owned),
            cells,
        });
    }

    /// The padded pipe table: its header and rule lines, then one line per row.
    pub fn markdown(&self) -> String {
        let mut table = Table::new(self.header.iter().cloned()).numbers(self.numbers.clone());
        for row in &self.rows {
            table.row(row.cells.iter().map(|c| c.text.clone()).collect());
        }
        table.to_markdown()
    }
}

/// `scoreboard.md`: every block's Markdown, a chart as its image.
fn markdown(blocks: &[Block]) -> String {
    let texts: Vec<String> = blocks
        .iter()
        .filter_map(|block| match block {
            Block::Text(text) | Block::Card { text, .. } => Some(text.clone()),
            Block::Table(table) => Some(table.markdown()),
            Block::Chart(chart) => Some(format!(
                "![{}]({})\n",
                super::markdown::escape(&chart.title),
                chart.file_name
            )),
            Block::Picker(_) => None,
        })
        .collect();
    texts.join("\n")
}

/// `path` as a link target: percent-encoded but for the characters a folder name of the
/// harness uses, so a name from a results file cannot end the link or the attribute.
pub(super) fn href(path: &str) -> String {
    let mut encoded = String::new();
    for byte in path.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'/' | b'~' => {
                encoded.push(byte as char)
            }
            _ => encoded.push_str(&format!("%{byte:02X}")),
        }
    }
    encoded
}
