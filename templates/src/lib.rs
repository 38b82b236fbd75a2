//! The Tera templates every Tera-based app renders, the view data they take, and the
//! canonical escaper (Go `html/template`'s) installed in place of Tera's own.
//!
//! Templates are compiled into the binary. For template work without a rebuild, set
//! `BLOGBENCH_TEMPLATE_DIR` to a folder holding the same file names: they are read from
//! there at start-up instead (the parity test uses this to prove a changed template fails).

#[cfg(feature = "askama")]
mod askama_escaper;
mod escape;
pub mod views;

#[cfg(feature = "askama")]
pub use askama_escaper::AskamaEscaper;
pub use escape::{escape_html, write_escaped, write_escaped_io};

use std::path::Path;
use tera::Tera;

/// Template file names, as passed to `Tera::render`.
pub const HOME: &str = "home.html";
pub const POST: &str = "post.html";
pub const TAG: &str = "tag.html";
pub const NOT_FOUND: &str = "not_found.html";

const FILES: [(&str, &str); 5] = [
    ("base.html", include_str!("../tera/base.html")),
    (HOME, include_str!("../tera/home.html")),
    (POST, include_str!("../tera/post.html")),
    (TAG, include_str!("../tera/tag.html")),
    (NOT_FOUND, include_str!("../tera/not_found.html")),
];

/// The environment variable that points at a folder of replacement templates.
pub const TEMPLATE_DIR_VAR: &str = "BLOGBENCH_TEMPLATE_DIR";

/// A Tera instance holding every page template with the canonical escaper installed.
pub fn tera() -> Result<Tera, tera::Error> {
    let mut tera = Tera::default();
    match std::env::var_os(TEMPLATE_DIR_VAR) {
        None => tera.add_raw_templates(FILES)?,
        Some(dir) => {
            let dir = Path::new(&dir);
            let files = FILES
                .iter()
                .map(|(name, _)| {
                    let path = dir.join(name);
                    std::fs::read_to_string(&path)
                        .map(|text| (*name, text))
                        .map_err(|e| tera::Error::msg(format!("{}: {e}", path.display())))
                })
                .collect::<Result<Vec<_>, _>>()?;
            tera.add_raw_templates(files)?;
        }
    }
    tera.autoescape_on(vec![".html"]);
    tera.set_escape_fn(escape_html);
    Ok(tera)
}

/// The 404 page every app serves for an unknown slug or path (rendered once, at start-up).
pub fn not_found_page(tera: &Tera) -> Result<String, tera::Error> {
    tera.render(NOT_FOUND, &tera::Context::new())
}
