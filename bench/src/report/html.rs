//! `report.html`: `report.md` rendered by pulldown-cmark, with the charts inlined and every
//! byte of CSS inside, so the file opens offline, prints, and can be mailed alone.

use super::charts::Chart;
use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

/// Turns a fenced code block (its language, its text) into HTML; `None` keeps it plain.
pub type Highlight<'a> = dyn Fn(&str, &str) -> Option<String> + 'a;

/// What a page may add to the plain rendering.
#[derive(Default)]
pub struct Extras<'a> {
    pub highlight: Option<&'a Highlight<'a>>,
    /// Lays each level-4 section (its heading and what follows, up to the next heading) beside
    /// the others of its run, as cards in a grid.
    pub side_by_side: bool,
    /// CSS added after the page's own.
    pub style: &'a str,
}

pub fn render(title: &str, markdown: &str, charts: &[Chart]) -> String {
    render_with(title, markdown, charts, &Extras::default())
}

pub fn render_with(title: &str, markdown: &str, charts: &[Chart], extras: &Extras) -> String {
    let mut in_chart = false;
    let charted = Parser::new_ext(markdown, Options::ENABLE_TABLES).filter_map(|event| {
        match event {
            // Text from results.json is escaped in the Markdown already; this keeps any HTML
            // that slipped through as text too, so nothing in a batch can add markup.
            Event::Html(html) | Event::InlineHtml(html) => Some(Event::Text(html)),
            // A chart image becomes the chart itself; its alt text is dropped with it.
            Event::Start(Tag::Image { ref dest_url, .. }) => {
                match charts.iter().find(|c| c.file_name == dest_url.as_ref()) {
                    Some(chart) => {
                        in_chart = true;
                        Some(Event::Html(chart.svg.clone().into()))
                    }
                    None => Some(event),
                }
            }
            Event::End(TagEnd::Image) if in_chart => {
                in_chart = false;
                None
            }
            _ if in_chart => None,
            _ => Some(event),
        }
    });
    let mut events = Vec::new();
    // The fenced block being read for the highlighter: its language and text.
    let mut code: Option<(String, String)> = None;
    let mut in_card = false;
    for event in charted {
        if let Some((language, text)) = code.as_mut() {
            match event {
                Event::Text(part) => text.push_str(&part),
                Event::End(TagEnd::CodeBlock) => {
                    let highlight = extras.highlight.expect("only read with a highlighter");
                    let html = highlight(language, text).unwrap_or_else(|| {
                        let mut escaped = String::new();
                        pulldown_cmark_escape::escape_html(&mut escaped, text)
                            .expect("writing to a String");
                        format!("<pre><code>{escaped}</code></pre>\n")
                    });
                    events.push(Event::Html(html.into()));
                    code = None;
                }
                _ => {}
            }
            continue;
        }
        match &event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(language)))
                if extras.highlight.is_some() =>
            {
                code = Some((language.to_string(), String::new()));
                continue;
            }
            Event::Start(Tag::Heading { level, .. }) if extras.side_by_side => {
                let card = *level == HeadingLevel::H4;
                let opening = match (in_card, card) {
                    (false, true) => "<div class=\"side-by-side\">\n<section class=\"card\">\n",
                    (true, true) => "</section>\n<section class=\"card\">\n",
                    (true, false) => "</section>\n</div>\n",
                    (false, false) => "",
                };
                if !opening.is_empty() {
                    events.push(Event::Html(opening.into()));
                }
                in_card = card;
            }
            _ => {}
        }
        events.push(event);
    }
    if in_card {
        events.push(Event::Html("</section>\n</div>\n".into()));
    }
    let mut body = String::new();
    pulldown_cmark::html::push_html(&mut body, events.into_iter());

    let mut escaped_title = String::new();
    pulldown_cmark_escape::escape_html(&mut escaped_title, title).expect("writing to a String");
    let style = extras.style;
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{escaped_title}</title>\n<style>{STYLE}{style}</style>\n</head>\n<body>\n<main>\n\
         {body}</main>\n</body>\n</html>\n"
    )
}

