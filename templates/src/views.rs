//! The data each page template renders, built from the rows of `shared-sql`. Dates are
//! formatted here (docs/spec.md §2: `YYYY-MM-DD`, comment times `YYYY-MM-DD HH:MM`, UTC) so every
//! engine prints the same text.

use chrono::{DateTime, Utc};
use serde::Serialize;
use shared_sql::pages::{HomeRows, PostRows, TagRows};
use shared_sql::{Comment, CommentCount, Post, PostSummary, PostTag, Tag, TagName};
use std::collections::HashMap;

#[derive(Debug, Serialize)]
pub struct TagLink {
    pub name: String,
    pub slug: String,
}

/// A post in a list. `comment_count` is shown on the home page only.
#[derive(Debug, Serialize)]
pub struct PostCard {
    pub title: String,
    pub slug: String,
    pub author: String,
    pub date: String,
    pub excerpt: String,
    pub tags: Vec<TagLink>,
    pub comment_count: Option<i64>,
}

#[derive(Debug, Serialize)]
pub struct HomePage {
    pub posts: Vec<PostCard>,
}

#[derive(Debug, Serialize)]
pub struct CommentView {
    pub author: String,
    pub time: String,
    pub body: String,
}

#[derive(Debug, Serialize)]
pub struct PostPage {
    pub title: String,
    pub author: String,
    pub date: String,
    pub tags: Vec<TagLink>,
    /// The body split on blank lines, one `<p>` each.
    pub paragraphs: Vec<String>,
    pub comments: Vec<CommentView>,
}

#[derive(Debug, Serialize)]
pub struct TagPage {
    pub name: String,
    pub slug: String,
    pub post_count: i64,
    pub posts: Vec<PostCard>,
}

pub fn date(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%d").to_string()
}

pub fn minute(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%d %H:%M").to_string()
}

/// The list entries for `posts`, with their tags and (when given) comment counts.
fn cards(
    posts: Vec<PostSummary>,
    tags: Vec<PostTag>,
    counts: Option<Vec<CommentCount>>,
) -> Vec<PostCard> {
    let mut tags_by_post: HashMap<i32, Vec<TagLink>> = HashMap::new();
    for tag in tags {
        tags_by_post.entry(tag.post_id).or_default().push(TagLink {
            name: tag.name,
            slug: tag.slug,
        });
    }
    let counts: Option<HashMap<i32, i64>> = counts.map(|c| {
        c.into_iter()
            .map(|c| (c.post_id, c.comment_count))
            .collect()
    });
    posts
        .into_iter()
        .map(|post| PostCard {
            tags: tags_by_post.remove(&post.id).unwrap_or_default(),
            comment_count: counts
                .as_ref()
                .map(|c| c.get(&post.id).copied().unwrap_or(0)),
            date: date(post.published_at),
            title: post.title,
            slug: post.slug,
            author: post.author_name,
            excerpt: post.excerpt,
        })
        .collect()
}

pub fn home(posts: Vec<PostSummary>, tags: Vec<PostTag>, counts: Vec<CommentCount>) -> HomePage {
    HomePage {
        posts: cards(posts, tags, Some(counts)),
    }
}

pub fn post(post: Post, tags: Vec<TagName>, comments: Vec<Comment>) -> PostPage {
    PostPage {
        date: date(post.published_at),
        paragraphs: post.body.split("\n\n").map(str::to_owned).collect(),
        title: post.title,
        author: post.author_name,
        tags: tags
            .into_iter()
            .map(|t| TagLink {
                name: t.name,
                slug: t.slug,
            })
            .collect(),
        comments: comments
            .into_iter()
            .map(|c| CommentView {
                time: minute(c.created_at),
                author: c.author_name,
                body: c.body,
            })
            .collect(),
    }
}

pub fn tag(tag: Tag, post_count: i64, posts: Vec<PostSummary>, tags: Vec<PostTag>) -> TagPage {
    TagPage {
        name: tag.name,
        slug: tag.slug,
        post_count,
        posts: cards(posts, tags, None),
    }
}

impl From<HomeRows> for HomePage {
    fn from(rows: HomeRows) -> Self {
        home(rows.posts, rows.tags, rows.counts)
    }
}

impl From<PostRows> for PostPage {
    fn from(rows: PostRows) -> Self {
        post(rows.post, rows.tags, rows.comments)
    }
}

impl From<TagRows> for TagPage {
    fn from(rows: TagRows) -> Self {
        tag(rows.tag, rows.post_count, rows.posts, rows.tags)
    }
}
