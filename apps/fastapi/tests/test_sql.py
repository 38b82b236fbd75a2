"""The SQL the app sends is shared-sql's (shared-sql/queries.json), statement for statement."""

import asyncio
import json
from contextlib import asynccontextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path

import pytest

from blog import queries
from blog.rules import Comment

APP = Path(__file__).resolve().parent.parent
# The repository this app lives in, which holds the single sources its tests compare with.
REPO = APP.parent.parent
SHARED_SQL = json.loads((REPO / "shared-sql/queries.json").read_text())

AT = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
POST = {"id": 7, "title": "T", "slug": "t-7", "excerpt": "E", "body": "B", "published_at": AT}
POST |= {"author_name": "A"}
# What each statement answers, in the shape of its rows.
ANSWERS = {
    "HOME_POSTS": [POST],
    "TAGS_OF_POSTS": [{"post_id": 7, "name": "N", "slug": "n"}],
    "COMMENT_COUNTS": [{"post_id": 7, "comment_count": 2}],
    "POST_BY_SLUG": POST,
    "TAGS_OF_POST": [{"name": "N", "slug": "n"}],
    "COMMENTS_OF_POST": [{"author_name": "C", "body": "B", "created_at": AT}],
    "TAG_BY_SLUG": {"id": 3, "name": "N", "slug": "n"},
    "TAG_POSTS": [POST],
    "TAG_POST_COUNT": 12,
    "POST_ID_BY_SLUG": 7,
}


class RecordingConnection:
    """Answers each statement as ANSWERS says (a single row or value only when found) and
    records the SQL sent, by its name in shared-sql (BEGIN, COMMIT and ROLLBACK as such)."""

    def __init__(self, *, found: bool = True) -> None:
        self.found = found
        self.sent: list[str] = []

    def _name(self, sql: str) -> str:
        names = [name for name, text in SHARED_SQL.items() if text == sql]
        assert names, f"SQL text not in shared-sql/queries.json: {sql!r}"
        self.sent.append(names[0])
        return names[0]

    async def fetch(self, sql, *args):
        return ANSWERS[self._name(sql)]

    async def fetchrow(self, sql, *args):
        answer = ANSWERS[self._name(sql)]
        return answer if self.found else None

    async def fetchval(self, sql, *args):
        answer = ANSWERS[self._name(sql)]
        return answer if self.found else None

    async def execute(self, sql, *args):
        self._name(sql)

    @asynccontextmanager
    async def transaction(self):
        self.sent.append("BEGIN")
        try:
            yield
        except Exception:
            self.sent.append("ROLLBACK")
            raise
        self.sent.append("COMMIT")


def sent_by(load, *args, found=True) -> list[str]:
    connection = RecordingConnection(found=found)
    with suppress(queries.NotFound):
        asyncio.run(load(connection, *args))
    return connection.sent


def test_every_constant_is_the_shared_text():
    constants = {name: getattr(queries, name) for name in dir(queries) if name.isupper()}
    assert constants == SHARED_SQL


@pytest.mark.parametrize(
    ("load", "args", "statements"),
    [
        (queries.load_home, (), ["HOME_POSTS", "TAGS_OF_POSTS", "COMMENT_COUNTS"]),
        (queries.load_post, ("t-7",), ["POST_BY_SLUG", "TAGS_OF_POST", "COMMENTS_OF_POST"]),
        (
            queries.load_tag,
            ("n",),
            ["TAG_BY_SLUG", "TAG_POSTS", "TAGS_OF_POSTS", "TAG_POST_COUNT"],
        ),
        (
            queries.add_comment,
            ("t-7", Comment(author_name="a", body="b")),
            ["BEGIN", "POST_ID_BY_SLUG", "INSERT_COMMENT", "COMMIT"],
        ),
    ],
)
def test_each_page_sends_the_statements_of_the_spec(load, args, statements):
    assert sent_by(load, *args) == statements


@pytest.mark.parametrize(
    ("load", "args", "statements"),
    [
        (queries.load_post, ("no",), ["POST_BY_SLUG"]),
        (queries.load_tag, ("no",), ["TAG_BY_SLUG"]),
        (
            queries.add_comment,
            ("no", Comment(author_name="a", body="b")),
            ["BEGIN", "POST_ID_BY_SLUG", "ROLLBACK"],
        ),
    ],
)
def test_an_unknown_slug_costs_one_statement(load, args, statements):
    assert sent_by(load, *args, found=False) == statements


def test_the_view_data_comes_from_the_rows():
    page = asyncio.run(queries.load_home(RecordingConnection()))
    card = page.posts[0]
    assert (card.title, card.author, card.date, card.comment_count) == ("T", "A", "2026-01-02", 2)
    assert [(tag.name, tag.slug) for tag in card.tags] == [("N", "n")]
    post = asyncio.run(queries.load_post(RecordingConnection(), "t-7"))
    assert post.comments[0].time == "2026-01-02 03:04"
    tag = asyncio.run(queries.load_tag(RecordingConnection(), "n"))
    assert (tag.name, tag.post_count, tag.posts[0].comment_count) == ("N", 12, 0)
