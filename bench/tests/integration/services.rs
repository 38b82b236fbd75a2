//! `scripts/services.sh` refuses what it must not do, with a message that names the service
//! and the fix, and changes nothing. Runs the real script against the real services.

use crate::common;
use std::io::Write;
use std::net::TcpListener;
use std::process::Command;

fn services_up(env: &[(&str, &str)]) -> (bool, String) {
    let script = bench::stack::apps::workspace_dir().join("scripts/services.sh");
    let output = Command::new(script)
        .arg("up")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

#[test]
fn a_port_held_by_another_program_is_named_with_the_fix() {
    let _serial = common::serial();
    // Something that is not Redis: it answers every connection with an HTTP error.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut stream = stream;
            let _ = stream.write_all(b"HTTP/1.0 400 Bad Request\r\n\r\n");
        }
    });
    let (ok, out) = services_up(&[("REDIS_URL", &format!("redis://127.0.0.1:{port}/0"))]);
    assert!(
        !ok,
        "services.sh accepted a port held by a non-Redis program:\n{out}"
    );
    assert!(out.contains(&format!("redis: port {port}")), "{out}");
    assert!(out.contains("not Redis"), "{out}");
    assert!(out.contains("fix"), "{out}");
}

#[test]
fn another_database_is_refused() {
    let _serial = common::serial();
    let (ok, out) = services_up(&[(
        "DATABASE_URL",
        "postgres://blogbench:blogbench@127.0.0.1:5432/postgres",
    )]);
    assert!(!ok, "{out}");
    assert!(
        out.contains("postgres: refusing DATABASE_URL with database 'postgres'"),
        "{out}"
    );
}

/// The blocks PostgreSQL touches to count the comments of the home page's posts, as the home
/// page does (shared-sql's `COMMENT_COUNTS`): the plan's top node's `Buffers: shared hit=…
/// read=…`.
async fn home_comment_count_blocks(conn: &mut sqlx::PgConnection, posts: &[i32]) -> u64 {
    let plan: Vec<String> = sqlx::query_scalar(&format!(
        "EXPLAIN (ANALYZE, BUFFERS) {}",
        shared_sql::COMMENT_COUNTS
    ))
    .bind(posts)
    .fetch_all(&mut *conn)
    .await
    .unwrap();
    let buffers = plan
        .iter()
        .find_map(|line| line.trim().strip_prefix("Buffers: shared "))
        .unwrap_or_else(|| panic!("no buffers in {plan:#?}"));
    buffers
        .split_whitespace()
        .filter_map(|count| {
            let (kind, blocks) = count.split_once('=')?;
            ["hit", "read"]
                .contains(&kind)
                .then(|| blocks.parse::<u64>().unwrap())
        })
        .sum()
}

/// A write run adds tens of thousands of comments to the newest posts, which the home page
/// counts the comments of; the reset after it must leave the table as loaded, not full of
/// dead rows that the next home page pays for (as it did before the reset vacuumed).
#[test]
fn the_comment_reset_leaves_no_dead_rows_for_the_home_page() {
    let _serial = common::serial();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let url = bench::stack::services::database_url();
        let mut conn = seed::db::connect(&url).await.unwrap();
        let posts: Vec<i32> =
            sqlx::query_scalar(&format!("SELECT id FROM ({}) home", shared_sql::HOME_POSTS))
                .fetch_all(&mut conn)
                .await
                .unwrap();
        assert_eq!(posts.len(), 20);
        sqlx::query(
            "INSERT INTO comments (post_id, author_name, body, created_at) \
             SELECT ($1::int4[])[1 + i % 20], 'load', 'a comment of a write run', now() \
             FROM generate_series(1, 30000) i",
        )
        .bind(&posts)
        .execute(&mut conn)
        .await
        .unwrap();
        assert!(seed::db::reset(&mut conn).await.unwrap());
        let after_reset = home_comment_count_blocks(&mut conn, &posts).await;
        sqlx::raw_sql("VACUUM (ANALYZE) comments")
            .execute(&mut conn)
            .await
            .unwrap();
        let as_loaded = home_comment_count_blocks(&mut conn, &posts).await;
        assert!(
            after_reset <= 2 * as_loaded,
            "after the reset the home page's comment counts touched {after_reset} blocks, \
             {as_loaded} once the table was vacuumed"
        );
    });
}

/// Undoes a change to the database when the test ends, passed or not.
struct Restore<F: Fn()>(F);

impl<F: Fn()> Drop for Restore<F> {
    fn drop(&mut self) {
        (self.0)()
    }
}

/// A database whose data is not the seeded data stops every command that measures, before
/// it creates a run folder, with the fix; the data is restored after.
#[test]
fn every_measuring_command_refuses_data_that_is_not_the_seeded_data() {
    let _serial = common::serial();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let url = bench::stack::services::database_url();
    let execute = |sql: &'static str| {
        runtime.block_on(async {
            let mut conn = seed::db::connect(&url).await.unwrap();
            sqlx::query(sql).execute(&mut conn).await.unwrap();
        })
    };
    execute("UPDATE posts SET title = title || '~' WHERE id = 1");
    let _restore = Restore(|| {
        execute("UPDATE posts SET title = left(title, -1) WHERE id = 1 AND right(title, 1) = '~'")
    });
    let results = tempfile::tempdir().unwrap();
    let folder = results.path().to_str().unwrap();
    for command in [
        &["bench", "--quick", "--apps", "go", "--routes", "home"][..],
        &["sweep", "--quick", "--apps", "go", "--routes", "detail"],
        &["faults", "--quick", "--apps", "go"],
        &["scoreboard", "--quick", "--apps", "go"],
    ] {
        let mut args = command.to_vec();
        args.extend(["--results", folder]);
        let output = common::blogbench(&args, &[]);
        let text = common::text(&output);
        assert!(!output.status.success(), "{command:?} ran:\n{text}");
        assert!(
            text.contains("does not hold the expected data") && text.contains("make services"),
            "{command:?}:\n{text}"
        );
    }
    let created: Vec<_> = std::fs::read_dir(results.path()).unwrap().collect();
    assert!(created.is_empty(), "run folders were created: {created:?}");
}
