//! The models (Cot's ORM over the tables of docs/spec.md §2), the lazily opened database, the
//! queries of each page and the comment write.
//!
//! Cot's query API has `filter`, `limit`, `offset` and `count`, and nothing else: no ORDER BY,
//! no JOIN, no IN, no GROUP BY. So each page is built the way a Cot user builds it: one query
//! per table, `IN` spelled as `id = $1 OR id = $2 …` ([`any_of`]), and the ordering, joining and
//! counting done in Rust. The home page has to load every post to find the latest 20.
//! Statements per page: home 5, post 5, tag 6 (Go: 3/3/4); per comment 2 (Go: 4), since Cot
//! 0.7 has no transactions.

use crate::error::AppError;
use chrono::{DateTime, Utc};
use cot::db::query::Expr;
use cot::db::{Auto, Database, ForeignKey, Model, model};
use cot::request::RequestHead;
use cot::request::extractors::FromRequestHead;
use shared_sql as rows;
use std::cmp::Reverse;
use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;
use std::time::Duration;
use templates::views::{self, HomePage, PostPage, TagPage};
use tokio::sync::OnceCell;
use workload::comment::NewComment;

// The tables of docs/spec.md §2. An application model's table is `<crate>__<name>`
// (`cot_blog__posts`); only `model_type = "internal"` (documented as "used internally by Cot …
// should never be used outside Cot code") takes `table_name` as it is. Internal models also
// stay out of the migration generator, which suits tables the seed owns.

#[model(model_type = "internal", table_name = "authors")]
pub struct Author {
    #[model(primary_key)]
    pub id: i32,
    pub name: String,
    pub bio: String,
}

#[model(model_type = "internal", table_name = "tags")]
pub struct Tag {
    #[model(primary_key)]
    pub id: i32,
    pub name: String,
    pub slug: String,
}

#[model(model_type = "internal", table_name = "posts")]
pub struct Post {
    #[model(primary_key)]
    pub id: i32,
    pub author_id: ForeignKey<Author>,
    pub title: String,
    pub slug: String,
    pub excerpt: String,
    pub body: String,
    pub published_at: DateTime<Utc>,
}

/// The link table. Its primary key is `(post_id, tag_id)`, but a Cot model has exactly one
/// primary-key field; the app only reads it, so `post_id` stands in.
#[model(model_type = "internal", table_name = "post_tags")]
pub struct PostTag {
    #[model(primary_key)]
    pub post_id: i32,
    pub tag_id: ForeignKey<Tag>,
}

/// `id` is an identity column: `Auto` leaves it to PostgreSQL on insert.
#[model(model_type = "internal", table_name = "comments")]
pub struct Comment {
    #[model(primary_key)]
    pub id: Auto<i32>,
    pub post_id: ForeignKey<Post>,
    pub author_name: String,
    pub body: String,
    pub created_at: DateTime<Utc>,
}

// region: pool
/// How long a page may spend on the database (opening it included) before it is a 503.
/// Cot's pool waits up to sqlx's default 30 s for a connection, with no setting.
const DEADLINE: Duration = Duration::from_secs(5);

static DATABASE_URL: OnceLock<String> = OnceLock::new();
static DATABASE: OnceCell<Database> = OnceCell::const_new();

/// Sets the URL [`Db`] opens. Cot accepts only the `postgresql:` scheme for PostgreSQL.
pub fn configure(database_url: &str) {
    let url = match database_url.strip_prefix("postgres:") {
        Some(rest) => format!("postgresql:{rest}"),
        None => database_url.to_owned(),
    };
    DATABASE_URL.set(url).expect("configure the database once");
}

/// The database, opened on first use. Cot opens `database.url` while booting (and creates
/// its `cot__migrations` table), so a configured URL would stop the app from starting while
/// PostgreSQL is down; the app leaves it unset and opens the same `cot::db::Database`
/// (sqlx's default pool) here instead, retrying on each request until it succeeds.
#[derive(Debug, Clone, Copy)]
pub struct Db;

impl FromRequestHead for Db {
    async fn from_request_head(_head: &RequestHead) -> cot::Result<Self> {
        Ok(Db)
    }
}

