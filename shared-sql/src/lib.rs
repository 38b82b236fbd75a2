//! The SQL text every sqlx-based app sends, byte for byte the text the Go reference sends
//! (`go-shared/blog/queries.go`; a test below fails when the two differ), and the rows it
//! returns. `queries.json` holds the same text for the apps in other languages, whose own
//! tests compare their copies with it; a test below fails when it is out of date. Query counts per page follow docs/spec.md §3: home 3, post 3, tag 4; a comment 2 in a
//! transaction (§3.9).

pub mod pages;

use chrono::{DateTime, Utc};

/// Home, query 1: the latest 20 posts with their authors.
pub const HOME_POSTS: &str = "SELECT p.id, p.title, p.slug, p.excerpt, p.published_at, a.name AS author_name \
FROM posts p JOIN authors a ON a.id = p.author_id \
ORDER BY p.published_at DESC, p.id DESC LIMIT 20";

/// Home query 2 and tag query 3: the tags of a list of posts (`$1` = int4[] of post ids).
pub const TAGS_OF_POSTS: &str = "SELECT pt.post_id, t.name, t.slug \
FROM post_tags pt JOIN tags t ON t.id = pt.tag_id \
WHERE pt.post_id = ANY($1) ORDER BY pt.post_id, t.slug";

/// Home, query 3: comment counts of a list of posts; posts without comments have no row.
pub const COMMENT_COUNTS: &str = "SELECT post_id, count(*) AS comment_count \
FROM comments WHERE post_id = ANY($1) GROUP BY post_id";

/// Post page, query 1: the post and its author.
pub const POST_BY_SLUG: &str = "SELECT p.id, p.title, p.slug, p.body, p.published_at, a.name AS author_name \
FROM posts p JOIN authors a ON a.id = p.author_id WHERE p.slug = $1";

/// Post page, query 2: its tags.
pub const TAGS_OF_POST: &str = "SELECT t.name, t.slug \
FROM post_tags pt JOIN tags t ON t.id = pt.tag_id WHERE pt.post_id = $1 ORDER BY t.slug";

/// Post page, query 3: its comments, oldest first.
pub const COMMENTS_OF_POST: &str = "SELECT author_name, body, created_at \
FROM comments WHERE post_id = $1 ORDER BY created_at, id";

/// Tag page, query 1: the tag.
pub const TAG_BY_SLUG: &str = "SELECT id, name, slug FROM tags WHERE slug = $1";

/// Tag page, query 2: its latest 20 posts with their authors.
pub const TAG_POSTS: &str = "SELECT p.id, p.title, p.slug, p.excerpt, p.published_at, a.name AS author_name \
FROM post_tags pt JOIN posts p ON p.id = pt.post_id JOIN authors a ON a.id = p.author_id \
WHERE pt.tag_id = $1 ORDER BY p.published_at DESC, p.id DESC LIMIT 20";

/// Tag page, query 4: how many posts carry the tag.
pub const TAG_POST_COUNT: &str = "SELECT count(*) FROM post_tags WHERE tag_id = $1";

/// Comment post, in its transaction: the id of the post commented on.
pub const POST_ID_BY_SLUG: &str = "SELECT id FROM posts WHERE slug = $1";

/// Comment post, in its transaction: the comment (`$1` post id, `$2` author, `$3` body),
/// stamped with the transaction's time.
pub const INSERT_COMMENT: &str = "INSERT INTO comments (post_id, author_name, body, created_at) \
VALUES ($1, $2, $3, now())";

/// Every query by name, for the single-source test against Go's constants.
pub const ALL: [(&str, &str); 11] = [
    ("HOME_POSTS", HOME_POSTS),
    ("TAGS_OF_POSTS", TAGS_OF_POSTS),
    ("COMMENT_COUNTS", COMMENT_COUNTS),
    ("POST_BY_SLUG", POST_BY_SLUG),
    ("TAGS_OF_POST", TAGS_OF_POST),
    ("COMMENTS_OF_POST", COMMENTS_OF_POST),
    ("TAG_BY_SLUG", TAG_BY_SLUG),
    ("TAG_POSTS", TAG_POSTS),
    ("TAG_POST_COUNT", TAG_POST_COUNT),
    ("POST_ID_BY_SLUG", POST_ID_BY_SLUG),
    ("INSERT_COMMENT", INSERT_COMMENT),
];

