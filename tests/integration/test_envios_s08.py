"""After DGI answers S08 (it already holds an envelope with that number), the envelope road asks DGI what it
holds of each receipt (ws_consultas EFACCONSULTARESTADOCFE, answered by the simulator from what it received)
and every receipt ends in its true state, instead of the envelope waiting for support."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from sqlalchemy import select

from portal.domain.uruguay_time import MONTEVIDEO
from portal.service.comprobante.models import IssuedCfe, VoidedRange
from portal.service.envios import acks, envelope
from portal.service.envios.adapter import Credentials
from portal.service.envios.models import DgiEnvelope, DgiSubmission
from portal.service.envios.simulator import SimulatedDgi
from portal.service.platform import db
from portal.service.platform.models import Certificate
from tests.support import cfe_bodies as bodies
from tests.support.cfe_bodies import issue
from tests.support.envios import ENVIOS_CONFIG, REJECT_MARKER, drain

RUT = "219999830019"


@pytest.fixture
def service_config(service_config):
    return {**service_config, **ENVIOS_CONFIG}


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


def dgi_holds(app, cfe_ids: list[str], idemisor: int = 1) -> None:
    """DGI receives, from elsewhere, an envelope numbered `idemisor` holding these receipts: other bytes than
    the ones this service will send under that number (another moment in its header)."""
    with app.app_context():
        session = db.session()
        xmls = [session.get_one(IssuedCfe, cfe_id).xml for cfe_id in cfe_ids]
        cert = session.scalar(select(Certificate).where(Certificate.company_id == 1)).cert_pem.encode()
        data = envelope.build_envelope(
            xmls,
            rut_receptor=app.config["DGI_RUT"],
            rut_emisor=RUT,
            idemisor=idemisor,
            moment=datetime.now(MONTEVIDEO).replace(microsecond=0) - timedelta(hours=1),
            cert_pem=cert,
        )
        ack = SimulatedDgi(app.config).send_envelope(
            data, file_name="Sob_otro.xml", credentials=Credentials(RUT, b"", b"")
        )
        assert acks.read_ack_sobre(ack).estado == "AS"


def submission(app, cfe_id: str) -> tuple[DgiSubmission, DgiEnvelope]:
    with app.app_context():
        session = db.session()
        sub = session.get_one(DgiSubmission, cfe_id)
        session.expunge(sub)
        sobre = session.get_one(DgiEnvelope, sub.envelope_id)
        session.expunge(sobre)
        return sub, sobre


def test_an_envelope_dgi_already_holds_ends_with_dgis_verdict_on_each_receipt(api_client, user, service_app):
    accepted = issue(api_client, user, bodies.body(bodies.EFACTURA))["idCfeEmitido"]
    body = bodies.body(bodies.EFACTURA)
    body["receptor"]["rznSocRecep"] = f"Cliente {REJECT_MARKER}E14"
    rejected = issue(api_client, user, body)
    dgi_holds(service_app, [accepted, rejected["idCfeEmitido"]])  # a delivery whose answer was lost

    drain(service_app)

    sub, sobre = submission(service_app, accepted)
    assert sobre.ack_state == "BS" and [m["codigo"] for m in sobre.ack_motives] == ["S08"]
    assert sobre.state == "respondido" and "S08" in sobre.last_error
    assert sub.state == "aceptado"
    sub, _ = submission(service_app, rejected["idCfeEmitido"])
    assert sub.state == "rechazado" and [m["codigo"] for m in sub.motives] == ["E14"]
    with service_app.app_context():
        session = db.session()
        voided = session.scalar(select(VoidedRange).where(VoidedRange.cfe_id == rejected["idCfeEmitido"]))
        assert (voided.source, voided.nro_desde) == ("rechazo_dgi", rejected["nro"])
        assert session.scalar(select(DgiEnvelope.id).where(DgiEnvelope.id != sobre.id)) is None  # nothing resent


def test_receipts_dgi_never_received_under_that_number_go_in_a_new_envelope(
    api_client, user, service_app, auth_headers
):
    held = issue(api_client, user, bodies.body(bodies.EFACTURA))["idCfeEmitido"]
    missing = issue(api_client, user, bodies.body(bodies.EFACTURA))["idCfeEmitido"]
    dgi_holds(service_app, [held])  # number 1 was used by an envelope holding only one of them

    drain(service_app)

    sub, first = submission(service_app, held)
    assert (first.idemisor, first.state, sub.state) == (1, "respondido", "aceptado")
    sub, second = submission(service_app, missing)
    assert second.idemisor == 2 and second.ack_state == "AS" and sub.state == "aceptado"
    listed = {s["idEmisor"]: s for s in _sobres(api_client, auth_headers("admin@demo.uy", 1))}
    assert (listed[1]["estado"], listed[1]["cantidadCfe"], listed[1]["aceptados"]) == ("respondido", 2, 1)
    assert "1 que DGI no recibió" in listed[1]["ultimoError"]
    assert (listed[2]["estado"], listed[2]["aceptados"]) == ("respondido", 1)
    # The note was kept as its Spanish sentence alone, and said so in English.
    english = {**auth_headers("admin@demo.uy", 1), "Accept-Language": "en"}
    listed = {s["idEmisor"]: s for s in _sobres(api_client, english)}
    assert listed[1]["ultimoError"] == (
        "DGI already had an envelope with this number (S08): each receipt's state was asked of DGI; 1 with DGI's "
        "answer, 1 that DGI did not receive go in a new envelope."
    )


def test_while_dgi_is_still_judging_the_receipts_the_envelope_asks_again(api_client, user, service_app):
    cfe_id = issue(api_client, user, bodies.body(bodies.EFACTURA))["idCfeEmitido"]
    service_app.config["DGI_SIMULATOR_ANSWER_SECONDS"] = 3600
    dgi_holds(service_app, [cfe_id])
    service_app.config["DGI_SIMULATOR_ANSWER_SECONDS"] = 0

    drain(service_app, rounds=3)

    sub, sobre = submission(service_app, cfe_id)
    assert sobre.state == "recibido" and sub.state == "en_sobre"
    assert "aún no terminó" in sobre.last_error and sobre.next_attempt_at is not None


def test_over_signed_soap_the_state_of_a_cfe_is_what_the_simulator_received(api_client, user, service_app):
    """The real ws_consultas client (SoapReception.query_cfe_state), signed, against a stand-in on a real port
    that answers from the embedded simulator's memory."""
    from portal.service.envios.sending import credentials
    from portal.service.envios.soap_reception import SoapReception
    from tests.support.consultas_standin import ConsultasStandIn, RunningConsultas

    cfe = issue(api_client, user, bodies.body(bodies.EFACTURA))
    dgi_holds(service_app, [cfe["idCfeEmitido"]])

    def from_simulator(rut: str, tipo: int, serie: str, nro: int):
        with service_app.app_context():
            return SimulatedDgi(service_app.config).query_cfe_state(
                rut, tipo, serie, nro, credentials=Credentials(rut, b"", b"")
            )

    server = RunningConsultas(ConsultasStandIn(cfe_state=from_simulator))
    try:
        soap = SoapReception({"INTERCAMBIO_CONSULTAS_URL": server.url})
        with service_app.app_context():
            record = db.session().get_one(IssuedCfe, cfe["idCfeEmitido"])
            creds = credentials(db.session(), 1, record.certificate_id)
            held = soap.query_cfe_state(RUT, record.tipo_cfe, record.serie, record.nro, credentials=creds)
            unknown = soap.query_cfe_state(RUT, record.tipo_cfe, record.serie, record.nro + 1, credentials=creds)
    finally:
        server.stop()
    assert held.estado == "AE" and held.motives == []
    assert unknown.estado == "no_recibido"
    assert [call[0] for call in server.app.calls] == ["EFACCONSULTARESTADOCFE"] * 2  # verified signatures


