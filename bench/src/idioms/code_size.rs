//! Lines of code: a line counts when it holds code outside comments; blank lines, comments
//! and tests do not (Rust items under `#[cfg(test)]`, Go's `_test.go` files, `tests/` and
//! `benches/` folders). The counter is this small lexer rather than tokei: tokei counts lines
//! but does not parse items, so it cannot leave a `#[cfg(test)]` module out and this lexer
//! would be needed anyway, and as a library it brings some twenty crates (rayon, ignore,
//! grep-searcher, dashmap, …) for what is a comment-and-literal scanner.

use super::source_files;
use crate::results::idioms::{Language, Lines};
use anyhow::{Context, Result};
use std::collections::BTreeSet;
use std::path::Path;

/// The lines of code in the `language` files under `dir` (with `recursive`, its sub-folders
/// too, tests' folders excepted).
pub fn lines_in(dir: &Path, language: Language, recursive: bool) -> Result<Lines> {
    let mut lines = Lines::default();
    for file in source_files(dir, recursive)? {
        if language_of(&file) != Some(language) || is_test_file(&file) {
            continue;
        }
        let text =
            std::fs::read_to_string(&file).with_context(|| format!("read {}", file.display()))?;
        lines.files += 1;
        lines.code += count(&text, language);
    }
    Ok(lines)
}

pub fn language_of(file: &Path) -> Option<Language> {
    match file.extension()?.to_str()? {
        "rs" => Some(Language::Rust),
        "go" => Some(Language::Go),
        _ => None,
    }
}

fn is_test_file(file: &Path) -> bool {
    file.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.ends_with("_test.go"))
}

/// The lines of `text` holding code, Rust's `#[cfg(test)]` items left out.
pub fn count(text: &str, language: Language) -> u64 {
    let code = Lexer::code_chars(text, language);
    let mut lines: BTreeSet<usize> = code.iter().map(|&(line, _)| line).collect();
    if language == Language::Rust {
        for (first, last) in test_items(&code) {
            lines.retain(|line| !(first..=last).contains(line));
        }
    }
    lines.len() as u64
}

/// Stands for every character inside a string or character literal, so nothing in one is
/// read as a bracket or an attribute.
const LITERAL: char = '\u{1}';

/// The characters of code, each with its line (from 0): comments and whitespace removed,
/// literals' characters replaced by [`LITERAL`].
struct Lexer {
    chars: Vec<char>,
    i: usize,
    line: usize,
    language: Language,
    code: Vec<(usize, char)>,
}

impl Lexer {
    fn code_chars(text: &str, language: Language) -> Vec<(usize, char)> {
        let mut lexer = Lexer {
            chars: text.chars().collect(),
            i: 0,
            line: 0,
            language,
            code: Vec::new(),
        };
        lexer.run();
        lexer.code
    }

    fn at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.i + offset).copied()
    }

    fn run(&mut self) {
        let rust = self.language == Language::Rust;
        while let Some(c) = self.at(0) {
            match (c, self.at(1)) {
                ('/', Some('/')) => {
                    while self.at(0).is_some_and(|c| c != '\n') {
                        self.i += 1;
                    }
                }
                ('/', Some('*')) => self.block_comment(),
                ('"', _) => self.literal(1, |lexer| lexer.closing_quote('"')),
                ('`', _) if !rust => {
                    self.literal(1, |lexer| (lexer.at(0) == Some('`')).then_some(1))
                }
                ('\'', _) => self.quote(),
                ('r' | 'b' | 'c', _) if rust => match self.raw_string_hashes() {
                    Some((prefix, hashes)) => self.literal(prefix, move |lexer| {
                        let closes = lexer.at(0) == Some('"')
                            && (1..=hashes).all(|n| lexer.at(n) == Some('#'));
                        closes.then_some(1 + hashes)
                    }),
                    None => self.code_char(c),
                },
                ('\n', _) => {
                    self.line += 1;
                    self.i += 1;
                }
                (c, _) if c.is_whitespace() => self.i += 1,
                (c, _) => self.code_char(c),
            }
        }
    }

    fn code_char(&mut self, c: char) {
        self.code.push((self.line, c));
        self.i += 1;
    }

    /// `/* … */`; Rust's nest.
    fn block_comment(&mut self) {
        let mut depth = 0;
        while let Some(c) = self.at(0) {
            match (c, self.at(1)) {
                ('/', Some('*')) if depth == 0 || self.language == Language::Rust => {
                    depth += 1;
                    self.i += 2;
                }
                ('*', Some('/')) => {
                    depth -= 1;
                    self.i += 2;
                    if depth == 0 {
                        return;
                    }
                }
                ('\n', _) => {
                    self.line += 1;
                    self.i += 1;
                }
                _ => self.i += 1,
            }
        }
    }

    /// After an opening of `open` characters, everything up to the closing delimiter, whose
    /// length `closing` gives where one starts; counted on every line it spans.
    fn literal(&mut self, open: usize, closing: impl Fn(&Lexer) -> Option<usize>) {
        self.code.push((self.line, LITERAL));
        self.i += open;
        while let Some(c) = self.at(0) {
            if let Some(length) = closing(self) {
                self.i += length;
                return;
            }
            if c == '\n' {
                self.line += 1;
            } else if !c.is_whitespace() {
                self.code.push((self.line, LITERAL));
            }
            self.i += 1;
        }
    }

    /// A quote unless escaped by a backslash (an escaped backslash escapes nothing).
    fn closing_quote(&self, quote: char) -> Option<usize> {
        if self.at(0) != Some(quote) {
            return None;
        }
        let backslashes = self.chars[..self.i]
            .iter()
            .rev()
            .take_while(|&&c| c == '\\')
            .count();
        (backslashes % 2 == 0).then_some(1)
    }

    /// `'x'`, `'\n'`, `'\u{1F600}'`, `'\''`: a character literal (Go: a rune). Rust's
    /// lifetimes and labels (`'a`, `'static`) are code.
    fn quote(&mut self) {
        let escaped = self.at(1) == Some('\\');
        if escaped || self.at(2) == Some('\'') {
            self.code.push((self.line, LITERAL));
            // Past the quote, and an escape's backslash and the character it escapes.
            self.i += if escaped { 3 } else { 2 };
            while self.at(0).is_some_and(|c| c != '\'' && c != '\n') {
                self.i += 1;
            }
            self.i += 1;
        } else {
            self.code_char('\'');
        }
    }

    /// At `r`, `br` or `cr` opening a raw string (`r"…"`, `r#"…"#`): the opening's length and
    /// the hashes that close it.
    fn raw_string_hashes(&self) -> Option<(usize, usize)> {
        let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        let before = self.i.checked_sub(1).map(|i| self.chars[i]);
        if ident(before) {
            return None;
        }
        let mut n = match (self.at(0), self.at(1)) {
            (Some('r'), _) => 1,
            (Some('b' | 'c'), Some('r')) => 2,
            _ => return None,
        };
        let hashes = (n..).take_while(|&k| self.at(k) == Some('#')).count();
        n += hashes;
        (self.at(n) == Some('"')).then_some((n + 1, hashes))
    }
}

