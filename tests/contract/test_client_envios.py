"""The real client's envios methods against a live service: a receipt's DGI state, the support lists and voiding
numbers, all as typed results; the service's refusals as the client's errors."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from portal.client import CfeClient, Conflict, Forbidden, NotFound, ValidationError
from portal.client.cfe import CfeRequest
from portal.client.envios import (
    DgiMotive,
    DgiNotice,
    DgiState,
    Envelope,
    EnvelopeRef,
    Page,
    ReportRef,
    VoidedRange,
    WaitingReceipt,
)
from portal.domain.uruguay_time import today_montevideo
from tests.support import cfe_bodies as bodies
from tests.support.envios import ENVIOS_CONFIG, REJECT_MARKER, drain


@pytest.fixture
def service_config(service_config):
    return {**service_config, **ENVIOS_CONFIG}


@pytest.fixture
def as_user(live_service):
    from tests.conftest import mint_token

    client = CfeClient(live_service.url)
    return lambda email, company_id=1: client.as_user(mint_token(live_service.app, email), company_id=company_id)


def issue(api, body: dict):
    return api.issue_receipt(
        CfeRequest.from_json(body), idempotency_key=f"contract-{datetime.now().timestamp()}-{id(body)}"
    )


def test_a_receipts_dgi_state_is_typed_from_pending_to_accepted_and_rejected(as_user, live_service):
    usuario = as_user("usuario@demo.uy")
    accepted = issue(usuario, bodies.body(bodies.EFACTURA))
    assert isinstance(accepted.dgi, DgiState) and accepted.dgi.state == "pendiente" and not accepted.dgi.final
    body = bodies.body(bodies.EFACTURA)
    body["receptor"] = {**body["receptor"], "rznSocRecep": f"Cliente {REJECT_MARKER}E12"}
    rejected = issue(usuario, body)
    ticket = issue(usuario, bodies.body(bodies.ETICKET))
    drain(live_service.app)

    state = usuario.get_receipt(accepted.id).dgi
    assert (state.state, state.final, state.route, state.overdue) == ("aceptado", True, "sobre", False)
    assert isinstance(state.envelope, EnvelopeRef) and state.envelope.ack == "AS" and state.envelope.id_receptor
    moments = state.moments
    assert moments.registered <= moments.packed <= moments.received <= moments.answered and not moments.reported
    assert state.since == moments.answered and state.since.tzinfo is not None
    refused = usuario.get_receipt(rejected.id).dgi
    assert refused.state == "rechazado" and refused.final
    assert refused.motives[0] == DgiMotive(
        "E12", "Información en Zona de Referencia no existe en los registros", refused.motives[0].detail
    )
    daily = usuario.get_receipt(ticket.id).dgi
    assert daily.route == "reporte" and isinstance(daily.report, ReportRef)
    assert daily.report.day == ticket.issue_date and daily.report.id is None and daily.report.state == "por_enviar"


def test_a_correction_is_linked_both_ways(as_user, live_service):
    usuario = as_user("usuario@demo.uy")
    body = bodies.body(bodies.EFACTURA)
    body["receptor"] = {**body["receptor"], "rznSocRecep": f"Cliente {REJECT_MARKER}E07"}
    rejected = issue(usuario, body)
    drain(live_service.app)
    corrected = issue(usuario, {**bodies.body(bodies.EFACTURA), "corrigeA": rejected.id})
    assert corrected.dgi.corrects == rejected.id
    assert usuario.get_receipt(rejected.id).dgi.corrected_by == corrected.id
    with pytest.raises(ValidationError) as caught:
        issue(usuario, {**bodies.body(bodies.EFACTURA), "corrigeA": rejected.id})
    assert [f.field for f in caught.value.fields] == ["corrects"]  # CfeRequest's field, not the JSON's


def test_the_support_lists_are_typed_pages(as_user, live_service):
    usuario, soporte = as_user("usuario@demo.uy"), as_user("soporte@demo.uy")
    body = bodies.body(bodies.EFACTURA)
    body["receptor"] = {**body["receptor"], "rznSocRecep": f"Cliente {REJECT_MARKER}E09"}
    issue(usuario, body)
    drain(live_service.app)
    waiting = issue(usuario, bodies.body(bodies.EFACTURA))

    envelopes = soporte.list_envelopes()
    assert isinstance(envelopes, Page) and envelopes.total == 1
    (envelope,) = envelopes.items
    assert isinstance(envelope, Envelope) and (envelope.ack, envelope.rejected, envelope.count) == ("AS", 1, 1)
    assert envelope.file_name.startswith("Sob_219999830019_") and isinstance(envelope.created_at, datetime)
    pending = soporte.list_waiting()
    assert [p.id for p in pending.items] == [waiting.id] and isinstance(pending.items[0], WaitingReceipt)
    assert pending.items[0].number == waiting.number and pending.overdue == 0
    voided = soporte.list_voided()
    assert isinstance(voided.items[0], VoidedRange) and voided.items[0].source == "rechazo_dgi"
    reports = soporte.list_daily_reports()
    assert reports.total == 0 and reports.items == ()
    admin = as_user("admin@demo.uy")
    for key in ("contract-page-1", "contract-page-2"):
        admin.void_numbers(181, reason="Talonario dañado", count=1, idempotency_key=key)
    first = soporte.list_voided(limit=2)
    second = soporte.list_voided(cursor=first.next_cursor, limit=2)
    assert first.next_cursor and second.next_cursor is None and first.total == second.total == 3
    listed = [v.id for v in first.items + second.items]
    assert listed == sorted(listed, reverse=True) and len(set(listed)) == 3


def test_voiding_numbers_is_typed_idempotent_and_refused_when_it_must_be(as_user):
    admin = as_user("admin@demo.uy")
    voided = admin.void_numbers(181, reason="Talonario dañado", count=3, idempotency_key="void-contract-1")
    assert isinstance(voided, VoidedRange) and (voided.first, voided.last, voided.serie) == (1, 3, "A")
    assert voided.source == "operador" and isinstance(voided.day, date) and voided.created_by == "admin@demo.uy"
    again = admin.void_numbers(181, reason="Talonario dañado", count=3, idempotency_key="void-contract-1")
    assert again == voided and admin.list_voided().total == 1
    with pytest.raises(Conflict):
        admin.void_numbers(181, reason="Demasiados", count=999_999, idempotency_key="void-contract-2")
    with pytest.raises(ValidationError) as caught:
        admin.void_numbers(181, reason="x", idempotency_key="void-contract-3")
    assert [f.field for f in caught.value.fields] == ["reason"]  # named after the parameter, not the JSON
    with pytest.raises(NotFound):
        admin.void_numbers(182, serie="Z", reason="No hay CAE de esa serie", idempotency_key="void-contract-4")
    with pytest.raises(Forbidden):
        as_user("soporte@demo.uy").void_numbers(181, reason="Soporte no anula", idempotency_key="void-5")
    with pytest.raises(Forbidden):
        as_user("usuario@demo.uy").list_envelopes()


def test_sending_a_days_report_is_typed(as_user, live_service):
    from portal.client.envios import DailyReport
    from portal.domain.uruguay_time import today_montevideo

    admin = as_user("admin@demo.uy")
    report = admin.send_daily_report(today_montevideo())
    assert isinstance(report, DailyReport) and report.day == today_montevideo() and report.sequence == 1
    assert report.state == "armado" and report.created_by == "admin@demo.uy"
    drain(live_service.app)
    (answered,) = admin.list_daily_reports().items
    assert (answered.id, answered.ack, answered.state) == (report.id, "AR", "aceptado")
    with pytest.raises(ValidationError):
        admin.send_daily_report(date(2999, 1, 1))


def test_retrying_an_envelope_is_typed_and_refused_when_there_is_nothing_to_retry(as_user, live_service):
    from sqlalchemy import update

    from portal.service.envios.models import DgiEnvelope
    from portal.service.platform import db

    usuario, admin = as_user("usuario@demo.uy"), as_user("admin@demo.uy")
    issue(usuario, bodies.body(bodies.EFACTURA))
    drain(live_service.app)
    (envelope,) = admin.list_envelopes().items
    with pytest.raises(Conflict) as caught:
        admin.retry_envelope(envelope.id)
    assert caught.value.code == "sobre_no_reintentable"
    with pytest.raises(NotFound):
        admin.retry_envelope(999_999)
    with live_service.app.app_context():
        db.session().execute(update(DgiEnvelope).values(state="error"))
        db.session().commit()
    retried = admin.retry_envelope(envelope.id)
    assert isinstance(retried, Envelope) and retried.id == envelope.id and retried.state == "armado"
    with pytest.raises(Forbidden):
        as_user("soporte@demo.uy").retry_envelope(envelope.id)


def test_envelopes_reports_and_dgis_acknowledgements_download_as_files(as_user, live_service):
    issue(as_user("usuario@demo.uy"), bodies.body(bodies.EFACTURA))
    drain(live_service.app)
    support, admin = as_user("soporte@demo.uy"), as_user("admin@demo.uy")
    [envelope] = support.list_envelopes().items
    assert envelope.documents == ("sobre", "acuse", "respuesta")
    assert (envelope.ack_signature, envelope.answer_signature) == ("verificada", "verificada")
    ack = support.envelope_document(envelope.id, "acuse")
    assert ack.content_type.startswith("application/xml") and ack.filename == f"ACKSobre_{envelope.file_name}"
    assert b"ACKSobre" in ack.content
    admin.send_daily_report(today_montevideo())
    drain(live_service.app)
    [report] = admin.list_daily_reports().items
    assert report.documents == ("reporte", "acuse") and report.ack_signature == "verificada"
    assert b"ACKRepDiario" in admin.report_document(report.id, "acuse").content
    with pytest.raises(Forbidden):
        as_user("usuario@demo.uy").envelope_document(envelope.id, "sobre")
    with pytest.raises(NotFound):
        as_user("admin@demo.uy", 2).envelope_document(envelope.id, "sobre")


def test_whether_dgi_answers_is_typed_for_every_member(as_user, live_service):
    from portal.service.envios import outage

    user = as_user("usuario@demo.uy")
    assert user.dgi_notice() == DgiNotice(answering=True, down_since=None)
    with live_service.app.app_context():
        outage.failed("No se pudo conectar con el servicio de DGI.", 30)
    notice = user.dgi_notice()
    assert not notice.answering and isinstance(notice.down_since, datetime) and notice.down_since.tzinfo
    with pytest.raises(Forbidden):
        user.dgi_availability()  # the detail stays with admin and soporte
