//! The comment form of `POST /posts/{slug}/comments` (docs/spec.md §3.9): which requests carry
//! one, how its body decodes, and what a valid comment is, with the answer to everything
//! else. One rule for every app, like the slug rule: the frameworks' form extractors decode
//! invalid UTF-8 lossily (serde_urlencoded) or reject input with their own words, and the
//! answers must be Go's byte for byte. Go's twin is `go-shared/workload/comment.go`; both are
//! checked against `testdata/comment-forms.json`.

use std::fmt;

/// The media type a comment form must be sent as.
pub const FORM_CONTENT_TYPE: &str = "application/x-www-form-urlencoded";
/// The largest form body accepted, in bytes; a larger one gets 413.
pub const FORM_LIMIT: usize = 16 * 1024;
/// The longest `author_name`, in characters (Unicode scalar values), after trimming.
pub const AUTHOR_MAX_CHARS: usize = 80;
/// The longest `body`, in characters, after trimming.
pub const BODY_MAX_CHARS: usize = 2000;

/// `[form body, outcome]` vectors: the tests of every app's rule, Go's included, and the bad
/// forms of the parity sample. An outcome is `{"author_name", "body"}` or `{"error"}`.
pub const FORM_VECTORS: &str = include_str!("../testdata/comment-forms.json");

/// A valid comment, trimmed, ready to insert.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewComment {
    pub author_name: String,
    pub body: String,
}

/// The two fields of the form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    AuthorName,
    Body,
}

impl Field {
    pub fn name(self) -> &'static str {
        match self {
            Field::AuthorName => "author_name",
            Field::Body => "body",
        }
    }

    fn max_chars(self) -> usize {
        match self {
            Field::AuthorName => AUTHOR_MAX_CHARS,
            Field::Body => BODY_MAX_CHARS,
        }
    }
}

/// Why a request is not a valid comment: each is a 4xx with a plain-text body, and nothing
/// reaches the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormError {
    /// No `Content-Type`, or another media type than [`FORM_CONTENT_TYPE`]: 415.
    NotAForm,
    /// A body over [`FORM_LIMIT`] bytes: 413.
    TooLarge,
    /// A `%` not followed by two hex digits: 400.
    Malformed,
    /// Absent, or only whitespace: 400.
    Missing(Field),
    /// Does not decode to UTF-8: 400.
    NotUtf8(Field),
    /// Holds U+0000, which PostgreSQL's `text` cannot store: 400.
    Nul(Field),
    /// Over the field's limit after trimming: 400.
    TooLong(Field),
}

impl FormError {
    /// The HTTP status of the answer.
    pub fn status(self) -> u16 {
        match self {
            FormError::NotAForm => 415,
            FormError::TooLarge => 413,
            _ => 400,
        }
    }

    /// The answer's body (`text/plain; charset=utf-8`).
    pub fn message(self) -> &'static str {
        use Field::{AuthorName, Body};
        match self {
            FormError::NotAForm => "a comment must be sent as application/x-www-form-urlencoded\n",
            FormError::TooLarge => "a comment form must be at most 16384 bytes\n",
            FormError::Malformed => "the comment form is not valid form encoding\n",
            FormError::Missing(AuthorName) => "author_name is required\n",
            FormError::Missing(Body) => "body is required\n",
            FormError::NotUtf8(AuthorName) => "author_name must be valid UTF-8\n",
            FormError::NotUtf8(Body) => "body must be valid UTF-8\n",
            FormError::Nul(AuthorName) => "author_name must not contain NUL characters\n",
            FormError::Nul(Body) => "body must not contain NUL characters\n",
            FormError::TooLong(AuthorName) => "author_name must be at most 80 characters\n",
            FormError::TooLong(Body) => "body must be at most 2000 characters\n",
        }
    }
}

impl fmt::Display for FormError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message().trim_end())
    }
}

impl std::error::Error for FormError {}

/// Whether a `Content-Type` value names a form: its media type (before any `;`, without
/// surrounding spaces or tabs) is [`FORM_CONTENT_TYPE`] in any ASCII case; parameters such
/// as `charset` are ignored.
pub fn is_form(content_type: Option<&[u8]>) -> bool {
    content_type.is_some_and(|value| {
        let media_type = value.split(|&b| b == b';').next().unwrap_or_default();
        media_type
            .trim_ascii()
            .eq_ignore_ascii_case(FORM_CONTENT_TYPE.as_bytes())
    })
}

impl NewComment {
    /// The whole rule, in the order the answers are chosen: the media type (415), the size
    /// (413), then [`NewComment::from_form_body`].
    pub fn from_request(content_type: Option<&[u8]>, body: &[u8]) -> Result<Self, FormError> {
        if !is_form(content_type) {
            return Err(FormError::NotAForm);
        }
        NewComment::from_form_body(body)
    }

