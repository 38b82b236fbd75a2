//! Template render time per page on the pages' real view data, loaded once from the
//! database (`make services` first): Tera as every Tera app renders it, context building
//! included. `go-reference/render_test.go` times html/template on the same pages;
//! `blogbench profile --templates` runs both.

use criterion::{Criterion, criterion_group, criterion_main};
use serde::Serialize;
use shared_sql::pages;
use sqlx::{Connection, PgConnection};
use templates::views::{HomePage, PostPage, TagPage};
use tera::{Context, Tera};

struct Views {
    home: HomePage,
    post: PostPage,
    tag: TagPage,
}

fn load() -> Views {
    let url =
        std::env::var("DATABASE_URL").unwrap_or_else(|_| workload::DEFAULT_DATABASE_URL.to_owned());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut conn = PgConnection::connect(&url)
            .await
            .unwrap_or_else(|e| panic!("postgres at {url}: {e}; run `make services` first"));
        let home = pages::home(&mut conn).await.unwrap();
        // The detail route's post: the newest.
        let newest = home.posts[0].slug.clone();
        let post = pages::post(&mut conn, &newest).await.unwrap().unwrap();
        let tag = pages::tag(&mut conn, "rust").await.unwrap().unwrap();
        Views {
            home: home.into(),
            post: post.into(),
            tag: tag.into(),
        }
    })
}

fn tera(c: &mut Criterion) {
    let views = load();
    let tera = templates::tera().unwrap();
    let mut group = c.benchmark_group("tera");
    group.bench_function("home", |b| {
        b.iter(|| render(&tera, templates::HOME, &views.home))
    });
    group.bench_function("post", |b| {
        b.iter(|| render(&tera, templates::POST, &views.post))
    });
    group.bench_function("tag", |b| {
        b.iter(|| render(&tera, templates::TAG, &views.tag))
    });
    group.finish();
}

/// As the Tera apps render: the context is built from the view on every request.
fn render(tera: &Tera, template: &str, view: &impl Serialize) -> String {
    tera.render(template, &Context::from_serialize(view).unwrap())
        .unwrap()
}

criterion_group!(benches, tera);
criterion_main!(benches);
