"""The PostgreSQL pool as docs/spec.md §1 sets it up: opened lazily, so the app starts (and
answers 503) while PostgreSQL is down; a 3 s limit on getting a connection; a connection idle
for over a second pinged before use (PING_ON_ACQUIRE); any failure of the database turned into
DatabaseUnavailable, which the app answers with 503."""

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg

from .config import PingOnAcquire

ACQUIRE_TIMEOUT = 3.0  # seconds
PING_IDLE_AFTER = 1.0  # seconds, pgxpool's rule for PING_ON_ACQUIRE=idle


class DatabaseUnavailable(Exception):
    """PostgreSQL failed, could not be reached, or had no connection free within 3 s."""


# What a database that is down, restarting or stalled raises: the server's errors, the
# driver's (a connection closed under it; InternalClientError when it broke mid-operation,
# "cannot switch to state …; another operation is in progress"), the socket's, and the
# acquire timeout.
_FAILURES = (
    asyncpg.PostgresError,
    asyncpg.InterfaceError,
    asyncpg.exceptions.InternalClientError,
    OSError,
    TimeoutError,
)


class StaleConnection(Exception):
    """A pooled connection failed its ping: asyncpg closes it, and another is taken."""


class _TimedConnection(asyncpg.Connection):
    """A connection that knows since when it has been idle in the pool."""

    __slots__ = ("idle_since",)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.idle_since = time.monotonic()


# region: pool
class Database:
    """PostgreSQL through an asyncpg pool of min_size to max_size connections."""

    def __init__(self, dsn: str, *, min_size: int, max_size: int, ping: PingOnAcquire) -> None:
        self._dsn = dsn
        self._min_size = min_size
        self._max_size = max_size
        self._ping = ping
        self._pool: asyncpg.Pool | None = None
        self._opening = asyncio.Lock()

    async def _open_pool(self) -> asyncpg.Pool:
        """The pool, made on first use. asyncpg opens min_size connections when it makes a pool
        and fails if it cannot (init_size may not be below min_size: asyncpg/pool.py,
        Pool.__init__), so a pool that could not be made is tried again by the next request;
        once made, it keeps min_size connections open and replaces the ones that die."""
        async with self._opening:
            if self._pool is None:
                self._pool = await asyncpg.create_pool(
                    self._dsn,
                    min_size=self._min_size,
                    max_size=self._max_size,
                    connection_class=_TimedConnection,
                    setup=self.ping_if_due,
                    reset=_mark_idle,
                )
        return self._pool

    async def ping_if_due(self, connection: _TimedConnection) -> None:
        """Runs as asyncpg hands out a connection: the ping of PING_ON_ACQUIRE."""
        idle_for = time.monotonic() - connection.idle_since
        if self._ping == "always" or (self._ping == "idle" and idle_for > PING_IDLE_AFTER):
            try:
                await connection.execute("SELECT 1")
            except _FAILURES as error:
                raise StaleConnection from error

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[asyncpg.Connection]:
        """A pooled connection for one page or one comment."""
        try:
            async with asyncio.timeout(ACQUIRE_TIMEOUT):
                pool = self._pool or await self._open_pool()
                connection = await self._acquire(pool)
            try:
                yield connection
            finally:
                await pool.release(connection)
        except _FAILURES as error:
            raise DatabaseUnavailable from error

    @staticmethod
    async def _acquire(pool: asyncpg.Pool) -> asyncpg.Connection:
        """A connection that passed its ping: asyncpg closes one that failed it (Pool's setup
        hook, asyncpg/pool.py PoolConnectionHolder.acquire), and the next acquire takes or
        opens another, as pgxpool does."""
        while True:
            try:
                return await pool.acquire()
            except StaleConnection:
                continue

    async def close(self) -> None:
        if self._pool is not None:
            await self._pool.close()


async def _mark_idle(connection: _TimedConnection) -> None:
    """Runs as a connection goes back to the pool, in place of asyncpg's default reset, a round
    trip (RESET ALL, UNLISTEN *, ...) that undoes session state this app never sets."""
    connection.idle_since = time.monotonic()


# endregion
