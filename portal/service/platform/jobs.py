"""Background work: one huey instance for the whole service, its storage chosen by `CFE_JOBS_URL`.

Why huey: it is a small, maintained job library that runs on SQLite (one machine, no extra server: the
default, inside `make run`) and on Redis (several processes or machines) with the same task code, and it has
retries with delay and periodic tasks built in. We do not write a scheduler of our own.

The database stays the source of truth. A task only *wakes* work whose state is already committed (a receipt
waiting for DGI, an e-mail waiting to be sent), and a periodic sweep picks up whatever a lost wake-up left
behind. So losing the queue loses nothing, and a task may run twice without harm: tasks must be idempotent.

Tasks live in each area's `tasks.py` and are defined with `@huey.task()` / `@huey.periodic_task()` on the
`huey` below. `TASK_MODULES` lists them so the worker (and the service, which enqueues) registers them all.

Storage URLs:
    sqlite:///path/jobs.db   huey's SqliteStorage (default: var/jobs.db)
    redis://host:port/db     huey's RedisStorage, for several processes or machines
    memory://                in-process memory; tasks wait until `run_pending()` runs them (tests)
    immediate://             tasks run at once, in the caller's thread (tests of a single flow)
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask import Flask, current_app, has_app_context
from huey import Huey
from huey.storage import MemoryStorage, RedisStorage, SqliteStorage

from portal.service.platform.areas import area_modules

log = logging.getLogger("portal.service.platform.jobs")

QUEUE_NAME = "cfe"
TASK_MODULES: tuple[str, ...] = ()  # areas append their `portal.service.<area>.tasks` here (see register_tasks)

# Defined once, at import, so that areas can decorate their tasks; `configure()` points it at its storage.
huey = Huey(QUEUE_NAME, storage_class=MemoryStorage, utc=True)

_worker_app: Flask | None = None
_app_factory: Callable[[], Flask] | None = None
_worker_app_lock = threading.Lock()
_configured_url: str | None = None


def storage_for(url: str):
    """The huey storage a `CFE_JOBS_URL` names."""
    if url.startswith("sqlite:///"):
        path = Path(url.removeprefix("sqlite:///"))
        path.parent.mkdir(parents=True, exist_ok=True)
        return SqliteStorage(QUEUE_NAME, filename=str(path))
    if url.startswith(("redis://", "rediss://", "unix://")):
        return RedisStorage(QUEUE_NAME, url=url)
    if url in ("memory://", "immediate://"):
        return MemoryStorage(QUEUE_NAME)
    raise ValueError(f"CFE_JOBS_URL no reconocida: {url!r} (sqlite:///…, redis://…, memory:// o immediate://)")


def configure(url: str) -> None:
    """Point the shared huey instance at the storage `url` names. The same durable URL again changes
    nothing; `memory://` always starts an empty queue (each test app gets its own)."""
    global _configured_url
    if url == _configured_url and not url.endswith("://"):
        return
    huey.immediate = url == "immediate://"
    huey.storage = storage_for(url)
    _configured_url = url


def init_app(app: Flask, factory: Callable[[], Flask]) -> None:
    """Called by the service's create_app: the queue this app enqueues into, every area's tasks, and the
    factory a worker builds its own app with (passed in: the app package imports this module)."""
    global _app_factory
    _app_factory = factory
    configure(app.config["JOBS_URL"])
    register_tasks()


def register_tasks() -> None:
    """Import every area's tasks module so huey knows the tasks by name (enqueuer and worker alike)."""

    area_modules("tasks")
    for name in TASK_MODULES:
        importlib.import_module(name)


def in_app_context(task: Callable[..., Any]) -> Callable[..., Any]:
    """Run a task inside a Flask app context: the caller's (immediate mode, tests) or the worker's own app,
    built once per worker process."""

    def wrapper(*args, **kwargs):
        if has_app_context():
            return task(*args, **kwargs)
        with worker_app().app_context():
            return task(*args, **kwargs)

    wrapper.__name__ = task.__name__
    wrapper.__qualname__ = task.__qualname__
    wrapper.__doc__ = task.__doc__
    wrapper.__module__ = task.__module__
    return wrapper


def worker_app() -> Flask:
    """The service app the worker runs its tasks in (settings from the environment, like the service)."""
    global _worker_app
    with _worker_app_lock:
        if _worker_app is None:
            if _app_factory is None:
                raise RuntimeError("No service app for the task: create_app() (or jobs.use_app) comes first.")
            _worker_app = _app_factory()
        return _worker_app


def use_app(app: Flask) -> None:
    """Run tasks in `app` (tests run a worker against their own database)."""
    global _worker_app
    _worker_app = app


def run_pending(limit: int = 1000) -> int:
    """Run every task waiting in the queue, in this thread (tests with `memory://`). Returns how many ran."""
    ran = 0
    while ran < limit:
        task = huey.dequeue()
        if task is None:
            break
        huey.execute(task)
        ran += 1
    return ran


def enqueue_safely(call: Callable[[], Any], what: str) -> None:
    """Enqueue after a commit without letting a queue failure fail the request: the work is already recorded
    in the database and the periodic sweep will pick it up."""
    try:
        call()
    except Exception:  # any storage error: the sweep is the safety net
        logger = current_app.logger if has_app_context() else log
        logger.warning("could not enqueue %s; the periodic sweep will pick it up", what, exc_info=True)


class Debouncer:
    """At most one scheduled run per key while it waits, in this process: a wake-up that finds a run scheduled
    and not yet started needs none of its own (that run reads the database after the wake-up's commit)."""

    def __init__(self) -> None:
        self._due: dict[Any, float] = {}
        self._lock = threading.Lock()

    def claim(self, key: Any, delay: float) -> bool:
        """True when the caller should schedule the run for `key` in `delay` seconds (none is waiting)."""
        now = time.time()
        with self._lock:
            if self._due.get(key, 0.0) > now:
                return False
            self._due[key] = now + delay
            return True

    def clear(self) -> None:
        with self._lock:
            self._due.clear()
