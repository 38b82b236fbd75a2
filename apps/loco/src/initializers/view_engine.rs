//! Loco's view-engine initializer (the one `loco new` generates), pointed at the shared Tera
//! templates and with Go's escaper installed in place of Tera 2's own.

use axum::{Extension, Router as AxumRouter};
use loco_rs::app::{AppContext, Initializer};
use loco_rs::controller::views::{ViewEngine, engines::TeraView};
use loco_rs::prelude::async_trait;
use loco_rs::{Error, Result};
use std::path::PathBuf;

/// The shared Tera templates (`templates/tera/`; Tera 2 parses them unchanged), found from
/// the working directory, the app's folder when blogbench runs it (as `config/` is).
/// `BLOGBENCH_TEMPLATE_DIR` points elsewhere, as for the other Tera apps.
pub fn template_dir() -> PathBuf {
    std::env::var_os(templates::TEMPLATE_DIR_VAR)
        .map_or_else(|| PathBuf::from("../../templates/tera"), PathBuf::from)
}

/// The app's Tera 2 instance: Loco's built-in filters, the templates, and the canonical
/// escaper (Tera 2's own writes `&quot;` for `"` and leaves `+` and NUL alone).
pub fn tera_view() -> Result<TeraView> {
    TeraView::from_custom_dir(&template_dir(), |tera| {
        tera.set_escape_fn(templates::write_escaped_io);
        Ok(())
    })
    .map_err(|err| Error::Message(format!("templates in {}: {err}", template_dir().display())))
}

pub struct ViewEngineInitializer;

#[async_trait]
impl Initializer for ViewEngineInitializer {
    fn name(&self) -> String {
        "view-engine".to_string()
    }

    async fn after_routes(&self, router: AxumRouter, _ctx: &AppContext) -> Result<AxumRouter> {
        Ok(router.layer(Extension(ViewEngine::from(tera_view()?))))
    }
}

#[cfg(test)]
mod tests {
    use loco_rs::controller::views::{ViewRenderer, engines::TeraView};

    #[test]
    fn tera2_with_the_canonical_escaper_matches_go_on_the_shared_vectors() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("value.html"), "{{ value }}").unwrap();
        let view = TeraView::from_custom_dir(&dir.path(), |tera| {
            tera.set_escape_fn(templates::write_escaped_io);
            Ok(())
        })
        .unwrap();
        let vectors: Vec<(String, String)> = serde_json::from_str(include_str!(
            "../../../../templates/testdata/escape-vectors.json"
        ))
        .unwrap();
        for (input, expected) in vectors {
            let out = view
                .render("value.html", serde_json::json!({ "value": input }))
                .unwrap();
            assert_eq!(out, expected, "input {input:?}");
        }
    }

    #[test]
    fn the_shared_tera_templates_load_in_tera2() {
        let view = super::tera_view().unwrap();
        let page = view
            .render(templates::NOT_FOUND, serde_json::json!({}))
            .unwrap();
        assert!(page.contains("<h1>Not found</h1>"), "{page}");
    }
}
