"""What issuing reads for every receipt but rarely changes, kept per process for a moment: the issuer (the
company, its settings and branch), the UI of a year, the company's signing certificate.

Correct across processes by a short lifetime: an entry is read again from the database once it is
`READ_CACHE_SECONDS` old (`CFE_READ_CACHE_SECONDS`, default 2; 0 turns the cache off), so a settings change, a
branch, a certificate upload or a UI value written through another process (another gunicorn worker, the
operator's `ui-value` command) is used by every process within that bound. A lifetime rather than a version
counter: a counter is one more read per receipt (what this saves) and a column every writer must bump,
including the operator command and hand-written SQL; the lifetime needs nothing of the writers, and two
seconds is far inside "within seconds". CAE ranges are not cached: numbering reads and locks them in the
issuing transaction.

Within this process a commit that changes one of the tables behind these entries empties every cache at once
(SQLAlchemy's after_flush/after_commit events), so a change made through this process, API or test, is used
from its next receipt (a receipt reading the old row at that very moment may keep it, for the lifetime at
most).
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable, Hashable
from typing import TypeVar, cast

from flask import current_app
from sqlalchemy import event
from sqlalchemy.orm import Session

T = TypeVar("T")

DEFAULT_SECONDS = 2.0
MAX_ENTRIES = 10_000  # a few per company; past this the cache starts over rather than grow without bound
_DIRTY = "readcache_dirty"

_caches: weakref.WeakSet[ReadCache] = weakref.WeakSet()
_watched: tuple[type, ...] = ()


class ReadCache:
    """Values by key, each kept `seconds` after it was loaded."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self._entries: dict[Hashable, tuple[float, object]] = {}
        self._lock = threading.Lock()
        _caches.add(self)

    def get(self, key: Hashable, load: Callable[[], T]) -> T:
        """The value under `key`, from `load()` when missing or too old. An exception from `load` is not kept."""
        now = time.monotonic()
        entry = self._entries.get(key)
        if entry is not None and entry[0] > now:
            return cast(T, entry[1])  # stored by this method for this key: load's T
        value = load()
        if self.seconds > 0:
            with self._lock:
                if len(self._entries) >= MAX_ENTRIES:
                    self._entries.clear()
                self._entries[key] = (now + self.seconds, value)
        return value

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


def get(key: Hashable, load: Callable[[], T]) -> T:
    """`key`'s value in the current app's cache (see ReadCache.get)."""
    return current_app.extensions["read_cache"].get(key, load)


def init_app(app) -> None:
    app.extensions["read_cache"] = ReadCache(float(app.config.get("READ_CACHE_SECONDS", DEFAULT_SECONDS)))


def watch(*models: type) -> None:
    """A commit in this process that adds, changes or deletes an instance of one of `models` empties every
    cache of the process: callers name the tables behind what they cache."""
    global _watched
    _watched = tuple(dict.fromkeys((*_watched, *models)))


@event.listens_for(Session, "after_flush")
def _note_watched_changes(session: Session, _context) -> None:
    if _watched and not session.info.get(_DIRTY):
        changed = (session.new, session.dirty, session.deleted)
        if any(isinstance(obj, _watched) for objects in changed for obj in objects):
            session.info[_DIRTY] = True


@event.listens_for(Session, "after_commit")
def _clear_after_watched_commit(session: Session) -> None:
    if session.info.pop(_DIRTY, False):
        for cache in list(_caches):
            cache.clear()
