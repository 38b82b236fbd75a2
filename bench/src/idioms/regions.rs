//! The concerns an app marks in its own source, the same in every language, with the
//! language's line comment (`#` in Python, `//` in Rust, Go, JavaScript, Java and PHP):
//!
//! ```text
//! // region: detail-page
//! …
//! // endregion
//! ```
//!
//! Line comments, no nesting; a concern may have several regions (shown in file order). They
//! are looked for in the app's own folder only, never in the shared crates, and an app that
//! lacks a concern is an error: the page never silently shows less.

use super::code_size::{language_of, line_comment};
use super::source_files;
use crate::results::idioms::{Concern, ConcernCode, Excerpt, Language};
use std::path::Path;
use thiserror::Error;

#[derive(Debug, PartialEq, Error)]
pub enum RegionError {
    #[error(
        "{file}:{line}: `{comment} region: {id}` names no concern; the concerns are {}",
        concern_ids()
    )]
    UnknownConcern {
        file: String,
        line: usize,
        id: String,
        comment: &'static str,
    },
    #[error(
        "{file}:{line}: a region opens inside the one opened at line {open}: regions do not nest"
    )]
    Nested {
        file: String,
        line: usize,
        open: usize,
    },
    #[error("{file}:{line}: `{comment} endregion` with no region open")]
    Unopened {
        file: String,
        line: usize,
        comment: &'static str,
    },
    #[error("{file}:{line}: the region opened here is never closed")]
    Unclosed { file: String, line: usize },
    #[error("{file}:{line}: the region opened here is empty")]
    Empty { file: String, line: usize },
    #[error("{dir}: no `{comment} region: {concern}` in its own source files")]
    Missing {
        dir: String,
        concern: &'static str,
        comment: &'static str,
    },
    #[error("{dir}: {error}")]
    Unreadable { dir: String, error: String },
}

fn concern_ids() -> String {
    let ids: Vec<&str> = Concern::ALL.iter().map(|c| c.id()).collect();
    ids.join(", ")
}

/// Every concern's regions in the `language` source files under `dir`, files in path order;
/// file names are shown relative to `workspace`. Every problem found, not only the first, so
/// one run tells an author everything to fix.
pub fn of_app(
    workspace: &Path,
    dir: &Path,
    language: Language,
) -> Result<Vec<ConcernCode>, Vec<RegionError>> {
    let comment = line_comment(language);
    let shown = |path: &Path| {
        path.strip_prefix(workspace)
            .unwrap_or(path)
            .display()
            .to_string()
    };
    let unreadable = |error: String| {
        vec![RegionError::Unreadable {
            dir: shown(dir),
            error,
        }]
    };
    let files = source_files(dir, true).map_err(|e| unreadable(format!("{e:#}")))?;
    let mut found = Vec::new();
    let mut errors = Vec::new();
    for file in files
        .into_iter()
        .filter(|f| language_of(f) == Some(language))
    {
        let text = std::fs::read_to_string(&file)
            .map_err(|e| unreadable(format!("read {}: {e}", file.display())))?;
        match in_text(&shown(&file), &text, comment) {
            Ok(regions) => found.extend(regions),
            Err(mut problems) => errors.append(&mut problems),
        }
    }
    let concerns: Vec<ConcernCode> = Concern::ALL
        .into_iter()
        .map(|concern| ConcernCode {
            concern,
            excerpts: found
                .iter()
                .filter(|(c, _)| *c == concern)
                .map(|(_, excerpt)| excerpt.clone())
                .collect(),
        })
        .collect();
    for code in concerns.iter().filter(|c| c.excerpts.is_empty()) {
        errors.push(RegionError::Missing {
            dir: shown(dir),
            concern: code.concern.id(),
            comment,
        });
    }
    if errors.is_empty() {
        Ok(concerns)
    } else {
        Err(errors)
    }
}

/// The regions of one file whose line comments start with `comment` (`//`, `#`), in order.
pub fn in_text(
    file: &str,
    text: &str,
    comment: &'static str,
) -> Result<Vec<(Concern, Excerpt)>, Vec<RegionError>> {
    let open_marker = format!("{comment} region:");
    let close_marker = format!("{comment} endregion");
    let lines: Vec<&str> = text.lines().collect();
    let mut regions = Vec::new();
    let mut errors = Vec::new();
    // The open region: its concern (None when the id is unknown) and its marker's line.
    let mut open: Option<(Option<Concern>, usize)> = None;
    for (index, line) in lines.iter().enumerate() {
        let number = index + 1;
        let trimmed = line.trim();
        if let Some(id) = trimmed.strip_prefix(&open_marker) {
            if let Some((_, opened)) = open {
                errors.push(RegionError::Nested {
                    file: file.to_owned(),
                    line: number,
                    open: opened,
                });
            }
            let concern = Concern::parse(id.trim());
            if concern.is_none() {
                errors.push(RegionError::UnknownConcern {
                    file: file.to_owned(),
                    line: number,
                    id: id.trim().to_owned(),
                    comment,
                });
            }
            open = Some((concern, number));
        } else if trimmed.starts_with(&close_marker) {
            match open.take() {
                None => errors.push(RegionError::Unopened {
                    file: file.to_owned(),
                    line: number,
                    comment,
                }),
                Some((concern, opened)) => {
                    let body = &lines[opened..index];
                    if body.iter().all(|l| l.trim().is_empty()) {
                        errors.push(RegionError::Empty {
                            file: file.to_owned(),
                            line: opened,
                        });
                    } else if let Some(concern) = concern {
                        regions.push((concern, excerpt(file, opened + 1, body)));
                    }
                }
            }
        }
    }
    if let Some((_, opened)) = open {
        errors.push(RegionError::Unclosed {
            file: file.to_owned(),
            line: opened,
        });
    }
    if errors.is_empty() {
        Ok(regions)
    } else {
        Err(errors)
    }
}

