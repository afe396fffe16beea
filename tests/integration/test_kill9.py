"""kill -9 of the service during concurrent issuance: after a restart no gap, no duplicate, no half-written
receipt, and a retry with the same Idempotency-Key gets its receipt (or a fresh issue) at once, not after
the 120 s an abandoned in-progress claim used to block it."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from portal.service.cfe.signing import verify_signature
from portal.service.comprobante.models import IssuedCfe
from portal.service.platform.idempotency import STALE_AFTER
from portal.service.platform.models import Certificate, IdempotencyRecord
from tests.support import cfe_bodies as bodies
from tests.support.processes import wait_until

# Timing-sensitive (latency bounds, kill -9 of real processes): run alone, after the parallel suite (Makefile).
pytestmark = pytest.mark.serial

EMITIR = "/api/v1/comprobante/emitir"
CLIENTS = 12


def test_retries_after_kill_9_get_their_receipts_at_once_and_numbering_stays_whole(
    gunicorn_service, service_config, auth_headers
):
    # Two processes on the one SQLite file, as production runs with shared rate limits: the killed ones may hold
    # the writers' turn (db.WriterTurns) and SQLite's lock, and the restarted ones must get both at once.
    service = gunicorn_service(workers=2, threads=8)
    headers = auth_headers("usuario@demo.uy")
    acknowledged: dict[str, dict] = {}
    unanswered: list[str] = []
    killed = threading.Event()

    def client(index: int):
        for n in range(10_000):
            key = f"c{index}-{n}"
            try:
                answer = requests.post(
                    service.url + EMITIR,
                    json=bodies.body(bodies.ETICKET),
                    headers={**headers, "Idempotency-Key": key},
                    timeout=30,
                )
            except (requests.ConnectionError, requests.exceptions.ChunkedEncodingError):
                # Sent, maybe issued, never answered (or the answer cut off mid-body by the kill): the caller must
                # retry it.
                unanswered.append(key)
                return
            assert answer.status_code == 201, answer.text
            acknowledged[key] = answer.json()
            if killed.is_set():
                return

    try:
        with ThreadPoolExecutor(max_workers=CLIENTS) as pool:
            futures = [pool.submit(client, i) for i in range(CLIENTS)]
            # Kill as soon as more receipts were acknowledged than there are clients (every client busy with
            # its next one), not after a fixed time; a client that failed ends the wait and raises below.
            wait_until(
                lambda: len(acknowledged) > CLIENTS or any(f.done() for f in futures),
                "receipts acknowledged before the kill",
                timeout=60,
            )
            service.kill()
            killed.set()
            for future in futures:
                future.result(timeout=60)
        assert len(acknowledged) > CLIENTS and unanswered

        service.start()
        started = time.monotonic()
        retried = {}
        for key in unanswered:
            answer = requests.post(
                service.url + EMITIR,
                json=bodies.body(bodies.ETICKET),
                headers={**headers, "Idempotency-Key": key},
                timeout=30,
            )
            assert answer.status_code == 201, answer.text  # never 409 "in progress" for a dead process's key
            retried[key] = answer.json()
        # Not held up by the dead process's claims: those would block a retry for STALE_AFTER (120 s). A bound in
        # terms of that behaviour, not of this machine's speed (12 receipts take well under a tenth of it).
        assert time.monotonic() - started < STALE_AFTER.total_seconds() / 4
    finally:
        service.stop()

    engine = create_engine(service_config["DATABASE_URL"])
    with Session(engine) as session:
        receipts = session.scalars(select(IssuedCfe).where(IssuedCfe.tipo_cfe == 101)).all()
        keys = {k.key: k for k in session.scalars(select(IdempotencyRecord))}
        cert_pem = session.scalars(select(Certificate.cert_pem)).first().encode()
    engine.dispose()
    numbers = sorted(r.nro for r in receipts)
    assert numbers == list(range(1, len(receipts) + 1))  # no gap, no duplicate
    by_id = {r.id: r for r in receipts}
    for key, receipt in {**acknowledged, **retried}.items():
        assert receipt["idCfeEmitido"] in by_id  # nothing acknowledged was lost
        assert keys[key].state == "done" and keys[key].response_body["idCfeEmitido"] == receipt["idCfeEmitido"]
    # Every stored receipt is whole (signed XML that verifies) and was committed with its key's outcome.
    assert len(keys) == len(receipts)
    assert all(verify_signature(r.xml, cert_pem) for r in receipts)
