//! The data set of docs/spec.md §2, generated from a fixed PRNG seed as PostgreSQL COPY text.
//!
//! The COPY text is also what the checksum covers: `COPY (SELECT … ORDER BY id) TO STDOUT`
//! on a loaded database yields the same bytes, so the database's checksum is computed from
//! its contents, not stored beside them.

use chrono::{DateTime, Duration, TimeZone, Utc};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sha2::{Digest, Sha256};
use std::fmt::Write;

pub const SEED: u64 = 2026;
pub const AUTHORS: usize = 10;
pub const TAGS: usize = 30;
pub const POSTS: usize = 1_000;
pub const POST_TAGS: usize = 2_600;
pub const COMMENTS: usize = 10_000;

/// The body of the comment every app must escape identically (docs/spec.md §2).
pub const XSS_COMMENT: &str = "<script>alert(\"xss\")</script>";

/// One table's rows as COPY text, and how to read them back in the same order.
pub struct Table {
    pub name: &'static str,
    pub columns: &'static str,
    pub order_by: &'static str,
    pub rows: usize,
    pub copy_text: String,
}

impl Table {
    pub fn copy_in(&self) -> String {
        format!("COPY {} ({}) FROM STDIN", self.name, self.columns)
    }

    pub fn copy_out(&self) -> String {
        format!(
            "COPY (SELECT {} FROM {} ORDER BY {}) TO STDOUT",
            self.columns, self.name, self.order_by
        )
    }

    /// The values of column `name` in row order, as COPY text writes them (`\t`, `\n` and
    /// `\\` escaped; slugs, numbers and timestamps need none).
    pub fn column(&self, name: &str) -> impl Iterator<Item = &str> {
        let index = self
            .columns
            .split(", ")
            .position(|column| column == name)
            .unwrap_or_else(|| panic!("{} has no column {name}", self.name));
        self.copy_text
            .lines()
            .map(move |row| row.split('\t').nth(index).expect("a value per column"))
    }
}

/// Feeds tables to the checksum in load order; the database side hashes the same way.
#[derive(Default)]
pub struct Checksum(Sha256);

impl Checksum {
    pub fn add(&mut self, table: &str, copy_text: &[u8]) {
        self.0.update(table.as_bytes());
        self.0.update(b"\n");
        self.0.update(copy_text);
    }

    pub fn hex(self) -> String {
        self.0.finalize().iter().fold(String::new(), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
    }
}

pub struct Dataset {
    pub tables: Vec<Table>,
}

impl Dataset {
    pub fn checksum(&self) -> String {
        let mut sum = Checksum::default();
        for table in &self.tables {
            sum.add(table.name, table.copy_text.as_bytes());
        }
        sum.hex()
    }

    pub fn table(&self, name: &str) -> &Table {
        self.tables
            .iter()
            .find(|t| t.name == name)
            .expect("known table")
    }

