"""DGI outages: the simulator's modes (unreachable, slow, SOAP faults, envelopes acknowledged without their
per-CFE results), switched as an operator does. Whatever the mode, issuing answers 201 without waiting on DGI;
envelopes and reports wait, one probe calls DGI backing off, and when DGI answers again everything waiting goes,
oldest first; every missing daily report since the outage is built and sent in order, and a rejected day is
resent corrected."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import timedelta

import pytest
from click.testing import CliRunner
from sqlalchemy import select, update

from portal.domain.uruguay_time import today_montevideo
from portal.service.comprobante.models import IssuedCfe
from portal.service.envios import commands, outage, tasks
from portal.service.envios.models import DgiDailyReport, DgiEnvelope, DgiSubmission, SimEnvelope, SimReport
from portal.service.platform import db, jobs
from tests.support import cfe_bodies as bodies
from tests.support.envios import ENVIOS_CONFIG, dgi_back, drain

OUTAGES = ("caido", "lento", "falla_soap")


@pytest.fixture
def service_config(service_config):
    # The slow mode answers after 0.3 s, past a 0.2 s timeout: DGI "does not answer in time".
    return {
        **service_config,
        **ENVIOS_CONFIG,
        "DGI_SIMULATOR_SLOW_SECONDS": 0.3,
        "DGI_RECEPTION_TIMEOUT_SECONDS": 0.2,
    }


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


@pytest.fixture
def dgi_mode(service_app) -> Iterator:
    """dgi_mode("caido") switches the simulator as the operator's command does; back to normal afterwards."""

    def switch(mode: str, slow: float | None = None) -> None:
        with service_app.app_context():
            outage.set_simulator_mode(mode, slow)

    yield switch
    switch("normal")


def states(app) -> list[str]:
    with app.app_context():
        return list(db.new_session().scalars(select(DgiSubmission.state).order_by(DgiSubmission.created_at)))


@pytest.mark.parametrize("mode", OUTAGES)
def test_issuing_goes_on_during_the_outage_and_the_backlog_drains_oldest_first(
    api_client, user, service_app, dgi_mode, mode
):
    dgi_mode(mode)
    issued = []
    for _ in range(3):  # issued, packed, tried: nothing fails
        issued.append(bodies.issue(api_client, user, bodies.body(bodies.EFACTURA))["idCfeEmitido"])
        drain(service_app, rounds=3)
    assert all(state in ("pendiente", "en_sobre") for state in states(service_app))
    with service_app.app_context():
        seen = outage.status(db.new_session())
        assert seen.down_since is not None and seen.last_error
        waiting = outage.backlog(db.new_session(), 1)
        assert waiting.receipts == 3 and waiting.envelopes == 3
        # Only the probe called DGI while it was down: one envelope tried, the others waited untouched.
        attempts = list(db.new_session().scalars(select(DgiEnvelope.attempts).order_by(DgiEnvelope.id)))
        assert attempts[0] >= 1 and attempts[1:] == [0, 0]

    dgi_back(service_app)
    drain(service_app)
    assert states(service_app) == ["aceptado"] * 3
    with service_app.app_context():
        session = db.new_session()
        assert outage.status(session).down_since is None and outage.backlog(session, 1).receipts == 0
        # DGI received the envelopes oldest first.
        assert list(session.scalars(select(SimEnvelope.idemisor).order_by(SimEnvelope.id))) == [1, 2, 3]


def test_issuing_does_not_wait_for_a_slow_dgi(api_client, user, service_app, dgi_mode):
    """While a send hangs on a slow DGI in the worker, receipts are issued (and answered) meanwhile."""
    service_app.config["DGI_RECEPTION_TIMEOUT_SECONDS"] = 30
    dgi_mode("lento", 3.0)
    bodies.issue(api_client, user, bodies.body(bodies.EFACTURA))
    worker = threading.Thread(target=drain, args=(service_app, 1))
    worker.start()
    try:
        for _ in range(3):
            bodies.issue(api_client, user, bodies.body(bodies.ETICKET))
        assert worker.is_alive()  # the first send still waits on DGI: issuing did not
    finally:
        worker.join()


