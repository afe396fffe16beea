"""Killing the worker with SIGKILL while it delivers an exchange envelope loses nothing and never builds a second
envelope: the next worker (its start-up sweep) delivers the same bytes once the dead sender's lease has run out.

Real processes on a real SQLite database and a real huey SQLite queue; the worker's transport seam is replaced
by tests/support/exchange_worker/sitecustomize.py (the real transport comes from the receiving side's work)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from sqlalchemy import create_engine

from tests.integration.test_envios_crash import _scalar, _wait
from tests.support.cfe_bodies import issue
from tests.support.exchange import to_norte

# Runs with the parallel suite: it kills only processes it started (by pid), on its own database and queue, and
# asserts what was lost or done twice, never how long anything took; its waits are generous caps. Alone, in
# make test's serial phase, it mostly waited (leases, process starts) while the machine idled.

ROOT = Path(__file__).resolve().parents[2]


def test_kill_9_mid_delivery_resends_the_same_envelope_once(service_config, service_app, auth_headers, tmp_path):
    deliveries, hold = tmp_path / "deliveries.log", tmp_path / "hold"
    env = {
        **os.environ,
        "CFE_DATABASE_URL": service_config["DATABASE_URL"],
        "CFE_JOBS_URL": f"sqlite:///{tmp_path / 'jobs.db'}",
        "CFE_INTERCAMBIO_SEND_LEASE_SECONDS": "2",
        "CFE_DGI_SIMULATOR_ANSWER_SECONDS": "0",
        "PYTHONPATH": os.pathsep.join((str(ROOT / "tests/support/exchange_worker"), str(ROOT))),
        "CFE_TEST_DELIVERIES": str(deliveries),
        "CFE_TEST_HOLD": str(hold),
    }
    # Issued in this process: its wake-ups go to this app's in-memory queue and are lost, as after a crash of
    # the service right after its commit; the workers find the work in the database.
    user = auth_headers("usuario@demo.uy")
    client = service_app.test_client()
    ids = {issue(client, user, to_norte())["idCfeEmitido"], issue(client, user, to_norte(adenda=None))["idCfeEmitido"]}
    engine = create_engine(service_config["DATABASE_URL"])
    processes: list[subprocess.Popen] = []

    def worker() -> subprocess.Popen:
        process = subprocess.Popen(  # noqa: S603
            [sys.executable, "-m", "portal.service", "worker"],
            env=env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        processes.append(process)
        return process

    try:
        hold.touch()
        first = worker()
        _wait(lambda: deliveries.exists() and deliveries.read_text().strip(), 120, "the first delivery", 0.05)
        os.kill(first.pid, signal.SIGKILL)
        first.wait()
        assert _scalar(engine, "SELECT state FROM intercambio_sobre") == "armado"  # taken, not delivered
        hold.unlink()
        worker()
        _wait(
            lambda: _scalar(engine, "SELECT count(*) FROM intercambio_sobre WHERE state = 'entregado'"),
            120,
            "the envelope delivered",
            0.2,
        )
        lines = deliveries.read_text().split("\n")
        attempts = [line.split() for line in lines if line]
        assert len(attempts) == 2 and attempts[0] == attempts[1]  # the same envelope, byte for byte, twice
        assert _scalar(engine, "SELECT count(*) FROM intercambio_sobre") == 1
        assert _scalar(engine, "SELECT sum(cfe_count) FROM intercambio_sobre") == len(ids)
        states = _scalar(engine, "SELECT group_concat(DISTINCT state) FROM intercambio_cfe")
        assert states == "enviado"
        time.sleep(3)  # a late retry or sweep would show up as a third delivery
        assert len([line for line in deliveries.read_text().split("\n") if line]) == 2
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
        engine.dispose()
