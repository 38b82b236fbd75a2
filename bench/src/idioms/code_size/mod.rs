//! Lines of code: a line counts when it holds code outside comments; blank lines, comments
//! and tests do not (Rust items under `#[cfg(test)]`, Go's `_test.go` files, JavaScript's
//! `*.test.js`, Python's `test_*.py`, PHP's `*Test.php`, `test/` (so Maven's `src/test/`),
//! `tests/` and `benches/` folders), nor do templates (HTML, Eta, Jinja2, Blade's
//! `*.blade.php`). Python's docstrings count as comments (see [`Lexer::python`]). The
//! counter is this small lexer rather than tokei: tokei counts lines but does not parse
//! items, so it cannot leave a `#[cfg(test)]` module out and this lexer would be needed
//! anyway, and as a library it brings some twenty crates (rayon, ignore, grep-searcher,
//! dashmap, …) for what is a comment-and-literal scanner.

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
    // A Blade template is a template, as the other apps' HTML, Eta and Jinja2 files are, not
    // PHP code.
    if file.to_str()?.ends_with(".blade.php") {
        return None;
    }
    match file.extension()?.to_str()? {
        "rs" => Some(Language::Rust),
        "go" => Some(Language::Go),
        "js" | "mjs" | "cjs" => Some(Language::JavaScript),
        "py" => Some(Language::Python),
        "java" => Some(Language::Java),
        "php" => Some(Language::Php),
        _ => None,
    }
}

/// The comment that starts a line comment, and so a region's markers, in `language` (PHP's
/// `#` comments too, but its regions are marked with `//`, as in the other C-like
/// languages).
pub fn line_comment(language: Language) -> &'static str {
    match language {
        Language::Python => "#",
        Language::Rust | Language::Go | Language::JavaScript | Language::Java | Language::Php => {
            "//"
        }
    }
}

