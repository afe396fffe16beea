"""Each API key's rate limit: a moving window in the `limits` storage, and the IETF headers that report it.

The window is keyed by the key's id alone, not by its limit: a changed limit applies from the next request to
the requests already counted. Lowering it cuts a runaway key off within the same window; raising it gives
only the difference (a key at 5 that used its 5, raised to 10, gets 5 more). With Redis as the storage every
process counts in the same window.

Headers (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy: "default";q=600;w=60` and
`RateLimit: "default";r=<remaining>;t=<seconds until the oldest request leaves the window>`, on every
response to a request made with an API key; `Retry-After` too on a 429.

If the storage fails (Redis down), requests go through without a limit (fail open) and a warning is
logged once per outage; the storage is not asked again for a few seconds. Why open: the limit shares
the service fairly, it is not what keeps anyone out (keys are 256-bit secrets, revocation lives in the
database), and issuing receipts must not stop because the counter's store did. Give Redis short
timeouts in its URL (`redis://host:6379/0?socket_timeout=0.25&socket_connect_timeout=0.25`) so that a
hung Redis costs a quarter of a second, once, rather than a stuck request.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime

from flask import Flask, current_app, g
from limits import RateLimitItemPerSecond
from limits.errors import StorageError
from redis.exceptions import RedisError

from portal.service.apikeys.models import ApiKey
from portal.service.platform import ratelimit
from portal.service.platform.errors import ApiError
from portal.service.platform.i18n import _

log = logging.getLogger("portal.service.apikeys")

NAMESPACE = "apikey"
POLICY = "default"
STORAGE_ERRORS = (StorageError, RedisError, OSError)
# After a storage failure, how long this process stops asking it (so an outage costs one timeout, not one
# per request).
RETRY_STORAGE_AFTER_SECONDS = 5.0


@dataclass(frozen=True)
class WindowUsage:
    limit: int
    window_seconds: int
    remaining: int
    reset_at: float  # epoch seconds when the oldest request counted leaves the window

    @property
    def used(self) -> int:
        return self.limit - self.remaining

    def reset_in(self, now: float | None = None) -> int:
        if self.used == 0:
            return 0
        return max(math.ceil(self.reset_at - (now or time.time())), 0)

    def reset_datetime(self) -> datetime:
        return datetime.fromtimestamp(self.reset_at if self.used else time.time(), UTC)

    def headers(self) -> dict[str, str]:
        return {
            "RateLimit-Policy": f'"{POLICY}";q={self.limit};w={self.window_seconds}',
            "RateLimit": f'"{POLICY}";r={self.remaining};t={self.reset_in()}',
        }


class _Breaker:
    """Remembers, per process, that the storage failed a moment ago."""

    def __init__(self):
        self._lock = threading.Lock()
        self._down_until = 0.0

    def open(self) -> bool:
        return time.monotonic() < self._down_until

    def trip(self, exc: Exception) -> None:
        with self._lock:
            first = self._down_until == 0.0
            self._down_until = time.monotonic() + RETRY_STORAGE_AFTER_SECONDS
        if first:
            log.warning("rate-limit storage unavailable, API key limits not enforced (fail open): %r", exc)

    def reset(self) -> None:
        if not self._down_until:  # the usual case: no lock taken per request
            return
        with self._lock:
            if self._down_until:
                log.warning("rate-limit storage reachable again, API key limits enforced")
            self._down_until = 0.0


def _breaker() -> _Breaker:
    return current_app.extensions["apikey_limit_breaker"]


class _KeyWindow(RateLimitItemPerSecond):
    """A limit whose storage key names only the API key: `limits` puts the amount and the window length in the
    key, so a changed limit would count in an empty window. The moving window compares the requests already
    counted with whatever the current amount and length are."""

    def key_for(self, *identifiers: str | int | float | bytes) -> str:
        return "/".join([self.namespace, *(str(part) for part in identifiers)])


def _item(limit: int, window_seconds: int) -> RateLimitItemPerSecond:
    return _KeyWindow(limit, window_seconds, namespace=NAMESPACE)


def _guarded(call):
    breaker = _breaker()
    if breaker.open():
        return None
    try:
        result = call()
    except STORAGE_ERRORS as exc:
        breaker.trip(exc)
        return None
    breaker.reset()
    return result


def usage(key: ApiKey) -> WindowUsage | None:
    """The key's current window, or None when the storage cannot say."""
    item = _item(key.rate_limit, key.rate_window_seconds)
    stats = _guarded(lambda: ratelimit.limiter().get_window_stats(item, key.public_id))
    if stats is None:
        return None
    return WindowUsage(key.rate_limit, key.rate_window_seconds, max(stats.remaining, 0), stats.reset_time)


def consume(key: ApiKey) -> None:
    """Count one request of `key`; 429 when over its limit. The headers go out with the response."""
    item = _item(key.rate_limit, key.rate_window_seconds)

    def hit_and_measure():
        allowed = ratelimit.limiter().hit(item, key.public_id)
        stats = ratelimit.limiter().get_window_stats(item, key.public_id)
        return allowed, stats

    outcome = _guarded(hit_and_measure)
    if outcome is None:
        return
    allowed, stats = outcome
    window = WindowUsage(key.rate_limit, key.rate_window_seconds, max(stats.remaining, 0), stats.reset_time)
    g.apikey_ratelimit_headers = window.headers()
    if not allowed:
        retry_after = max(window.reset_in(), 1)
        raise ApiError(
            _(
                "Se superó el límite de la clave de API ({limit} solicitudes cada {window} s). Reintentá en {wait} s.",
                limit=key.rate_limit,
                window=key.rate_window_seconds,
                wait=retry_after,
            ),
            code="rate_limited",
            status=429,
            headers={"Retry-After": str(retry_after)},
        )


def init_app(app: Flask) -> None:
    app.extensions["apikey_limit_breaker"] = _Breaker()

    @app.after_request
    def _ratelimit_headers(response):
        for name, value in (g.get("apikey_ratelimit_headers") or {}).items():
            response.headers.setdefault(name, value)
        return response
