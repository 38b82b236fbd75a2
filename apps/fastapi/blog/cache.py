"""The Redis page cache of docs/spec.md §3.5, as go-shared/pagecache: pages stored under
"page:" + the uncached path, as their HTML bytes, with no expiry. A Redis that fails or does
not answer quickly is a miss, never the client's problem."""

import logging
from collections.abc import Awaitable, Callable

from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

HOME_KEY = "page:/"


def post_key(slug: str) -> str:
    return f"page:/posts/{slug}"


def keys_a_comment_changes(slug: str) -> tuple[str, str]:
    """The pages a new comment on post slug makes stale: the post's (its comments) and the
    home page (the counts)."""
    return post_key(slug), HOME_KEY


# region: cache
class PageCache:
    def __init__(self, redis_url: str) -> None:
        # Short timeouts and no retries (redis-py retries 3 times by default): a Redis that is
        # down or stalled costs a request at most 250 ms to connect or 1 s for a reply. The
        # pool redials on the next command once Redis is back.
        self._redis = Redis.from_url(
            redis_url,
            socket_connect_timeout=0.25,
            socket_timeout=1.0,
            retry=Retry(NoBackoff(), retries=0),
        )
        self._failing = False  # whether the last command failed, so an outage is logged once

    async def page(self, key: str, render: Callable[[], Awaitable[bytes]]) -> bytes:
        """The page stored under key: one GET on a hit; on a miss the page rendered and stored
        with one SET. When Redis fails, the page is rendered and nothing is stored."""
        try:
            page = await self._redis.get(key)
        except RedisError as error:
            self._note(error)
            return await render()
        self._note(None)
        if page is not None:
            return page
        page = await render()
        try:
            await self._redis.set(key, page)
        except RedisError as error:
            self._note(error)
        return page

    async def invalidate(self, *keys: str) -> None:
        """Deletes keys with one DEL, after a write. Best effort: the write is committed, so a
        Redis failure is logged (once) and the answer stays the same."""
        try:
            await self._redis.delete(*keys)
        except RedisError as error:
            self._note(error)
        else:
            self._note(None)

    def _note(self, error: RedisError | None) -> None:
        """Logs when Redis starts failing and when it answers again."""
        if error is None:
            if self._failing:
                self._failing = False
                logger.warning("redis is back: caching pages again")
        elif not self._failing:
            self._failing = True
            logger.warning(
                "redis unavailable, rendering cached routes from the database: %s", error
            )

    async def close(self) -> None:
        await self._redis.aclose()


# endregion
