//! The seven routes, in the order of docs/spec.md §3, the `<slug>` parameter guard, the
//! comment form's data guard, the catchers, and the error → response mapping.

use crate::db::{self, Db};
use page_cache::PageCache;
use rocket::data::{self, Data, FromData, Limits};
use rocket::http::Status;
use rocket::http::impl_from_uri_param_identity;
use rocket::http::uri::Origin;
use rocket::http::uri::fmt::{Formatter, Path, UriDisplay};
use rocket::outcome::Outcome;
use rocket::request::{self, FromParam, FromRequest, Request};
use rocket::response::{self, Redirect, Responder, content::RawHtml, status};
use rocket::serde::Serialize;
use rocket::{Orbit, Rocket, State};
use rocket_db_pools::Connection;
use rocket_db_pools::sqlx::{self, PgConnection};
use rocket_dyn_templates::{Template, context};
use std::fmt;
use workload::comment::{FormError, NewComment};

#[get("/")]
pub async fn home(mut db: Connection<Db>) -> Result<Template, Error> {
    let view = db::home_page(&mut db).await?;
    Ok(Template::render(templates::HOME, view))
}

// region: detail-page
/// `&Db`, not `Connection<Db>`: Rocket runs request guards before parameter guards, so a
/// `Connection<Db>` would be checked out before `Slug` could refuse the segment.
#[get("/posts/<slug>")]
pub async fn post(db: &Db, slug: Slug<'_>) -> Result<Option<Template>, Error> {
    let view = db::post_page(&mut *db.acquire().await?, slug.0).await?;
    Ok(view.map(|view| Template::render(templates::POST, view)))
}
// endregion

/// `&Db`, as for `post`.
#[get("/tags/<slug>")]
pub async fn tag(db: &Db, slug: Slug<'_>) -> Result<Option<Template>, Error> {
    let view = db::tag_page(&mut *db.acquire().await?, slug.0).await?;
    Ok(view.map(|view| Template::render(templates::TAG, view)))
}

/// Rocket 0.5 forbids a trailing slash in a route and skips empty segments when matching,
/// so `/cached` lands here too; the page is `/cached/` only (Go redirects, axum answers 404).
#[get("/cached")]
pub async fn cached_home(
    uri: &Origin<'_>,
    db: &Db,
    cache: &State<PageCache>,
    pages: Pages<'_>,
) -> CachedPage {
    if uri.path() != "/cached/" {
        return Ok(None);
    }
    cached(db, cache, page_cache::HOME_KEY.to_owned(), async |conn| {
        let view = db::home_page(conn).await?;
        pages.show(templates::HOME, view).map(Some)
    })
    .await
}

// region: cache
#[get("/cached/posts/<slug>")]
pub async fn cached_post(
    db: &Db,
    cache: &State<PageCache>,
    pages: Pages<'_>,
    slug: Slug<'_>,
) -> CachedPage {
    let key = page_cache::post_key(slug.0);
    cached(db, cache, key, async |conn| {
        match db::post_page(conn, slug.0).await? {
            Some(view) => pages.show(templates::POST, view).map(Some),
            None => Ok(None),
        }
    })
    .await
}
// endregion

/// The raw query, read by the rule every app shares (`workload::parse_n_query`): a typed
/// `?<n>` would answer a bad `n` with Rocket's own error page and decode the query by
/// Rocket's rules, not Go's.
#[get("/compute")]
pub fn compute(origin: &Origin<'_>) -> Result<String, status::BadRequest<&'static str>> {
    workload::parse_n_query(origin.query().map(|query| query.as_str()))
        .map(workload::compute_body)
        .map_err(status::BadRequest)
}

// region: comment
/// Stores a comment and sends the reader to the post (docs/spec.md §3.9). Rocket runs the
/// data guard after `Slug`, so a segment that is not a slug gets the 404 page before the form
/// is looked at; `&Db`, as for `post`, so no connection is taken for a refused form. No
/// `tokio::spawn`: Rocket already runs each request in a task of its own, which a client that
/// goes away does not cancel (`hyper_service_fn`, rocket 0.5.2 src/server.rs), so the write and
/// the `DEL` finish once the transaction has begun.
#[post("/posts/<slug>/comments", data = "<form>")]
pub async fn comment(
    db: &Db,
    cache: &State<PageCache>,
    slug: Slug<'_>,
    form: Result<CommentForm, FormError>,
) -> Result<Option<Redirect>, Error> {
    let CommentForm(comment) = form?;
    if !db::add_comment(&mut *db.acquire().await?, slug.0, &comment).await? {
        return Ok(None);
    }
    cache
        .invalidate(&page_cache::keys_a_comment_changes(slug.0))
        .await;
    Ok(Some(Redirect::to(uri!(post(slug)))))
}
// endregion

// region: detail-page
/// A `<slug>` segment (percent-decoded by Rocket, bytes that are not UTF-8 as U+FFFD) that is
/// a slug (docs/spec.md §3.1). Any other segment fails the guard, and the route forwards
/// before its handler runs: no connection, query or Redis lookup.
pub struct Slug<'r>(&'r str);

impl<'r> FromParam<'r> for Slug<'r> {
    type Error = &'r str;

    fn from_param(param: &'r str) -> Result<Self, &'r str> {
        if workload::is_slug(param) {
            Ok(Slug(param))
        } else {
            Err(param)
        }
    }
}
// endregion

