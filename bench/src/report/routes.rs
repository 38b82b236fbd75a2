//! The routes as the report orders and groups them: docs/spec.md §5.2's eight, in four chart
//! groups whose numbers are comparable within a group and not across (a cached page is ten
//! times a database page, a comment waits for a commit).

use crate::results::{Batch, Ceiling};
use crate::routes::ROUTES;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// Every request queries PostgreSQL.
    Uncached,
    /// Served from the Redis page cache.
    Cached,
    Compute,
    /// Comments stored, alone or among cached reads.
    Comments,
    /// A route this report does not know; shown, never dropped.
    Other,
}

impl Group {
    pub const ALL: [Group; 5] = [
        Group::Uncached,
        Group::Cached,
        Group::Compute,
        Group::Comments,
        Group::Other,
    ];

    /// The part of a chart's file name: `requests-per-sec-<slug>.svg`.
    pub fn slug(self) -> &'static str {
        match self {
            Group::Uncached => "uncached",
            Group::Cached => "cached",
            Group::Compute => "compute",
            Group::Comments => "comments",
            Group::Other => "other",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Group::Uncached => "Uncached pages",
            Group::Cached => "Cached pages",
            Group::Compute => "Compute",
            Group::Comments => "Comments",
            Group::Other => "Other routes",
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            Group::Uncached => "The same HTML in every app; every request queries PostgreSQL",
            Group::Cached => "Served from the Redis page cache, no SQL",
            Group::Compute => "The sum of the primes below 20 000, no database",
            Group::Comments => {
                "Comments stored in a transaction, alone or among cached reads that must show them (the harness's own client)"
            }
            Group::Other => "Routes outside docs/spec.md §3",
        }
    }
}

/// The chart group of a route; the names and their order are `crate::routes::ROUTES`.
pub fn group(route: &str) -> Group {
    match route {
        _ if position(route).is_none() => Group::Other,
        "compute" => Group::Compute,
        _ if crate::routes::writes(route) => Group::Comments,
        _ if route.starts_with("cached-") => Group::Cached,
        _ => Group::Uncached,
    }
}

/// Where `route` stands in the order of docs/spec.md §3, if the benchmark knows it.
fn position(route: &str) -> Option<usize> {
    ROUTES.iter().position(|(name, _)| *name == route)
}

/// Every route of the batch (selected, or measured by any app) in report order.
pub fn columns(batch: &Batch) -> Vec<String> {
    let measured = batch
        .apps
        .iter()
        .flat_map(|a| a.routes.iter().map(|r| &r.route));
    in_order(batch.settings.routes.iter().chain(measured))
}

/// `routes` without repeats, the order of docs/spec.md §3 first, then the others as first seen.
pub fn in_order<'a>(routes: impl IntoIterator<Item = &'a String>) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for route in routes {
        if !seen.contains(route) {
            seen.push(route.clone());
        }
    }
    // A stable sort keeps unknown routes (sorted last) in first-seen order.
    seen.sort_by_key(|route| position(route).unwrap_or(ROUTES.len()));
    seen
}

/// The routes of `columns` in `group`.
pub fn in_group(columns: &[String], group: Group) -> Vec<String> {
    columns
        .iter()
        .filter(|r| self::group(r) == group)
        .cloned()
        .collect()
}

/// What limits a route before the app does: the database ceiling of that page for the
/// uncached pages when the batch measured one, else the HTTP client ceiling. The name says
/// which. The comment routes have none: the ceilings are measured with the load generator,
/// not the client that loads them.
pub fn ceiling<'a>(batch: &'a Batch, route: &str) -> Option<(&'static str, &'a Ceiling)> {
    let database = match group(route) {
        Group::Uncached => batch.ceilings.database.get(route),
        Group::Comments => return None,
        _ => None,
    };
    match database {
        Some(ceiling) => Some(("database ceiling", ceiling)),
        None => batch
            .ceilings
            .http
            .as_ref()
            .map(|c| ("HTTP client ceiling", c)),
    }
}

/// Every ceiling of the batch under the name of what it measures (docs/spec.md §5.8).
pub fn named_ceilings(batch: &Batch) -> Vec<(String, &Ceiling)> {
    let http = batch.ceilings.http.iter().map(|ceiling| {
        let name = format!(
            "HTTP client ceiling: {} against a static page the size of the home page",
            batch.settings.loadgen
        );
        (name, ceiling)
    });
    let database = batch.ceilings.database.iter().map(|(page, ceiling)| {
        let name = format!("database ceiling: pgbench running the {page} page's statements");
        (name, ceiling)
    });
    http.chain(database).collect()
}
