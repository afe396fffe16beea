"""The whole road over SOAP: with CFE_DGI_RECEPTION=soap the service sends its envelopes and daily reports to
DGI's ws_efactura and asks for the answers by token — here to the local stand-in, which verifies each call's
WS-Security signature and answers through the embedded DGI simulator, so the SOAP client and the simulator
are judged by the same documents."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding
from sqlalchemy import select, update

from portal.domain.uruguay_time import today_montevideo
from portal.service.envios import tasks
from portal.service.envios.models import DgiEnvelope
from portal.service.envios.simulator import SimulatedDgi
from portal.service.platform import db
from portal.service.platform.models import Certificate
from tests.support import cfe_bodies as bodies
from tests.support.efactura_standin import EfacturaStandIn, InApp, RunningEfacturaStandIn
from tests.support.envios import ENVIOS_CONFIG, REJECT_MARKER, drain

GET = "/api/v1/comprobante/getByIdCfeEmitido"


@pytest.fixture
def service_config(service_config):
    return {**service_config, **ENVIOS_CONFIG, "DGI_RECEPTION": "soap", "DGI_RECEPTION_TIMEOUT_SECONDS": 5}


@pytest.fixture
def standin(service_app) -> Iterator[RunningEfacturaStandIn]:
    running = RunningEfacturaStandIn(EfacturaStandIn(InApp(SimulatedDgi(service_app.config), service_app)))
    service_app.config["DGI_RECEPTION_URL"] = running.url
    yield running
    running.stop()


def dgi_of(api_client, user, cfe_id) -> dict:
    return api_client.get(GET, query_string={"idCfeEmitido": cfe_id}, headers=user).json["dgi"]


def company_certificate_der(app) -> bytes:
    with app.app_context():
        pem = db.session().scalars(select(Certificate.cert_pem).where(Certificate.company_id == 1)).first()
    return x509.load_pem_x509_certificate(pem.encode()).public_bytes(Encoding.DER)


def test_receipts_are_sent_and_answered_over_soap_with_the_companys_signature(
    api_client, auth_headers, service_app, standin
):
    user = auth_headers("usuario@demo.uy")
    accepted = bodies.issue(api_client, user, bodies.body(bodies.EFACTURA))
    body = bodies.body(bodies.EFACTURA)
    body["receptor"] = {**body["receptor"], "rznSocRecep": f"Cliente {REJECT_MARKER}E07"}
    rejected = bodies.issue(api_client, user, body)
    drain(service_app)

    assert dgi_of(api_client, user, accepted["idCfeEmitido"])["estado"] == "aceptado"
    refused = dgi_of(api_client, user, rejected["idCfeEmitido"])
    assert refused["estado"] == "rechazado" and refused["motivos"][0]["codigo"] == "E07"
    calls = standin.app.calls
    assert [c.operation for c in calls] == ["EFACRECEPCIONSOBRE", "EFACCONSULTARESTADOENVIO"]
    assert b"<![CDATA[" in calls[0].raw and ":EnvioCFE " in calls[0].xml_data
    assert {c.verified.certificate_der for c in calls} == {company_certificate_der(service_app)}
    sobre = dgi_of(api_client, user, accepted["idCfeEmitido"])["sobre"]
    assert sobre["token"] and f"<Token>{sobre['token']}</Token>" in calls[1].xml_data


def test_an_envelope_dgi_has_not_processed_yet_is_asked_again_later(api_client, auth_headers, service_app, standin):
    standin.app.reception.reception.answer_delay = timedelta(hours=1)
    user = auth_headers("usuario@demo.uy")
    cfe = bodies.issue(api_client, user, bodies.body(bodies.EFACTURA))
    drain(service_app, rounds=3)
    dgi = dgi_of(api_client, user, cfe["idCfeEmitido"])
    assert dgi["estado"] == "recibido" and dgi["final"] is False  # DGI said 105: not yet, nothing lost
    queries = [c for c in standin.app.calls if c.operation == "EFACCONSULTARESTADOENVIO"]
    assert len(queries) >= 2  # asked again, with the same token
    assert len({c.xml_data for c in queries}) == 1


def test_a_dgi_that_does_not_answer_leaves_the_envelope_to_be_resent_unchanged(
    api_client, auth_headers, service_app, standin
):
    standin.app.fault = ("SOAP-ENV:Server", "Servicio temporalmente no disponible")
    user = auth_headers("usuario@demo.uy")
    cfe = bodies.issue(api_client, user, bodies.body(bodies.EFACTURA))
    drain(service_app, rounds=2)
    assert dgi_of(api_client, user, cfe["idCfeEmitido"])["estado"] in ("pendiente", "en_sobre")
    standin.app.fault = None
    with service_app.app_context():  # the retry's time comes, and the periodic sweep wakes the envelope
        db.session().execute(update(DgiEnvelope).values(next_attempt_at=None))
        db.session().commit()
        tasks.sweep(timedelta(0))
    drain(service_app)
    assert dgi_of(api_client, user, cfe["idCfeEmitido"])["estado"] == "aceptado"
    sent = [c for c in standin.app.calls if c.operation == "EFACRECEPCIONSOBRE"]
    assert len(sent) >= 2 and [c.answered for c in sent][-1] is True and not any(c.answered for c in sent[:-1])
    assert len({c.xml_data for c in sent}) == 1  # every retry carried the very same envelope


def test_the_daily_report_goes_over_soap_and_dgi_answers_ar(api_client, auth_headers, service_app, standin):
    user = auth_headers("usuario@demo.uy")
    bodies.issue(api_client, user, bodies.body(bodies.ETICKET))
    answer = api_client.post(
        "/api/v1/envios/reportes",
        json={"fecha": today_montevideo().isoformat()},
        headers=auth_headers("admin@demo.uy", 1),
    )
    assert answer.status_code == 202, answer.json
    drain(service_app)
    reports = api_client.get("/api/v1/envios/reportes", headers=auth_headers("admin@demo.uy", 1)).json["items"]
    assert reports[0]["acuse"] == "AR" and reports[0]["estado"] == "aceptado"
    assert [c.operation for c in standin.app.calls] == ["EFACRECEPCIONREPORTE"]
    assert ":Reporte " in standin.app.calls[0].xml_data
