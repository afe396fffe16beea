"""Receipts reach DGI through the embedded simulator: envelopes, DGI's answers, rejections and the API."""

from __future__ import annotations

import pytest
from lxml import etree
from sqlalchemy import select

from portal.service.comprobante.models import VoidedRange
from portal.service.envios.models import DgiEnvelope, DgiSubmission, SimCfe, SimEnvelope
from portal.service.platform import db
from tests.support import cfe_bodies as bodies
from tests.support.cfe_bodies import issue
from tests.support.envios import ENVIOS_CONFIG, REJECT_MARKER, drain

GET = "/api/v1/comprobante/getByIdCfeEmitido"


@pytest.fixture
def service_config(service_config):
    return {**service_config, **ENVIOS_CONFIG}


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


def dgi_of(api_client, headers, cfe_id):
    answer = api_client.get(GET, query_string={"idCfeEmitido": cfe_id}, headers=headers)
    assert answer.status_code == 200
    return answer.json["dgi"]


def test_an_efactura_reaches_accepted_with_dgis_token_and_times(api_client, user, service_app):
    cfe = issue(api_client, user, bodies.body(bodies.EFACTURA))
    assert cfe["dgi"]["estado"] == "pendiente" and cfe["estadoDGI"] == "pendiente"
    drain(service_app)
    dgi = dgi_of(api_client, user, cfe["idCfeEmitido"])
    assert dgi["estado"] == "aceptado" and dgi["final"] is True
    assert dgi["sobre"]["acuse"] == "AS" and dgi["sobre"]["token"]
    assert {"registrado", "enSobre", "recibido", "respondido"} <= set(dgi["fechas"])
    assert (
        api_client.get(GET, query_string={"idCfeEmitido": cfe["idCfeEmitido"]}, headers=user).json["estadoDGI"]
        == "aceptado"
    )


def test_a_small_eticket_belongs_to_todays_daily_report(api_client, user, service_app):
    cfe = issue(api_client, user, bodies.body(bodies.ETICKET))
    drain(service_app)
    dgi = dgi_of(api_client, user, cfe["idCfeEmitido"])
    assert dgi["estado"] == "pendiente_reporte" and dgi["via"] == "reporte"
    assert dgi["reporte"]["fecha"] == cfe["fchEmis"] and dgi["reporte"]["estado"] == "por_enviar"


def test_a_rejected_receipt_carries_dgis_motive_and_its_number_is_voided(api_client, user, service_app):
    body = bodies.body(bodies.EFACTURA)
    body["receptor"]["rznSocRecep"] = f"Cliente {REJECT_MARKER}E14"
    cfe = issue(api_client, user, body)
    drain(service_app)
    dgi = dgi_of(api_client, user, cfe["idCfeEmitido"])
    assert dgi["estado"] == "rechazado"
    assert dgi["motivos"][0]["codigo"] == "E14" and dgi["motivos"][0]["glosa"] == "Irregularidades detectadas"
    with service_app.app_context():
        voided = db.session().scalar(select(VoidedRange).where(VoidedRange.cfe_id == cfe["idCfeEmitido"]))
        assert (voided.source, voided.nro_desde, voided.nro_hasta) == ("rechazo_dgi", cfe["nro"], cfe["nro"])


def test_the_reason_of_a_number_voided_by_dgis_rejection_is_said_in_the_readers_language(
    api_client, user, auth_headers, service_app
):
    """The void's reason was kept as its Spanish sentence alone: the receipt's answer and the list of voided
    numbers said "Comprobante anulado por rechazo de DGI (E14)" to an English reader."""
    body = bodies.body(bodies.EFACTURA)
    body["receptor"]["rznSocRecep"] = f"Cliente {REJECT_MARKER}E14"
    cfe = issue(api_client, user, body)
    drain(service_app)
    english = {**user, "Accept-Language": "en"}
    assert dgi_of(api_client, english, cfe["idCfeEmitido"])["anulacion"]["motivo"] == (
        "Receipt voided by DGI's rejection (E14)"
    )
    support = {**auth_headers("soporte@demo.uy"), "Accept-Language": "en"}
    [voided] = api_client.get("/api/v1/envios/anulaciones", headers=support).json["items"]
    assert voided["motivo"] == "Receipt voided by DGI's rejection (E14)"
    assert dgi_of(api_client, user, cfe["idCfeEmitido"])["anulacion"]["motivo"] == (
        "Comprobante anulado por rechazo de DGI (E14)"
    )


