//! The routes the benchmark loads (docs/spec.md §5.2), with the path each one requests: six
//! reads, loaded by the load generator, and two that write comments, loaded by the harness's
//! own client (`load::client`), which checks what no load generator can.

/// The post behind the detail routes: the newest one, with every escaped character in its
/// title and nine comments (one of them the `<script>` comment).
pub const DETAIL_SLUG: &str = "tom-jerry-s-c-notes-on-na-ve-caf-benchmarks-1000";

pub const ROUTES: [(&str, &str); 8] = [
    ("home", "/"),
    (
        "detail",
        "/posts/tom-jerry-s-c-notes-on-na-ve-caf-benchmarks-1000",
    ),
    ("tag", "/tags/rust"),
    ("cached-home", "/cached/"),
    (
        "cached-detail",
        "/cached/posts/tom-jerry-s-c-notes-on-na-ve-caf-benchmarks-1000",
    ),
    ("compute", "/compute"),
    ("write", "POST /posts/{slug}/comments"),
    (
        "mixed",
        "GET /cached/posts/{slug}, 1 in 10 POST /posts/{slug}/comments",
    ),
];

/// Whether `route` writes comments (and runs on the harness's own client, on a reset
/// database).
pub fn writes(route: &str) -> bool {
    matches!(route, "write" | "mixed")
}

pub fn names() -> Vec<&'static str> {
    ROUTES.iter().map(|(name, _)| *name).collect()
}

pub fn path(route: &str) -> Option<&'static str> {
    ROUTES
        .iter()
        .find(|(name, _)| *name == route)
        .map(|(_, path)| *path)
}

#[cfg(test)]
mod tests {
    #[test]
    fn detail_paths_use_the_detail_slug() {
        assert!(super::path("detail").unwrap().ends_with(super::DETAIL_SLUG));
        assert!(
            super::path("cached-detail")
                .unwrap()
                .ends_with(super::DETAIL_SLUG)
        );
        let reads = super::names().into_iter().filter(|r| !super::writes(r));
        assert!(reads.map(super::path).all(|p| p.unwrap().starts_with('/')));
    }
}
