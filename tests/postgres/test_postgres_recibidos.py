"""Received envelopes on PostgreSQL: intake, duplicates decided by what is stored (E02, S20), the list with its
cursor and totals, and the answers' lease."""

from __future__ import annotations

import io
import threading
import time

from alembic import command
from sqlalchemy import create_engine, select
from sqlalchemy.pool import NullPool

from portal.service.cfe import xmlsafe
from portal.service.migrations import alembic_config
from portal.service.platform import db, jobs
from portal.service.recibidos import intake, tasks
from portal.service.recibidos.models import ExchangeAnswer
from tests.support import recibidos as sup


def _upload(api_client, headers, data: bytes) -> dict:
    answer = api_client.post(
        "/api/v1/recibidos",
        data={"archivos": [(io.BytesIO(data), "s.xml")]},
        headers=headers,
        content_type="multipart/form-data",
    )
    assert answer.status_code == 201, answer.json
    return answer.json["sobres"][0]


def test_received_envelopes_on_postgresql(api_client, auth_headers, service_app):
    user = auth_headers("usuario@demo.uy")
    first = _upload(api_client, user, sup.envelope([sup.cfe(1), sup.cfe(2)], idemisor=1))
    assert (first["estado"], first["aceptados"]) == ("AS", 2)
    second = _upload(api_client, user, sup.envelope([sup.cfe(2), sup.cfe(3)], idemisor=2))
    assert (second["aceptados"], second["rechazados"]) == (1, 1)
    assert _upload(api_client, user, sup.envelope([sup.cfe(4)], idemisor=2))["motivos"][0]["codigo"] == "S20"
    page = api_client.get("/api/v1/recibidos", query_string={"limite": 2}, headers=user).json
    rest = api_client.get(
        "/api/v1/recibidos", query_string={"limite": 2, "cursor": page["siguienteCursor"]}, headers=user
    ).json
    assert len(page["items"]) + len(rest["items"]) == 4 and page["totales"][0]["cantidad"] == 3
    assert page["sinContabilizar"] == 3  # over every page; booking by the list's filters up to what it counted
    booked = api_client.post(
        "/api/v1/recibidos/contabilizar-filtrados", json={"hastaId": page["sinContabilizarHasta"]}, headers=user
    ).json
    assert booked == {"contabilizados": 3, "quedan": 0}
    jobs.use_app(service_app)
    try:
        jobs.run_pending()  # each answer is delivered through the directory's channel to the supplier, once
    finally:
        jobs.use_app(None)
    detail = api_client.get(f"/api/v1/recibidos/{first['recibidos'][0]}", headers=user).json
    assert [(r["tipo"], r["intentos"]) for r in detail["respuestas"]] == [("ACKSobre", 1), ("ACKCFE", 1)]
    assert {r["estado"] for r in detail["respuestas"]} <= {"enviado", "sin_destino"}


def test_an_upload_with_a_file_named_with_a_nul_is_received_whole_on_postgresql(api_client, auth_headers):
    """PostgreSQL refuses a NUL in text: the second file's name (kept as the envelope's source) was a 500 after
    the first file had been stored and answered. The name no XML can hold is not kept (its answer already uses
    DGI's pattern of a file name), and the upload is received whole."""
    user = auth_headers("usuario@demo.uy")
    files = [("uno.xml", sup.envelope([sup.cfe(1)], idemisor=1)), ("s\x00.xml", sup.envelope([sup.cfe(2)], idemisor=2))]
    answer = api_client.post(
        "/api/v1/recibidos",
        data={"archivos": [(io.BytesIO(data), name) for name, data in files]},
        headers=user,
        content_type="multipart/form-data",
    )
    assert answer.status_code == 201, answer.json
    assert [(s["estado"], s["aceptados"]) for s in answer.json["sobres"]] == [("AS", 1), ("AS", 1)]


def _first_decision_held(monkeypatch) -> tuple[threading.Event, threading.Event]:
    """The first decision's answer waits inside its write transaction (its rows locked) until `release` is set;
    `inside` says it got there."""
    from portal.service.recibidos import decisions

    inside, release = threading.Event(), threading.Event()
    original = decisions.acks.ack_cfe

    def slow_ack(*args, **kwargs):
        if not inside.is_set():
            inside.set()
            release.wait(10)
        return original(*args, **kwargs)

    monkeypatch.setattr(decisions.acks, "ack_cfe", slow_ack)
    return inside, release


