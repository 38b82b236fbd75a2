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

/// Comments, strings holding comment markers and quotes, a template literal spanning
/// lines with code (and a nested template) in `${…}`, a regular expression holding `/*`
/// and a quote, and a division.
const JS: &str = r#"// A comment.
import Fastify from 'fastify' /* block */

/* a block
   // comment */
const url = "http://example.com/*not a comment*/";
const quote = 'it\'s // not a comment';
const sql = `SELECT *
  FROM posts // still the string
  WHERE id = ${id /* a comment in code */ + `nested ${"`"}`}`;
const re = /\/\*[^/]*"/g;
const half = total / 2; // division
export default { url, quote, sql, re, half };
"#;

#[test]
fn javascript_counts_code_not_comments_or_blanks() {
    // import, url, quote, the template's three lines, re, half, export.
    assert_eq!(count(JS, Language::JavaScript), 9);
    // The template's `${…}` holds code: its comment is one, its nested template is not
    // the end of the outer one.
    let code: String = Lexer::code_chars(JS, Language::JavaScript)
        .iter()
        .map(|&(_, c)| c)
        .collect();
    assert!(code.contains("id+"), "{code}");
    assert!(!code.contains("comment"), "{code}");
    assert!(
        code.ends_with("exportdefault{url,quote,sql,re,half};"),
        "{code}"
    );
}

/// A module docstring, a triple-quoted SQL string holding a `#`, class and function
/// docstrings (one raw, one single-quoted, one on a single line), strings holding `#`
/// (one nested in an f-string with the same quote, as Python 3.12 allows), a string in
/// brackets alone on its line, and `//`, which is integer division.
const PYTHON: &str = r##""""The module's docstring.

It spans lines.
"""
import re  # a trailing comment

# A comment.
SQL = """
SELECT * FROM posts # not a comment
"""


class Post:
    '''A class docstring.'''

    def title(self) -> str:
        r"""A raw docstring with a \""" inside."""
        hash = "# not a comment"
        key = f"{self.data["inner#"]}"  # nested quotes
        return f"{self.name!r} {'#'} {{hash}}"

    def body(self):
        "one-line docstring"
        total = (7
                 // 2)
        return (
            "a string in brackets"
        )
"##;

#[test]
fn python_counts_code_not_comments_blanks_or_docstrings() {
    // import; SQL's three lines; class; def title, hash, key, return; def body, total
    // and its `// 2)`, return (, the string, ).
    assert_eq!(count(PYTHON, Language::Python), 15);
    let code: String = Lexer::code_chars(PYTHON, Language::Python)
        .iter()
        .map(|&(_, c)| c)
        .collect();
    assert!(code.starts_with("importre"), "{code}");
    assert!(code.contains("total=(7//2)"), "{code}");
    assert!(
        !code.contains("inner"),
        "the nested string is the f-string's: {code}"
    );
    assert!(
        !code.contains("docstring") && !code.contains("comment"),
        "{code}"
    );
}

#[test]
fn javascript_and_python_tests_are_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        ("src/app.js", JS),
        ("src/app.test.js", JS),
        ("test/routes.js", JS),
        ("node_modules/fastify/fastify.js", JS),
        ("blog/app.py", PYTHON),
        ("blog/test_app.py", PYTHON),
        ("tests/conftest.py", PYTHON),
        (".venv/lib/site.py", PYTHON),
    ];
    for (file, text) in files {
        let path = dir.path().join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let js = lines_in(dir.path(), Language::JavaScript, true).unwrap();
    assert_eq!(js, Lines { files: 1, code: 9 });
    let python = lines_in(dir.path(), Language::Python, true).unwrap();
    assert_eq!(python, Lines { files: 1, code: 15 });
}

/// Comments, a Javadoc, strings holding comment markers (one opening a block comment it
/// never closes), character literals of a quote and a double quote, and a text block
/// holding quotes, comment markers and an escaped `"""` (which does not close it).
const JAVA: &str = r#"// A comment.
package blog; /* block */

/* a block
   // comment */
import java.util.List;