/// `body`, which starts at line `first_line`, with the indentation all its lines share
/// removed.
fn excerpt(file: &str, first_line: usize, body: &[&str]) -> Excerpt {
    let indent = |line: &str| line.len() - line.trim_start().len();
    let shared = body
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| &l[..indent(l)])
        .reduce(|a, b| {
            let common = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
            &a[..common]
        })
        .unwrap_or("");
    let code: Vec<&str> = body
        .iter()
        .map(|l| l.strip_prefix(shared).unwrap_or(l.trim_start()))
        .collect();
    Excerpt {
        file: file.to_owned(),
        first_line,
        last_line: first_line + body.len() - 1,
        code: code.join("\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Rust file marking every concern once, the cache twice.
    const MARKED: &str = "use std::io;

    // region: detail-page
    pub async fn post() -> Page {
        render()
    }
    // endregion

// region: pool
fn pool() {}
// endregion
// region: cache
fn get() {}
// endregion
// region: errors
fn errors() {}
// endregion
// region: comment
fn comment() {}
// endregion
// region: cache
fn set() {}
// endregion
";

    fn app_with(text: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/routes.rs"), text).unwrap();
        dir
    }

    #[test]
    fn balanced_regions_give_every_concern_in_order_with_lines() {
        let dir = app_with(MARKED);
        let concerns = of_app(dir.path(), dir.path(), Language::Rust).unwrap();
        let order: Vec<Concern> = concerns.iter().map(|c| c.concern).collect();
        assert_eq!(order, Concern::ALL);
        let detail = &concerns[0].excerpts;
        assert_eq!(
            detail,
            &[Excerpt {
                file: "src/routes.rs".to_owned(),
                first_line: 4,
                last_line: 6,
                code: "pub async fn post() -> Page {\n    render()\n}".to_owned(),
            }]
        );
        let cache: Vec<&str> = concerns[2]
            .excerpts
            .iter()
            .map(|e| e.code.as_str())
            .collect();
        assert_eq!(cache, ["fn get() {}", "fn set() {}"]);
    }

    #[test]
    fn an_app_missing_a_concern_is_an_error() {
        // The same source with one marker pair taken away.
        let without_pool = MARKED.replace("// region: pool\nfn pool() {}\n// endregion\n", "");
        let dir = app_with(&without_pool);
        let errors = of_app(dir.path(), dir.path(), Language::Rust).unwrap_err();
        assert_eq!(
            errors,
            vec![RegionError::Missing {
                dir: String::new(),
                concern: "pool",
                comment: "//",
            }]
        );
        assert!(errors[0].to_string().contains("no `// region: pool`"));
    }

    #[test]
    fn nested_unknown_unclosed_and_unopened_regions_are_errors() {
        let nested = "// region: pool\n// region: cache\nx\n// endregion\n";
        assert_eq!(
            in_text("a.rs", nested, "//").unwrap_err(),
            vec![RegionError::Nested {
                file: "a.rs".to_owned(),
                line: 2,
                open: 1
            }]
        );
        let unknown = "// region: routing\nx\n// endregion\n";
        let errors = in_text("a.rs", unknown, "//").unwrap_err();
        assert!(
            matches!(&errors[..], [RegionError::UnknownConcern { id, line: 1, .. }] if id == "routing"),
            "{errors:?}"
        );
        assert!(errors[0].to_string().contains("detail-page, pool"));
        let unclosed = "// region: pool\nx\n";
        assert_eq!(
            in_text("a.go", unclosed, "//").unwrap_err(),
            vec![RegionError::Unclosed {
                file: "a.go".to_owned(),
                line: 1
            }]
        );
        let unopened = "x\n// endregion\n";
        assert_eq!(
            in_text("a.go", unopened, "//").unwrap_err(),
            vec![RegionError::Unopened {
                file: "a.go".to_owned(),
                line: 2,
                comment: "//",
            }]
        );
        let empty = "// region: pool\n\n// endregion\n";
        assert!(matches!(
            &in_text("a.go", empty, "//").unwrap_err()[..],
            [RegionError::Empty { line: 1, .. }]
        ));
    }

    #[test]
    fn go_regions_keep_their_tabs_relative_to_the_region() {
        let go = "func (a *app) handlePost() {\n\t// region: errors\n\tif err != nil {\n\t\treturn\n\t}\n\t// endregion\n}\n";
        let regions = in_text("h.go", go, "//").unwrap();
        assert_eq!(regions[0].0, Concern::Errors);
        assert_eq!(regions[0].1.code, "if err != nil {\n\treturn\n}");
        assert_eq!((regions[0].1.first_line, regions[0].1.last_line), (3, 5));
    }

    /// Python marks its regions with `#`; a `// region:` there is not a marker (`//` is
    /// integer division), and files of another language in the folder are not read.
    #[test]
    fn python_regions_are_marked_with_hash_comments() {
        let python = MARKED
            .replace("// region:", "# region:")
            .replace("// endregion", "# endregion");
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("blog")).unwrap();
        std::fs::write(dir.path().join("blog/app.py"), &python).unwrap();
        // A test folder's and a virtual environment's regions are never read.
        for other in ["tests/test_app.py", ".venv/lib/site.py"] {
            let path = dir.path().join(other);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "# region: routing\nx\n").unwrap();
        }
        // A JavaScript file with a Rust-style marker: not Python, not read.
        std::fs::write(dir.path().join("blog/static.js"), "// region: routing\n").unwrap();
        let concerns = of_app(dir.path(), dir.path(), Language::Python).unwrap();
        let order: Vec<Concern> = concerns.iter().map(|c| c.concern).collect();
        assert_eq!(order, Concern::ALL);
        assert_eq!(concerns[0].excerpts[0].file, "blog/app.py");
        assert_eq!(
            concerns[0].excerpts[0].code,
            "pub async fn post() -> Page {\n    render()\n}"
        );

        let slashes = "x = 7\n// region: pool\ny = 1\n// endregion\n";
        assert_eq!(in_text("a.py", slashes, "#").unwrap(), vec![]);
        let errors = of_app(dir.path(), dir.path(), Language::JavaScript).unwrap_err();
        assert!(
            errors[0]
                .to_string()
                .contains("`// region: routing` names no concern"),
            "{errors:?}"
        );
        let unopened = in_text("a.py", "x\n# endregion\n", "#").unwrap_err();
        assert_eq!(
            unopened[0].to_string(),
            "a.py:2: `# endregion` with no region open"
        );
    }

    #[test]
    fn javascript_regions_are_marked_with_slash_comments() {
        let js = "export async function routes(app) {\n  // region: errors\n  app.setErrorHandler((err, req, reply) => {\n    reply.code(500).send('oops')\n  })\n  // endregion\n}\n";
        let regions = in_text("src/app.js", js, "//").unwrap();
        assert_eq!(regions[0].0, Concern::Errors);
        assert_eq!(
            regions[0].1.code,
            "app.setErrorHandler((err, req, reply) => {\n  reply.code(500).send('oops')\n})"
        );
        assert_eq!((regions[0].1.first_line, regions[0].1.last_line), (3, 5));
    }

    /// PHP marks its regions with `//`, as Java does: a `# region:` there is a comment, not a
    /// marker, and a Blade template's markers are not read (a template is not the app's code).
    #[test]
    fn php_regions_are_marked_with_slash_comments_outside_templates() {
        let dir = tempfile::tempdir().unwrap();
        let files = [
            ("app/Http/PostController.php", MARKED.to_owned()),
            (
                "resources/views/post.blade.php",
                "// region: pool\nx\n// endregion\n".to_owned(),
            ),
        ];
        for (file, text) in files {
            let path = dir.path().join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let concerns = of_app(dir.path(), dir.path(), Language::Php).unwrap();
        let pool: Vec<&str> = concerns[1]
            .excerpts
            .iter()
            .map(|e| e.file.as_str())
            .collect();
        assert_eq!(pool, ["app/Http/PostController.php"]);
        let hashes = "# region: pool\n$x = 1;\n# endregion\n";
        assert_eq!(
            in_text("a.php", hashes, line_comment(Language::Php)).unwrap(),
            vec![]
        );
    }

    /// Every app of the workspace marks every concern in its own source (a build variant
    /// through the app whose code it runs).
    #[test]
    fn every_app_marks_every_concern() {
        let workspace = crate::stack::apps::workspace_dir();
        let mut problems = Vec::new();
        for app in crate::stack::apps::all().unwrap() {
            let code = crate::idioms::code_app(&app).unwrap();
            let language = crate::idioms::language(&code).unwrap();
            if let Err(errors) = of_app(&workspace, &code.dir, language) {
                problems.extend(errors.iter().map(|e| format!("{}: {e}", app.name)));
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
}
