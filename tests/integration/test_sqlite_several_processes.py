"""Two service processes on one SQLite file issue side by side: every issue answered 201, numbering gapless.

Their writers take turns in the kernel's queue (db.WriterTurns) before SQLite's own lock. This checks that the
two processes issue correctly together; how a turn waits and ends is tests/unit/test_writer_turns.py's, and the
throughput docs/PERFORMANCE.md's (the busy handler used before also passed this test at 16 connections; it
failed writers with 503 only under heavier load).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import requests
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from portal.service.comprobante.models import IssuedCfe
from tests.support import cfe_bodies as bodies

EMITIR = "/api/v1/comprobante/emitir"
CLIENTS, EACH = 16, 6


def test_two_processes_on_one_sqlite_file_issue_gaplessly_without_busy_answers(
    gunicorn_service, service_config, auth_headers
):
    service = gunicorn_service(workers=2, threads=8)
    headers = auth_headers("usuario@demo.uy")

    def client(index: int) -> list[requests.Response]:
        with requests.Session() as http:
            return [
                http.post(
                    service.url + EMITIR,
                    json=bodies.body(bodies.ETICKET),
                    headers={**headers, "Idempotency-Key": f"p{index}-{n}"},
                    timeout=30,
                )
                for n in range(EACH)
            ]

    with ThreadPoolExecutor(max_workers=CLIENTS) as pool:
        answers = [answer for answers in pool.map(client, range(CLIENTS)) for answer in answers]

    assert [a.status_code for a in answers] == [201] * CLIENTS * EACH, {a.status_code: a.text for a in answers}
    engine = create_engine(service_config["DATABASE_URL"])
    with Session(engine) as session:
        numbers = sorted(session.scalars(select(IssuedCfe.nro).where(IssuedCfe.tipo_cfe == 101)))
    engine.dispose()
    assert numbers == list(range(1, CLIENTS * EACH + 1))
    assert sorted(a.json()["nro"] for a in answers) == numbers
