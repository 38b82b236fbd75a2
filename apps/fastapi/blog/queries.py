"""The SQL of every page, byte for byte shared-sql's (tests/test_sql.py compares it with
shared-sql/queries.json), and the loaders that turn its rows into each page's view data, in the
order of docs/spec.md §3.1: home 3 statements, post 3, tag 4, a comment 2 in a transaction."""

from asyncpg import Connection, Record

from . import views
from .rules import Comment

HOME_POSTS = "SELECT p.id, p.title, p.slug, p.excerpt, p.published_at, a.name AS author_name FROM posts p JOIN authors a ON a.id = p.author_id ORDER BY p.published_at DESC, p.id DESC LIMIT 20"
TAGS_OF_POSTS = "SELECT pt.post_id, t.name, t.slug FROM post_tags pt JOIN tags t ON t.id = pt.tag_id WHERE pt.post_id = ANY($1) ORDER BY pt.post_id, t.slug"
COMMENT_COUNTS = "SELECT post_id, count(*) AS comment_count FROM comments WHERE post_id = ANY($1) GROUP BY post_id"
POST_BY_SLUG = "SELECT p.id, p.title, p.slug, p.body, p.published_at, a.name AS author_name FROM posts p JOIN authors a ON a.id = p.author_id WHERE p.slug = $1"
TAGS_OF_POST = "SELECT t.name, t.slug FROM post_tags pt JOIN tags t ON t.id = pt.tag_id WHERE pt.post_id = $1 ORDER BY t.slug"
COMMENTS_OF_POST = (
    "SELECT author_name, body, created_at FROM comments WHERE post_id = $1 ORDER BY created_at, id"
)
TAG_BY_SLUG = "SELECT id, name, slug FROM tags WHERE slug = $1"
TAG_POSTS = "SELECT p.id, p.title, p.slug, p.excerpt, p.published_at, a.name AS author_name FROM post_tags pt JOIN posts p ON p.id = pt.post_id JOIN authors a ON a.id = p.author_id WHERE pt.tag_id = $1 ORDER BY p.published_at DESC, p.id DESC LIMIT 20"
TAG_POST_COUNT = "SELECT count(*) FROM post_tags WHERE tag_id = $1"
POST_ID_BY_SLUG = "SELECT id FROM posts WHERE slug = $1"
INSERT_COMMENT = (
    "INSERT INTO comments (post_id, author_name, body, created_at) VALUES ($1, $2, $3, now())"
)


class NotFound(Exception):
    """An unknown slug: the 404 page."""


async def load_home(db: Connection) -> views.HomePage:
    posts = await db.fetch(HOME_POSTS)
    post_ids = [post["id"] for post in posts]
    tags = await db.fetch(TAGS_OF_POSTS, post_ids)
    counts = {
        row["post_id"]: row["comment_count"] for row in await db.fetch(COMMENT_COUNTS, post_ids)
    }
    return views.HomePage(posts=_cards(posts, tags, counts))


# region: detail-page
async def load_post(db: Connection, slug: str) -> views.PostPage:
    """The post page's view data; NotFound after one statement for an unknown slug."""
    post = await db.fetchrow(POST_BY_SLUG, slug)
    if post is None:
        raise NotFound
    tags = await db.fetch(TAGS_OF_POST, post["id"])
    comments = await db.fetch(COMMENTS_OF_POST, post["id"])
    return views.PostPage(
        title=post["title"],
        author=post["author_name"],
        date=views.date(post["published_at"]),
        tags=[views.TagLink(name=tag["name"], slug=tag["slug"]) for tag in tags],
        paragraphs=views.paragraphs(post["body"]),
        comments=[
            views.CommentView(
                author=comment["author_name"],
                time=views.minute(comment["created_at"]),
                body=comment["body"],
            )
            for comment in comments
        ],
    )


# endregion


async def load_tag(db: Connection, slug: str) -> views.TagPage:
    """The tag page's view data; NotFound after one statement for an unknown slug."""
    tag = await db.fetchrow(TAG_BY_SLUG, slug)
    if tag is None:
        raise NotFound
    posts = await db.fetch(TAG_POSTS, tag["id"])
    tags = await db.fetch(TAGS_OF_POSTS, [post["id"] for post in posts])
    post_count = await db.fetchval(TAG_POST_COUNT, tag["id"])
    return views.TagPage(
        name=tag["name"],
        slug=tag["slug"],
        post_count=post_count,
        posts=_cards(posts, tags, {}),
    )


# region: comment
async def add_comment(db: Connection, slug: str, comment: Comment) -> None:
    """Stores comment on the post slug in one transaction: BEGIN, POST_ID_BY_SLUG,
    INSERT_COMMENT, COMMIT; for an unknown slug, NotFound rolls it back."""
    async with db.transaction():
        post_id = await db.fetchval(POST_ID_BY_SLUG, slug)
        if post_id is None:
            raise NotFound
        await db.execute(INSERT_COMMENT, post_id, comment.author_name, comment.body)


# endregion


def _cards(posts: list[Record], tags: list[Record], counts: dict[int, int]) -> list[views.PostCard]:
    """The list entries for posts, each with its tags (in query order) and its comment count (0
    for a post with no row; none are counted on the tag page)."""
    tags_of: dict[int, list[views.TagLink]] = {}
    for tag in tags:
        tags_of.setdefault(tag["post_id"], []).append(
            views.TagLink(name=tag["name"], slug=tag["slug"])
        )
    return [
        views.PostCard(
            title=post["title"],
            slug=post["slug"],
            author=post["author_name"],
            date=views.date(post["published_at"]),
            excerpt=post["excerpt"],
            tags=tags_of.get(post["id"], []),
            comment_count=counts.get(post["id"], 0),
        )
        for post in posts
    ]
