//! The blog's tables as Rustango models (docs/spec.md §2), read by both Rustango apps, and what
//! turns their rows into the shared view rows (`shared-sql`) the templates render.
//!
//! The seed creates and fills the tables, so nothing here migrates; the one write is a new
//! [`Comment`] (`pages::add_comment`). Columns keep the seed's types (`integer` keys → `i32`).
//! `post_tags` has no single-column key, so [`PostTag`] has no primary key: Rustango reads
//! such a table, it cannot save it.

mod cache;
pub mod pages;

pub use cache::LazyRedisCache;

use chrono::{DateTime, Utc};
use rustango::Model;
use rustango::sql::{Auto, ForeignKey};

#[derive(Model, Debug, Clone)]
#[rustango(table = "authors")]
pub struct Author {
    #[rustango(primary_key)]
    pub id: i32,
    pub name: String,
    pub bio: String,
}

#[derive(Model, Debug, Clone)]
#[rustango(table = "tags")]
pub struct Tag {
    #[rustango(primary_key)]
    pub id: i32,
    pub name: String,
    pub slug: String,
}

#[derive(Model, Debug, Clone)]
#[rustango(table = "posts")]
pub struct Post {
    #[rustango(primary_key)]
    pub id: i32,
    #[rustango(column = "author_id")]
    pub author: ForeignKey<Author, i32>,
    pub title: String,
    pub slug: String,
    pub excerpt: String,
    pub body: String,
    pub published_at: DateTime<Utc>,
}

/// A post–tag link (`post_tags`).
#[derive(Model, Debug, Clone)]
#[rustango(table = "post_tags")]
pub struct PostTag {
    #[rustango(column = "post_id")]
    pub post: ForeignKey<Post, i32>,
    #[rustango(column = "tag_id")]
    pub tag: ForeignKey<Tag, i32>,
}

/// A comment. Its `id` is an identity column and `created_at` is stamped by Rustango on insert
/// (`auto_now_add`, the app's clock), so a new comment leaves both `Auto::Unset`; a row read
/// back has both set.
#[derive(Model, Debug, Clone)]
#[rustango(table = "comments")]
pub struct Comment {
    #[rustango(primary_key)]
    pub id: Auto<i32>,
    pub post_id: i32,
    pub author_name: String,
    pub body: String,
    #[rustango(auto_now_add)]
    pub created_at: Auto<DateTime<Utc>>,
}

/// The parent a `select_related` query loaded into `fk`.
fn loaded<T, K>(fk: ForeignKey<T, K>, what: &str) -> T {
    fk.into_value()
        .unwrap_or_else(|| panic!("the query must select_related({what:?})"))
}

impl Post {
    /// The list entry of a post fetched with `select_related("author")`.
    pub fn into_summary(self) -> shared_sql::PostSummary {
        shared_sql::PostSummary {
            id: self.id,
            author_name: loaded(self.author, "author").name,
            title: self.title,
            slug: self.slug,
            excerpt: self.excerpt,
            published_at: self.published_at,
        }
    }

    /// The whole post, fetched with `select_related("author")`.
    pub fn into_page_row(self) -> shared_sql::Post {
        shared_sql::Post {
            id: self.id,
            author_name: loaded(self.author, "author").name,
            title: self.title,
            slug: self.slug,
            body: self.body,
            published_at: self.published_at,
        }
    }
}

impl PostTag {
    /// The tag of a link fetched with `select_related("tag")`, with its post's id.
    pub fn into_post_tag(self) -> shared_sql::PostTag {
        let tag = loaded(self.tag, "tag");
        shared_sql::PostTag {
            post_id: *self.post.pk_ref(),
            name: tag.name,
            slug: tag.slug,
        }
    }

    /// The tag's name and slug, fetched with `select_related("tag")`.
    pub fn into_tag_name(self) -> shared_sql::TagName {
        let tag = loaded(self.tag, "tag");
        shared_sql::TagName {
            name: tag.name,
            slug: tag.slug,
        }
    }

    /// The post of a link fetched with `select_related("post__author")`.
    pub fn into_post_summary(self) -> shared_sql::PostSummary {
        loaded(self.post, "post__author").into_summary()
    }
}

impl Tag {
    pub fn into_row(self) -> shared_sql::Tag {
        shared_sql::Tag {
            id: self.id,
            name: self.name,
            slug: self.slug,
        }
    }
}

impl Comment {
    /// A new comment on post `post_id`, to insert.
    pub fn new(post_id: i32, author_name: String, body: String) -> Self {
        Comment {
            id: Auto::Unset,
            post_id,
            author_name,
            body,
            created_at: Auto::Unset,
        }
    }

    /// The comment of a row read from the database.
    pub fn into_row(self) -> shared_sql::Comment {
        shared_sql::Comment {
            author_name: self.author_name,
            body: self.body,
            created_at: self
                .created_at
                .into_inner()
                .expect("a comment read from the database has its created_at"),
        }
    }
}