    /// Decodes and checks a form body, for a framework that has checked the media type:
    /// over [`FORM_LIMIT`] bytes is [`FormError::TooLarge`]. Pairs are split on `&` (empty
    /// pieces skipped) and at the first `=`; `+` is a space and `%XX` a byte; a bad escape
    /// anywhere makes the form malformed; the first `author_name` and the first `body` count
    /// and other keys are ignored. Each field is then checked, `author_name` first: present,
    /// UTF-8, no NUL, not empty after trimming Unicode white space, at most its limit of
    /// characters. The comment holds the trimmed text.
    pub fn from_form_body(body: &[u8]) -> Result<Self, FormError> {
        if body.len() > FORM_LIMIT {
            return Err(FormError::TooLarge);
        }
        let mut author_name = None;
        let mut text = None;
        for piece in body.split(|&b| b == b'&').filter(|p| !p.is_empty()) {
            let (key, value) = match piece.iter().position(|&b| b == b'=') {
                Some(at) => (&piece[..at], &piece[at + 1..]),
                None => (piece, &[][..]),
            };
            let key = crate::unescape_bytes(key).ok_or(FormError::Malformed)?;
            let value = crate::unescape_bytes(value).ok_or(FormError::Malformed)?;
            let slot = match key.as_slice() {
                b"author_name" => &mut author_name,
                b"body" => &mut text,
                _ => continue,
            };
            slot.get_or_insert(value);
        }
        Ok(NewComment {
            author_name: field(Field::AuthorName, author_name)?,
            body: field(Field::Body, text)?,
        })
    }
}

fn field(which: Field, value: Option<Vec<u8>>) -> Result<String, FormError> {
    let value = value.ok_or(FormError::Missing(which))?;
    let text = String::from_utf8(value).map_err(|_| FormError::NotUtf8(which))?;
    if text.contains('\0') {
        return Err(FormError::Nul(which));
    }
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(FormError::Missing(which));
    }
    if trimmed.chars().count() > which.max_chars() {
        return Err(FormError::TooLong(which));
    }
    Ok(trimmed.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn forms_follow_the_rule_go_follows() {
        let vectors: Vec<(String, BTreeMap<String, String>)> =
            serde_json::from_str(FORM_VECTORS).unwrap();
        assert!(vectors.len() >= 30);
        for (form, outcome) in vectors {
            let got = NewComment::from_form_body(form.as_bytes());
            match outcome.get("error") {
                Some(error) => assert_eq!(
                    got.map_err(FormError::message),
                    Err(error.as_str()),
                    "form {form:?}"
                ),
                None => assert_eq!(
                    got,
                    Ok(NewComment {
                        author_name: outcome["author_name"].clone(),
                        body: outcome["body"].clone(),
                    }),
                    "form {form:?}"
                ),
            }
        }
    }

    #[test]
    fn only_forms_under_the_limit_are_read() {
        let form = |len: usize| format!("author_name=a&body={}", "b".repeat(len - 19));
        assert_eq!(
            NewComment::from_form_body(form(FORM_LIMIT).as_bytes()),
            Err(FormError::TooLong(Field::Body))
        );
        assert_eq!(
            NewComment::from_form_body(form(FORM_LIMIT + 1).as_bytes()),
            Err(FormError::TooLarge)
        );
        let ok = format!("author_name=a&body={}", "%C3%A9".repeat(BODY_MAX_CHARS));
        assert!(ok.len() <= FORM_LIMIT);
        assert!(NewComment::from_form_body(ok.as_bytes()).is_ok());
    }

    #[test]
    fn the_media_type_decides_not_its_parameters() {
        let form: &[&[u8]] = &[
            b"application/x-www-form-urlencoded",
            b"Application/X-WWW-Form-URLEncoded",
            b"application/x-www-form-urlencoded; charset=UTF-8",
            b" application/x-www-form-urlencoded\t;charset=utf-8",
        ];
        for value in form {
            assert!(is_form(Some(value)), "{:?}", String::from_utf8_lossy(value));
        }
        let not_form: &[&[u8]] = &[
            b"",
            b"text/plain",
            b"multipart/form-data; boundary=x",
            b"application/x-www-form-urlencodedx",
            b"application/json",
        ];
        for value in not_form {
            assert!(
                !is_form(Some(value)),
                "{:?}",
                String::from_utf8_lossy(value)
            );
        }
        assert!(!is_form(None));
        assert_eq!(
            NewComment::from_request(Some(b"text/plain"), b"author_name=a&body=b"),
            Err(FormError::NotAForm)
        );
    }

    #[test]
    fn every_error_names_its_status() {
        assert_eq!(FormError::NotAForm.status(), 415);
        assert_eq!(FormError::TooLarge.status(), 413);
        assert_eq!(FormError::TooLong(Field::Body).status(), 400);
        assert_eq!(
            FormError::TooLong(Field::AuthorName).to_string(),
            "author_name must be at most 80 characters"
        );
    }
}
