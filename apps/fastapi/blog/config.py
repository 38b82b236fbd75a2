"""The environment every blogbench app reads (docs/spec.md §1), parsed as
go-shared/workload/config.go and the Rust workload crate parse it."""

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

DEFAULT_DATABASE_URL = "postgres://blogbench:blogbench@127.0.0.1:5432/blogbench?sslmode=disable"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
DEFAULT_BIND = "127.0.0.1:8080"

PingOnAcquire = Literal["always", "idle", "never"]

# A u32 as Rust's str::parse reads it: ASCII digits after an optional "+".
_UNSIGNED = re.compile(r"\+?[0-9]+")
_U32_MAX = 2**32 - 1


class ConfigError(ValueError):
    """A variable whose value is not what it must be; the message names it."""


@dataclass(frozen=True, slots=True)
class Settings:
    database_url: str
    redis_url: str
    host: str
    port: int
    workers: int
    pool_max: int
    pool_min: int
    ping_on_acquire: PingOnAcquire

    def pool_share(self) -> tuple[int, int]:
        """The (min, max) pool size of each worker process: POOL_MIN and POOL_MAX divided by
        WORKERS, rounded down (a process cannot tell which worker it is, so the remainder
        stays unused), with at least one connection each."""
        most = max(1, self.pool_max // self.workers)
        return min(self.pool_min // self.workers, most), most


def from_env(environ: Mapping[str, str] = os.environ) -> Settings:
    """The settings in environ; a variable that is set, even to "", is a value."""
    ping = environ.get("PING_ON_ACQUIRE", "idle")
    if ping not in ("always", "idle", "never"):
        raise ConfigError(f"PING_ON_ACQUIRE must be always, idle or never, got {ping!r}")
    host, port = _bind(environ.get("BIND", DEFAULT_BIND))
    # The URLs' schemes are checked here, so that a wrong one stops the app at start-up, as
    # in Go; asyncpg reads an empty DSN as libpq's defaults, as pgx does.
    database_url = environ.get("DATABASE_URL", DEFAULT_DATABASE_URL)
    if database_url and urlsplit(database_url).scheme not in ("postgres", "postgresql"):
        raise ConfigError("DATABASE_URL must be a postgres:// or postgresql:// URL")
    redis_url = environ.get("REDIS_URL", DEFAULT_REDIS_URL)
    if urlsplit(redis_url).scheme not in ("redis", "rediss", "unix"):
        raise ConfigError("REDIS_URL must be a redis://, rediss:// or unix:// URL")
    settings = Settings(
        database_url=database_url,
        redis_url=redis_url,
        host=host,
        port=port,
        workers=_positive(environ, "WORKERS", 4),
        pool_max=_positive(environ, "POOL_MAX", 16),
        pool_min=_positive(environ, "POOL_MIN", 4),
        ping_on_acquire=ping,
    )
    if settings.pool_min > settings.pool_max:
        raise ConfigError(
            f"POOL_MIN ({settings.pool_min}) must not exceed POOL_MAX ({settings.pool_max})"
        )
    return settings


def _positive(environ: Mapping[str, str], name: str, default: int) -> int:
    """The variable as an integer from 1 to 2^32 - 1, or default when it is not set."""
    value = environ.get(name)
    if value is None:
        return default
    if _UNSIGNED.fullmatch(value) and 0 < int(value) <= _U32_MAX:
        return int(value)
    raise ConfigError(f"{name} must be a positive integer, got {value!r}")


def _bind(bind: str) -> tuple[str, int]:
    """host:port, the host maybe a bracketed IPv6 address."""
    host, colon, port = bind.rpartition(":")
    if not colon or not port.isascii() or not port.isdigit() or int(port) > 65535:
        raise ConfigError(f"BIND must be host:port, got {bind!r}")
    return host.removeprefix("[").removesuffix("]"), int(port)
