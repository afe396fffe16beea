"""The user's way forward when a receipt could not be delivered to its electronic receiver: POST
/api/v1/intercambio/sobres/{id}/reintentar. The receiver refuses the envelope with a SOAP Client fault (state
error); it then fixes its service (DGI's directory lists a working one: the service's own exchange web service on
a real port, as Comercial del Norte, company 2); a writer's retry reads the directory afresh and the same envelope
reaches it. Refusals: not in error (409), another company's (404), a read-only role (403); a double click with
one Idempotency-Key delivers once; the retry is in the company's audit."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from portal.service.envios.consultas import ElectronicIssuer
from portal.service.intercambio.directory import find_issuer, upsert_issuer
from portal.service.intercambio.models import ExchangeCfe, ExchangeEnvelope
from portal.service.platform import db
from portal.service.recibidos.models import ReceivedCfe
from tests.support.cfe_bodies import issue
from tests.support.envios import ENVIOS_CONFIG, drain
from tests.support.exchange import CLIENT_11, NORTE, FaultingService, to_norte
from tests.support.servers import serving

WS_PATH = "/ws/aws_efactura_intercambio"


@pytest.fixture
def service_config(service_config):
    return {**service_config, **ENVIOS_CONFIG, "INTERCAMBIO_DELAY_SECONDS": 0}


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


@pytest.fixture
def refused(api_client, user, service_app):
    """A receipt to Comercial del Norte whose envelope its web service refused (SOAP Client fault): in error."""
    service = FaultingService(CLIENT_11)
    with serving(service) as server:
        with service_app.app_context():
            upsert_issuer(
                db.session(), ElectronicIssuer(NORTE, "Comercial del Norte S.R.L.", None, server.url, None, None)
            )
            db.session().commit()
        receipt = issue(api_client, user, to_norte())
        drain(service_app)
        with service_app.app_context():
            [sobre] = db.session().scalars(select(ExchangeEnvelope)).all()
        assert sobre.state == "error" and service.calls == 1
        yield receipt, sobre.id, service


@pytest.fixture
def norte_fixed(service_app):
    """Comercial del Norte's working exchange web service (this service's own, on a real port); DGI's directory
    (the simulator's) now lists it."""
    with serving(service_app) as server:
        service_app.config["INTERCAMBIO_LOCAL_WS_URL"] = server.url + WS_PATH
        yield server.url + WS_PATH


def _retry(api_client, headers, envelope_id, key=None):
    extra = {"Idempotency-Key": key} if key else {}
    return api_client.post(f"/api/v1/intercambio/sobres/{envelope_id}/reintentar", headers={**headers, **extra})


def _envelope(app, envelope_id):
    with app.app_context():
        return db.session().get(ExchangeEnvelope, envelope_id)


def _received_by_norte(app) -> list[ReceivedCfe]:
    with app.app_context():
        return list(db.session().scalars(select(ReceivedCfe).where(ReceivedCfe.company_id == 2)))


def test_a_writer_retries_an_envelope_in_error_and_it_reaches_the_fixed_receiver(
    api_client, user, service_app, refused, norte_fixed, auth_headers
):
    receipt, envelope_id, broken = refused
    answer = _retry(api_client, user, envelope_id)
    assert answer.status_code == 202, answer.json
    body = answer.json
    assert (body["idSobre"], body["estado"], body["rutReceptor"]) == (envelope_id, "armado", NORTE)
    assert body["comprobantes"] == [receipt["idCfeEmitido"]]
    assert "Firma WS-Security inválida" in body["errorAnterior"]
    drain(service_app, rounds=40)
    sobre = _envelope(service_app, envelope_id)
    assert (sobre.state, sobre.channel, sobre.last_error) == ("entregado", "ws", None)
    assert broken.calls == 1  # the refusing service was not asked again: the directory was read afresh
    with service_app.app_context():
        assert find_issuer(db.session(), NORTE).ws_url == norte_fixed
        [ex] = db.session().scalars(select(ExchangeCfe)).all()
        assert ex.state != "error"
    assert len(_received_by_norte(service_app)) == 1  # the receiver has it
    # The same bytes, not a new envelope: one envelope in all, its sequence number unchanged.
    with service_app.app_context():
        assert [s.idemisor for s in db.session().scalars(select(ExchangeEnvelope))] == [body["idEmisor"]]
    # Who asked is in the company's audit (admins read it).
    audit = api_client.get("/api/v1/empresa/auditoria", headers=auth_headers("admin@demo.uy", company_id=1)).json[
        "items"
    ]
    retried = [event for event in audit if event["accion"] == "intercambio_reintentado"]
    assert retried and retried[0]["actor"] == "usuario@demo.uy" and retried[0]["objeto"] == sobre.file_name


def test_an_envelope_not_in_error_is_a_409(api_client, user, service_app, refused, norte_fixed):
    _receipt, envelope_id, _broken = refused
    assert _retry(api_client, user, envelope_id).status_code == 202
    again = _retry(api_client, user, envelope_id)  # being delivered now
    assert again.status_code == 409 and again.json["error"]["code"] == "sobre_no_reintentable"
    drain(service_app, rounds=40)
    delivered = _retry(api_client, user, envelope_id)
    assert delivered.status_code == 409 and delivered.json["error"]["code"] == "sobre_no_reintentable"


def test_another_companys_envelope_is_a_404_and_a_reader_is_refused(api_client, auth_headers, service_app, refused):
    _receipt, envelope_id, _broken = refused
    other = _retry(api_client, auth_headers("admin@demo.uy", company_id=2), envelope_id)
    assert other.status_code == 404 and other.json["error"]["code"] == "sobre_no_encontrado"
    assert _retry(api_client, auth_headers("usuario@demo.uy"), 999_999).status_code == 404
    reader = _retry(api_client, auth_headers("soporte@demo.uy"), envelope_id)
    assert reader.status_code == 403
    assert _envelope(service_app, envelope_id).state == "error"  # nothing was touched


def test_a_double_click_delivers_once(api_client, user, service_app, refused, norte_fixed):
    _receipt, envelope_id, _broken = refused
    first = _retry(api_client, user, envelope_id, key="retry-click-1")
    second = _retry(api_client, user, envelope_id, key="retry-click-1")
    assert (first.status_code, second.status_code) == (202, 202)
    assert second.headers.get("Idempotent-Replayed") == "true" and second.json == first.json
    drain(service_app, rounds=40)
    assert len(_received_by_norte(service_app)) == 1
    with service_app.app_context():
        from portal.service.empresa.models import AuditEvent

        events = db.session().scalars(select(AuditEvent).where(AuditEvent.action == "intercambio_reintentado"))
        assert len(list(events)) == 1


def test_the_retry_is_in_the_openapi_document(api_client):
    document = api_client.get("/api/v1/openapi.json").json
    operation = document["paths"]["/api/v1/intercambio/sobres/{id_sobre}/reintentar"]["post"]
    assert {"202", "403", "404", "409"} <= set(operation["responses"])
    assert any(p["name"] == "Idempotency-Key" for p in operation["parameters"])