/** A Javadoc
 *  comment. */
@RestController
public class Posts {
    static final String OPEN = "/*";
    static final char QUOTE = '\'';
    static final char DOUBLE = '"';
    static final String SQL = """
        SELECT * FROM posts /* not a comment
        WHERE title = "a ""quoted"" \""" // title"
        """;
    int half(int total) { return total / 2; } // division
}
"#;

#[test]
fn java_counts_code_not_comments_or_blanks() {
    // package, import, @RestController, class, OPEN, QUOTE, DOUBLE, the text block's
    // four lines, half, }.
    assert_eq!(count(JAVA, Language::Java), 13);
    let code: String = Lexer::code_chars(JAVA, Language::Java)
        .iter()
        .map(|&(_, c)| c)
        .collect();
    assert!(!code.contains("comment"), "{code}");
    assert!(
        code.ends_with("inthalf(inttotal){returntotal/2;}}"),
        "{code}"
    );
}

/// A file of PHP code: `//`, `#` and block comments, an attribute (`#[…]`, code), single-
/// quoted strings holding comment markers and an escaped quote, a double-quoted string
/// whose `{$…}` holds a string of the same quote, a heredoc holding an unclosed `/*`
/// and closed by an indented name, and a nowdoc whose lines start with another name or a
/// longer one (and hold an unclosed `/*` too).
const PHP: &str = r#"<?php
// A comment.
# A hash comment.
namespace App\Http\Controllers; /* block */

/* a block
   # comment */
use Illuminate\Http\Request;

#[Attribute]
final class PostController
{
    private const OPEN = '/*';
    private const QUOTE = 'it\'s # not a comment';

    public function show(string $slug): string
    {
        $title = "post {$this->titles["a # key"]} // not a comment";
        $sql = <<<SQL
            SELECT * FROM posts /* not a comment
            WHERE slug = ?
            SQL;
        $raw = <<<'TEXT'
        SQL; is not its end
        TEXTS /* do not close it either
        TEXT;
        return $title . $sql . $raw; // trailing
    }
}
"#;

#[test]
fn php_counts_code_not_comments_or_blanks() {
    // <?php, namespace, use, #[Attribute], class, {, OPEN, QUOTE, function, {, $title,
    // the heredoc's four lines, the nowdoc's four, return, }, }.
    assert_eq!(count(PHP, Language::Php), 22);
    let code: String = Lexer::code_chars(PHP, Language::Php)
        .iter()
        .map(|&(_, c)| c)
        .collect();
    assert!(code.contains("#[Attribute]"), "{code}");
    assert!(
        code.contains("this->titles["),
        "the string's {{$…}} is code: {code}"
    );
    assert!(!code.contains("comment") && !code.contains("key"), "{code}");
    assert!(code.ends_with("return$title.$sql.$raw;}}"), "{code}");
}

/// Maven's `src/test/` and PHP's `tests/` are left out, and so are PHPUnit's `*Test.php`
/// anywhere, Blade templates (as other apps' templates are), Composer's `vendor/` and
/// Laravel's generated files.
#[test]
fn java_and_php_tests_and_templates_are_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        ("src/main/java/blog/Posts.java", JAVA),
        ("src/test/java/blog/PostsTest.java", JAVA),
        ("target/generated-sources/Posts.java", JAVA),
        ("app/Http/Controllers/PostController.php", PHP),
        ("app/Support/SlugTest.php", PHP),
        ("tests/Feature/PostTest.php", PHP),
        ("resources/views/post.blade.php", PHP),
        ("vendor/laravel/framework/Application.php", PHP),
        ("storage/framework/views/3f2a.php", PHP),
        ("bootstrap/cache/packages.php", PHP),
    ];
    for (file, text) in files {
        let path = dir.path().join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let java = lines_in(dir.path(), Language::Java, true).unwrap();
    assert_eq!(java, Lines { files: 1, code: 13 });
    let php = lines_in(dir.path(), Language::Php, true).unwrap();
    assert_eq!(php, Lines { files: 1, code: 22 });
}
