"""The background job machinery: huey's storage chosen by URL, tasks run in the app's context."""

from __future__ import annotations

import pytest
from flask import Flask, current_app
from huey.storage import MemoryStorage, RedisStorage, SqliteStorage

from portal.service.platform import jobs

seen: list[tuple[str, int]] = []


@jobs.huey.task(name="tests.record_app_name")
@jobs.in_app_context
def record_app_name(value: int) -> None:
    seen.append((current_app.name, value))


@pytest.fixture
def memory_queue():
    jobs.configure("memory://")
    seen.clear()
    yield
    jobs.configure("memory://")


def test_storage_is_chosen_by_url(tmp_path):
    assert isinstance(jobs.storage_for(f"sqlite:///{tmp_path}/q.db"), SqliteStorage)
    assert isinstance(jobs.storage_for("redis://127.0.0.1:6399/0"), RedisStorage)
    assert isinstance(jobs.storage_for("memory://"), MemoryStorage)
    with pytest.raises(ValueError, match="CFE_JOBS_URL"):
        jobs.storage_for("ftp://nowhere")


def test_enqueued_task_waits_then_runs_in_the_worker_app(memory_queue):
    worker = Flask("the-worker-app")
    jobs.use_app(worker)
    record_app_name(7)
    assert seen == []  # enqueued, not run
    assert jobs.run_pending() == 1
    assert seen == [("the-worker-app", 7)]
    assert jobs.run_pending() == 0


def test_sqlite_queue_survives_the_process_that_enqueued(tmp_path, memory_queue):
    url = f"sqlite:///{tmp_path}/jobs.db"
    jobs.configure(url)
    record_app_name(3)
    # Another process opening the same file (a new storage object) finds the task.
    other = jobs.storage_for(url)
    assert other.queue_size() == 1


def test_a_failing_enqueue_does_not_fail_the_caller(caplog):
    def broken():
        raise ConnectionError("redis down")

    jobs.enqueue_safely(broken, "a wake-up")
    assert "periodic sweep" in caplog.text


def test_every_areas_startup_hook_runs_when_a_worker_starts():
    # huey keeps one startup hook per name; two areas' hooks of the same function name (envios' and recibidos'
    # `_sweep_on_start`) left one of them unregistered, and a restarted worker left DGI's work for a minute.
    import importlib
    import pkgutil
    from pathlib import Path

    import portal.service

    declaring = set()
    for area in pkgutil.iter_modules(portal.service.__path__):
        spec = importlib.util.find_spec(f"portal.service.{area.name}.tasks") if area.ispkg else None
        if spec is not None and "huey.on_startup" in Path(spec.origin).read_text(encoding="utf-8"):
            declaring.add(importlib.import_module(spec.name).__name__)
    registered = {hook.__module__ for hook in jobs.huey._startup.values()}
    assert {"portal.service.envios.tasks", "portal.service.recibidos.tasks"} <= declaring
    assert declaring <= registered
