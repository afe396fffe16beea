"""kill -9 of the real worker process between receiving an envelope and answering it: the answers recorded
with the envelope are delivered after a restart, each once, ACKSobre before ACKCFE.

Real processes on a real SQLite database and huey SQLite queue: the envelope is received (committed) here,
`python -m portal.service worker` delivers the answers by mail to a local SMTP server that holds the first
message until the worker has been killed mid-delivery (before the server accepted it)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from sqlalchemy import create_engine, text

from portal.service import create_app
from portal.service.recibidos import tasks
from tests.support import recibidos as sup
from tests.support.smtp import LocalSmtp, RecordingHandler

# Runs with the parallel suite: it kills only processes it started (by pid), on its own database and queue, and
# asserts what was lost or done twice, never how long anything took; its waits are generous caps. Alone, in
# make test's serial phase, it mostly waited (leases, process starts) while the machine idled.

ROOT = Path(__file__).resolve().parents[2]


class HoldingHandler(RecordingHandler):
    """Holds the first message's DATA until released, then refuses it (its sender is dead by then)."""

    def __init__(self) -> None:
        super().__init__()
        self.holding = threading.Event()
        self.release = threading.Event()

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 (aiosmtpd names)
        if not self.holding.is_set():
            self.holding.set()
            while not self.release.is_set():
                await asyncio.sleep(0.05)
            return "421 4.3.0 closing"
        return await super().handle_DATA(server, session, envelope)


def _scalar(engine, sql: str):
    with engine.connect() as connection:
        return connection.execute(text(sql)).scalar()


def _wait(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_kill_9_of_the_worker_mid_answer_loses_nothing_and_answers_once(service_config, tmp_path):
    handler = HoldingHandler()
    smtp = LocalSmtp(handler)
    smtp.start()
    jobs_url = f"sqlite:///{tmp_path / 'jobs.db'}"
    env = {
        **os.environ,
        "CFE_DATABASE_URL": service_config["DATABASE_URL"],
        "CFE_JOBS_URL": jobs_url,
        "CFE_SMTP_URL": smtp.url,
        "CFE_RECIBIDOS_ANSWER_LEASE_SECONDS": "2",
        "PYTHONPATH": str(ROOT),
    }
    app = create_app({**service_config, "JOBS_URL": jobs_url, "SMTP_URL": smtp.url})
    engine = create_engine(service_config["DATABASE_URL"])
    workers: list[subprocess.Popen] = []

    def start_worker() -> subprocess.Popen:
        process = subprocess.Popen(  # noqa: S603
            [sys.executable, "-m", "portal.service", "worker", "--workers", "1"],
            env=env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        workers.append(process)
        return process

    try:
        with app.app_context():
            result = tasks.receive_and_answer(
                1, sup.envelope([sup.cfe(1), sup.cfe(2)]), "correo", reply_to="intercambio@norte.com.uy"
            )
        assert result.estado == "AS"
        worker = start_worker()
        _wait(handler.holding.is_set, 60, "the first answer reaching the SMTP server")
        assert _scalar(engine, "SELECT state FROM recibidos_respuesta ORDER BY id LIMIT 1") == "enviando"
        os.kill(worker.pid, signal.SIGKILL)
        worker.wait()
        handler.release.set()
        assert handler.received == []  # nothing was accepted from the dead worker

        start_worker()
        _wait(
            lambda: _scalar(engine, "SELECT count(*) FROM recibidos_respuesta WHERE state = 'enviado'") == 2,
            90,
            "both answers delivered",
        )
        time.sleep(1)  # a second delivery, if any, would arrive now
    finally:
        for process in workers:
            if process.poll() is None:
                process.kill()
                process.wait()
        smtp.stop()
        app.extensions["db_engine"].dispose()
    names = [next(m.message.iter_attachments()).get_filename().split("_")[0] for m in handler.received]
    assert names == ["ACKSobre", "ACKCFE"]  # each once, in order
    assert _scalar(engine, "SELECT count(*) FROM recibidos_sobre") == 1
    assert _scalar(engine, "SELECT count(*) FROM recibidos_cfe") == 2
    assert _scalar(engine, "SELECT max(attempts) FROM recibidos_respuesta") == 2  # the killed attempt, then one more
    engine.dispose()
