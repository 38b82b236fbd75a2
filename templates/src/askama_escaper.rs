//! The canonical escaper as an askama `Escaper` (askama's own `Html` writes `&#38;`, `&#60;`,
//! `&#62;` and leaves `+` and NUL alone). An askama app names it in its `askama.toml`:
//!
//! ```toml
//! [[escaper]]
//! path = "::templates::AskamaEscaper"
//! extensions = ["html"]
//! ```

use askama::filters::Escaper;
use std::fmt;

/// Go `html/template`'s text escaping, for askama templates.
#[derive(Debug, Clone, Copy, Default)]
pub struct AskamaEscaper;

impl Escaper for AskamaEscaper {
    fn write_escaped_str<W: fmt::Write>(&self, mut dest: W, string: &str) -> fmt::Result {
        crate::write_escaped(&mut dest, string)
    }
}

#[cfg(test)]
mod tests {
    use super::AskamaEscaper;
    use askama::filters::Escaper;

    fn escaped(input: &str) -> String {
        let mut out = String::new();
        AskamaEscaper.write_escaped_str(&mut out, input).unwrap();
        out
    }

    #[test]
    fn matches_go_html_template_on_the_shared_vectors() {
        let vectors: Vec<(String, String)> =
            serde_json::from_str(include_str!("../testdata/escape-vectors.json")).unwrap();
        assert!(vectors.len() >= 10);
        for (input, expected) in vectors {
            assert_eq!(escaped(&input), expected, "input {input:?}");
        }
    }

    #[test]
    fn escapes_chars_one_at_a_time_alike() {
        for c in ['&', '\'', '<', '>', '"', '+', '\0', 'é', '/'] {
            let mut out = String::new();
            AskamaEscaper.write_escaped_char(&mut out, c).unwrap();
            assert_eq!(out, escaped(&c.to_string()), "char {c:?}");
        }
    }

    #[test]
    fn differs_from_askamas_default_where_go_does() {
        let tricky = "&<>+";
        let mut askama = String::new();
        askama::filters::Html
            .write_escaped_str(&mut askama, tricky)
            .unwrap();
        assert_eq!(escaped(tricky), "&amp;&lt;&gt;&#43;");
        assert_ne!(escaped(tricky), askama);
    }
}