/// How `uri!` writes a `Slug`, for the comment's redirect `uri!(post(slug))`: by hand, as
/// `#[derive(UriDisplayPath)]` would, since the derive's code borrows the `&str` field again
/// (clippy's `needless_borrows_for_generic_args`, on code the app cannot annotate).
impl UriDisplay<Path> for Slug<'_> {
    fn fmt(&self, f: &mut Formatter<'_, Path>) -> fmt::Result {
        f.write_value(self.0)
    }
}

impl_from_uri_param_identity!([Path] ('a) Slug<'a>);

// region: comment
/// A comment form, read by the rule every app shares (`workload::comment`; Rocket's `Form`
/// decodes by its own rules and refuses in its own words): the `Content-Type` first (415,
/// the body unread), then the body up to Rocket's `form` limit (`FORM_LIMIT`, set in `main`;
/// a longer one is 413), then the fields (400).
pub struct CommentForm(NewComment);

#[rocket::async_trait]
impl<'r> FromData<'r> for CommentForm {
    type Error = FormError;

    async fn from_data(req: &'r Request<'_>, data: Data<'r>) -> data::Outcome<'r, Self> {
        let content_type = req.headers().get_one("Content-Type").map(str::as_bytes);
        let form = if !workload::comment::is_form(content_type) {
            Err(FormError::NotAForm)
        } else {
            let limit = req.limits().get("form").unwrap_or(Limits::FORM);
            match data.open(limit).into_bytes().await {
                Ok(body) if body.is_complete() => NewComment::from_form_body(&body),
                Ok(_) => Err(FormError::TooLarge),
                // The client stopped sending: 400, as in Go.
                Err(_) => Err(FormError::Malformed),
            }
        };
        match form {
            Ok(comment) => Outcome::Success(CommentForm(comment)),
            Err(refusal) => Outcome::Error((Status::new(refusal.status()), refusal)),
        }
    }
}
// endregion

// region: errors
/// Unknown paths, and the pages whose handler found no such slug (`None`).
#[catch(404)]
pub fn not_found() -> Template {
    Template::render(templates::NOT_FOUND, context! {})
}

/// A segment `Slug` refused: Rocket 0.5 forwards a failed parameter guard with 422 and no
/// other route matches, but to docs/spec.md §3.1 it is an unknown page.
#[catch(422)]
pub fn not_a_slug() -> status::NotFound<Template> {
    status::NotFound(not_found())
}

/// `Connection<Db>` failing to check out a connection, and [`Error::Database`].
#[catch(503)]
pub fn database_unavailable() -> &'static str {
    workload::DB_UNAVAILABLE_MESSAGE
}

/// [`Error::Template`]: our bug, answered as docs/spec.md §3.8 says.
#[catch(500)]
pub fn internal_error() -> &'static str {
    workload::INTERNAL_ERROR_MESSAGE
}
// endregion

// region: cache
/// A page from Redis or, on a miss, freshly rendered; `None` is an unknown slug (404).
type CachedPage = Result<Option<RawHtml<Vec<u8>>>, Error>;

/// Serves `key` from Redis; on a miss takes a connection, renders with `render` (`None` =
/// unknown slug: 404, nothing stored) and stores the page.
async fn cached(
    db: &Db,
    cache: &PageCache,
    key: String,
    render: impl AsyncFnOnce(&mut PgConnection) -> Result<Option<String>, Error>,
) -> CachedPage {
    if let Some(page) = cache.get(&key).await {
        return Ok(Some(RawHtml(page)));
    }
    let mut conn = db.acquire().await?;
    let Some(page) = render(&mut conn).await? else {
        return Ok(None);
    };
    drop(conn);
    cache.set(&key, &page).await;
    Ok(Some(RawHtml(page.into_bytes())))
}
// endregion

/// Renders a template into a `String` (for the page cache) through rocket_dyn_templates'
/// `Template::show`, which needs the running Rocket; Rocket 0.5 has no guard that gives it.
pub struct Pages<'r>(&'r Rocket<Orbit>);

#[rocket::async_trait]
impl<'r> FromRequest<'r> for Pages<'r> {
    type Error = std::convert::Infallible;

    async fn from_request(req: &'r Request<'_>) -> request::Outcome<Self, Self::Error> {
        request::Outcome::Success(Pages(req.rocket()))
    }
}

impl Pages<'_> {
    fn show(&self, template: &'static str, view: impl Serialize) -> Result<String, Error> {
        Template::show(self.0, template, view).ok_or(Error::Template)
    }
}

// region: errors
/// Why a request was not answered as asked.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
    /// rocket_dyn_templates has logged the cause.
    #[error("template failed")]
    Template,
    #[error(transparent)]
    Form(#[from] FormError),
}

/// A database failure is a 503 the client can retry, a template failure our bug: the catcher
/// of the status writes the body. A refused form carries its own message, answered here so
/// that no catcher (Rocket's default 400/413/415 pages) replaces it.
impl<'r> Responder<'r, 'static> for Error {
    fn respond_to(self, req: &'r Request<'_>) -> response::Result<'static> {
        match self {
            Error::Database(_) => {
                eprintln!("rocket: {self}");
                Err(Status::ServiceUnavailable)
            }
            Error::Template => Err(Status::InternalServerError),
            Error::Form(refusal) => {
                status::Custom(Status::new(refusal.status()), refusal.message()).respond_to(req)
            }
        }
    }
}
// endregion
