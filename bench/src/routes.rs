//! The six routes the benchmark loads, with the path each one requests.

/// The post behind the detail routes: the newest one, with every escaped character in its
/// title and nine comments (one of them the `<script>` comment).
pub const DETAIL_SLUG: &str = "tom-jerry-s-c-notes-on-na-ve-caf-benchmarks-1000";

pub const ROUTES: [(&str, &str); 6] = [
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
];

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
    }
}