/// Go's `_test.go`; JavaScript's `*.test.js` and `*.spec.js` (node's test runner, Jest,
/// Vitest); Python's `test_*.py`, `*_test.py` and pytest's `conftest.py`; PHPUnit's
/// `*Test.php`. Java's tests are in Maven's `src/test/` and PHP's mostly in `tests/`, folders
/// [`source_files`] never enters.
fn is_test_file(file: &Path) -> bool {
    let Some(name) = file.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
    match language_of(file) {
        Some(Language::Go) => name.ends_with("_test.go"),
        Some(Language::JavaScript) => stem.ends_with(".test") || stem.ends_with(".spec"),
        Some(Language::Python) => {
            stem.starts_with("test_") || stem.ends_with("_test") || stem == "conftest"
        }
        Some(Language::Php) => stem.ends_with("Test"),
        _ => false,
    }
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
        match self.language {
            Language::Python => self.python(),
            _ => self.c_like(false),
        }
    }

    /// Rust, Go, JavaScript, Java and PHP: `//` and `/* */` comments, and PHP's `#`. In a
    /// JavaScript template literal's `${…}` or a PHP string's `{$…}` (`in_template`), returns
    /// after the `}` that closes it. A PHP file is taken to be code as an app's are: `<?php`
    /// first and never closed (text after a `?>`, which PHP would print, is lexed as PHP).
    fn c_like(&mut self, in_template: bool) {
        let rust = self.language == Language::Rust;
        let go = self.language == Language::Go;
        let js = self.language == Language::JavaScript;
        let java = self.language == Language::Java;
        let php = self.language == Language::Php;
        let mut braces = 0usize;
        while let Some(c) = self.at(0) {
            match (c, self.at(1)) {
                ('/', Some('/')) => self.line_comment(),
                ('/', Some('*')) => self.block_comment(),
                // PHP 8's attributes, `#[Route(…)]`, are code.
                ('#', Some('[')) if php => self.code_char(c),
                ('#', _) if php => self.line_comment(),
                ('"', Some('"')) if java && self.at(2) == Some('"') => self.text_block(),
                ('"', _) if php => self.template('"', ['{', '$']),
                ('"', _) => self.literal(1, |lexer| lexer.closing_quote('"')),
                ('<', Some('<')) if php && self.at(2) == Some('<') => self.heredoc(),
                ('`', _) if js => self.template('`', ['$', '{']),
                ('`', _) if go => self.literal(1, |lexer| (lexer.at(0) == Some('`')).then_some(1)),
                ('\'', _) if js || php => self.literal(1, |lexer| lexer.closing_quote('\'')),
                ('\'', _) => self.quote(),
                ('/', _) if js && self.regex_may_start() => self.regex(),
                ('r' | 'b' | 'c', _) if rust => match self.raw_string_hashes() {
                    Some((prefix, hashes)) => self.literal(prefix, move |lexer| {
                        let closes = lexer.at(0) == Some('"')
                            && (1..=hashes).all(|n| lexer.at(n) == Some('#'));
                        closes.then_some(1 + hashes)
                    }),
                    None => self.code_char(c),
                },
                ('{', _) if in_template => {
                    braces += 1;
                    self.code_char(c);
                }
                ('}', _) if in_template => {
                    self.code_char(c);
                    match braces.checked_sub(1) {
                        Some(fewer) => braces = fewer,
                        None => return,
                    }
                }
                ('\n', _) => {
                    self.line += 1;
                    self.i += 1;
                }
                (c, _) if c.is_whitespace() => self.i += 1,
                (c, _) => self.code_char(c),
            }
        }
    }

    /// To the end of the line.
    fn line_comment(&mut self) {
        while self.at(0).is_some_and(|c| c != '\n') {
            self.i += 1;
        }
    }

    /// A string closed by `quote` that holds code between `interpolation` and `}`: a
    /// JavaScript template literal (`${…}`) or a PHP double-quoted string (`{$…}`). Text,
    /// escapes, and the code, lexed as code (it may hold strings of its own:
    /// `${"`"}`, `{$post['slug']}`).
    fn template(&mut self, quote: char, interpolation: [char; 2]) {
        self.code.push((self.line, LITERAL));
        self.i += 1;
        while let Some(c) = self.at(0) {
            match (c, self.at(1)) {
                (c, _) if c == quote => {
                    self.code.push((self.line, LITERAL));
                    self.i += 1;
                    return;
                }
                ('\\', next) => {
                    self.code.push((self.line, LITERAL));
                    if next == Some('\n') {
                        self.line += 1;
                    }
                    self.i += 2;
                }
                (c, Some(next)) if [c, next] == interpolation => {
                    self.code.push((self.line, LITERAL));
                    self.i += 2;
                    self.c_like(true);
                }
                ('\n', _) => {
                    self.line += 1;
                    self.i += 1;
                }
                (c, _) if c.is_whitespace() => self.i += 1,
                _ => {
                    self.code.push((self.line, LITERAL));
                    self.i += 1;
                }
            }
        }
    }

    /// A Java text block, `"""` to `"""`: quotes, even two in a row, do not close it, an
    /// escaped one (`\"""`) neither.
    fn text_block(&mut self) {
        self.literal(3, |lexer| {
            let closes = lexer.closing_quote('"').is_some()
                && lexer.at(1) == Some('"')
                && lexer.at(2) == Some('"');
            closes.then_some(3)
        });
    }

    /// PHP's heredoc (`<<<SQL`, `<<<"SQL"`) and nowdoc (`<<<'SQL'`): from the line after the
    /// opening to the closing name, which (PHP 7.3 and later) may be indented and followed by
    /// code on its line (`SQL;`, `SQL, [$id]);`). Not an opening: code.
    fn heredoc(&mut self) {
        let name_char = |c: char| c.is_alphanumeric() || c == '_';
        let mut end = 3;
        while matches!(self.at(end), Some(' ' | '\t')) {
            end += 1;
        }
        let quote = self.at(end).filter(|&c| c == '"' || c == '\'');
        end += usize::from(quote.is_some());
        let start = end;
        while self.at(end).is_some_and(name_char) {
            end += 1;
        }
        let name: Vec<char> = self.chars[self.i + start..self.i + end].to_vec();
        let quoted = quote.is_none_or(|quote| self.at(end) == Some(quote));
        end += usize::from(quote.is_some());
        let opened = !name.is_empty() && quoted && matches!(self.at(end), Some('\n' | '\r'));
        if !opened {
            self.code_char('<');
            return;
        }
        self.literal(end, move |lexer| {
            let line_start = lexer.chars[..lexer.i]
                .iter()
                .rposition(|&c| c == '\n')
                .map_or(0, |newline| newline + 1);
            let closes = lexer.chars[line_start..lexer.i]
                .iter()
                .all(|&c| c == ' ' || c == '\t')
                && lexer.chars[lexer.i..].starts_with(&name)
                && !lexer.at(name.len()).is_some_and(name_char);
            closes.then_some(name.len())
        });
    }

    /// Whether a `/` here opens a JavaScript regular expression rather than dividing: it does
    /// where an operand is expected — at the start, after an operator or an opening bracket,
    /// or after a keyword such as `return` — and not after a name, a number, a literal or a
    /// closing bracket.
    fn regex_may_start(&self) -> bool {
        const KEYWORDS: [&str; 12] = [
            "return",
            "typeof",
            "instanceof",
            "in",
            "of",
            "new",
            "delete",
            "void",
            "throw",
            "case",
            "do",
            "else",
        ];
        let Some(&(_, last)) = self.code.last() else {
            return true;
        };
        let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
        if last == LITERAL || matches!(last, ')' | ']' | '}') {
            return false;
        }
        if !word(last) {
            return true;
        }
        let tail: String = self
            .code
            .iter()
            .rev()
            .map(|&(_, c)| c)
            .take_while(|&c| word(c))
            .collect::<Vec<char>>()
            .into_iter()
            .rev()
            .collect();
        KEYWORDS.contains(&tail.as_str())
    }

    /// `/…/flags` on one line; a `/` inside a character class (`[/]`) does not close it.
    fn regex(&mut self) {
        self.code.push((self.line, LITERAL));
        self.i += 1;
        let mut class = false;
        while let Some(c) = self.at(0) {
            match c {
                '\n' => return,
                '\\' => self.i += 2,
                '[' => {
                    class = true;
                    self.i += 1;
                }
                ']' => {
                    class = false;
                    self.i += 1;
                }
                '/' if !class => {
                    self.i += 1;
                    return;
                }
                _ => self.i += 1,
            }
        }
    }

    /// Python: `#` comments; strings in single, double or tripled quotes after an optional
    /// prefix (`r`, `b`, `f`, `rb`, …). A string that is a statement by itself — a
    /// docstring (of a module, class or function, or an attribute's) — is documentation,
    /// as Rust's `///` and Go's doc comments are: its lines count as comment, not code. Any
    /// other string is code on every line it spans (`SQL = """…"""`).
    fn python(&mut self) {
        // Open brackets: a string inside them is part of an expression, never a statement.
        let mut depth = 0usize;
        while let Some(c) = self.at(0) {
            match c {
                '#' => self.line_comment(),
                '\n' => {
                    self.line += 1;
                    self.i += 1;
                }
                c if c.is_whitespace() => self.i += 1,
                c => match self.python_string_start() {
                    Some((prefix, quote, triple, formatted)) => {
                        self.python_string(prefix, quote, triple, formatted, depth)
                    }
                    None => {
                        match c {
                            '(' | '[' | '{' => depth += 1,
                            ')' | ']' | '}' => depth = depth.saturating_sub(1),
                            _ => {}
                        }
                        self.code_char(c);
                    }
                },
            }
        }
    }

    /// At a Python string's start (its prefix, if any, not part of a longer name): the
    /// prefix's length, the quote, whether it is tripled, and whether it is an f-string.
    fn python_string_start(&self) -> Option<(usize, char, bool, bool)> {
        let name = |c: char| c.is_alphanumeric() || c == '_';
        if self.i > 0 && name(self.chars[self.i - 1]) {
            return None;
        }
        let prefix = (0..3)
            .take_while(|&k| {
                self.at(k)
                    .is_some_and(|c| matches!(c.to_ascii_lowercase(), 'r' | 'b' | 'u' | 'f' | 't'))
            })
            .count();
        let quote = self.at(prefix).filter(|&c| c == '"' || c == '\'')?;
        let triple = self.at(prefix + 1) == Some(quote) && self.at(prefix + 2) == Some(quote);
        let formatted = (0..prefix).any(|k| {
            self.at(k)
                .is_some_and(|c| matches!(c.to_ascii_lowercase(), 'f' | 't'))
        });
        Some((prefix, quote, triple, formatted))
    }

    /// One Python string, left out of the code when it is a statement by itself (it starts
    /// its logical line, outside brackets and not after a `\` continuation, and nothing but
    /// a comment follows it on its last line). In an f-string, a quote inside `{…}` belongs
    /// to a nested string (Python 3.12 allows the same quote there) and closes nothing.
    fn python_string(
        &mut self,
        prefix: usize,
        quote: char,
        triple: bool,
        formatted: bool,
        depth: usize,
    ) {
        let statement_start = depth == 0
            && self
                .code
                .last()
                .is_none_or(|&(line, c)| line < self.line && c != '\\');
        let mark = self.code.len();
        self.code.push((self.line, LITERAL));
        self.i += prefix + if triple { 3 } else { 1 };
        // Open `{` of an f-string's replacement fields.
        let mut braces = 0usize;
        while let Some(c) = self.at(0) {
            match c {
                '\\' => {
                    self.code.push((self.line, LITERAL));
                    if self.at(1) == Some('\n') {
                        self.line += 1;
                    }
                    self.i += 2;
                    continue;
                }
                '{' if formatted && self.at(1) == Some('{') && braces == 0 => self.i += 1,
                '{' if formatted => braces += 1,
                '}' if formatted => braces = braces.saturating_sub(1),
                c if c == quote && braces == 0 => {
                    let closes =
                        !triple || (self.at(1) == Some(quote) && self.at(2) == Some(quote));
                    if closes {
                        self.code.push((self.line, LITERAL));
                        self.i += if triple { 3 } else { 1 };
                        break;
                    }
                }
                _ => {}
            }
            if c == '\n' {
                self.line += 1;
            } else if !c.is_whitespace() {
                self.code.push((self.line, LITERAL));
            }
            self.i += 1;
        }
        if statement_start {
            let rest = self.chars[self.i.min(self.chars.len())..]
                .iter()
                .find(|c| !matches!(c, ' ' | '\t' | '\r'));
            if matches!(rest, None | Some('\n' | '#')) {
                self.code.truncate(mark);
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
                // The closing delimiter is code on its line, even alone there.
                self.code.push((self.line, LITERAL));
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
mod tests;
