//! `index.html`: the page's blocks as one self-contained file (styles, charts and script
//! inside, nothing fetched), which works from `file://`. Each table carries its Markdown, a
//! line per row, so *Copy as Markdown* copies the rows shown, and the app picker hides the
//! rows and cards of the apps not picked.

use super::{Block, ScoreTable, href};
use pulldown_cmark::{Event, Options, Parser};

pub(super) fn page(title: &str, blocks: &[Block]) -> String {
    let body: String = blocks.iter().map(block).collect();
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n{body}</main>\n\
         <script>{SCRIPT}</script>\n</body>\n</html>\n",
        text(title)
    )
}

/// `value` escaped for HTML text and double-quoted attributes.
fn text(value: &str) -> String {
    let mut escaped = String::new();
    pulldown_cmark_escape::escape_html(&mut escaped, value).expect("writing to a String");
    escaped
}

fn block(block: &Block) -> String {
    match block {
        Block::Text(markdown) => prose(markdown),
        Block::Table(table) => table_html(table),
        Block::Chart(chart) => format!("<figure>{}</figure>\n", chart.svg),
        Block::Card {
            app,
            text: markdown,
        } => format!(
            "<section class=\"card\" data-app=\"{}\">\n{}</section>\n",
            text(app),
            prose(markdown)
        ),
        Block::Picker(apps) => picker(apps),
    }
}

/// Markdown rendered as the other reports render it: raw HTML in it stays text, so nothing
/// from a results file can add markup.
fn prose(markdown: &str) -> String {
    let events = Parser::new_ext(markdown, Options::ENABLE_TABLES).map(|event| match event {
        Event::Html(html) | Event::InlineHtml(html) => Event::Text(html),
        other => other,
    });
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, events);
    html
}

fn picker(apps: &[String]) -> String {
    let boxes: String = apps
        .iter()
        .map(|app| {
            let app = text(app);
            format!("<label><input type=\"checkbox\" value=\"{app}\"> {app}</label>\n")
        })
        .collect();
    format!(
        "<fieldset id=\"pick\">\n<legend>Pick two or three apps: every table then shows only \
         theirs (and the noise floor); none ticked shows every app.</legend>\n{boxes}\
         </fieldset>\n"
    )
}

fn table_html(table: &ScoreTable) -> String {
    let markdown = table.markdown();
    let lines: Vec<&str> = markdown.lines().collect();
    let (head, rows) = lines.split_at(2);
    let align = |column: usize| match table.numbers.contains(&column) {
        true => " class=\"number\"",
        false => "",
    };
    let mut html = format!(
        "<div class=\"scoretable\" id=\"{}\">\n<table data-md-head=\"{}\">\n<thead><tr>",
        text(&table.id),
        text(&head.join("\n"))
    );
    for (column, title) in table.header.iter().enumerate() {
        html.push_str(&format!("<th{}>{}</th>", align(column), text(title)));
    }
    html.push_str("</tr></thead>\n<tbody>\n");
    for (row, line) in table.rows.iter().zip(rows) {
        let app = row
            .app
            .as_ref()
            .map_or_else(String::new, |app| format!(" data-app=\"{}\"", text(app)));
        html.push_str(&format!("<tr{app} data-md=\"{}\">", text(line)));
        for (column, cell) in row.cells.iter().enumerate() {
            let content = match &cell.link {
                Some(link) => format!("<a href=\"{}\">{}</a>", href(link), text(&cell.text)),
                None => text(&cell.text),
            };
            html.push_str(&format!("<td{}>{content}</td>", align(column)));
        }
        html.push_str("</tr>\n");
    }
    html.push_str(
        "</tbody>\n</table>\n<button type=\"button\" class=\"copy\">Copy as Markdown</button>\n\
         <textarea class=\"copied\" readonly hidden rows=\"8\" \
         aria-label=\"The Markdown copied\"></textarea>\n</div>\n",
    );
    html
}

/// Greys, as the other reports; the charts carry the colour.
const STYLE: &str = "
body { font: 15px/1.45 system-ui, -apple-system, 'Segoe UI', sans-serif; color: #1f1f1f;
       background: #fff; margin: 0; }
main { max-width: 1400px; margin: 0 auto; padding: 1.5rem 1.25rem 3rem; }
h1 { font-size: 1.7rem; margin: 0 0 1rem; }
h2 { font-size: 1.35rem; margin: 2.5rem 0 .75rem; padding-bottom: .25rem;
     border-bottom: 1px solid #ccc; }
h3 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
blockquote { border-left: 4px solid #b00; margin: 1rem 0; padding: .25rem 1rem;
             background: #fff4f4; }
.scoretable { overflow-x: auto; margin: .5rem 0 1.5rem; }
table { border-collapse: collapse; margin: .25rem 0 .5rem; font-variant-numeric: tabular-nums;
        width: max-content; }
th, td { border: 1px solid #d4d4d4; padding: .25rem .5rem; vertical-align: top;
         max-width: 16em; }
th { background: #f1f1f1; text-align: left; }
.number { text-align: right; }
td:first-child { white-space: nowrap; font-weight: 600; }
tbody tr:nth-child(even) td { background: #fafafa; }
td a { color: inherit; text-decoration-color: #aaa; }
textarea.copied { display: block; width: 100%; box-sizing: border-box; margin-top: .5rem;
                  font: .8em/1.4 ui-monospace, 'DejaVu Sans Mono', monospace; }
textarea.copied[hidden] { display: none; }
#pick { border: 1px solid #ccc; padding: .5rem 1rem; margin: 1rem 0; }
#pick label { display: inline-block; margin-right: 1rem; white-space: nowrap; }
.card { border: 1px solid #ddd; padding: .25rem 1rem; margin: .75rem 0; }
svg { display: block; max-width: 100%; height: auto; }
figure { margin: .5rem 0 1rem; }
@media print {
  #pick, button.copy, textarea.copied { display: none; }
  .scoretable { overflow: visible; }
}
";

/// The picker and *Copy as Markdown*. The copy is always shown under its table as well, as
/// a browser may refuse the clipboard to a page opened from a file.
const SCRIPT: &str = r#"
(function () {
  var boxes = Array.prototype.slice.call(document.querySelectorAll('#pick input'));
  function picked() {
    return boxes.filter(function (b) { return b.checked; }).map(function (b) { return b.value; });
  }
  boxes.forEach(function (box) {
    box.addEventListener('change', function () {
      var apps = picked();
      document.querySelectorAll('[data-app]').forEach(function (el) {
        var shown = apps.length === 0 || apps.indexOf(el.getAttribute('data-app')) >= 0;
        el.hidden = !shown;
        el.style.display = shown ? '' : 'none';
      });
    });
  });
  function copyFrom(area) {
    area.focus();
    area.select();
    try { document.execCommand('copy'); } catch (e) { /* the text stays shown */ }
  }
  document.querySelectorAll('.scoretable').forEach(function (box) {
    var table = box.querySelector('table');
    var area = box.querySelector('textarea.copied');
    box.querySelector('button.copy').addEventListener('click', function () {
      var lines = [table.getAttribute('data-md-head')];
      table.querySelectorAll('tbody tr').forEach(function (row) {
        if (!row.hidden) { lines.push(row.getAttribute('data-md')); }
      });
      var markdown = lines.join('\n') + '\n';
      area.textContent = markdown;
      area.value = markdown;
      area.hidden = false;
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(markdown).catch(function () { copyFrom(area); });
      } else {
        copyFrom(area);
      }
    });
  });
})();
"#;
