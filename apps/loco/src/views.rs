//! The views: each page's data, built from the models into the shared view structs
//! (`templates::views`: dates formatted, tags grouped), which the Tera templates render.

use crate::models::_entities::{authors, comments, post_tags, posts, tags};
use crate::models::posts::Listed;
use shared_sql as rows;
use templates::views::{self, HomePage, PostPage, TagPage};

fn summaries(posts: Vec<Listed>) -> Vec<rows::PostSummary> {
    posts
        .into_iter()
        .map(|p| rows::PostSummary {
            id: p.id,
            title: p.title,
            slug: p.slug,
            excerpt: p.excerpt,
            published_at: p.published_at,
            author_name: p.author.name,
        })
        .collect()
}

fn post_tags(links: Vec<(post_tags::Model, tags::Model)>) -> Vec<rows::PostTag> {
    links
        .into_iter()
        .map(|(link, tag)| rows::PostTag {
            post_id: link.post_id,
            name: tag.name,
            slug: tag.slug,
        })
        .collect()
}

pub fn home(
    posts: Vec<Listed>,
    tags: Vec<(post_tags::Model, tags::Model)>,
    counts: Vec<(i32, i64)>,
) -> HomePage {
    let counts = counts
        .into_iter()
        .map(|(post_id, comment_count)| rows::CommentCount {
            post_id,
            comment_count,
        })
        .collect();
    views::home(summaries(posts), post_tags(tags), counts)
}

pub fn post(
    (post, author): (posts::Model, authors::Model),
    tags: Vec<tags::Model>,
    comments: Vec<comments::Model>,
) -> PostPage {
    let post = rows::Post {
        id: post.id,
        title: post.title,
        slug: post.slug,
        body: post.body,
        published_at: post.published_at,
        author_name: author.name,
    };
    let tags = tags
        .into_iter()
        .map(|t| rows::TagName {
            name: t.name,
            slug: t.slug,
        })
        .collect();
    let comments = comments
        .into_iter()
        .map(|c| rows::Comment {
            author_name: c.author_name,
            body: c.body,
            created_at: c.created_at,
        })
        .collect();
    views::post(post, tags, comments)
}

pub fn tag(
    tag: tags::Model,
    post_count: u64,
    posts: Vec<Listed>,
    links: Vec<(post_tags::Model, tags::Model)>,
) -> TagPage {
    let tag = rows::Tag {
        id: tag.id,
        name: tag.name,
        slug: tag.slug,
    };
    views::tag(
        tag,
        i64::try_from(post_count).unwrap_or(i64::MAX),
        summaries(posts),
        post_tags(links),
    )
}