/// A post as listed on the home and tag pages ([`HOME_POSTS`], [`TAG_POSTS`]).
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct PostSummary {
    pub id: i32,
    pub title: String,
    pub slug: String,
    pub excerpt: String,
    pub published_at: DateTime<Utc>,
    pub author_name: String,
}

/// One tag of one post ([`TAGS_OF_POSTS`]).
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct PostTag {
    pub post_id: i32,
    pub name: String,
    pub slug: String,
}

/// [`COMMENT_COUNTS`].
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct CommentCount {
    pub post_id: i32,
    pub comment_count: i64,
}

/// A whole post ([`POST_BY_SLUG`]).
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Post {
    pub id: i32,
    pub title: String,
    pub slug: String,
    pub body: String,
    pub published_at: DateTime<Utc>,
    pub author_name: String,
}

/// A tag's name and slug ([`TAGS_OF_POST`]).
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TagName {
    pub name: String,
    pub slug: String,
}

/// [`COMMENTS_OF_POST`].
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Comment {
    pub author_name: String,
    pub body: String,
    pub created_at: DateTime<Utc>,
}

/// [`TAG_BY_SLUG`].
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Tag {
    pub id: i32,
    pub name: String,
    pub slug: String,
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    /// `homePosts` → `HOME_POSTS`, `postIDBySlug` → `POST_ID_BY_SLUG`: a word starts at an
    /// upper-case letter after a lower-case one, or before one.
    fn screaming_snake(go_name: &str) -> String {
        let chars: Vec<char> = go_name.chars().collect();
        let mut out = String::new();
        for (i, &c) in chars.iter().enumerate() {
            let after_lower = i > 0 && chars[i - 1].is_ascii_lowercase();
            let before_lower = i > 0 && chars.get(i + 1).is_some_and(char::is_ascii_lowercase);
            if c.is_ascii_uppercase() && (after_lower || before_lower) {
                out.push('_');
            }
            out.push(c.to_ascii_uppercase());
        }
        out
    }

    /// The raw-string constants of `go-shared/blog/queries.go`, by Rust name.
    fn go_queries() -> BTreeMap<String, String> {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../go-shared/blog/queries.go");
        let source = std::fs::read_to_string(path).expect("read go-shared/blog/queries.go");
        let mut queries = BTreeMap::new();
        let mut rest = source.as_str();
        while let Some(start) = rest.find("= `") {
            let name = rest[..start]
                .split_whitespace()
                .last()
                .expect("constant name");
            let after = &rest[start + 3..];
            let end = after.find('`').expect("closing backquote");
            queries.insert(screaming_snake(name), after[..end].to_owned());
            rest = &after[end + 1..];
        }
        queries
    }

    #[test]
    fn go_sends_the_same_sql_text() {
        let go = go_queries();
        let rust: BTreeMap<String, String> = super::ALL
            .iter()
            .map(|(n, q)| (n.to_string(), q.to_string()))
            .collect();
        assert_eq!(
            go.keys().collect::<Vec<_>>(),
            rust.keys().collect::<Vec<_>>(),
            "query names differ between go-shared/blog/queries.go and shared-sql"
        );
        for (name, sql) in &rust {
            assert_eq!(&go[name], sql, "{name} differs between Go and shared-sql");
        }
    }

    /// `queries.json`, the text for apps in other languages: `UPDATE_QUERIES_JSON=1 cargo
    /// test -p shared-sql` rewrites it after a change here.
    #[test]
    fn queries_json_holds_the_same_sql_text() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/queries.json");
        let rust: BTreeMap<&str, &str> = super::ALL.into_iter().collect();
        let expected = serde_json::to_string_pretty(&rust).unwrap() + "\n";
        if std::env::var_os("UPDATE_QUERIES_JSON").is_some() {
            std::fs::write(path, &expected).unwrap();
        }
        let written = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            written == expected,
            "shared-sql/queries.json differs from the constants; rewrite it with \
             UPDATE_QUERIES_JSON=1 cargo test -p shared-sql"
        );
    }
}