def test_a_credit_note_dgi_rejected_takes_nothing_from_its_receipt(api_client, user, service_app):
    """A note DGI rejects counts as not issued (its number voided): the receipt can be credited again in full,
    and the list does not show it cancelled by that note (both did, so the receipt could never be cancelled)."""
    import csv
    import io

    factura = issue(api_client, user, bodies.body(bodies.EFACTURA))
    drain(service_app)
    bad = bodies.note(112, 111, factura["serie"], factura["nro"])
    bad["receptor"] = {**bodies.BUYER, "rznSocRecep": f"Cliente {REJECT_MARKER}E14"}
    rejected = issue(api_client, user, bad)
    drain(service_app)
    assert dgi_of(api_client, user, rejected["idCfeEmitido"])["estado"] == "rechazado"
    original = api_client.get(GET, query_string={"idCfeEmitido": factura["idCfeEmitido"]}, headers=user).json
    assert original["saldoAcreditable"] == factura["totales"]["mntTotal"]
    listed = api_client.get("/api/v1/comprobante/buscar", headers={**user, "Accept": "text/csv"})
    rows = list(csv.DictReader(io.StringIO(listed.get_data(as_text=True).lstrip("\ufeff")), delimiter=";"))
    assert [r["Anulado por"] for r in rows if r["Identificador"] == factura["idCfeEmitido"]] == [""]
    full = api_client.post(
        "/api/v1/comprobante/notaCreditoTotal",
        json={"idCfeEmitido": factura["idCfeEmitido"], "razon": "Anulación"},
        headers=user,
    )
    assert full.status_code == 201, full.json
    assert full.json["totales"]["mntTotal"] == factura["totales"]["mntTotal"]


def test_many_receipts_share_one_envelope_valid_against_envio_cfe_xsd(api_client, user, service_app):
    ids = [issue(api_client, user, bodies.body(bodies.EFACTURA))["idCfeEmitido"] for _ in range(3)]
    drain(service_app)
    with service_app.app_context():
        session = db.session()
        envelopes = session.scalars(select(DgiEnvelope)).all()
        assert len(envelopes) == 1 and envelopes[0].cfe_count == 3
        subs = session.scalars(select(DgiSubmission).where(DgiSubmission.cfe_id.in_(ids))).all()
        assert {s.state for s in subs} == {"aceptado"} and sorted(s.ordinal for s in subs) == [1, 2, 3]
        assert session.scalar(select(SimEnvelope.deliveries)) == 1
        assert len(session.scalars(select(SimCfe)).all()) == 3
        root = etree.fromstring(envelopes[0].xml)
        assert root.tag == "{http://cfe.dgi.gub.uy}EnvioCFE"


def test_emitir_corregido_links_both_receipts_once(api_client, user, service_app, auth_headers):
    body = bodies.body(bodies.EFACTURA)
    body["receptor"]["rznSocRecep"] = f"Cliente {REJECT_MARKER}E07"
    rejected = issue(api_client, user, body)
    accepted = issue(api_client, user, bodies.body(bodies.EFACTURA))
    drain(service_app)
    fixed = issue(api_client, user, {**bodies.body(bodies.EFACTURA), "corrigeA": rejected["idCfeEmitido"]})
    assert fixed["dgi"]["corrige"] == rejected["idCfeEmitido"]
    assert dgi_of(api_client, user, rejected["idCfeEmitido"])["corregidoPor"] == fixed["idCfeEmitido"]
    for target, code in ((rejected, "already_corrected"), (accepted, "not_rejected")):
        answer = api_client.post(
            "/api/v1/comprobante/emitir",
            headers=user,
            json={**bodies.body(bodies.EFACTURA), "corrigeA": target["idCfeEmitido"]},
        )
        assert answer.status_code == 422 and answer.json["error"]["fields"][0] == {
            "field": "corrigeA",
            "code": code,
            "message": answer.json["error"]["fields"][0]["message"],
        }
    other = api_client.post(
        "/api/v1/comprobante/emitir",
        headers=auth_headers("admin@demo.uy", 2),
        json={**bodies.body(bodies.EFACTURA), "corrigeA": rejected["idCfeEmitido"]},
    )
    assert other.status_code == 422 and other.json["error"]["fields"][0]["code"] == "not_found"


def test_the_smart_issuance_consult_carries_the_dgi_state(api_client, user, service_app):
    request = api_client.post(
        "/api/v1/cfe/emitir-inteligente",
        headers=user,
        json={"lineas": [{"descripcion": "Café", "cantidad": "1", "precio": "100"}]},
    ).json
    drain(service_app)
    consult = api_client.get(f"/api/v1/cfe/emision-inteligente/{request['requestId']}", headers=user).json
    assert consult["comprobante"]["dgi"]["estado"] == consult["estadoDGI"] == "pendiente_reporte"
    assert consult["comprobante"]["dgi"]["reporte"]["estado"] == "por_enviar"


def test_a_receipt_dgi_reliquidated_is_held_by_dgi_not_rejected_and_its_number_not_voided(
    api_client, user, service_app, monkeypatch
):
    """ACKCFE's FE ("Comprobante Reliquidado", ACKCFE_DGI.xsd, CFE-URUGUAY.md §7) means DGI holds the receipt,
    recomputed: it was recorded as rejected and its number voided, so the daily report called voided a number
    DGI has as issued."""
    from dataclasses import replace

    from portal.service.envios.simulator import SimulatedDgi

    judge = SimulatedDgi._judge
    monkeypatch.setattr(
        SimulatedDgi, "_judge", lambda self, *args: [replace(v, estado="FE") for v in judge(self, *args)]
    )
    cfe = issue(api_client, user, bodies.body(bodies.EFACTURA))
    drain(service_app)
    dgi = dgi_of(api_client, user, cfe["idCfeEmitido"])
    assert dgi["estado"] == "aceptado" and dgi["final"] is True
    with service_app.app_context():
        assert db.session().scalar(select(VoidedRange).where(VoidedRange.cfe_id == cfe["idCfeEmitido"])) is None
