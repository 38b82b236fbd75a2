//! Bad input and service outages, for every app, against the real services: a TCP relay
//! sits between the app and PostgreSQL or Redis, and cutting it drops every connection and
//! refuses new ones (what a restart or an outage looks like to the app); resuming it lets
//! the service back in. `make services` must have run.

use crate::common;
use bench::probe::relay::Relay;
use bench::stack::apps::{self, App};
use bench::stack::server::RunningApp;
use bench::stack::services::{database_url, host_port, redis_url, with_host_port};
use redis::Commands;
use std::time::{Duration, Instant};

const POST: &str = "/posts/tom-jerry-s-c-notes-on-na-ve-caf-benchmarks-1000";

struct Reply {
    status: u16,
    content_type: String,
    body: String,
}

fn get(app: &RunningApp, path: &str) -> Reply {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(20)))
        .build()
        .into();
    let mut response = agent.get(&app.url(path)).call().expect("HTTP request");
    Reply {
        status: response.status().as_u16(),
        content_type: response
            .headers()
            .get("content-type")
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap_or_default(),
        body: response.body_mut().read_to_string().unwrap(),
    }
}

fn redis() -> redis::Connection {
    let url = redis_url();
    redis::Client::open(url.as_str())
        .and_then(|c| c.get_connection())
        .unwrap_or_else(|e| panic!("redis at {url} ({e}): run `make services`"))
}

fn wait_for(what: &str, timeout: Duration, mut ok: impl FnMut() -> bool) {
    let started = Instant::now();
    while !ok() {
        assert!(
            started.elapsed() < timeout,
            "{what} did not happen within {timeout:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn for_each_app(mut test: impl FnMut(&App)) {
    for app in apps::all().unwrap() {
        test(&app);
    }
}

#[test]
fn bad_input_gets_400_or_404_never_500() {
    let _serial = common::serial();
    for_each_app(|app| {
        let running = RunningApp::start(app, &[]).unwrap();
        for n in ["abc", "1", "10000000", ""] {
            let reply = get(&running, &format!("/compute?n={n}"));
            assert_eq!(reply.status, 400, "{}: n={n:?}", app.name);
            assert_eq!(
                reply.content_type, "text/plain; charset=utf-8",
                "{}",
                app.name
            );
            assert_eq!(reply.body, workload::BAD_N_MESSAGE, "{}", app.name);
        }
        assert_eq!(get(&running, "/compute").body, "21171191\n", "{}", app.name);
        let mut paths: Vec<String> = [
            "/posts/no-such-slug",
            "/tags/no-such-tag",
            "/cached/posts/nope",
            "/no/such/path",
        ]
        .map(String::from)
        .to_vec();
        // Segments that are not slugs (docs/spec.md §3.1): NUL and invalid UTF-8 reached
        // PostgreSQL and came back as 503 before the rule.
        for segment in bench::parity::not_slugs() {
            for prefix in ["/posts/", "/tags/", "/cached/posts/"] {
                paths.push(format!("{prefix}{segment}"));
            }
        }
        for path in &paths {
            let reply = get(&running, path);
            assert_eq!(reply.status, 404, "{}: {path}", app.name);
            assert!(
                reply.body.contains("<h1>Not found</h1>"),
                "{}: {path}",
                app.name
            );
        }
        // Over-long segments and queries, header floods: any answer below 500 (or none),
        // and `/` served afterwards (docs/spec.md §7).
        let addr = format!("127.0.0.1:{}", running.port);
        for answer in bench::faults::bad_clients::bad_input(&addr) {
            assert!(answer.problem.is_none(), "{}: {answer:?}", app.name);
        }
    });
}

#[test]
fn postgres_restart_gives_503_then_recovers_without_restarting_the_app() {
    let _serial = common::serial();
    for_each_app(|app| {
        let mut relay = Relay::start(host_port(&database_url())).unwrap();
        let url = with_host_port(&database_url(), &relay.addr.to_string());
        let running = RunningApp::start(app, &[("DATABASE_URL", &url)]).unwrap();
        let home = get(&running, "/");
        assert_eq!(home.status, 200, "{}: {}", app.name, home.body);

        relay.cut();
        let down = get(&running, "/");
        assert_eq!(down.status, 503, "{}: {}", app.name, down.body);
        assert_eq!(down.body, workload::DB_UNAVAILABLE_MESSAGE, "{}", app.name);
        assert_eq!(get(&running, POST).status, 503, "{}", app.name);

        relay.resume().unwrap();
        // Every pooled connection open during the cut is dead and fails one request before
        // the pool drops it (in each pool shard, on actix): recovered = a run of 200s.
        wait_for(
            &format!("{} serving again", app.name),
            Duration::from_secs(30),
            || (0..8).all(|_| get(&running, "/").status == 200),
        );
        assert_eq!(get(&running, "/").body, home.body, "{}", app.name);
    });
}

/// The `page:*` keys holding the detail page: `page:{POST}` (docs/spec.md §3), or, for an app that
/// declares a "page cache key" deviation, whatever keys it stores that name the path.
fn stored_keys(direct: &mut redis::Connection, app: &App) -> Vec<String> {
    let keys: Vec<String> = direct.scan_match("page:*").unwrap().collect();
    let declared = app
        .manifest
        .deviations
        .iter()
        .any(|d| d.setting == "page cache key");
    keys.into_iter()
        .filter(|k| *k == format!("page:{POST}") || (declared && k.contains(POST)))
        .collect()
}

fn delete_stored(direct: &mut redis::Connection, app: &App) {
    let keys = stored_keys(direct, app);
    if !keys.is_empty() {
        direct.del::<_, ()>(keys).unwrap();
    }
}

#[test]
fn redis_outage_is_a_cache_miss_and_caching_resumes() {
    let _serial = common::serial();
    let mut direct = redis();
    for_each_app(|app| {
        let mut relay = Relay::start(host_port(&redis_url())).unwrap();
        let url = format!("redis://{}/0", relay.addr);
        let running = RunningApp::start(app, &[("REDIS_URL", &url)]).unwrap();
        let page = get(&running, POST);
        assert_eq!(page.status, 200, "{}", app.name);

        delete_stored(&mut direct, app);
        assert_eq!(
            get(&running, &format!("/cached{POST}")).body,
            page.body,
            "{}: miss",
            app.name
        );
        assert!(
            !stored_keys(&mut direct, app).is_empty(),
            "{}: page not stored",
            app.name
        );
        assert_eq!(
            get(&running, &format!("/cached{POST}")).body,
            page.body,
            "{}: hit",
            app.name
        );
        delete_stored(&mut direct, app);

        relay.cut();
        for _ in 0..3 {
            let reply = get(&running, &format!("/cached{POST}"));
            assert_eq!(
                (reply.status, &reply.body),
                (200, &page.body),
                "{}: Redis down",
                app.name
            );
        }
        let home = get(&running, "/cached/");
        assert_eq!(
            (home.status, home.body),
            (200, get(&running, "/").body),
            "{}",
            app.name
        );
        assert!(stored_keys(&mut direct, app).is_empty(), "{}", app.name);

        relay.resume().unwrap();
        wait_for(
            &format!("{} caching again", app.name),
            Duration::from_secs(30),
            || {
                get(&running, &format!("/cached{POST}")).body == page.body
                    && !stored_keys(&mut direct, app).is_empty()
            },
        );
        delete_stored(&mut direct, app);
    });
}
