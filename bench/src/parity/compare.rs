//! Parity (docs/spec.md §4): every sample path fetched from the app and from the Go reference must
//! give the same status, `Content-Type` and body bytes, and both must send `Content-Length`.

use super::fetch::Fetched;
use similar::TextDiff;

/// How one response differs from the reference's.
#[derive(Debug)]
pub struct Mismatch {
    pub path: String,
    pub what: String,
    /// A unified diff of the bodies (empty when they are equal).
    pub diff: String,
}

pub fn compare(reference: &[Fetched], app: &[Fetched], app_name: &str) -> Vec<Mismatch> {
    reference
        .iter()
        .zip(app)
        .filter_map(|(want, got)| {
            let mut what = Vec::new();
            if want.status != got.status {
                what.push(format!("status {} (go: {})", got.status, want.status));
            }
            if want.content_type != got.content_type {
                what.push(format!(
                    "Content-Type {:?} (go: {:?})",
                    got.content_type, want.content_type
                ));
            }
            if got.content_length.is_none() || want.content_length.is_none() {
                what.push("no Content-Length".to_owned());
            }
            let diff = if want.body != got.body {
                what.push("body differs".to_owned());
                body_diff(want, got, app_name)
            } else {
                String::new()
            };
            (!what.is_empty()).then(|| Mismatch {
                path: want.path.clone(),
                what: what.join(", "),
                diff,
            })
        })
        .collect()
}

fn body_diff(want: &Fetched, got: &Fetched, app_name: &str) -> String {
    let want_text = String::from_utf8_lossy(&want.body);
    let got_text = String::from_utf8_lossy(&got.body);
    let diff = TextDiff::from_lines(want_text.as_ref(), got_text.as_ref());
    let mut unified = diff.unified_diff();
    let text = unified
        .context_radius(2)
        .header(
            &format!("go {}", want.path),
            &format!("{app_name} {}", got.path),
        )
        .to_string();
    if text.trim().is_empty() {
        // Same lines, different bytes (e.g. a trailing newline or invalid UTF-8).
        format!(
            "bodies differ in bytes: go {} bytes, {app_name} {} bytes\n",
            want.body.len(),
            got.body.len()
        )
    } else {
        text
    }
}
