"""What keeps the road to DGI safe: one wake-up task for many receipts, retries with backoff when DGI cannot
be reached, a duplicate answer reconciled rather than resent, the sweep, and the daily report task."""

from __future__ import annotations

import time
from datetime import UTC, timedelta

import pytest
from sqlalchemy import select

from portal.domain.uruguay_time import today_montevideo
from portal.service.comprobante.models import IssuedCfe
from portal.service.envios import outage, reports, sending, tasks
from portal.service.envios.adapter import Credentials, DgiTransientError
from portal.service.envios.models import DgiDailyReport, DgiEnvelope, DgiStatus, DgiSubmission
from portal.service.envios.simulator import SimulatedDgi
from portal.service.platform import db, jobs
from tests.support import cfe_bodies as bodies
from tests.support.cfe_bodies import issue
from tests.support.envios import ENVIOS_CONFIG, drain


@pytest.fixture
def service_config(service_config):
    return {**service_config, **ENVIOS_CONFIG}


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


def _state(app, cfe_id: str) -> str:
    with app.app_context():
        return db.new_session().get(DgiSubmission, cfe_id).state


def test_a_burst_of_receipts_wakes_one_packer_task(service_app):
    service_app.config["ENVIOS_DEBOUNCE_SECONDS"] = 5
    tasks._scheduled.clear()
    with service_app.app_context():
        for _ in range(1000):
            tasks.wake_packer(1)
        tasks.wake_packer(2)
    assert jobs.huey.pending_count() + len(jobs.huey.scheduled()) == 2
    tasks._scheduled.clear()


class FlakyDgi(SimulatedDgi):
    """DGI unreachable for the first `failures` calls, then the simulator answers."""

    def __init__(self, config, failures: int):
        super().__init__(config)
        self.failures = failures

    def send_envelope(self, envelope_xml: bytes, *, file_name: str, credentials: Credentials) -> bytes:
        if self.failures:
            self.failures -= 1
            raise DgiTransientError("DGI no responde.", code="dgi_unavailable")
        return super().send_envelope(envelope_xml, file_name=file_name, credentials=credentials)


def test_an_unreachable_dgi_is_probed_with_backoff_and_sent_the_same_bytes(api_client, user, service_app):
    flaky = FlakyDgi(service_app.config, failures=2)
    service_app.extensions["dgi_reception"] = flaky
    cfe = issue(api_client, user, bodies.body(bodies.EFACTURA))
    jobs.use_app(service_app)
    jobs.run_pending()  # packs and tries once
    with service_app.app_context():
        sobre = db.new_session().scalars(select(DgiEnvelope)).one()
        assert (sobre.state, sobre.attempts, sobre.last_error) == ("armado", 1, "DGI no responde.")
        assert outage.status(db.new_session()).down_since is not None  # DGI is down from that failure on
        first_bytes = sobre.xml
    for failures in (1, 2):
        jobs.run_pending()  # as the consumer does: the probe, due later, waits in the schedule ...
        [probe] = jobs.huey.read_schedule(jobs.huey._get_timestamp().replace(year=9999))
        wait = (probe.eta - jobs.huey._get_timestamp()).total_seconds()
        assert 2**failures - 1 < wait <= 2**failures  # ... backing off: 2 s, then 4 s
        # Its time comes now rather than after a sleep: the task's and DGI's next probe both.
        probe.eta = None
        with service_app.app_context(), db.write_transaction() as session:
            session.get(DgiStatus, 1).next_probe_at = sending._now()
        jobs.huey.execute(probe)
    drain(service_app)  # the third delivery reaches the simulator, and its answers are fetched
    assert _state(service_app, cfe["idCfeEmitido"]) == "aceptado"
    with service_app.app_context():
        sobre = db.new_session().scalars(select(DgiEnvelope)).one()
        assert sobre.xml == first_bytes and sobre.attempts == 0 and sobre.last_error is None
        assert outage.status(db.new_session()).down_since is None