    pub fn generate() -> Dataset {
        let mut g = Generator {
            rng: ChaCha8Rng::seed_from_u64(SEED),
        };
        let authors = g.authors();
        let tags = g.tags();
        let (posts, published) = g.posts();
        let post_tags = g.post_tags();
        let comments = g.comments(&published);
        Dataset {
            tables: vec![authors, tags, posts, post_tags, comments],
        }
    }
}

const AUTHOR_NAMES: [&str; AUTHORS] = [
    "Ada Lovelace",
    "José Álvarez",
    "Zoë O'Neill",
    "田中 花子",
    "Grace Hopper",
    "Søren Kierkegaard",
    "Amélie Poulain",
    "Björk Guðmundsdóttir",
    "Chidi Anagonye",
    "Mary-Jane \"MJ\" Watson",
];

const TAG_NAMES: [(&str, &str); TAGS] = [
    ("Rust", "rust"),
    ("Go", "go"),
    ("C++", "cpp"),
    ("Databases", "databases"),
    ("PostgreSQL", "postgresql"),
    ("Redis", "redis"),
    ("Performance", "performance"),
    ("Benchmarks", "benchmarks"),
    ("Web", "web"),
    ("HTTP", "http"),
    ("HTML & CSS", "html-and-css"),
    ("Q&A", "q-and-a"),
    ("Security", "security"),
    ("<script> & XSS", "script-and-xss"),
    ("\"Quoted\"", "quoted"),
    ("It's complicated", "its-complicated"),
    ("Café culture", "cafe-culture"),
    ("日本語", "nihongo"),
    ("Emoji 🎉", "emoji"),
    ("Async", "async"),
    ("Concurrency", "concurrency"),
    ("Testing", "testing"),
    ("Tooling", "tooling"),
    ("Linux", "linux"),
    ("Networking", "networking"),
    ("Caching", "caching"),
    ("Templates", "templates"),
    ("ORMs", "orms"),
    ("Deployment", "deployment"),
    ("Über-engineering", "uber-engineering"),
];

const COMMENTERS: [&str; 16] = [
    "alice",
    "Bob O'Brien",
    "Zoë",
    "李雷",
    "Renée & Co",
    "Anonymous <anon@example.com>",
    "dev \"null\" ops",
    "Łukasz",
    "Mateo",
    "Priya",
    "Kwame",
    "Ingrid",
    "Olu",
    "Yuki 🍣",
    "Hannah",
    "x+y",
];

const WORDS: [&str; 64] = [
    "server",
    "request",
    "latency",
    "throughput",
    "pool",
    "connection",
    "query",
    "index",
    "cache",
    "page",
    "template",
    "thread",
    "worker",
    "runtime",
    "allocator",
    "socket",
    "kernel",
    "benchmark",
    "median",
    "percentile",
    "framework",
    "router",
    "handler",
    "database",
    "row",
    "column",
    "table",
    "transaction",
    "lock",
    "queue",
    "buffer",
    "stream",
    "fast",
    "slow",
    "careful",
    "honest",
    "small",
    "large",
    "quiet",
    "busy",
    "warm",
    "cold",
    "measured",
    "profiled",
    "compiled",
    "escaped",
    "rendered",
    "cached",
    "pinned",
    "fair",
    "we",
    "they",
    "it",
    "often",
    "rarely",
    "always",
    "never",
    "because",
    "while",
    "after",
    "naïve",
    "café",
    "façade",
    "über",
];

/// Fragments that put every character needing escaping (and non-ASCII text) into the data.
const SPICE: [&str; 12] = [
    "\"quoted\" words",
    "it's fine",
    "a < b && b > c",
    "C++ templates",
    "Q&A time",
    "<em>not markup</em>",
    "日本語のテキスト",
    "🚀 launch",
    "1 + 1 = 2",
    "Ünïcödé everywhere",
    "the 'single' quotes",
    "R&D > marketing",
];

const TITLE_OPENERS: [&str; 10] = [
    "Notes on",
    "Why",
    "How we measured",
    "A week with",
    "The cost of",
    "Against",
    "In defence of",
    "Lessons from",
    "What I got wrong about",
    "Field guide to",
];

struct Generator {
    rng: ChaCha8Rng,
}

fn copy_escape(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            _ => out.push(c),
        }
    }
}

/// Appends one COPY row: fields escaped, tab-separated, newline-terminated.
fn push_row(out: &mut String, fields: &[&str]) {
    for (i, field) in fields.iter().enumerate() {
        if i > 0 {
            out.push('\t');
        }
        copy_escape(out, field);
    }
    out.push('\n');
}

/// PostgreSQL's ISO output of a `timestamptz` in time zone UTC (whole seconds).
fn pg_timestamp(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%d %H:%M:%S+00").to_string()
}

fn slugify(title: &str, id: usize) -> String {
    let mut slug = String::new();
    for c in title.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            slug.push(c);
        } else if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
    }
    format!("{}-{id}", slug.trim_end_matches('-'))
}

