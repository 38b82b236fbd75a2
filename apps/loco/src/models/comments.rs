use chrono::Utc;
use sea_orm::entity::prelude::*;
use sea_orm::sea_query::{Expr, Func};
use sea_orm::{QueryOrder, QuerySelect, Set, TransactionTrait};
use workload::comment::NewComment;

pub use super::_entities::comments::{ActiveModel, Column, Entity, Model};
use super::posts;

impl Model {
    // region: comment
    /// Stores `comment` on the post `slug` (docs/spec.md §3.9) in one transaction: the post's
    /// id, then the insert; 4 statements with `BEGIN` and `COMMIT`. `None`, after a rollback,
    /// when no post has that slug.
    pub async fn create_on_post(
        db: &DatabaseConnection,
        slug: &str,
        comment: NewComment,
    ) -> Result<Option<Self>, DbErr> {
        // On an error `txn` is dropped, which rolls it back: no row is left.
        let txn = db.begin().await?;
        let Some(post_id) = posts::Entity::id_by_slug(&txn, slug).await? else {
            txn.rollback().await?;
            return Ok(None);
        };
        // `id` is left NotSet: the identity column numbers the row.
        let comment = ActiveModel {
            post_id: Set(post_id),
            author_name: Set(comment.author_name),
            body: Set(comment.body),
            created_at: Set(Utc::now()),
            ..Default::default()
        }
        .insert(&txn)
        .await?;
        txn.commit().await?;
        Ok(Some(comment))
    }
    // endregion
}

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
