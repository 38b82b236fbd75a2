"""The blog on FastAPI (docs/spec.md §3): the app, its dependencies, its routes, and the
exception handlers that turn errors into answers."""

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, TypedDict

from fastapi import Depends, FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from jinja2 import TemplateError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect

from . import config, queries, rules, views
from .cache import HOME_KEY, PageCache, keys_a_comment_changes, post_key
from .db import Database, DatabaseUnavailable

logger = logging.getLogger(__name__)


class State(TypedDict):
    database: Database
    cache: PageCache


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[State]:
    settings = config.from_env()
    pool_min, pool_max = settings.pool_share()
    database = Database(
        settings.database_url,
        min_size=pool_min,
        max_size=pool_max,
        ping=settings.ping_on_acquire,
    )
    cache = PageCache(settings.redis_url)
    yield {"database": database, "cache": cache}
    await cache.close()
    await database.close()


# No /docs, /redoc or /openapi.json: those paths get the 404 page like any other. No redirect
# from /path/ to /path either: Go answers /posts/{slug}/ with the 404 page.
app = FastAPI(
    lifespan=lifespan,
    openapi_url=None,
    docs_url=None,
    redoc_url=None,
    redirect_slashes=False,
)


# Dependencies are async: FastAPI would run a plain def in a worker thread.
async def get_database(request: Request) -> Database:
    return request.state.database


async def get_cache(request: Request) -> PageCache:
    return request.state.cache


# region: detail-page
async def valid_slug(slug: str) -> str:
    """The {slug} segment, or the 404 page before any query or Redis command when it cannot
    be a slug (docs/spec.md §3.1)."""
    if not rules.is_slug(slug):
        raise queries.NotFound
    return slug


# endregion

DB = Annotated[Database, Depends(get_database)]
Cache = Annotated[PageCache, Depends(get_cache)]
Slug = Annotated[str, Depends(valid_slug)]


async def home_page(db: Database) -> bytes:
    async with db.connection() as connection:
        page = await queries.load_home(connection)
    return views.render(page)


# region: detail-page
async def post_page(db: Database, slug: str) -> bytes:
    async with db.connection() as connection:
        page = await queries.load_post(connection, slug)
    return views.render(page)


# endregion


@app.get("/")
async def home(db: DB) -> HTMLResponse:
    return HTMLResponse(await home_page(db))


# region: detail-page
@app.get("/posts/{slug}")
async def post(slug: Slug, db: DB) -> HTMLResponse:
    return HTMLResponse(await post_page(db, slug))


# endregion


@app.get("/tags/{slug}")
async def tag(slug: Slug, db: DB) -> HTMLResponse:
    async with db.connection() as connection:
        page = await queries.load_tag(connection, slug)
    return HTMLResponse(views.render(page))


@app.get("/cached/")
async def cached_home(db: DB, cache: Cache) -> HTMLResponse:
    return HTMLResponse(await cache.page(HOME_KEY, lambda: home_page(db)))


# region: cache
@app.get("/cached/posts/{slug}")
async def cached_post(slug: Slug, db: DB, cache: Cache) -> HTMLResponse:
    return HTMLResponse(await cache.page(post_key(slug), lambda: post_page(db, slug)))


# endregion


@app.get("/compute")
async def compute(request: Request) -> PlainTextResponse:
    # The raw query string, read by the shared rule: FastAPI's query parameters decode by
    # other rules (a repeated n, ";", bad escapes). The work runs on the event loop: it is
    # CPU-bound, so a thread would only add a hand-off of the GIL.
    n = rules.parse_n(request.scope["query_string"])
    if n is None:
        return PlainTextResponse(rules.BAD_N_MESSAGE, status_code=400)
    return PlainTextResponse(rules.compute_body(n))


# region: comment
@app.post("/posts/{slug}/comments")
async def add_comment(slug: Slug, request: Request, db: DB, cache: Cache) -> RedirectResponse:
    """Stores a comment (docs/spec.md §3.9): the form checked before anything else, the insert
    in one transaction, then the post's and the home page's cached copies deleted, and a 303
    to the post. uvicorn does not cancel a request whose client goes away (it only marks the
    cycle disconnected: uvicorn/protocols/http/httptools_impl.py, connection_lost), so a
    transaction once begun is committed and its pages invalidated."""
    if not rules.is_form(request.headers.get("content-type", "")):
        raise rules.NOT_A_FORM
    comment = rules.parse_comment(await read_form(request))
    async with db.connection() as connection:
        await queries.add_comment(connection, slug, comment)
    await cache.invalidate(*keys_a_comment_changes(slug))
    return RedirectResponse(f"/posts/{slug}", status_code=303)


async def read_form(request: Request) -> bytes:
    """The request body, read up to the form's limit: Starlette sets none."""
    body = bytearray()
    try:
        async for chunk in request.stream():
            body += chunk
            if len(body) > rules.FORM_LIMIT:
                raise rules.TOO_LARGE
    except ClientDisconnect:
        raise rules.MALFORMED from None
    return bytes(body)


@app.exception_handler(rules.FormError)
async def refuse_form(request: Request, error: rules.FormError) -> PlainTextResponse:
    return PlainTextResponse(error.message, status_code=error.status)


# endregion


# region: errors
@app.exception_handler(queries.NotFound)
async def not_found(request: Request, error: queries.NotFound) -> HTMLResponse:
    return HTMLResponse(views.NOT_FOUND_PAGE, status_code=404)


@app.exception_handler(StarletteHTTPException)
async def no_route(request: Request, error: StarletteHTTPException) -> Response:
    """A path that no route matches gets the 404 page; other HTTP errors FastAPI's answer."""
    if error.status_code == 404:
        return HTMLResponse(views.NOT_FOUND_PAGE, status_code=404)
    return await http_exception_handler(request, error)


@app.exception_handler(DatabaseUnavailable)
async def database_unavailable(request: Request, error: DatabaseUnavailable) -> PlainTextResponse:
    logger.warning(
        "%s %s: database unavailable: %r", request.method, request.url.path, error.__cause__
    )
    return PlainTextResponse(rules.DB_UNAVAILABLE_MESSAGE, status_code=503)


@app.exception_handler(TemplateError)
async def template_failed(request: Request, error: TemplateError) -> PlainTextResponse:
    logger.error("%s %s: rendering a template: %s", request.method, request.url.path, error)
    return PlainTextResponse(rules.INTERNAL_ERROR_MESSAGE, status_code=500)


# endregion