def test_dgi_already_holding_the_receipt_is_reconciled_not_resent(api_client, user, service_app):
    """DGI received the receipt in a delivery whose answer we lost: its E02 answer means accepted."""
    cfe = issue(api_client, user, bodies.body(bodies.EFACTURA))
    with service_app.app_context():
        from portal.service.envios import envelope

        session = db.new_session()
        record = session.get(IssuedCfe, cfe["idCfeEmitido"])
        from portal.service.platform.models import Certificate

        cert = session.get(Certificate, record.certificate_id).cert_pem.encode()
        earlier = envelope.build_envelope(
            [record.xml],
            rut_receptor="214844360018",
            rut_emisor="219999830019",
            idemisor=900,
            moment=record.tmst_firma,
            cert_pem=cert,
        )
        SimulatedDgi(service_app.config).send_envelope(
            earlier, file_name="Sob.xml", credentials=Credentials("219999830019", b"", b"")
        )
    drain(service_app)
    with service_app.app_context():
        sub = db.new_session().get(DgiSubmission, cfe["idCfeEmitido"])
        assert sub.state == "aceptado" and [m["codigo"] for m in sub.motives] == ["E02"]


def test_the_sweep_picks_up_a_lost_wake_up(api_client, user, service_app):
    cfe = issue(api_client, user, bodies.body(bodies.EFACTURA))
    while jobs.huey.dequeue() is not None:  # the wake-up is lost
        pass
    assert _state(service_app, cfe["idCfeEmitido"]) == "pendiente"
    with service_app.app_context():
        assert tasks.sweep(timedelta(0))["empresas"] == 1
    drain(service_app)
    assert _state(service_app, cfe["idCfeEmitido"]) == "aceptado"


def test_a_restarted_worker_schedules_what_a_killed_sender_left_under_lease(api_client, user, service_app):
    """The sender was killed mid-delivery: its lease still holds when the worker restarts. The restart's
    sweep schedules the delivery for the lease's end instead of leaving it to a periodic sweep (up to
    SWEEP_MARGIN plus a minute later); the ordinary sweep leaves a held lease alone."""
    cfe = issue(api_client, user, bodies.body(bodies.EFACTURA))
    while jobs.huey.dequeue() is not None:  # the worker that would pack and deliver is killed ...
        pass
    lease_end = sending._now() + sending.SLACK + timedelta(seconds=0.5)
    with service_app.app_context():
        [envelope_id] = sending.pack(1)
        with db.write_transaction() as session:
            session.get(DgiEnvelope, envelope_id).next_attempt_at = lease_end  # ... while it sends, under lease
        assert tasks.sweep(timedelta(0))["programados"] == 0
        assert jobs.huey.pending() == []
        before = sending._now()
        assert tasks.sweep(timedelta(0), restarting=True)["programados"] == 1
        after = sending._now()
    [scheduled] = jobs.huey.pending()
    assert scheduled.name.endswith("deliver_envelope") and scheduled.args == (envelope_id,)
    # Scheduled as a delay from the sweep's clock: the lease's end, give or take the sweep's own run (whatever
    # this machine's speed), not a fixed tolerance.
    assert lease_end - (after - before) <= scheduled.eta.replace(tzinfo=UTC) <= lease_end + (after - before)
    time.sleep(max((lease_end - sending.SLACK - sending._now()).total_seconds(), 0))  # the task's time comes
    drain(service_app)
    assert _state(service_app, cfe["idCfeEmitido"]) == "aceptado"


def test_the_daily_task_reports_each_closed_day_once(api_client, user, service_app):
    ticket = issue(api_client, user, bodies.body(bodies.ETICKET))
    drain(service_app)
    with service_app.app_context():
        today = today_montevideo()
        assert tasks.daily_reports(until=today - timedelta(days=1)) == []  # today has not closed
        built = tasks.daily_reports(until=today)
        assert len(built) == 1 and tasks.daily_reports(until=today) == []
    drain(service_app)
    with service_app.app_context():
        report = db.new_session().get(DgiDailyReport, built[0])
        assert (report.state, report.ack_state, report.sec_envio) == ("aceptado", "AR", 1)
        # The receipt list's copy of the state follows (tasks.mirror_report, after the report is recorded).
        assert db.new_session().get(IssuedCfe, ticket["idCfeEmitido"]).dgi_status == "en_reporte"
    assert _state(service_app, ticket["idCfeEmitido"]) == "en_reporte"


