"""What issuing reads for every receipt but rarely changes, kept per process: the issuer (the company, its
settings and branch), its printed settings and signing certificate, the UI of a year.

A company's entries are kept until the company changes (`company_generation`): triggers bump
`company.cache_generation` in the transaction of any change of the company, its settings, branches or
certificates (migration 0290: the API, the operator's commands and hand-written SQL alike), and each issue
reads that number once (one primary-key SELECT) and uses an entry only if it was loaded under the same number.
So a change made through any process is used by the next receipt of every process, and a process issuing
slowly for many companies (each company's receipts shared among several processes) does not reload them: a
lifetime of 2 s made nearly every receipt reload its company at 50 companies over 2 processes, and that
reloading is what made a receipt cost more with two processes than with one (docs/PERFORMANCE.md, target 3).

Entries that belong to no company (the UI of a year, the companies listening to webhooks) are read again once
they are `READ_CACHE_SECONDS` old (`CFE_READ_CACHE_SECONDS`, default 2; 0 turns the cache off, company entries
included), so a value written through another process is used everywhere within that bound. CAE ranges are
not cached: numbering reads and locks them in the issuing transaction.

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

from flask import current_app, g
from sqlalchemy import bindparam, event, select
from sqlalchemy.orm import Session

from portal.service.platform import db
from portal.service.platform.models import Company

T = TypeVar("T")

DEFAULT_SECONDS = 2.0
MAX_ENTRIES = 10_000  # a few per company; past this the cache starts over rather than grow without bound
_DIRTY = "readcache_dirty"

_caches: weakref.WeakSet[ReadCache] = weakref.WeakSet()
_watched: tuple[type, ...] = ()


class ReadCache:
    """Values by key, each kept while the generation it was loaded under is current, or, loaded without one,
    `seconds` after it was loaded."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self._entries: dict[Hashable, tuple[float, int | None, object]] = {}
        self._lock = threading.Lock()
        _caches.add(self)

    def get(self, key: Hashable, load: Callable[[], T], generation: int | None = None) -> T:
        """The value under `key`, from `load()` when missing, loaded under another `generation`, or (without
        one) too old. `generation` must be read before `load` runs, so what it loads is at least that new. An
        exception from `load` is not kept."""
        now = time.monotonic()
        entry = self._entries.get(key)
        if entry is not None and (entry[1] == generation if generation is not None else entry[0] > now):
            return cast(T, entry[2])  # stored by this method for this key: load's T
        value = load()
        if self.seconds > 0:
            with self._lock:
                if len(self._entries) >= MAX_ENTRIES:
                    self._entries.clear()
                self._entries[key] = (now + self.seconds, generation, value)
        return value

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


def get(key: Hashable, load: Callable[[], T]) -> T:
    """`key`'s value in the current app's cache, kept READ_CACHE_SECONDS (see ReadCache.get)."""
    return current_app.extensions["read_cache"].get(key, load)


_GENERATION = select(Company.cache_generation).where(Company.id == bindparam("company_id"))


def company_generation(company_id: int) -> int | None:
    """The company's `cache_generation` now, read once per request (None: no such company)."""
    known: dict[int, int | None] = g.setdefault("cache_generations", {})
    if company_id not in known:
        known[company_id] = db.session().connection().execute(_GENERATION, {"company_id": company_id}).scalar()
    return known[company_id]


def get_for_company(company_id: int, key: Hashable, load: Callable[[], T]) -> T:
    """`key`'s value for the company in the current app's cache, kept until the company changes: loaded again
    by the first request that reads a newer `company_generation` (see the module's text)."""
    generation = company_generation(company_id)
    if generation is None:  # no such company: whatever load answers (an error, most likely) is not kept
        return load()
    return current_app.extensions["read_cache"].get(key, load, generation)


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
