//! The six routes, in the order of docs/spec.md §3, the `{slug}` extractor, and the error →
//! response mapping.

use crate::AppState;
use crate::db::DbConn;
use axum::extract::{FromRequestParts, Path, RawQuery, State};
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use serde::Serialize;
use shared_sql::pages;
use sqlx::PgConnection;
use templates::views::{HomePage, PostPage, TagPage};

type Page = Result<Response, AppError>;

pub async fn home(State(state): State<AppState>, DbConn(mut conn): DbConn) -> Page {
    Ok(Html(home_html(&state, &mut conn).await?).into_response())
}

pub async fn post(
    State(state): State<AppState>,
    Slug(slug): Slug,
    DbConn(mut conn): DbConn,
) -> Page {
    Ok(match post_html(&state, &mut conn, &slug).await? {
        Some(page) => Html(page).into_response(),
        None => not_found_response(&state),
    })
}

pub async fn tag(
    State(state): State<AppState>,
    Slug(slug): Slug,
    DbConn(mut conn): DbConn,
) -> Page {
    Ok(match pages::tag(&mut conn, &slug).await? {
        Some(rows) => Html(render(&state, templates::TAG, &TagPage::from(rows))?).into_response(),
        None => not_found_response(&state),
    })
}

pub async fn cached_home(State(state): State<AppState>) -> Page {
    cached(&state, page_cache::HOME_KEY.to_owned(), async |conn| {
        home_html(&state, conn).await.map(Some)
    })
    .await
}

pub async fn cached_post(State(state): State<AppState>, Slug(slug): Slug) -> Page {
    let key = page_cache::post_key(&slug);
    cached(&state, key, async |conn| {
        post_html(&state, conn, &slug).await
    })
    .await
}

/// The raw query, read by the rule every app shares (Go's `parseN`).
pub async fn compute(RawQuery(query): RawQuery) -> Response {
    match workload::parse_n_query(query.as_deref()) {
        Ok(n) => plain_text(StatusCode::OK, workload::compute_body(n)),
        Err(message) => plain_text(StatusCode::BAD_REQUEST, message.to_owned()),
    }
}

pub async fn not_found(State(state): State<AppState>) -> Response {
    not_found_response(&state)
}

/// The `{slug}` segment, percent-decoded, when it is a slug (docs/spec.md §3.1). Anything
/// else, a segment `Path` cannot decode included (its rejection would be a 400), gets the 404
/// page; handlers take `Slug` before `DbConn`, so that costs no connection, query or Redis
/// lookup.
pub struct Slug(pub String);

impl FromRequestParts<AppState> for Slug {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Response> {
        match Path::<String>::from_request_parts(parts, state).await {
            Ok(Path(slug)) if workload::is_slug(&slug) => Ok(Slug(slug)),
            _ => Err(not_found_response(state)),
        }
    }
}

async fn home_html(state: &AppState, conn: &mut PgConnection) -> Result<String, AppError> {
    let rows = pages::home(conn).await?;
    Ok(render(state, templates::HOME, &HomePage::from(rows))?)
}

async fn post_html(
    state: &AppState,
    conn: &mut PgConnection,
    slug: &str,
) -> Result<Option<String>, AppError> {
    match pages::post(conn, slug).await? {
        Some(rows) => Ok(Some(render(state, templates::POST, &PostPage::from(rows))?)),
        None => Ok(None),
    }
}

/// Serves `key` from Redis; on a miss takes a connection, renders with `render` (`None` =
/// unknown slug: 404, nothing stored) and stores the page.
async fn cached(
    state: &AppState,
    key: String,
    render: impl AsyncFnOnce(&mut PgConnection) -> Result<Option<String>, AppError>,
) -> Page {
    if let Some(page) = state.cache.get(&key).await {
        return Ok(Html(page).into_response());
    }
    let mut conn = state.pool.acquire().await?;
    let Some(page) = render(&mut conn).await? else {
        return Ok(not_found_response(state));
    };
    drop(conn);
    state.cache.set(&key, &page).await;
    Ok(Html(page).into_response())
}

fn render(state: &AppState, template: &str, view: &impl Serialize) -> Result<String, tera::Error> {
    state
        .tera
        .render(template, &tera::Context::from_serialize(view)?)
}

fn not_found_response(state: &AppState) -> Response {
    (StatusCode::NOT_FOUND, Html(state.not_found.clone())).into_response()
}

fn plain_text(status: StatusCode, body: String) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        body,
    )
        .into_response()
}

pub enum AppError {
    Database(sqlx::Error),
    Template(tera::Error),
}

impl From<sqlx::Error> for AppError {
    fn from(err: sqlx::Error) -> Self {
        AppError::Database(err)
    }
}

impl From<tera::Error> for AppError {
    fn from(err: tera::Error) -> Self {
        AppError::Template(err)
    }
}

/// A database failure is a 503 the client can retry; a template failure is our bug.
impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        match self {
            AppError::Database(err) => {
                eprintln!("axum-sqlx: database: {err}");
                plain_text(
                    StatusCode::SERVICE_UNAVAILABLE,
                    workload::DB_UNAVAILABLE_MESSAGE.to_owned(),
                )
            }
            AppError::Template(err) => {
                eprintln!("axum-sqlx: template: {err:?}");
                plain_text(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "template error\n".to_owned(),
                )
            }
        }
    }
}