impl Db {
    /// Runs `work` on the database. Any failure, or no answer within [`DEADLINE`], is a
    /// 503 ([`AppError::Database`], [`AppError::DatabaseTimeout`]).
    pub async fn run<T>(
        self,
        work: impl AsyncFnOnce(&Database) -> cot::db::Result<T>,
    ) -> Result<T, AppError> {
        tokio::time::timeout(DEADLINE, self.run_to_end(work)).await?
    }

    /// Runs `work` on the database however long PostgreSQL takes, as Go does: for a write,
    /// which a deadline must not abandon once sent, since it could still commit after the
    /// 503 and leave its pages cached. A failure is a 503.
    pub async fn run_to_end<T>(
        self,
        work: impl AsyncFnOnce(&Database) -> cot::db::Result<T>,
    ) -> Result<T, AppError> {
        let url = DATABASE_URL.get().expect("db::configure ran");
        let database = DATABASE.get_or_try_init(|| Database::new(url)).await?;
        Ok(work(database).await?)
    }
}
// endregion

/// `field = ids[0] OR field = ids[1] …`: the ORM has no `IN`.
fn any_of(field: &'static str, ids: impl IntoIterator<Item = i32>) -> Option<Expr> {
    ids.into_iter()
        .map(|id| Expr::eq(Expr::field(field), Expr::value(id)))
        .reduce(Expr::or)
}

/// The rows of `M` whose `field` is one of `ids` (none for no ids, without a query).
async fn where_any<M: Model>(
    database: &Database,
    field: &'static str,
    ids: impl IntoIterator<Item = i32>,
) -> cot::db::Result<Vec<M>> {
    match any_of(field, ids) {
        Some(filter) => M::objects().filter(filter).all(database).await,
        None => Ok(Vec::new()),
    }
}

/// Newest first, as Go's `ORDER BY published_at DESC, id DESC`.
fn latest_20(mut posts: Vec<Post>) -> Vec<Post> {
    posts.sort_unstable_by_key(|p| Reverse((p.published_at, p.id)));
    posts.truncate(20);
    posts
}

/// Authors by id for `posts` (one query).
async fn authors_of(database: &Database, posts: &[Post]) -> cot::db::Result<HashMap<i32, String>> {
    let ids: HashSet<i32> = posts.iter().map(|p| *p.author_id.primary_key()).collect();
    let authors: Vec<Author> = where_any(database, "id", ids).await?;
    Ok(authors.into_iter().map(|a| (a.id, a.name)).collect())
}

/// The tags of `post_ids`, sorted by post then slug (two queries: links, then tags).
async fn tags_of(database: &Database, post_ids: &[i32]) -> cot::db::Result<Vec<rows::PostTag>> {
    let links: Vec<PostTag> = where_any(database, "post_id", post_ids.iter().copied()).await?;
    let tag_ids: HashSet<i32> = links.iter().map(|l| *l.tag_id.primary_key()).collect();
    let tags: HashMap<i32, Tag> = where_any::<Tag>(database, "id", tag_ids)
        .await?
        .into_iter()
        .map(|t| (t.id, t))
        .collect();
    let mut post_tags: Vec<rows::PostTag> = links
        .iter()
        .filter_map(|link| {
            let tag = tags.get(link.tag_id.primary_key())?;
            Some(rows::PostTag {
                post_id: link.post_id,
                name: tag.name.clone(),
                slug: tag.slug.clone(),
            })
        })
        .collect();
    post_tags.sort_unstable_by(|a, b| (a.post_id, &a.slug).cmp(&(b.post_id, &b.slug)));
    Ok(post_tags)
}

fn summaries(posts: Vec<Post>, authors: &HashMap<i32, String>) -> Vec<rows::PostSummary> {
    posts
        .into_iter()
        .map(|p| rows::PostSummary {
            author_name: authors
                .get(p.author_id.primary_key())
                .cloned()
                .unwrap_or_default(),
            id: p.id,
            title: p.title,
            slug: p.slug,
            excerpt: p.excerpt,
            published_at: p.published_at,
        })
        .collect()
}

