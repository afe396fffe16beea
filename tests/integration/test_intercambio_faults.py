"""A receiver's exchange web service answering a SOAP Fault: one that refuses our request (SOAP 1.1 `Client`, 1.2
`Sender`) is a permanent failure, kept with the fault's text and not retried (the same bytes cannot succeed); the
receiver's own failure (`Server`/`Receiver`, or a 5xx without a fault) stays temporary and is retried."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import select

from portal.service.envios.consultas import ElectronicIssuer
from portal.service.intercambio import transport
from portal.service.intercambio.directory import upsert_issuer
from portal.service.intercambio.models import ExchangeCfe, ExchangeEnvelope
from portal.service.platform import db
from tests.support import recibidos as sup
from tests.support.cfe_bodies import issue
from tests.support.envios import ENVIOS_CONFIG, drain
from tests.support.exchange import (
    CLIENT_11,
    NORTE,
    RECEIVER_12,
    SENDER_12,
    SERVER_11,
    UNAVAILABLE,
    FaultingService,
    to_norte,
)
from tests.support.servers import serving


@pytest.fixture
def service_config(service_config):
    return {**service_config, **ENVIOS_CONFIG, "INTERCAMBIO_DELAY_SECONDS": 0}


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


def _receiver(app, url: str) -> ElectronicIssuer:
    issuer = ElectronicIssuer(NORTE, "Comercial del Norte S.R.L.", "intercambio@norte.uy", url, None, None)
    with app.app_context():
        upsert_issuer(db.session(), issuer)
        db.session().commit()
    return issuer


@pytest.mark.parametrize(
    "answer, temporary, words",
    [
        (CLIENT_11, False, ["soap:Client", "Firma WS-Security inválida"]),
        (SENDER_12, False, ["env:Sender", "Sobre mal formado"]),
        (SERVER_11, True, ["Base de datos caída"]),
        (RECEIVER_12, True, ["Servicio sobrecargado"]),
        (UNAVAILABLE, True, ["HTTP 503"]),
    ],
    ids=["soap11-client", "soap12-sender", "soap11-server", "soap12-receiver", "503-without-fault"],
)
def test_a_fault_refusing_our_request_is_permanent_and_the_receivers_own_is_temporary(
    service_app, answer, temporary, words
):
    with serving(FaultingService(answer)) as server:
        receiver = _receiver(service_app, server.url)
        with service_app.app_context():
            result = transport.deliver(1, receiver, "SOBRE", sup.envelope([sup.cfe(1)]), "Sob.xml")
    assert (result.channel, result.delivered, result.temporary) == ("ws", False, temporary), result.detail
    assert all(word in result.detail for word in words), result.detail


def test_an_envelope_the_receiver_refuses_with_a_client_fault_is_not_retried_and_says_why(
    api_client, user, service_app
):
    service = FaultingService(CLIENT_11)
    with serving(service) as server:
        _receiver(service_app, server.url)
        receipt = issue(api_client, user, to_norte())
        drain(service_app)
    assert service.calls == 1  # refused once: never sent again (it used to be tried INTERCAMBIO_MAX_ATTEMPTS times)
    with service_app.app_context():
        [sobre] = db.session().scalars(select(ExchangeEnvelope)).all()
        [ex] = db.session().scalars(select(ExchangeCfe)).all()
    assert (sobre.state, sobre.attempts, sobre.next_attempt_at, ex.state) == ("error", 1, None, "error")
    answer = api_client.get(
        "/api/v1/comprobante/getByIdCfeEmitido", query_string={"idCfeEmitido": receipt["idCfeEmitido"]}, headers=user
    )
    shown = answer.json["intercambio"]  # the receipt's exchange state, as the user sees it
    assert shown["estado"] == "error" and shown["final"] is True
    assert "puede reintentar la entrega" in shown["descripcion"]  # it said "requiere revisión de soporte"
    assert "soap:Client" in shown["sobre"]["ultimoError"]
    assert "Firma WS-Security inválida" in shown["sobre"]["ultimoError"]


def test_an_envelope_the_receiver_fails_with_a_receiver_fault_is_retried_later(api_client, user, service_app):
    service = FaultingService(RECEIVER_12)
    with serving(service) as server:
        _receiver(service_app, server.url)
        issue(api_client, user, to_norte())
        drain(service_app)  # the first attempt; the backoff holds the next one
    with service_app.app_context():
        [sobre] = db.session().scalars(select(ExchangeEnvelope)).all()
    assert (sobre.state, sobre.attempts) == ("armado", 1) and "Servicio sobrecargado" in sobre.last_error
    assert sobre.next_attempt_at is not None and sobre.next_attempt_at > datetime.now(UTC)
