//! Parity (docs/spec.md §4): every sample request sent to the app and to the Go reference must
//! give the same status, `Content-Type`, `Location` and body bytes, and both must send
//! `Content-Length`. The only bytes that may differ are the times of comments posted during
//! the check, which come from the clock.

use super::fetch::Fetched;
use memchr::memmem;
use similar::TextDiff;
use std::borrow::Cow;
use std::sync::OnceLock;

/// How one response differs from the reference's.
#[derive(Debug)]
pub struct Mismatch {
    /// The request, as [`super::SampleRequest::label`] shows it.
    pub request: String,
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
            if want.location != got.location {
                what.push(format!(
                    "Location {:?} (go: {:?})",
                    got.location, want.location
                ));
            }
            let (want_body, got_body) = (
                mask_new_comment_times(&want.body),
                mask_new_comment_times(&got.body),
            );
            let diff = if want_body != got_body {
                what.push("body differs".to_owned());
                body_diff(&want.request, &want_body, &got_body, app_name)
            } else {
                String::new()
            };
            (!what.is_empty()).then(|| Mismatch {
                request: want.request.clone(),
                what: what.join(", "),
                diff,
            })
        })
        .collect()
}

/// The text a comment time posted during the check is replaced with.
const NEW_COMMENT_TIME: &[u8] = b"<time>(posted during the check)</time>";

/// `body` with every comment time (`<time>YYYY-MM-DD HH:MM</time>`) later than the newest
/// seeded comment's replaced by [`NEW_COMMENT_TIME`]: such a comment was posted by the
/// sample, and when it was posted depends on the clock, not on the app.
fn mask_new_comment_times(body: &[u8]) -> Cow<'_, [u8]> {
    const OPEN: &[u8] = b"<time>";
    const CLOSE: &[u8] = b"</time>";
    const MINUTE: usize = "YYYY-MM-DD HH:MM".len();
    let newest = newest_seeded_comment_minute().as_bytes();
    let mut masked: Option<Vec<u8>> = None;
    let mut copied = 0;
    let mut at = 0;
    while let Some(found) = memmem::find(&body[at..], OPEN) {
        let start = at + found;
        let time = start + OPEN.len();
        let end = time + MINUTE;
        at = time;
        if body.get(end..end + CLOSE.len()) == Some(CLOSE) && &body[time..end] > newest {
            let out = masked.get_or_insert_with(Vec::new);
            out.extend_from_slice(&body[copied..start]);
            out.extend_from_slice(NEW_COMMENT_TIME);
            copied = end + CLOSE.len();
            at = copied;
        }
    }
    match masked {
        None => Cow::Borrowed(body),
        Some(mut out) => {
            out.extend_from_slice(&body[copied..]);
            Cow::Owned(out)
        }
    }
}

/// `YYYY-MM-DD HH:MM` of the newest seeded comment.
fn newest_seeded_comment_minute() -> &'static str {
    static NEWEST: OnceLock<String> = OnceLock::new();
    NEWEST.get_or_init(|| {
        let data = seed::data::Dataset::generate();
        let newest = data
            .table("comments")
            .column("created_at")
            .max()
            .expect("seeded comments")
            .to_owned();
        newest[.."YYYY-MM-DD HH:MM".len()].to_owned()
    })
}

fn body_diff(request: &str, want: &[u8], got: &[u8], app_name: &str) -> String {
    let want_text = String::from_utf8_lossy(want);
    let got_text = String::from_utf8_lossy(got);
    let diff = TextDiff::from_lines(want_text.as_ref(), got_text.as_ref());
    let mut unified = diff.unified_diff();
    let text = unified
        .context_radius(2)
        .header(&format!("go: {request}"), &format!("{app_name}: {request}"))
        .to_string();
    if text.trim().is_empty() {
        // Same lines, different bytes (e.g. a trailing newline or invalid UTF-8).
        format!(
            "bodies differ in bytes: go {} bytes, {app_name} {} bytes\n",
            want.len(),
            got.len()
        )
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_only_the_times_of_comments_posted_during_the_check() {
        let seeded = newest_seeded_comment_minute();
        let body = format!(
            "<time>{seeded}</time><time>2099-01-02 03:04</time>x<time>2026-01-01</time><time>2099-12-31 23:59</time>"
        );
        let masked = mask_new_comment_times(body.as_bytes());
        assert_eq!(
            String::from_utf8_lossy(&masked),
            format!(
                "<time>{seeded}</time><time>(posted during the check)</time>x<time>2026-01-01</time><time>(posted during the check)</time>"
            )
        );
        assert!(matches!(
            mask_new_comment_times(b"<p>no times</p>"),
            Cow::Borrowed(_)
        ));
    }
}
