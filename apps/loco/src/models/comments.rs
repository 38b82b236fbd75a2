use sea_orm::entity::prelude::*;
use sea_orm::sea_query::{Expr, Func};
use sea_orm::{QueryOrder, QuerySelect};

pub use super::_entities::comments::{ActiveModel, Column, Entity, Model};

impl Entity {
    /// A post's comments, oldest first (post page, query 3).
    pub async fn of_post(db: &DatabaseConnection, post_id: i32) -> Result<Vec<Model>, DbErr> {
        Self::find()
            .filter(Column::PostId.eq(post_id))
            .order_by_asc(Column::CreatedAt)
            .order_by_asc(Column::Id)
            .all(db)
            .await
    }

    /// Comment counts of a list of posts, as (post id, count); posts without comments have
    /// no row (home, query 3).
    pub async fn counts(
        db: &DatabaseConnection,
        post_ids: &[i32],
    ) -> Result<Vec<(i32, i64)>, DbErr> {
        Self::find()
            .select_only()
            .column(Column::PostId)
            .column_as(
                Expr::from(Func::count(Expr::col(Column::Id))),
                "comment_count",
            )
            .filter(Column::PostId.eq_any(post_ids.iter().copied()))
            .group_by(Column::PostId)
            .into_tuple()
            .all(db)
            .await
    }
}