/// Home: every post (no ORDER BY/LIMIT by column), their authors, links, tags, comments.
pub async fn home_page(database: &Database) -> cot::db::Result<HomePage> {
    let posts = latest_20(Post::objects().all(database).await?);
    let ids: Vec<i32> = posts.iter().map(|p| p.id).collect();
    let authors = authors_of(database, &posts).await?;
    let tags = tags_of(database, &ids).await?;
    // No COUNT … GROUP BY: the comments of the 20 posts, counted here.
    let comments: Vec<Comment> = where_any(database, "post_id", ids.iter().copied()).await?;
    let mut counts: HashMap<i32, i64> = HashMap::new();
    for comment in &comments {
        *counts.entry(*comment.post_id.primary_key()).or_default() += 1;
    }
    let counts = counts
        .into_iter()
        .map(|(post_id, comment_count)| rows::CommentCount {
            post_id,
            comment_count,
        })
        .collect();
    Ok(views::home(summaries(posts, &authors), tags, counts))
}

// region: detail-page
/// The post whose slug is `slug`.
async fn post_by_slug(database: &Database, slug: &str) -> cot::db::Result<Option<Post>> {
    let filter = Expr::eq(Expr::field("slug"), Expr::value(slug.to_owned()));
    Post::objects().filter(filter).get(database).await
}

/// Post: the post by slug, its author, links, tags, comments (oldest first).
pub async fn post_page(database: &Database, slug: &str) -> cot::db::Result<Option<PostPage>> {
    let Some(mut post) = post_by_slug(database, slug).await? else {
        return Ok(None);
    };
    let author = post.author_id.get(database).await?.name.clone();
    let tags = tags_of(database, &[post.id])
        .await?
        .into_iter()
        .map(|t| rows::TagName {
            name: t.name,
            slug: t.slug,
        })
        .collect();
    let mut comments: Vec<Comment> = where_any(database, "post_id", [post.id]).await?;
    comments.sort_unstable_by_key(|c| (c.created_at, c.id));
    let comments = comments
        .into_iter()
        .map(|c| rows::Comment {
            author_name: c.author_name,
            body: c.body,
            created_at: c.created_at,
        })
        .collect();
    let post = rows::Post {
        id: post.id,
        title: post.title,
        slug: post.slug,
        body: post.body,
        published_at: post.published_at,
        author_name: author,
    };
    Ok(Some(views::post(post, tags, comments)))
}
// endregion

/// Tag: the tag by slug, its links (their number is the post count), those posts (the
/// latest 20 kept), their authors, links and tags.
pub async fn tag_page(database: &Database, slug: &str) -> cot::db::Result<Option<TagPage>> {
    let filter = Expr::eq(Expr::field("slug"), Expr::value(slug.to_owned()));
    let Some(tag) = Tag::objects().filter(filter).get(database).await? else {
        return Ok(None);
    };
    let links: Vec<PostTag> = where_any(database, "tag_id", [tag.id]).await?;
    let post_count = links.len() as i64;
    let posts = latest_20(where_any(database, "id", links.iter().map(|l| l.post_id)).await?);
    let ids: Vec<i32> = posts.iter().map(|p| p.id).collect();
    let authors = authors_of(database, &posts).await?;
    let tags = tags_of(database, &ids).await?;
    let tag = rows::Tag {
        id: tag.id,
        name: tag.name,
        slug: tag.slug,
    };
    Ok(Some(views::tag(
        tag,
        post_count,
        summaries(posts, &authors),
        tags,
    )))
}

// region: comment
/// Comment: the post by slug, then the comment, inserted with its id left to PostgreSQL
/// (`INSERT … RETURNING "id"`) and stamped with the app's clock; `false` when no post has
/// `slug`. Cot 0.7 has no transactions (cot-0.7.0 src/db.rs: "TODO: add transactions when
/// implemented"; each statement runs on the pool, src/db/sea_query_db.rs), so these are two
/// autocommitted statements; the insert is the only write, so nothing is left half done.
/// The lookup is bounded by [`DEADLINE`] like a page, the insert is not ([`Db::run_to_end`]).
pub async fn add_comment(db: Db, slug: &str, comment: NewComment) -> Result<bool, AppError> {
    let Some(post) = db.run(async |d| post_by_slug(d, slug).await).await? else {
        return Ok(false);
    };
    let mut comment = Comment {
        id: Auto::auto(),
        post_id: ForeignKey::from(&post),
        author_name: comment.author_name,
        body: comment.body,
        created_at: Utc::now(),
    };
    db.run_to_end(async |d| comment.insert(d).await).await?;
    Ok(true)
}
// endregion
