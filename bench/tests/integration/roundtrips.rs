//! Round trips per page, counted at the protocol level through the counting relay: Go's pgx
//! needs one per statement; a pooled sqlx app one more (the ping when the connection goes
//! back to the pool), and one more again when the acquire ping is on; tokio-postgres, sending
//! a page's independent statements together, fewer than its statements.

use crate::common;
use bench::probe::roundtrips::{PageCount, measure};
use bench::stack::apps;

fn counts(app: &str, env: &[(&str, &str)]) -> Vec<PageCount> {
    measure(&apps::find(app).unwrap(), env, 20).unwrap()
}

/// Statements, round trips and pings per request on `page`.
fn assert_page(counts: &[PageCount], page: &str, expected: (f64, f64, f64)) {
    let count = counts.iter().find(|c| c.page == page).unwrap();
    assert_eq!(
        (count.statements, count.round_trips, count.pings),
        expected,
        "{page}: {counts:?}"
    );
}

#[test]
fn go_needs_one_round_trip_per_statement() {
    let _serial = common::serial();
    let go = counts("go", &[]);
    assert_page(&go, "home", (3.0, 3.0, 0.0));
    assert_page(&go, "detail", (3.0, 3.0, 0.0));
    assert_page(&go, "tag", (4.0, 4.0, 0.0));
    assert_page(&go, "cached home (hit)", (0.0, 0.0, 0.0));
    assert_page(&go, "comment", (4.0, 4.0, 0.0));
}

#[test]
fn sqlx_adds_the_release_ping_and_the_acquire_ping_when_on() {
    let _serial = common::serial();
    let axum = counts("axum-sqlx", &[]);
    assert_page(&axum, "home", (3.0, 4.0, 1.0));
    assert_page(&axum, "detail", (3.0, 4.0, 1.0));
    assert_page(&axum, "tag", (4.0, 5.0, 1.0));
    assert_page(&axum, "cached home (hit)", (0.0, 0.0, 0.0));
    assert_page(&axum, "comment", (4.0, 5.0, 1.0));
    let pinging = counts("axum-sqlx", &[("PING_ON_ACQUIRE", "always")]);
    assert_page(&pinging, "detail", (3.0, 5.0, 2.0));
}

#[test]
fn tokio_postgres_sends_independent_statements_in_one_round_trip() {
    let _serial = common::serial();
    let axum = counts("axum-postgres", &[]);
    assert_page(&axum, "home", (3.0, 2.0, 0.0));
    assert_page(&axum, "detail", (3.0, 2.0, 0.0));
    assert_page(&axum, "tag", (4.0, 3.0, 0.0));
    assert_page(&axum, "cached home (hit)", (0.0, 0.0, 0.0));
    assert_page(&axum, "comment", (4.0, 4.0, 0.0));
    let pinging = counts("axum-postgres", &[("PING_ON_ACQUIRE", "always")]);
    assert_page(&pinging, "detail", (3.0, 3.0, 1.0));
}