impl Generator {
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.rng.random_range(0..items.len())]
    }

    fn sentence(&mut self) -> String {
        let len = self.rng.random_range(8..=16);
        let mut words: Vec<String> = (0..len).map(|_| self.pick(&WORDS).to_owned()).collect();
        if self.rng.random_ratio(1, 6) {
            let at = self.rng.random_range(1..words.len());
            words.insert(at, self.pick(&SPICE).to_owned());
        }
        let mut sentence = words.join(" ");
        if let Some(first) = sentence.get(..1) {
            sentence.replace_range(..1, &first.to_uppercase());
        }
        sentence.push(match self.rng.random_range(0..10) {
            0 => '?',
            1 => '!',
            _ => '.',
        });
        sentence
    }

    fn sentences(&mut self, min: usize, max: usize) -> String {
        let n = self.rng.random_range(min..=max);
        (0..n)
            .map(|_| self.sentence())
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn authors(&mut self) -> Table {
        let mut text = String::new();
        for (i, name) in AUTHOR_NAMES.iter().enumerate() {
            let bio = self.sentences(1, 2);
            push_row(&mut text, &[&(i + 1).to_string(), name, &bio]);
        }
        Table {
            name: "authors",
            columns: "id, name, bio",
            order_by: "id",
            rows: AUTHORS,
            copy_text: text,
        }
    }

    fn tags(&mut self) -> Table {
        let mut text = String::new();
        for (i, (name, slug)) in TAG_NAMES.iter().enumerate() {
            push_row(&mut text, &[&(i + 1).to_string(), name, slug]);
        }
        Table {
            name: "tags",
            columns: "id, name, slug",
            order_by: "id",
            rows: TAGS,
            copy_text: text,
        }
    }

    fn title(&mut self, id: usize) -> String {
        // The newest post (top of the home page) carries every escaped character.
        if id == POSTS {
            return "Tom & Jerry's \"C++\" <notes> on naïve café benchmarks 🚀".to_owned();
        }
        let topic = self.pick(&TAG_NAMES.map(|(name, _)| name));
        let opener = self.pick(&TITLE_OPENERS);
        let noun = self.pick(&WORDS[..32]);
        format!("{opener} {topic}: the {noun}")
    }

    /// Posts 1..=1000, `published_at` increasing with the id; returns the dates for comments.
    fn posts(&mut self) -> (Table, Vec<DateTime<Utc>>) {
        let start = Utc.with_ymd_and_hms(2023, 1, 1, 0, 0, 0).unwrap();
        let mut text = String::new();
        let mut published = Vec::with_capacity(POSTS);
        for id in 1..=POSTS {
            let author = self.rng.random_range(1..=AUTHORS);
            let title = self.title(id);
            let excerpt = self.sentences(1, 2);
            let paragraphs = self.rng.random_range(5..=9);
            let body = (0..paragraphs)
                .map(|_| self.sentences(3, 6))
                .collect::<Vec<_>>()
                .join("\n\n");
            let at = start
                + Duration::hours(9 * id as i64)
                + Duration::seconds(self.rng.random_range(0..8 * 3600));
            published.push(at);
            push_row(
                &mut text,
                &[
                    &id.to_string(),
                    &author.to_string(),
                    &title,
                    &slugify(&title, id),
                    &excerpt,
                    &body,
                    &pg_timestamp(at),
                ],
            );
        }
        let table = Table {
            name: "posts",
            columns: "id, author_id, title, slug, excerpt, body, published_at",
            order_by: "id",
            rows: POSTS,
            copy_text: text,
        };
        (table, published)
    }

    /// Every post gets 2 or 3 distinct tags: 600 posts 3, 400 posts 2 = 2 600 links.
    fn post_tags(&mut self) -> Table {
        let three = POST_TAGS - 2 * POSTS;
        let mut with_three = vec![false; POSTS];
        let mut chosen = 0;
        while chosen < three {
            let i = self.rng.random_range(0..POSTS);
            if !with_three[i] {
                with_three[i] = true;
                chosen += 1;
            }
        }
        let mut text = String::new();
        for (i, three) in with_three.iter().enumerate() {
            let mut tags: Vec<usize> = Vec::with_capacity(3);
            while tags.len() < if *three { 3 } else { 2 } {
                let tag = self.rng.random_range(1..=TAGS);
                if !tags.contains(&tag) {
                    tags.push(tag);
                }
            }
            tags.sort_unstable();
            for tag in tags {
                push_row(&mut text, &[&(i + 1).to_string(), &tag.to_string()]);
            }
        }
        Table {
            name: "post_tags",
            columns: "post_id, tag_id",
            order_by: "post_id, tag_id",
            rows: POST_TAGS,
            copy_text: text,
        }
    }

    /// Comments spread at random over the posts; the XSS comment sits on the first and the
    /// newest post, so the parity sample always meets it.
    fn comments(&mut self, published: &[DateTime<Utc>]) -> Table {
        let mut text = String::new();
        for id in 1..=COMMENTS {
            let post = match id {
                1 => 1,
                2 => POSTS,
                _ => self.rng.random_range(1..=POSTS),
            };
            let body = if id <= 2 {
                XSS_COMMENT.to_owned()
            } else {
                self.sentences(1, 3)
            };
            let author = self.pick(&COMMENTERS);
            let at =
                published[post - 1] + Duration::minutes(self.rng.random_range(5..60 * 24 * 30));
            push_row(
                &mut text,
                &[
                    &id.to_string(),
                    &post.to_string(),
                    author,
                    &body,
                    &pg_timestamp(at),
                ],
            );
        }
        Table {
            name: "comments",
            columns: "id, post_id, author_name, body, created_at",
            order_by: "id",
            rows: COMMENTS,
            copy_text: text,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pinned: the data must be the same bytes on every machine and every run. Changing the
    /// generator on purpose means updating this value (and the README).
    const EXPECTED_CHECKSUM: &str =
        "57995ec42e3d8e561f0a92d9842e4db6e686eac090b5a33d704e864483eebb37";

    #[test]
    fn is_deterministic_and_pinned() {
        let first = Dataset::generate();
        let second = Dataset::generate();
        for (a, b) in first.tables.iter().zip(&second.tables) {
            assert!(
                a.copy_text == b.copy_text,
                "table {} differs between runs",
                a.name
            );
        }
        assert_eq!(first.checksum(), EXPECTED_CHECKSUM);
    }

    #[test]
    fn has_the_spec_counts() {
        let data = Dataset::generate();
        for (name, count) in [
            ("authors", 10),
            ("tags", 30),
            ("posts", 1_000),
            ("post_tags", 2_600),
            ("comments", 10_000),
        ] {
            let table = data.table(name);
            assert_eq!(table.copy_text.lines().count(), count, "{name}");
            assert_eq!(table.rows, count, "{name}");
        }
    }

    #[test]
    fn holds_every_escaping_case() {
        let data = Dataset::generate();
        let all: String = data.tables.iter().map(|t| t.copy_text.as_str()).collect();
        for needle in [
            "&",
            "<",
            ">",
            "\"",
            "'",
            "+",
            "é",
            "日本語",
            "🚀",
            XSS_COMMENT,
        ] {
            assert!(all.contains(needle), "no row contains {needle:?}");
        }
        assert!(
            data.table("comments")
                .column("body")
                .any(|body| body == XSS_COMMENT)
        );
        // Post bodies are "a few KB".
        let body_bytes: usize = data.table("posts").column("body").map(str::len).sum();
        let average = body_bytes / POSTS;
        assert!(
            (1_500..8_000).contains(&average),
            "average body {average} bytes"
        );
    }

    #[test]
    fn slugs_are_unique_url_safe() {
        let data = Dataset::generate();
        let slugs: Vec<&str> = data.table("posts").column("slug").collect();
        let unique: std::collections::HashSet<_> = slugs.iter().collect();
        assert_eq!(unique.len(), POSTS);
        assert!(slugs.iter().all(|s| {
            s.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        }));
    }
}
