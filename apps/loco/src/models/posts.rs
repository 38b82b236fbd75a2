use sea_orm::entity::prelude::*;
use sea_orm::{DerivePartialModel, QueryOrder, QuerySelect};

pub use super::_entities::posts::{ActiveModel, Column, Entity, Model};
use super::_entities::{authors, post_tags};

/// How many posts a list shows.
pub const PAGE_SIZE: u64 = 20;

/// A post as listed on the home and tag pages: no body, its author's name joined in
/// (`"authors"."name" AS "author_name"`).
#[derive(Debug, DerivePartialModel)]
#[sea_orm(entity = "Entity")]
pub struct Listed {
    pub id: i32,
    pub title: String,
    pub slug: String,
    pub excerpt: String,
    pub published_at: DateTimeUtc,
    #[sea_orm(nested)]
    pub author: AuthorName,
}

#[derive(Debug, DerivePartialModel)]
#[sea_orm(entity = "authors::Entity")]
pub struct AuthorName {
    pub name: String,
}

impl Entity {
    /// The latest posts with their authors (home, query 1).
    pub async fn latest(db: &DatabaseConnection) -> Result<Vec<Listed>, DbErr> {
        Self::find()
            .inner_join(authors::Entity)
            .order_by_desc(Column::PublishedAt)
            .order_by_desc(Column::Id)
            .limit(PAGE_SIZE)
            .into_partial_model()
            .all(db)
            .await
    }

    /// The latest posts carrying a tag, with their authors (tag page, query 2).
    pub async fn latest_tagged(db: &DatabaseConnection, tag_id: i32) -> Result<Vec<Listed>, DbErr> {
        Self::find()
            .inner_join(post_tags::Entity)
            .inner_join(authors::Entity)
            .filter(post_tags::Column::TagId.eq(tag_id))
            .order_by_desc(Column::PublishedAt)
            .order_by_desc(Column::Id)
            .limit(PAGE_SIZE)
            .into_partial_model()
            .all(db)
            .await
    }

    // region: detail-page
    /// One post and its author (post page, query 1): `find_both_related`, the INNER JOIN
    /// twin of `find_also_related` (every post has an author).
    pub async fn find_by_slug_with_author(
        db: &DatabaseConnection,
        slug: &str,
    ) -> Result<Option<(Model, authors::Model)>, DbErr> {
        Self::find()
            .filter(Column::Slug.eq(slug))
            .find_both_related(authors::Entity)
            .one(db)
            .await
    }
    // endregion

    /// A post's id by its slug (comment route, inside its transaction: any connection).
    pub async fn id_by_slug(db: &impl ConnectionTrait, slug: &str) -> Result<Option<i32>, DbErr> {
        Self::find()
            .select_only()
            .column(Column::Id)
            .filter(Column::Slug.eq(slug))
            .into_tuple()
            .one(db)
            .await
    }
}
