//! The canonical escaper: Go `html/template`'s escaping of text in element content
//! (`htmlReplacementTable` in Go's `html/template/html.go`), which every engine must match
//! byte for byte. Note `+` → `&#43;` and NUL → U+FFFD, which no Rust engine does by default.
//! `testdata/escape-vectors.json` holds the cases both this and a Go test check.

use std::fmt;
use std::io;

fn replacement(c: char) -> Option<&'static str> {
    Some(match c {
        '\0' => "\u{FFFD}",
        '"' => "&#34;",
        '&' => "&amp;",
        '\'' => "&#39;",
        '+' => "&#43;",
        '<' => "&lt;",
        '>' => "&gt;",
        _ => return None,
    })
}

/// Writes `input` escaped into `out` (the shape askama's escapers take).
pub fn write_escaped(out: &mut impl fmt::Write, input: &str) -> fmt::Result {
    let mut last = 0;
    for (i, c) in input.char_indices() {
        if let Some(rep) = replacement(c) {
            out.write_str(&input[last..i])?;
            out.write_str(rep)?;
            last = i + c.len_utf8();
        }
    }
    out.write_str(&input[last..])
}

/// Writes `input` escaped into a byte sink (the shape Tera 2's `set_escape_fn` takes:
/// `fn(&str, &mut dyn std::io::Write) -> std::io::Result<()>`).
pub fn write_escaped_io(input: &str, out: &mut dyn io::Write) -> io::Result<()> {
    let mut last = 0;
    for (i, c) in input.char_indices() {
        if let Some(rep) = replacement(c) {
            out.write_all(&input.as_bytes()[last..i])?;
            out.write_all(rep.as_bytes())?;
            last = i + c.len_utf8();
        }
    }
    out.write_all(&input.as_bytes()[last..])
}

/// Returns `input` escaped (the shape Tera's `set_escape_fn` takes).
pub fn escape_html(input: &str) -> String {
    let mut out = String::with_capacity(input.len() + input.len() / 8);
    write_escaped(&mut out, input).expect("writing to a String cannot fail");
    out
}

#[cfg(test)]
mod tests {
    use super::{escape_html, write_escaped_io};

    #[test]
    fn matches_go_html_template_on_the_shared_vectors() {
        let vectors: Vec<(String, String)> =
            serde_json::from_str(include_str!("../testdata/escape-vectors.json")).unwrap();
        assert!(vectors.len() >= 10);
        for (input, expected) in vectors {
            assert_eq!(escape_html(&input), expected, "input {input:?}");
        }
    }

    #[test]
    fn the_io_writer_matches_the_shared_vectors() {
        let vectors: Vec<(String, String)> =
            serde_json::from_str(include_str!("../testdata/escape-vectors.json")).unwrap();
        for (input, expected) in vectors {
            let mut out = Vec::new();
            write_escaped_io(&input, &mut out).unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), expected, "input {input:?}");
        }
    }

    #[test]
    fn differs_from_teras_default_where_go_does() {
        let tricky = "'\"/+";
        assert_eq!(escape_html(tricky), "&#39;&#34;/&#43;");
        assert_ne!(escape_html(tricky), tera::escape_html(tricky));
    }
}
