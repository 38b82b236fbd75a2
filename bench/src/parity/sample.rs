//! The parity sample (docs/spec.md §4). Reads: the first, last and 20 random posts, every tag,
//! unknown slugs and paths, segments that are not slugs, the cached routes, and `/compute`
//! with good and bad `n` and odd query strings. Writes: comments, good and refused, and the
//! pages they change. Slugs come from the seed's generator, so the sample needs no database
//! and is the same on every run.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use seed::data::Dataset;

const SAMPLE_SEED: u64 = 4;
const RANDOM_POSTS: usize = 20;

/// The whole sample: the reads, then the writes, which run on a database reset before and
/// after them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sample {
    pub reads: Vec<SampleRequest>,
    pub writes: Vec<SampleRequest>,
}

impl Sample {
    pub fn len(&self) -> usize {
        self.reads.len() + self.writes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn iter(&self) -> impl Iterator<Item = &SampleRequest> {
        self.reads.iter().chain(&self.writes)
    }
}

/// One request of the sample.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SampleRequest {
    pub method: Method,
    pub path: String,
    pub content_type: Option<String>,
    pub body: Vec<u8>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
}

impl SampleRequest {
    pub fn get(path: impl Into<String>) -> Self {
        SampleRequest {
            method: Method::Get,
            path: path.into(),
            content_type: None,
            body: Vec::new(),
        }
    }

    pub fn post(path: impl Into<String>, content_type: Option<&str>, body: &[u8]) -> Self {
        SampleRequest {
            method: Method::Post,
            path: path.into(),
            content_type: content_type.map(str::to_owned),
            body: body.to_vec(),
        }
    }

    /// `GET /path`, or `POST /path` with its content type and the start of its body.
    pub fn label(&self) -> String {
        match self.method {
            Method::Get => format!("GET {}", self.path),
            Method::Post => {
                const SHOWN: usize = 60;
                let body = String::from_utf8_lossy(&self.body[..self.body.len().min(SHOWN)]);
                let more = if self.body.len() > SHOWN {
                    format!("… ({} bytes)", self.body.len())
                } else {
                    String::new()
                };
                format!(
                    "POST {} [{}] {body:?}{more}",
                    self.path,
                    self.content_type.as_deref().unwrap_or("no Content-Type")
                )
            }
        }
    }
}

/// The sample every gate sends: [`parity_paths`] as reads, then [`write_sample`].
pub fn parity_sample() -> Sample {
    Sample {
        reads: parity_paths().into_iter().map(SampleRequest::get).collect(),
        writes: write_sample(),
    }
}

/// The writes (docs/spec.md §3.9): a comment on the newest post between reads of its cached
/// page and the cached home page (the invalidation), then on the oldest post every form
/// vector of `workload`, the content types, the size limit, unknown and non-slugs, and the
/// two pages that show comments.
pub fn write_sample() -> Vec<SampleRequest> {
    use workload::comment::FORM_LIMIT;
    let data = Dataset::generate();
    let slugs: Vec<&str> = data.table("posts").column("slug").collect();
    let (oldest, newest) = (slugs[0], slugs[slugs.len() - 1]);
    let form = Some(workload::comment::FORM_CONTENT_TYPE);
    let comments = |slug: &str| format!("/posts/{slug}/comments");
    let good: &[u8] = b"author_name=Parity&body=checked";

    let mut writes = vec![
        SampleRequest::get(format!("/cached/posts/{newest}")),
        SampleRequest::get("/cached/"),
        SampleRequest::post(
            comments(newest),
            form,
            b"author_name=%3Cb%3EMallory%3C%2Fb%3E&body=%3Cscript%3Ealert(1)%3C%2Fscript%3E+%27%3B+DROP+TABLE+comments%3B+--",
        ),
        SampleRequest::get(format!("/cached/posts/{newest}")),
        SampleRequest::get("/cached/"),
    ];
    let vectors: Vec<(String, serde_json::Value)> =
        serde_json::from_str(workload::comment::FORM_VECTORS).expect("workload's form vectors");
    writes.extend(
        vectors
            .iter()
            .map(|(body, _)| SampleRequest::post(comments(oldest), form, body.as_bytes())),
    );
    for content_type in [
        None,
        Some("text/plain"),
        Some("application/json"),
        Some("multipart/form-data; boundary=x"),
        Some("application/x-www-form-urlencoded; charset=UTF-8"),
        Some("APPLICATION/X-WWW-FORM-URLENCODED"),
    ] {
        writes.push(SampleRequest::post(comments(oldest), content_type, good));
    }
    let sized = |len: usize| {
        let mut body = b"author_name=Size&body=".to_vec();
        body.resize(len, b'x');
        body
    };
    writes.push(SampleRequest::post(
        comments(oldest),
        form,
        &sized(FORM_LIMIT + 1),
    ));
    writes.push(SampleRequest::post(
        comments(oldest),
        form,
        &sized(FORM_LIMIT),
    ));
    writes.push(SampleRequest::post(
        comments(oldest),
        form,
        format!("author_name=Size&body={}", "%C3%A9".repeat(2000)).as_bytes(),
    ));
    writes.push(SampleRequest::post(comments("no-such-post"), form, good));
    writes.push(SampleRequest::post(
        comments("no-such-post"),
        form,
        b"body=x",
    ));
    for segment in ["Upper", "a%00b", "%ff%fe", "quote%27s"] {
        writes.push(SampleRequest::post(comments(segment), form, good));
    }
    writes.push(SampleRequest::get(format!("/posts/{oldest}")));
    writes.push(SampleRequest::get(format!("/posts/{newest}")));
    writes.push(SampleRequest::get("/"));
    writes
}

