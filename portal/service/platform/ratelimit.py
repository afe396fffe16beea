"""Shared rate-limit machinery (the `limits` package): one storage per process, chosen by URL.

`memory://` serves a single process; `redis://host:port/db` makes every process of the service count
against the same windows, which is what keeps a limit true when the API runs as several workers.
"""

from __future__ import annotations

from flask import Flask, current_app
from limits.storage import storage_from_string
from limits.strategies import MovingWindowRateLimiter


def init_app(app: Flask) -> None:
    storage = storage_from_string(app.config["RATELIMIT_STORAGE_URL"])
    app.extensions["ratelimit_storage"] = storage
    app.extensions["ratelimiter"] = MovingWindowRateLimiter(storage)


def limiter() -> MovingWindowRateLimiter:
    return current_app.extensions["ratelimiter"]