def test_the_lists_copy_of_the_state_moves_after_the_report_and_a_restart_finishes_it(api_client, user, service_app):
    # build() records the report and the submissions' "en_reporte" without rewriting cfe_emitido's rows (that
    # cost 28 s for a day of 100,000 e-Tickets on PostgreSQL); mirror_states copies it after, in short
    # transactions. A process that died in between leaves the copy behind: the restart's sweep finishes it.
    tickets = [issue(api_client, user, bodies.body(bodies.ETICKET))["idCfeEmitido"] for _ in range(3)]
    drain(service_app)
    with service_app.app_context():
        company_id = db.new_session().get_one(IssuedCfe, tickets[0]).company_id
        report_id = reports.build(company_id, today_montevideo(), "test")
        session = db.new_session()
        assert [session.get_one(DgiSubmission, t).state for t in tickets] == ["en_reporte"] * 3
        assert [session.get_one(IssuedCfe, t).dgi_status for t in tickets] == ["pendiente_reporte"] * 3
        with db.write_transaction() as write:  # a copy done half-way before the process died
            write.get_one(IssuedCfe, tickets[0]).dgi_status = "en_reporte"
        tasks.sweep(timedelta(0), restarting=True)
    drain(service_app)
    with service_app.app_context():
        session = db.new_session()
        assert [session.get_one(IssuedCfe, t).dgi_status for t in tickets] == ["en_reporte"] * 3
        assert reports.mirror_states(report_id) == 0  # idempotent


@pytest.mark.parametrize("id_sobre", [2**63, 2**64, 10**30])
def test_an_envelope_id_past_the_databases_integers_is_a_404(api_client, auth_headers, id_sobre):
    # It overflowed SQLite's integer in the query: a 500 (OverflowError), not "no such envelope". Any path integer
    # past the columns' range is the route's 404 (platform.api.PathInteger), before the envelope is looked for.
    answer = api_client.post(f"/api/v1/envios/sobres/{id_sobre}/reintentar", headers=auth_headers("admin@demo.uy", 1))
    assert answer.status_code == 404 and answer.json["error"]["code"] == "not_found"


def test_an_admin_retries_a_refused_envelope_in_a_new_one(api_client, user, auth_headers, service_app):
    admin = auth_headers("admin@demo.uy", 1)
    cfe = issue(api_client, user, bodies.body(bodies.EFACTURA))
    service_app.extensions["dgi_reception"] = SimulatedDgi(service_app.config)
    service_app.config["DGI_RUT"] = "211003420017"  # envelopes addressed to the wrong RUT: DGI refuses them (S02)
    drain(service_app)
    [refused] = api_client.get("/api/v1/envios/sobres", headers=admin).json["items"]
    assert refused["estado"] == "rechazado" and refused["motivos"][0]["codigo"] == "S02"
    assert _state(service_app, cfe["idCfeEmitido"]) == "sobre_rechazado"
    url = f"/api/v1/envios/sobres/{refused['idSobre']}/reintentar"
    assert api_client.post(url, headers=auth_headers("soporte@demo.uy")).status_code == 403
    assert api_client.post("/api/v1/envios/sobres/999/reintentar", headers=admin).status_code == 404
    service_app.config["DGI_RUT"] = "214844360018"
    answer = api_client.post(url, headers=admin)
    assert answer.status_code == 202 and answer.json["estado"] == "rechazado"
    drain(service_app)
    assert _state(service_app, cfe["idCfeEmitido"]) == "aceptado"
    sobres = api_client.get("/api/v1/envios/sobres", headers=admin).json["items"]
    assert [s["estado"] for s in sobres] == ["respondido", "rechazado"]
    assert api_client.post(url, headers=admin).status_code == 202  # nothing left in it: harmless
    assert api_client.post(f"/api/v1/envios/sobres/{sobres[0]['idSobre']}/reintentar", headers=admin).status_code == 409
