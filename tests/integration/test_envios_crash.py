"""Killing the worker or the service with SIGKILL mid-envelope loses nothing and sends nothing twice.

Real processes on a real SQLite database and a real huey SQLite queue: the service (werkzeug) issues, the
worker (`python -m portal.service worker`) packs, sends to the embedded DGI simulator and fetches answers.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import requests
from sqlalchemy import create_engine, text

from tests.conftest import mint_token
from tests.support import cfe_bodies as bodies

# Runs with the parallel suite: it kills only processes it started (by pid), on its own database and queue, and
# asserts what was lost or done twice, never how long anything took; its waits are generous caps. Alone, in
# make test's serial phase, it mostly waited (leases, process starts) while the machine idled.

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def setup(service_config, service_app, tmp_path):
    env = {
        **os.environ,
        "CFE_DATABASE_URL": service_config["DATABASE_URL"],
        "CFE_JOBS_URL": f"sqlite:///{tmp_path / 'jobs.db'}",
        "CFE_ENVIOS_SEND_LEASE_SECONDS": "2",
        "CFE_DGI_SIMULATOR_ANSWER_SECONDS": "1",
        "PYTHONPATH": str(ROOT),
    }
    processes: list[subprocess.Popen] = []

    def start(*args: str) -> subprocess.Popen:
        process = subprocess.Popen(
            [sys.executable, "-m", "portal.service", *args],
            env=env,
            cwd=ROOT,  # noqa: S603
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        processes.append(process)
        return process

    engine = create_engine(service_config["DATABASE_URL"])
    yield start, engine, mint_token(service_app, "usuario@demo.uy")
    for process in processes:
        if process.poll() is None:
            process.kill()
            process.wait()
    engine.dispose()


def _scalar(engine, sql: str):
    with engine.connect() as connection:
        return connection.execute(text(sql)).scalar()


def _wait(condition, timeout: float, what: str, step: float = 0.02):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(step)
    raise AssertionError(f"timed out waiting for {what}")


def _kill(process: subprocess.Popen) -> None:
    os.kill(process.pid, signal.SIGKILL)
    process.wait()


def test_kill_9_of_service_and_worker_mid_envelope_loses_nothing_and_sends_nothing_twice(setup):
    start, engine, token = setup
    port = _free_port()
    service = start("serve", "--port", str(port))
    url = f"http://127.0.0.1:{port}/api/v1/comprobante/emitir"
    _wait(lambda: _ping(port), 60, "the service")

    def issue(_):
        try:
            return requests.post(
                url, json=bodies.body(bodies.EFACTURA), timeout=30, headers={"Authorization": f"Bearer {token}"}
            ).status_code
        except requests.RequestException:
            return None

    # The service dies while receipts are being issued: whatever it committed must still reach DGI.
    with ThreadPoolExecutor(4) as pool:
        futures = [pool.submit(issue, n) for n in range(40)]
        _wait(lambda: (_scalar(engine, "SELECT count(*) FROM cfe_emitido") or 0) >= 15, 60, "some receipts")
        _kill(service)
    statuses = [f.result() for f in futures]
    assert statuses.count(201) >= 10 and None in statuses  # some were cut off by the kill
    issued = _scalar(engine, "SELECT count(*) FROM cfe_emitido")
    assert _scalar(engine, "SELECT count(*) FROM dgi_envio_cfe") == issued  # recorded with each receipt

    # The worker dies as soon as an envelope is recorded and not yet acknowledged ...
    worker = start("worker")
    _wait(lambda: _scalar(engine, "SELECT count(*) FROM dgi_sobre WHERE state = 'armado'"), 90, "an envelope")
    _kill(worker)
    # ... and again while it waits for DGI's answers.
    worker = start("worker")
    _wait(lambda: _scalar(engine, "SELECT count(*) FROM dgi_sobre WHERE state = 'recibido'"), 90, "an AS")
    _kill(worker)

    start("worker")
    _wait(
        lambda: _scalar(engine, "SELECT count(*) FROM dgi_envio_cfe WHERE state = 'aceptado'") == issued,
        180,
        "every receipt accepted",
        step=0.5,
    )
    # Each receipt went in exactly one envelope, DGI (the simulator) saw each receipt once and each envelope
    # number once, and no answer speaks of a duplicate.
    assert _scalar(engine, "SELECT count(*) FROM dgisim_cfe") == issued
    assert _scalar(engine, "SELECT count(DISTINCT cfe_id) FROM dgi_envio_cfe WHERE envelope_id IS NOT NULL") == issued
    assert _scalar(engine, "SELECT count(*) FROM dgisim_sobre") == _scalar(engine, "SELECT count(*) FROM dgi_sobre")
    assert _scalar(engine, "SELECT sum(cfe_count) FROM dgi_sobre") == issued
    assert not _scalar(engine, "SELECT count(*) FROM dgi_envio_cfe WHERE motives LIKE '%E02%' OR motives LIKE '%S08%'")
    assert not _scalar(engine, "SELECT count(*) FROM dgi_sobre WHERE state <> 'respondido'")


def _ping(port: int) -> bool:
    try:
        return requests.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200
    except requests.RequestException:
        return False