def test_a_rejection_reads_back_with_dgis_motives_from_the_wire():
    from portal.service.envios import consultas
    from portal.service.envios.adapter import CfeState
    from portal.service.envios.states import motive

    for state in (CfeState("BE", [motive("E14", "detalle")]), CfeState("en_proceso"), CfeState("no_recibido")):
        assert consultas.parse_state_answer(consultas.build_state_answer(state)) == state
    request = consultas.build_state_request(RUT, 111, "A", 42)
    assert consultas.read_state_request(request) == (RUT, 111, "A", 42)


def _sobres(api_client, headers) -> list[dict]:
    answer = api_client.get("/api/v1/envios/sobres", headers=headers)
    assert answer.status_code == 200, answer.json
    return answer.json["items"]


def test_why_dgis_consultas_did_not_answer_is_said_in_the_readers_language(
    api_client, user, service_app, auth_headers, monkeypatch
):
    """ws_consultas not answering the S08 question (the real client, to a port nothing listens on) is kept as a
    catalogue message: the envelope's error and DGI's outage record say it in English to an English reader."""
    from portal.service.envios.soap_reception import SoapReception

    cfe_id = issue(api_client, user, bodies.body(bodies.EFACTURA))["idCfeEmitido"]
    dgi_holds(service_app, [cfe_id])
    nobody = SoapReception({"INTERCAMBIO_CONSULTAS_URL": "http://127.0.0.1:18179/ws_consultas"})
    monkeypatch.setattr(SimulatedDgi, "query_cfe_state", lambda self, *args, **kw: nobody.query_cfe_state(*args, **kw))

    drain(service_app, rounds=2)

    english = {**auth_headers("admin@demo.uy", 1), "Accept-Language": "en"}
    [sobre] = _sobres(api_client, english)
    # Said in words, never the library's text (hosts, ports, objects' addresses), which only the log gets.
    assert sobre["ultimoError"] == "Could not connect to DGI's ws_consultas."
    dgi = api_client.get("/api/v1/envios/dgi", headers=english).json
    assert dgi["ultimoError"] == "Could not connect to DGI's ws_consultas."
    [sobre] = _sobres(api_client, auth_headers("admin@demo.uy", 1))
    assert sobre["ultimoError"] == "No se pudo conectar con ws_consultas de DGI."
