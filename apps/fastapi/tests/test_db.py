"""PING_ON_ACQUIRE (docs/spec.md §1): which connections the pool pings as it hands them out."""

import asyncio
import time

import asyncpg
import pytest

from blog import db


class IdleConnection:
    def __init__(self, idle_for: float, *, alive: bool = True) -> None:
        self.idle_since = time.monotonic() - idle_for
        self.alive = alive
        self.pinged = False

    async def execute(self, sql: str) -> None:
        self.pinged = True
        if not self.alive:
            raise ConnectionResetError


def pings(rule: str, idle_for: float) -> bool:
    database = db.Database("postgres://unused", min_size=0, max_size=1, ping=rule)
    connection = IdleConnection(idle_for)
    asyncio.run(database.ping_if_due(connection))
    return connection.pinged


@pytest.mark.parametrize(
    ("rule", "idle_for", "pinged"),
    [
        ("always", 0.0, True),
        ("idle", 0.5, False),
        ("idle", 1.5, True),
        ("never", 60.0, False),
    ],
)
def test_which_connections_are_pinged(rule, idle_for, pinged):
    assert pings(rule, idle_for) is pinged


def test_a_connection_that_fails_its_ping_is_stale():
    database = db.Database("postgres://unused", min_size=0, max_size=1, ping="always")
    with pytest.raises(db.StaleConnection):
        asyncio.run(database.ping_if_due(IdleConnection(0.0, alive=False)))


class OnePool:
    """A pool of one connection, for what the app does with a failure while it holds it."""

    async def acquire(self) -> IdleConnection:
        return IdleConnection(0.0)

    async def release(self, connection: IdleConnection) -> None:
        pass


@pytest.mark.parametrize(
    "failure",
    [
        ConnectionResetError(),
        asyncpg.exceptions.InternalClientError(
            "cannot switch to state 12; another operation (2) is in progress"
        ),
    ],
)
def test_a_connection_that_breaks_mid_page_is_a_database_failure(failure):
    """What asyncpg raises when PostgreSQL crashes under a query is answered 503, not 500."""
    database = db.Database("postgres://unused", min_size=0, max_size=1, ping="never")
    database._pool = OnePool()

    async def page() -> None:
        async with database.connection():
            raise failure

    with pytest.raises(db.DatabaseUnavailable):
        asyncio.run(page())
