use sea_orm::entity::prelude::*;
use sea_orm::{PaginatorTrait, QueryOrder};

use super::_entities::post_tags;
pub use super::_entities::tags::{ActiveModel, Column, Entity, Model};

impl Entity {
    /// A tag by its slug (tag page, query 1).
    pub async fn find_by_slug(db: &DatabaseConnection, slug: &str) -> Result<Option<Model>, DbErr> {
        Self::find().filter(Column::Slug.eq(slug)).one(db).await
    }

    /// The tags of one post, by slug (post page, query 2).
    pub async fn of_post(db: &DatabaseConnection, post_id: i32) -> Result<Vec<Model>, DbErr> {
        Self::find()
            .inner_join(post_tags::Entity)
            .filter(post_tags::Column::PostId.eq(post_id))
            .order_by_asc(Column::Slug)
            .all(db)
            .await
    }

    /// The tags of a list of posts, as (link, tag) pairs ordered by post and slug (home
    /// query 2, tag page query 3): one `= ANY($1)` statement whatever the list's length.
    pub async fn of_posts(
        db: &DatabaseConnection,
        post_ids: &[i32],
    ) -> Result<Vec<(post_tags::Model, Model)>, DbErr> {
        post_tags::Entity::find()
            .filter(post_tags::Column::PostId.eq_any(post_ids.iter().copied()))
            .find_both_related(Entity)
            .order_by_asc(post_tags::Column::PostId)
            .order_by_asc(Column::Slug)
            .all(db)
            .await
    }

    /// How many posts carry a tag (tag page, query 4).
    pub async fn post_count(db: &DatabaseConnection, tag_id: i32) -> Result<u64, DbErr> {
        post_tags::Entity::find()
            .filter(post_tags::Column::TagId.eq(tag_id))
            .count(db)
            .await
    }
}
