"""Starts the blog, `python -m blog`, with the environment of docs/spec.md §1: uvicorn on uvloop
and httptools, in production settings (no reload, no access log, warnings and errors only)."""

import sys
from copy import deepcopy

import uvicorn
from uvicorn.config import LOGGING_CONFIG

from . import config

# uvicorn's logging, with the app's loggers (and asyncpg's) printed by its handler too: each
# worker process applies it as it starts.
LOGGING = deepcopy(LOGGING_CONFIG) | {"root": {"handlers": ["default"], "level": "WARNING"}}


def main() -> None:
    try:
        settings = config.from_env()
    except config.ConfigError as error:
        sys.exit(f"blog: {error}")
    # WORKERS processes share the listening socket; with WORKERS=1 uvicorn serves in this
    # process, with no supervisor. SIGTERM and Ctrl-C stop it: requests in flight get 10 s.
    uvicorn.run(
        "blog.main:app",
        host=settings.host,
        port=settings.port,
        workers=settings.workers,
        loop="uvloop",
        http="httptools",
        lifespan="on",
        log_config=LOGGING,
        log_level="warning",
        access_log=False,
        # uvicorn has no request-header timeout; this is the nearest limit it has: a kept-alive
        # connection that starts no new request within 10 s is closed.
        timeout_keep_alive=10,
        timeout_graceful_shutdown=10,
    )


if __name__ == "__main__":
    main()
