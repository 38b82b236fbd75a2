//! The parity sample (docs/spec.md §4): the first, last and 20 random posts, every tag,
//! unknown slugs and paths, segments that are not slugs, the cached routes, and `/compute` with good and bad `n` and odd
//! query strings. Slugs come from the seed's generator, so the sample needs no database and
//! is the same on every run.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use seed::data::Dataset;

const SAMPLE_SEED: u64 = 4;
const RANDOM_POSTS: usize = 20;

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
    let column = |table: &str, index: usize| -> Vec<String> {
        let rows = &data.table(table).copy_text;
        rows.lines()
            .map(|row| row.split('\t').nth(index).expect("column").to_owned())
            .collect()
    };
    let post_slugs = column("posts", 3);
    let tag_slugs = column("tags", 2);

    let mut rng = ChaCha8Rng::seed_from_u64(SAMPLE_SEED);
    let mut posts = vec![
        post_slugs[0].clone(),
        post_slugs[post_slugs.len() - 1].clone(),
    ];
    while posts.len() < 2 + RANDOM_POSTS {
        let slug = &post_slugs[rng.random_range(1..post_slugs.len() - 1)];
        if !posts.contains(slug) {
            posts.push(slug.clone());
        }
    }

    let mut paths = vec!["/".to_owned()];
    paths.extend(posts.iter().map(|slug| format!("/posts/{slug}")));
    paths.extend(tag_slugs.iter().map(|slug| format!("/tags/{slug}")));
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
}