/// The first and last line of every item under `#[cfg(test)]`: the attribute, any further
/// attributes, then up to the `;` or the closing brace that ends the item.
fn test_items(code: &[(usize, char)]) -> Vec<(usize, usize)> {
    const ATTRIBUTE: &str = "#[cfg(test)]";
    let pattern: Vec<char> = ATTRIBUTE.chars().collect();
    let chars: Vec<char> = code.iter().map(|&(_, c)| c).collect();
    let mut items = Vec::new();
    let mut i = 0;
    while i + pattern.len() <= chars.len() {
        if chars[i..i + pattern.len()] != pattern[..] {
            i += 1;
            continue;
        }
        let mut j = i + pattern.len();
        let mut depth = 0i32;
        let mut end = None;
        while j < chars.len() {
            match chars[j] {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' => depth -= 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(j);
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = Some(j);
                    break;
                }
                _ => {}
            }
            j += 1;
        }
        let last = end.unwrap_or(chars.len() - 1);
        items.push((code[i].0, code[last].0));
        i = last + 1;
    }
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    const RUST: &str = r####"//! A module doc.

use std::fmt; // a trailing comment

/* a block comment
   /* nested */
   still a comment */
pub fn greet<'a>(name: &'a str) -> String {
    let brace = '{';
    let quote = '\'';
    let text = "a // not a comment { ";
    let raw = r#"a "quoted" /* not a comment */"#;
    format!("{brace}{quote}{text}{raw}{name}")
}

#[cfg(test)]
mod tests {
    #[test]
    fn greets() {
        assert_eq!(super::greet("x").len(), 40);
    }
}

#[cfg(test)]
use std::fmt::Write;

const MULTI: &str = "first
second";
"####;

    #[test]
    fn rust_counts_code_not_comments_blanks_or_tests() {
        // use; fn, four lets, format! and its }; const … first, second.
        assert_eq!(count(RUST, Language::Rust), 10);
    }

    #[test]
    fn a_cfg_test_item_ends_at_its_brace_or_semicolon() {
        let code = Lexer::code_chars(RUST, Language::Rust);
        let items = test_items(&code);
        assert_eq!(items, vec![(15, 21), (23, 24)]);
    }

    const GO: &str = "package main

// A comment.
import \"fmt\" /* block */

/* a block
   comment */
func main() {
\ts := `raw // not a comment
  still the string`
\tr := '\\''

\tfmt.Println(s, r) // trailing
}
";

    #[test]
    fn go_counts_code_not_comments_or_blanks() {
        // package, import, func, s := `…, still the string`, r, Println, }.
        assert_eq!(count(GO, Language::Go), 8);
    }

    #[test]
    fn a_go_test_file_and_a_tests_folder_are_left_out() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("main.go"), GO).unwrap();
        std::fs::write(dir.path().join("main_test.go"), GO).unwrap();
        let go = lines_in(dir.path(), Language::Go, true).unwrap();
        assert_eq!(go, Lines { files: 1, code: 8 });

        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::create_dir_all(dir.path().join("tests")).unwrap();
        std::fs::write(dir.path().join("src/lib.rs"), RUST).unwrap();
        std::fs::write(dir.path().join("tests/it.rs"), RUST).unwrap();
        let rust = lines_in(dir.path(), Language::Rust, true).unwrap();
        assert_eq!(rust, Lines { files: 1, code: 10 });
    }
}
