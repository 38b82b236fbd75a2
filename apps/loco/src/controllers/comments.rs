//! `POST /posts/{slug}/comments` (docs/spec.md §3.9): store a comment, delete the cached
//! pages it changes, redirect to the post.

use super::{AppError, Page, Slug, cached, not_found};
use crate::models::comments;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, FromRequest, Request};
use axum::http::{StatusCode, header};
use loco_rs::prelude::*;
use workload::comment::{FORM_LIMIT, FormError, NewComment, is_form};

pub fn routes() -> Routes {
    Routes::new()
        .prefix("/posts")
        .add("/{slug}/comments", post(add))
        // axum's body limit, which `CommentForm` reads under.
        .layer(DefaultBodyLimit::max(FORM_LIMIT))
}

// region: comment
pub async fn add(
    ViewEngine(v): ViewEngine<TeraView>,
    State(ctx): State<AppContext>,
    Slug(slug): Slug,
    CommentForm(comment): CommentForm,
) -> Page {
    let location = format!("/posts/{slug}");
    // A task of its own, awaited: a client that goes away drops this handler, and that must
    // not cancel the transaction once begun, nor the invalidation after the commit. A panic
    // in it is the handler's, as if it had run inline.
    let stored = tokio::spawn(store(ctx, slug, comment))
        .await
        .unwrap_or_else(|task| std::panic::resume_unwind(task.into_panic()))?;
    if !stored {
        return not_found(ViewEngine(v)).await;
    }
    Ok(format::redirect(&location)?)
}

/// The comment, then the cached pages it changes; `false` when no post has `slug`.
async fn store(ctx: AppContext, slug: String, comment: NewComment) -> Result<bool, DbErr> {
    let stored = comments::Model::create_on_post(&ctx.db, &slug, comment)
        .await?
        .is_some();
    if stored {
        cached::invalidate_after_comment(&ctx.cache, &slug).await;
    }
    Ok(stored)
}
// endregion

// region: comment
/// The comment form, read by the rule every app shares (`workload::comment`): the media type
/// before the body (415), the body under the route's `DefaultBodyLimit` (413), then the form
/// itself (400). Its rejection is the refusal's plain-text answer.
pub struct CommentForm(pub NewComment);

impl FromRequest<AppContext> for CommentForm {
    type Rejection = AppError;

    async fn from_request(req: Request, ctx: &AppContext) -> std::result::Result<Self, AppError> {
        let content_type = req.headers().get(header::CONTENT_TYPE);
        if !is_form(content_type.map(|value| value.as_bytes())) {
            return Err(FormError::NotAForm.into());
        }
        let body =
            Bytes::from_request(req, ctx)
                .await
                .map_err(|rejection| match rejection.status() {
                    StatusCode::PAYLOAD_TOO_LARGE => FormError::TooLarge,
                    // The client stopped sending: Go answers this too as a malformed form.
                    _ => FormError::Malformed,
                })?;
        Ok(Self(NewComment::from_form_body(&body)?))
    }
}
// endregion