def test_envelopes_acknowledged_without_results_wait_for_them(api_client, user, service_app, dgi_mode):
    dgi_mode("sin_respuestas")
    cfe = bodies.issue(api_client, user, bodies.body(bodies.EFACTURA))["idCfeEmitido"]
    drain(service_app, rounds=3)
    with service_app.app_context():
        assert db.new_session().get(DgiSubmission, cfe).state == "recibido"
        assert not outage.is_down()  # DGI answers: it is slow with its results, not down
    dgi_mode("normal")
    with service_app.app_context(), db.write_transaction() as session:
        session.execute(update(DgiEnvelope).values(next_attempt_at=None))
    with service_app.app_context():
        jobs.use_app(service_app)
        tasks.sweep(timedelta(0))
    drain(service_app)
    assert states(service_app) == ["aceptado"]


def _move_to(app, cfe_id: str, days_ago: int) -> None:
    with app.app_context(), db.write_transaction() as session:
        session.get(IssuedCfe, cfe_id).fch_emis = today_montevideo() - timedelta(days=days_ago)


def test_every_missing_daily_report_is_sent_in_order_after_the_outage(api_client, user, service_app, dgi_mode):
    for days_ago in (4, 2, 1):  # days of activity; day -3 had none
        cfe = bodies.issue(api_client, user, bodies.body(bodies.ETICKET))["idCfeEmitido"]
        _move_to(service_app, cfe, days_ago)
    dgi_mode("caido")
    with service_app.app_context():
        jobs.use_app(service_app)
        tasks.daily_reports()
    drain(service_app, rounds=3)
    with service_app.app_context():
        reports = db.new_session().scalars(select(DgiDailyReport).order_by(DgiDailyReport.fecha)).all()
        assert [r.state for r in reports] == ["armado"] * 3
        assert [(today_montevideo() - r.fecha).days for r in reports] == [4, 2, 1]
    dgi_back(service_app)
    drain(service_app)
    with service_app.app_context():
        session = db.new_session()
        assert [r.state for r in session.scalars(select(DgiDailyReport))] == ["aceptado"] * 3
        received = list(session.scalars(select(SimReport.fecha).order_by(SimReport.id)))
        assert received == sorted(received) and len(received) == 3  # DGI got them oldest first


def test_a_day_whose_report_dgi_rejected_is_resent_corrected(api_client, user, service_app):
    cfe = bodies.issue(api_client, user, bodies.body(bodies.ETICKET))["idCfeEmitido"]
    _move_to(service_app, cfe, 1)
    with service_app.app_context():
        jobs.use_app(service_app)
        tasks.daily_reports()
        drain(service_app)
        with db.write_transaction() as session:  # as if DGI had answered BR
            report = session.scalars(select(DgiDailyReport)).one()
            report.state, report.ack_state, report.ack_motives = "rechazado", "BR", [{"codigo": "R04"}]
        tasks.daily_reports()
        drain(service_app)
        reports = db.new_session().scalars(select(DgiDailyReport).order_by(DgiDailyReport.sec_envio)).all()
        assert [(r.sec_envio, r.state) for r in reports] == [(1, "rechazado"), (2, "aceptado")]
        tasks.daily_reports()  # accepted now: nothing more to send
        assert db.new_session().scalar(select(DgiDailyReport.id).where(DgiDailyReport.sec_envio == 3)) is None


def test_the_operator_switches_the_simulator_and_sees_what_waits(service_app, service_config, monkeypatch):
    monkeypatch.setattr(commands, "create_app", lambda: service_app)
    runner = CliRunner()
    answer = runner.invoke(commands.simulator_mode, ["caido"])
    assert answer.exit_code == 0, answer.output
    assert "simulator: caido" in answer.output and "DGI: answering" in answer.output
    with service_app.app_context():
        assert outage.simulator_mode(service_app.config)[0] == "caido"
    answer = runner.invoke(commands.simulator_mode, ["lento", "--lento-segundos", "5"])
    assert "simulator: lento" in answer.output and "5 s" in answer.output
    assert runner.invoke(commands.simulator_mode, ["roto"]).exit_code != 0
    runner.invoke(commands.simulator_mode, ["normal"])


