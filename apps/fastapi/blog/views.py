"""The pages' view data and templates (docs/spec.md §3.3).

The view data mirrors go-shared/blog/views.go: dates are formatted here, so the templates print
strings. The templates are templates/tera/ (blog/templates links to it), which Jinja reads
as they are; Jinja prints every value through Go's html/template text escaper (§3.4).
"""

from dataclasses import dataclass, fields
from datetime import datetime

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

# What html/template replaces in text, and with what; everything else is copied. "&" goes
# first, so the entities the others bring in are not escaped again.
_GO_TEXT_ESCAPES = (
    ("&", "&amp;"),
    ("<", "&lt;"),
    (">", "&gt;"),
    ('"', "&#34;"),
    ("'", "&#39;"),
    ("+", "&#43;"),
    ("\0", "\ufffd"),
)


def escape_text(value: object) -> Markup:
    """A value as html/template prints it between tags."""
    text = str(value)
    for char, replacement in _GO_TEXT_ESCAPES:
        text = text.replace(char, replacement)
    return Markup(text)


# Autoescaping stays on, but `finalize` hands Jinja each value already escaped Go's way (as
# Markup, which Jinja's own escaper, markupsafe's, leaves alone: it writes &#34; and &#39; too,
# but copies "+" and NUL). Jinja would drop a template's last newline unless kept, and would
# check each template file's time on every render unless told the files do not change.
templates = Environment(
    loader=PackageLoader("blog"),
    autoescape=True,
    finalize=escape_text,
    keep_trailing_newline=True,
    undefined=StrictUndefined,
    auto_reload=False,
)


@dataclass(slots=True)
class TagLink:
    name: str
    slug: str


@dataclass(slots=True)
class PostCard:
    """A post in a list; the comment count is shown on the home page only."""

    title: str
    slug: str
    author: str
    date: str
    excerpt: str
    tags: list[TagLink]
    comment_count: int


@dataclass(slots=True)
class HomePage:
    posts: list[PostCard]


@dataclass(slots=True)
class CommentView:
    author: str
    time: str
    body: str


@dataclass(slots=True)
class PostPage:
    title: str
    author: str
    date: str
    tags: list[TagLink]
    paragraphs: list[str]
    comments: list[CommentView]


@dataclass(slots=True)
class TagPage:
    name: str
    slug: str
    post_count: int
    posts: list[PostCard]


def date(at: datetime) -> str:
    """A post's date, YYYY-MM-DD; asyncpg reads timestamptz as UTC."""
    return f"{at:%Y-%m-%d}"


def minute(at: datetime) -> str:
    """A comment's time, YYYY-MM-DD HH:MM, UTC."""
    return f"{at:%Y-%m-%d %H:%M}"


def paragraphs(body: str) -> list[str]:
    """A post body split on blank lines, one <p> each."""
    return body.split("\n\n")


_TEMPLATE_OF = {
    HomePage: "home.html",
    PostPage: "post.html",
    TagPage: "tag.html",
}


def render(page: HomePage | PostPage | TagPage) -> bytes:
    """The page's HTML, whole, so that it can be cached and sent with its length."""
    template = templates.get_template(_TEMPLATE_OF[type(page)])
    context = {field.name: getattr(page, field.name) for field in fields(page)}
    return template.render(context).encode()


# The 404 page has no data: rendered once.
NOT_FOUND_PAGE = templates.get_template("not_found.html").render().encode()