def test_two_decisions_at_once_answer_the_supplier_once(api_client, auth_headers, service_app, monkeypatch):
    # An accept and a reject of the same CFE at the same moment (two people, or a double click): on PostgreSQL
    # the second must wait for the first and be refused, never send the supplier both an AE and a BE.
    user = auth_headers("usuario@demo.uy")
    [received] = _upload(api_client, user, sup.envelope([sup.cfe(1)], idemisor=1))["recibidos"]
    inside, release = _first_decision_held(monkeypatch)
    statuses: list[int] = []

    def post(action: str, body: dict | None) -> None:
        answer = service_app.test_client().post(f"/api/v1/recibidos/{received}/{action}", json=body, headers=user)
        statuses.append(answer.status_code)

    first = threading.Thread(target=post, args=("aceptar", None))
    first.start()
    assert inside.wait(10)
    second = threading.Thread(target=post, args=("rechazar", {"motivo": "E21"}))
    second.start()
    second.join(1.5)  # without a row lock it is done by now
    release.set()
    first.join(10)
    second.join(10)
    assert sorted(statuses) == [200, 409]
    detail = api_client.get(f"/api/v1/recibidos/{received}", headers=user).json
    assert [r["tipo"] for r in detail["respuestas"]] == ["ACKSobre", "ACKCFE", "ACKCFE"]


def test_a_double_click_on_rejecting_several_answers_each_supplier_once(
    api_client, auth_headers, service_app, monkeypatch
):
    # The same rejection of several CFEs twice at the same moment, with one Idempotency-Key (a double click): the
    # second waits on the rows the first locked (SELECT ... FOR UPDATE, in the order of their ids), its key's INSERT
    # then meets the first one's, and it answers the first one's outcome: each supplier gets one ACKCFE.
    user = auth_headers("usuario@demo.uy")
    ids = _upload(api_client, user, sup.envelope([sup.cfe(1), sup.cfe(2), sup.cfe(3)], idemisor=1))["recibidos"]
    inside, release = _first_decision_held(monkeypatch)
    answers: dict[str, object] = {}
    headers = {**user, "Idempotency-Key": "doble-clic"}
    body = {"ids": list(reversed(ids)), "motivo": "E21"}

    def post(click: str) -> None:
        answers[click] = service_app.test_client().post("/api/v1/recibidos/rechazar", json=body, headers=headers)

    first = threading.Thread(target=post, args=("first",))
    first.start()
    assert inside.wait(10)
    second = threading.Thread(target=post, args=("second",))
    second.start()
    second.join(1.5)  # without the rows' lock it is done by now
    assert second.is_alive()
    release.set()
    first.join(10)
    second.join(10)
    once, again = answers["first"], answers["second"]
    assert (once.status_code, again.status_code) == (200, 200)
    assert once.json == again.json and once.json["rechazados"] == list(reversed(ids))
    assert again.headers["Idempotent-Replayed"] == "true"
    with service_app.app_context():
        decided = db.session().scalars(select(ExchangeAnswer.cfe_id).where(ExchangeAnswer.cfe_id.is_not(None))).all()
    assert sorted(decided) == sorted(ids)


def test_envelopes_for_one_company_at_once_take_its_numbers_in_turn(service_app, monkeypatch):
    # Several envelopes for Demo at the same moment, each transaction held open a while after it took its number:
    # the company's counter row makes the next one wait, so no two get the same IDReceptor or IDRespuesta, and
    # none fails (a max()+1 would give every one the same number, and all but one would fail).
    original = intake.acks.ack_sobre

    def slow_ack_sobre(*args, **kwargs):
        time.sleep(0.2)
        return original(*args, **kwargs)

    monkeypatch.setattr(intake.acks, "ack_sobre", slow_ack_sobre)
    # The process's XML intake gate (2 at once, 5 s wait) is not what this tests: on a loaded machine it turns
    # envelopes away with a 503 before they reach the numbers.
    monkeypatch.setattr(xmlsafe, "_intake_slots", threading.BoundedSemaphore(16))
    count = 5
    start = threading.Barrier(count)
    numbers: list[int] = []
    outcomes: list[tuple] = []  # each envelope's state, motives, CFEs accepted and rejected: said when it fails
    errors: list[BaseException] = []

    def receive(idemisor: int) -> None:
        try:
            data = sup.envelope([sup.cfe(idemisor)], idemisor=idemisor)
            with service_app.app_context():
                start.wait(10)
                result = tasks.receive_and_answer(1, data, "api", source_name="s.xml")
                outcomes.append((result.estado, result.motives, result.accepted, result.rejected))
                numbers.append(result.id_receptor)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=receive, args=(i,)) for i in range(1, count + 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    assert sorted(numbers) == list(range(1, count + 1))
    assert [o[0] for o in outcomes] == ["AS"] * count, outcomes
    with service_app.app_context():
        answered = db.session().scalars(select(ExchangeAnswer.id_respuesta).where(ExchangeAnswer.company_id == 1))
        assert sorted(answered) == list(range(1, 2 * count + 1)), outcomes


def test_envelopes_and_answers_stored_before_keep_their_numbers_on_postgresql(postgres_server, empty_pg_database):
    url = postgres_server.url(empty_pg_database)
    config = alembic_config(url)
    command.upgrade(config, sup.BEFORE_NUMBERING)
    engine = create_engine(url, poolclass=NullPool)
    with engine.begin() as connection:
        sup.store_before_numbering(connection)
    command.upgrade(config, "heads")
    with engine.connect() as connection:
        sup.assert_numbered(connection)
    engine.dispose()