/// The segments of the slug vectors that are not slugs (docs/spec.md §3.1): NUL, invalid
/// UTF-8, upper case, over-long, `/` and the like, still percent-encoded. The empty segment
/// and dot segments are left out: they change which route a path is, which routers
/// decide differently (§3.7).
pub fn not_slugs() -> Vec<String> {
    let vectors: Vec<(String, bool)> =
        serde_json::from_str(workload::SLUG_VECTORS).expect("workload's slug vectors");
    vectors
        .into_iter()
        .filter(|(segment, is_slug)| {
            !is_slug
                && !segment.is_empty()
                && !segment.replace("%2e", ".").chars().all(|c| c == '.')
        })
        .map(|(segment, _)| segment)
        .collect()
}

/// The paths to compare, in request order. Cached paths appear twice: the first request
/// is a miss (rendered and stored), the second a hit (served from Redis).
pub fn parity_paths() -> Vec<String> {
    let data = Dataset::generate();
    let post_slugs: Vec<&str> = data.table("posts").column("slug").collect();
    let tag_slugs = data.table("tags").column("slug");

    let mut rng = ChaCha8Rng::seed_from_u64(SAMPLE_SEED);
    let mut posts = vec![post_slugs[0], post_slugs[post_slugs.len() - 1]];
    while posts.len() < 2 + RANDOM_POSTS {
        let slug = post_slugs[rng.random_range(1..post_slugs.len() - 1)];
        if !posts.contains(&slug) {
            posts.push(slug);
        }
    }

    let mut paths = vec!["/".to_owned()];
    paths.extend(posts.iter().map(|slug| format!("/posts/{slug}")));
    paths.extend(tag_slugs.map(|slug| format!("/tags/{slug}")));
    paths.extend(["/posts/no-such-post", "/tags/no-such-tag", "/no/such/page"].map(String::from));
    for segment in not_slugs() {
        for prefix in ["/posts/", "/tags/", "/cached/posts/"] {
            paths.push(format!("{prefix}{segment}"));
        }
    }
    for path in ["/cached/".to_owned()]
        .into_iter()
        .chain(
            posts[..4]
                .iter()
                .map(|slug| format!("/cached/posts/{slug}")),
        )
        .chain(["/cached/posts/no-such-post".to_owned()])
    {
        paths.push(path.clone());
        paths.push(path);
    }
    paths.extend(
        [
            "/compute",
            "/compute?n=2",
            "/compute?n=100000",
            "/compute?n=abc",
            "/compute?n=1",
            "/compute?n=10000000",
            // The query rule itself (docs/spec.md §3): separators, escapes, case, repeats.
            "/compute?x=1;y=2",
            "/compute?n=10;x=1",
            "/compute?n=%31%30",
            "/compute?n=+10",
            "/compute?n=10&x=1",
            "/compute?x=1&n=10",
            "/compute?N=10",
            "/compute?n=10&n=abc",
            "/compute?n=&n=10",
            "/compute?n=%zz",
            "/compute?x=%zz&n=10",
            "/compute?n=1e3",
        ]
        .map(String::from),
    );
    paths
}

#[cfg(test)]
mod tests {
    #[test]
    fn covers_the_spec_sample() {
        let paths = super::parity_paths();
        assert_eq!(
            paths,
            super::parity_paths(),
            "the sample must be deterministic"
        );
        let odd = super::not_slugs().len();
        assert!(odd >= 20, "{odd} segments that are not slugs");
        assert!(super::not_slugs().contains(&"%00".to_owned()));
        let posts = paths.iter().filter(|p| p.starts_with("/posts/")).count();
        assert_eq!(
            posts,
            2 + 20 + 1 + odd,
            "first, last, 20 random, one unknown, odd"
        );
        assert_eq!(
            paths.iter().filter(|p| p.starts_with("/tags/")).count(),
            30 + 1 + odd
        );
        assert!(paths.contains(&"/cached/posts/%ff%fe".to_owned()));
        assert!(paths.iter().any(|p| p.ends_with("-1")), "first post");
        assert!(paths.iter().any(|p| p.ends_with("-1000")), "last post");
        assert!(paths.contains(&"/compute?n=abc".to_owned()));
        assert!(paths.contains(&"/compute?x=1;y=2".to_owned()));
        assert_eq!(
            paths.iter().filter(|p| *p == "/cached/").count(),
            2,
            "miss then hit"
        );
    }

    #[test]
    fn writes_cover_every_form_vector_and_refusal() {
        use super::{Method, write_sample};
        let writes = write_sample();
        assert_eq!(writes, write_sample(), "the sample must be deterministic");
        let posts = writes.iter().filter(|r| r.method == Method::Post);
        let vectors: Vec<(String, serde_json::Value)> =
            serde_json::from_str(workload::comment::FORM_VECTORS).unwrap();
        assert!(posts.count() > vectors.len() + 10);
        assert!(writes.iter().any(|r| r.content_type.is_none()));
        assert!(
            writes
                .iter()
                .any(|r| r.body.len() == workload::comment::FORM_LIMIT + 1)
        );
        assert_eq!(
            writes.last().unwrap().path,
            "/",
            "the home page's counts last"
        );
    }
}
