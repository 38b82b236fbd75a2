//! Markdown pieces: escaped text, padded tables (readable raw in a terminal too), fenced
//! code. Text from `results.json` goes through [`escape`], so a `|` or `<script>` in a
//! reason stays text in the Markdown and, after rendering, in the HTML.

use std::ops::RangeBounds;

/// `text` as literal Markdown inline text, on one line.
pub fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '#' | '~' | '&' => {
                escaped.push('\\');
                escaped.push(c);
            }
            '\r' | '\n' => escaped.push(' '),
            _ => escaped.push(c),
        }
    }
    escaped
}

/// `text` verbatim in a fenced block, the fence longer than any backtick run inside it.
pub fn code_block(language: &str, text: &str) -> String {
    let longest_run = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest_run.max(2) + 1);
    format!(
        "{fence}{language}\n{}\n{fence}\n",
        text.trim_end_matches('\n')
    )
}

/// A table of plain-text cells; the header and cells are escaped when rendered.
pub struct Table {
    header: Vec<String>,
    /// Per column: holds numbers, so is right-aligned.
    numbers: Vec<bool>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new<S: Into<String>>(header: impl IntoIterator<Item = S>) -> Table {
        let header: Vec<String> = header.into_iter().map(Into::into).collect();
        Table {
            numbers: vec![false; header.len()],
            header,
            rows: Vec::new(),
        }
    }

    /// Right-aligns `columns`, which hold numbers.
    pub fn numbers(mut self, columns: impl RangeBounds<usize>) -> Table {
        for (i, number) in self.numbers.iter_mut().enumerate() {
            *number = columns.contains(&i);
        }
        self
    }

    pub fn row(&mut self, cells: Vec<String>) {
        debug_assert_eq!(cells.len(), self.header.len(), "one cell per column");
        self.rows.push(cells);
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn to_markdown(&self) -> String {
        let header: Vec<String> = self.header.iter().map(|h| escape(h)).collect();
        let rows: Vec<Vec<String>> = self
            .rows
            .iter()
            .map(|row| row.iter().map(|c| escape(c)).collect())
            .collect();
        let widths: Vec<usize> = (0..header.len())
            .map(|i| {
                rows.iter()
                    .map(|row| row[i].chars().count())
                    .chain([header[i].chars().count(), 3])
                    .max()
                    .unwrap_or(3)
            })
            .collect();
        let line = |cells: &[String]| {
            let padded: Vec<String> = cells
                .iter()
                .zip(&widths)
                .zip(&self.numbers)
                .map(|((cell, &w), &number)| {
                    if number {
                        format!(" {cell:>w$} ")
                    } else {
                        format!(" {cell:<w$} ")
                    }
                })
                .collect();
            format!("|{}|\n", padded.join("|"))
        };
        let rule: Vec<String> = widths
            .iter()
            .zip(&self.numbers)
            .map(|(w, &number)| {
                if number {
                    format!("{}:", "-".repeat(w + 1))
                } else {
                    "-".repeat(w + 2)
                }
            })
            .collect();
        let mut text = line(&header);
        text.push_str(&format!("|{}|\n", rule.join("|")));
        for row in &rows {
            text.push_str(&line(row));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_markdown_would_interpret() {
        assert_eq!(
            escape("a|b <script> *x* [l](u) &amp;\nnext"),
            r"a\|b \<script\> \*x\* \[l\](u) \&amp; next"
        );
    }

    #[test]
    fn fence_outgrows_backticks_inside() {
        assert_eq!(
            code_block("diff", "a ```` b\n"),
            "`````diff\na ```` b\n`````\n"
        );
        assert_eq!(code_block("", "plain"), "```\nplain\n```\n");
    }

    #[test]
    fn pads_and_aligns_columns() {
        let mut table = Table::new(["app", "req/s"]).numbers(1..);
        table.row(vec!["go".into(), "14,140".into()]);
        assert_eq!(
            table.to_markdown(),
            "| app |  req/s |\n|-----|-------:|\n| go  | 14,140 |\n"
        );
    }
}