/// Greys only: the charts carry the colour.
const STYLE: &str = "
body { font: 15px/1.45 system-ui, -apple-system, 'Segoe UI', sans-serif; color: #1f1f1f;
       background: #fff; margin: 0; }
main { max-width: 1100px; margin: 0 auto; padding: 1.5rem 1.25rem 3rem; }
h1 { font-size: 1.7rem; margin: 0 0 1rem; }
h2 { font-size: 1.35rem; margin: 2.5rem 0 .75rem; padding-bottom: .25rem;
     border-bottom: 1px solid #ccc; }
h3 { font-size: 1.1rem; margin: 1.75rem 0 .5rem; }
table { border-collapse: collapse; margin: .5rem 0 1.25rem; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #d4d4d4; padding: .25rem .6rem; vertical-align: top; }
th { background: #f1f1f1; text-align: left; }
td:first-child { white-space: nowrap; }
tbody tr:nth-child(even) td { background: #fafafa; }
pre { background: #f5f5f5; border: 1px solid #ddd; padding: .75rem; overflow-x: auto;
      white-space: pre-wrap; word-break: break-word; }
code { font: .9em/1.4 ui-monospace, 'DejaVu Sans Mono', monospace; }
svg { display: block; max-width: 100%; height: auto; margin: .5rem 0 1rem; }
@media print {
  body { font-size: 10pt; }
  main { max-width: none; padding: 0; }
  h2, h3 { break-after: avoid; }
  svg, table, pre { break-inside: avoid; }
}
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_html_in_the_markdown_stays_text() {
        let html = render(
            "a <title>",
            "x <b>bold</b>\n\n<script>alert(1)</script>\n",
            &[],
        );
        assert!(html.contains("<title>a &lt;title&gt;</title>"), "{html}");
        assert!(html.contains("x &lt;b&gt;bold&lt;/b&gt;"), "{html}");
        assert!(
            html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{html}"
        );
        assert!(!html.contains("<b>") && !html.contains("<script"), "{html}");
    }

    #[test]
    fn code_is_highlighted_and_level_4_sections_sit_side_by_side() {
        let markdown = "## Cache\n\nintro\n\n#### go\n\n```go\nx := 1 < 2\n```\n\n\
                        #### rust\n\n```rust\nlet x = 1;\n```\n\n```sh\nls <dir>\n```\n\n## Next\n";
        let highlight = |language: &str, code: &str| {
            (language != "sh").then(|| format!("<pre class=\"{language}\">{}</pre>", code.len()))
        };
        let html = render_with(
            "t",
            markdown,
            &[],
            &Extras {
                highlight: Some(&highlight),
                side_by_side: true,
                style: ".card{}",
            },
        );
        let body = &html[html.find("<main>").unwrap()..];
        assert_eq!(
            body,
            "<main>\n<h2>Cache</h2>\n<p>intro</p>\n<div class=\"side-by-side\">\n\
             <section class=\"card\">\n<h4>go</h4>\n<pre class=\"go\">11</pre>\
             </section>\n<section class=\"card\">\n<h4>rust</h4>\n<pre class=\"rust\">11</pre>\
             <pre><code>ls &lt;dir&gt;\n</code></pre>\n</section>\n</div>\n<h2>Next</h2>\n</main>\n\
             </body>\n</html>\n"
        );
        assert!(html.contains(".card{}</style>"));
    }

    #[test]
    fn a_chart_image_becomes_the_inline_chart() {
        let chart = Chart {
            file_name: "memory.svg".to_owned(),
            title: "Memory".to_owned(),
            svg: "<svg><text>go</text></svg>".to_owned(),
        };
        let html = render("t", "![Memory](memory.svg)\n", &[chart]);
        assert!(html.contains("<p><svg><text>go</text></svg></p>"), "{html}");
        assert!(!html.contains("<img"), "{html}");
    }
}
