//! The routes, in the order of docs/spec.md §3, the `{slug}` extractor, and the error →
//! response mapping. The two cached routes have no handlers of their own: `main.rs` serves
//! them with `home` and `post` behind Rustango's `CachePageLayer`.

use crate::AppState;
use crate::db::DbConn;
use axum::extract::{FromRequestParts, Path, RawQuery, Request, State};
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Response};
use rustango::sql::ExecError;
use rustango_models::pages;
use serde::Serialize;
use templates::views::{HomePage, PostPage, TagPage};

type Page = Result<Response, AppError>;

pub async fn home(State(state): State<AppState>, DbConn(mut conn): DbConn) -> Page {
    let rows = pages::home(&mut conn).await?;
    Ok(Html(render(&state, templates::HOME, &HomePage::from(rows))?).into_response())
}

pub async fn post(
    State(state): State<AppState>,
    Slug(slug): Slug,
    DbConn(mut conn): DbConn,
) -> Page {
    Ok(match pages::post(&mut conn, &slug).await? {
        Some(rows) => Html(render(&state, templates::POST, &PostPage::from(rows))?).into_response(),
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
/// page; handlers take `Slug` before `DbConn`, so that costs no connection or query.
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

/// Middleware in front of the page cache on `/cached/posts/{slug}`: the `Slug` rejection
/// answers a segment that is not a slug before `CachePageLayer` reads Redis.
pub async fn require_slug(_: Slug, request: Request, next: Next) -> Response {
    next.run(request).await
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
    Database(ExecError),
    Template(tera::Error),
}

impl From<ExecError> for AppError {
    fn from(err: ExecError) -> Self {
        AppError::Database(err)
    }
}

impl From<tera::Error> for AppError {
    fn from(err: tera::Error) -> Self {
        AppError::Template(err)
    }
}

/// A database failure is a 503 the client can retry (CachePageLayer stores only 200s, so it
/// is never cached); a template failure is our bug.
impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        match self {
            AppError::Database(err) => {
                eprintln!("rustango-axum: database: {err}");
                plain_text(
                    StatusCode::SERVICE_UNAVAILABLE,
                    workload::DB_UNAVAILABLE_MESSAGE.to_owned(),
                )
            }
            AppError::Template(err) => {
                eprintln!("rustango-axum: template: {err:?}");
                plain_text(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "template error\n".to_owned(),
                )
            }
        }
    }
}