def test_why_an_envelope_and_a_daily_report_wait_is_said_in_the_readers_language(
    api_client, user, auth_headers, service_app, dgi_mode
):
    """An envelope's and a report's last error was kept as its Spanish sentence alone, so the lists said "No se
    pudo conectar con el servicio de DGI." to an English reader."""
    dgi_mode("caido")
    cfe = bodies.issue(api_client, user, bodies.body(bodies.ETICKET))["idCfeEmitido"]
    _move_to(service_app, cfe, 1)
    with service_app.app_context():
        jobs.use_app(service_app)
        tasks.daily_reports()
    drain(service_app, rounds=3)
    with service_app.app_context():
        outage.answered()  # DGI counted as answering again (still down): the envelope calls it itself
    bodies.issue(api_client, user, bodies.body(bodies.EFACTURA))
    drain(service_app, rounds=3)
    english = {**auth_headers("admin@demo.uy", 1), "Accept-Language": "en"}
    [envelope] = api_client.get("/api/v1/envios/sobres", headers=english).json["items"]
    [report] = api_client.get("/api/v1/envios/reportes", headers=english).json["items"]
    assert envelope["ultimoError"] == report["ultimoError"] == "Could not connect to DGI's service."
    [pending] = api_client.get("/api/v1/envios/pendientes", headers=english).json["items"]
    assert pending["motivoEspera"] == "Could not connect to DGI's service."
    spanish = auth_headers("admin@demo.uy", 1)
    [report] = api_client.get("/api/v1/envios/reportes", headers=spanish).json["items"]
    assert report["ultimoError"] == "No se pudo conectar con el servicio de DGI."


@pytest.mark.parametrize(
    ("mode", "english"),
    [
        ("caido", "Could not connect to DGI's service."),
        ("lento", "DGI did not answer in 0.2 s."),
        ("falla_soap", "DGI refused the request: Servicio temporalmente no disponible"),
    ],
)
def test_why_dgi_is_counted_down_is_said_in_the_readers_language(
    api_client, user, auth_headers, service_app, dgi_mode, mode, english
):
    """GET /api/v1/envios/dgi's ultimoError was kept as its Spanish sentence alone, so an English reader was told
    "No se pudo conectar con el servicio de DGI."."""
    dgi_mode(mode)
    bodies.issue(api_client, user, bodies.body(bodies.EFACTURA))
    drain(service_app)
    admin = auth_headers("admin@demo.uy", 1)
    seen = api_client.get("/api/v1/envios/dgi", headers={**admin, "Accept-Language": "en"}).json
    assert (seen["responde"], seen["ultimoError"]) == (False, english)
    spanish = api_client.get("/api/v1/envios/dgi", headers=admin).json["ultimoError"]
    assert spanish != english and spanish.startswith(("No se pudo", "DGI"))


def test_while_dgi_does_not_answer_every_waiting_receipt_says_when_it_is_tried_next(
    api_client, user, auth_headers, service_app, dgi_mode
):
    """Only the probe calls DGI while it is down: the envelopes behind it keep no time of their own, and the list
    said "—" beside five failed attempts, read as "never". Each waiting receipt now gives the probe's time."""
    dgi_mode("caido")
    for _ in range(2):
        bodies.issue(api_client, user, bodies.body(bodies.EFACTURA))
        drain(service_app, rounds=3)
    support = auth_headers("soporte@demo.uy")
    availability = api_client.get("/api/v1/envios/dgi", headers=support).json
    probe = availability.get("proximoIntento")
    listed = api_client.get("/api/v1/envios/pendientes", headers=support)
    assert listed.status_code == 200, listed.json
    waiting = listed.json["items"]
    assert probe and len(waiting) == 2, (availability, waiting)
    assert [item.get("proximoIntento") for item in waiting] == [probe, probe], waiting
