"""The real ws_efactura client (CFE_DGI_RECEPTION=soap) against each outage mode, played on the wire by the
local stand-in as DGI's host would (a gateway's 503 page, an answer past the timeout, a SOAP Server fault,
status queries answered "not processed yet"), and against a port where nothing listens. Each is a failure that
leaves the receipt waiting, not lost, and the same envelope goes through once DGI answers."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from portal.service.envios import outage, tasks
from portal.service.envios.models import DgiEnvelope, DgiSubmission
from portal.service.envios.simulator import SimulatedDgi
from portal.service.platform import db, jobs
from tests.support import cfe_bodies as bodies
from tests.support.efactura_standin import EfacturaStandIn, InApp, RunningEfacturaStandIn
from tests.support.envios import ENVIOS_CONFIG, dgi_back, drain

# The mode, and what the client makes of it (the adapter's error code, recorded on the envelope).
EXPECTED = {
    "caido": "HTTP 503",
    "lento": "no respondió en 1 s",
    "falla_soap": "Servicio temporalmente no disponible",
}


@pytest.fixture
def service_config(service_config):
    return {
        **service_config,
        **ENVIOS_CONFIG,
        "DGI_RECEPTION": "soap",
        "DGI_RECEPTION_TIMEOUT_SECONDS": 1,
        "DGI_SIMULATOR_SLOW_SECONDS": 1.5,
    }


@pytest.fixture
def standin(service_app) -> Iterator[RunningEfacturaStandIn]:
    app = EfacturaStandIn(InApp(SimulatedDgi(service_app.config, outages=False), service_app))

    def mode() -> tuple[str, float]:
        with service_app.app_context():
            return outage.simulator_mode(service_app.config)

    app.outage = mode
    running = RunningEfacturaStandIn(app)
    service_app.config["DGI_RECEPTION_URL"] = running.url
    yield running
    running.stop()
    with service_app.app_context():
        outage.set_simulator_mode("normal")


def switch(app, mode: str) -> None:
    with app.app_context():
        outage.set_simulator_mode(mode)


def state_of(app, cfe_id: str) -> str:
    with app.app_context():
        return db.new_session().get(DgiSubmission, cfe_id).state


@pytest.mark.parametrize("mode", sorted(EXPECTED))
def test_the_soap_client_waits_out_each_outage_and_sends_the_same_envelope_after(
    api_client, auth_headers, service_app, standin, mode
):
    switch(service_app, mode)
    cfe = bodies.issue(api_client, auth_headers("usuario@demo.uy"), bodies.body(bodies.EFACTURA))["idCfeEmitido"]
    drain(service_app, rounds=3)
    assert state_of(service_app, cfe) == "en_sobre"
    with service_app.app_context():
        sobre = db.new_session().scalars(select(DgiEnvelope)).one()
        assert EXPECTED[mode] in sobre.last_error and sobre.state == "armado"
        assert outage.is_down()
    dgi_back(service_app)
    assert state_of(service_app, cfe) == "aceptado"
    sent = [c for c in standin.app.calls if c.operation == "EFACRECEPCIONSOBRE"]
    assert len({c.xml_data for c in sent}) == 1 and sent[-1].answered and not any(c.answered for c in sent[:-1])


def test_the_soap_client_keeps_asking_while_dgi_holds_back_the_results(api_client, auth_headers, service_app, standin):
    switch(service_app, "sin_respuestas")
    cfe = bodies.issue(api_client, auth_headers("usuario@demo.uy"), bodies.body(bodies.EFACTURA))["idCfeEmitido"]
    drain(service_app, rounds=3)
    assert state_of(service_app, cfe) == "recibido"
    queries = [c for c in standin.app.calls if c.operation == "EFACCONSULTARESTADOENVIO"]
    assert len(queries) >= 2 and len({c.xml_data for c in queries}) == 1  # the same token, asked again
    switch(service_app, "normal")
    with service_app.app_context(), db.write_transaction() as session:
        session.execute(update(DgiEnvelope).values(next_attempt_at=None))
    with service_app.app_context():
        jobs.use_app(service_app)
        tasks.sweep(timedelta(0))
    drain(service_app)
    assert state_of(service_app, cfe) == "aceptado"


def test_a_host_that_refuses_connections_is_an_outage_too(api_client, auth_headers, service_app, standin):
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}/ePrueba/ws_eprueba"
    service_app.config["DGI_RECEPTION_URL"] = closed
    service_app.extensions.pop("dgi_reception", None)
    cfe = bodies.issue(api_client, auth_headers("usuario@demo.uy"), bodies.body(bodies.EFACTURA))["idCfeEmitido"]
    drain(service_app, rounds=3)
    with service_app.app_context():
        sobre = db.new_session().scalars(select(DgiEnvelope)).one()
        assert sobre.last_error == "No se pudo conectar con el servicio de DGI." and outage.is_down()
    service_app.config["DGI_RECEPTION_URL"] = standin.url
    service_app.extensions.pop("dgi_reception", None)
    dgi_back(service_app)
    assert state_of(service_app, cfe) == "aceptado"
