"""The directory of electronic issuers: DGI's ws_consultas through the real SOAP client (signed, against the
simulator's stand-in on a real port), the refresh and its record, the operator command, and what the receiver
lookup says of a RUT in the directory."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from lxml import etree
from sqlalchemy import delete, func, select

from portal.service.dgi.sandbox_data import DGI_RUT, NOT_EMISOR_RUT
from portal.service.envios import consultas
from portal.service.intercambio import refresh
from portal.service.intercambio.directory import find_issuer
from portal.service.intercambio.models import DirectoryRefresh, ElectronicIssuerRow
from portal.service.platform import db
from tests.support.consultas_standin import ConsultasStandIn, RunningConsultas

LOCAL_WS = "http://127.0.0.1:5999/intercambio/aws_efactura_intercambio"
NORTE = "211003420017"


@pytest.fixture
def standin():
    server = RunningConsultas(ConsultasStandIn({"INTERCAMBIO_LOCAL_WS_URL": LOCAL_WS}))
    yield server
    server.stop()


@pytest.fixture
def service_config(service_config, standin):
    return {
        **service_config,
        "INTERCAMBIO_DIRECTORY": "soap",
        "INTERCAMBIO_CONSULTAS_URL": standin.url,
    }


def _empty_directory(app) -> None:
    with app.app_context(), db.write_transaction() as session:
        session.execute(delete(ElectronicIssuerRow))


def test_the_request_is_what_the_domain_describes_and_the_answer_reads_back():
    request = consultas.build_request("EFACCONSULTARRUCEMISORES", datetime(2026, 1, 2, 3, 4, 5), rut=NORTE)
    names = [etree.QName(e).localname for e in request.iter()]
    assert "WS_eFactura_Consultas.EFACCONSULTARRUCEMISORES" in names
    assert consultas.read_request(request)[1:] == (datetime(2026, 1, 2, 3, 4, 5), NORTE)
    from portal.service.intercambio.simulated import simulated_issuers

    issuers = simulated_issuers({"INTERCAMBIO_LOCAL_WS_URL": LOCAL_WS}, rut=NORTE)
    back = consultas.parse_answer(consultas.build_answer("EFACCONSULTARRUCEMISORESPROV", issuers))
    assert back == issuers and back[0].ws_url == LOCAL_WS


def test_a_fault_or_html_is_unavailable_not_an_empty_directory():
    fault = b'<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><s:Fault><faultcode>x</faultcode><faultstring>no</faultstring></s:Fault></s:Body></s:Envelope>'
    with pytest.raises(consultas.DirectoryUnavailable, match="no"):
        consultas.parse_answer(fault)
    with pytest.raises(consultas.DirectoryUnavailable):
        consultas.parse_answer(b"<html><body>proxy</body")
    with pytest.raises(consultas.DirectoryUnavailable):
        consultas.parse_answer(b'<!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>')


def test_refresh_over_signed_soap_fills_the_directory_and_records_it(service_app, standin):
    _empty_directory(service_app)
    with service_app.app_context():
        result = refresh.refresh()
        session = db.session()
        assert result.source == "dgi" and result.since == refresh.EVERYTHING and result.count > 50
        norte = find_issuer(session, NORTE)
        assert norte.name == "Comercial del Norte S.R.L." and norte.exchange_email == "intercambio@delnorte.uy"
        assert norte.ws_url == LOCAL_WS  # from the PROV variant
        assert find_issuer(session, NOT_EMISOR_RUT) is None and find_issuer(session, DGI_RUT) is None
        run = session.scalar(select(DirectoryRefresh).order_by(DirectoryRefresh.id.desc()))
        assert run.count == result.count and run.error is None and run.finished_at is not None
    # Both operations went over the wire, signed (the stand-in verifies WS-Security before answering).
    assert [call[0] for call in standin.app.calls] == ["EFACCONSULTARRUCEMISORES", "EFACCONSULTARRUCEMISORESPROV"]
    with service_app.app_context():
        second = refresh.refresh()
    # The next refresh asks only for the changes since the last good one, with a day of overlap.
    assert second.since < datetime.now(UTC) and (datetime.now(UTC) - second.since).days == 1
    assert standin.app.calls[-1][1].startswith(second.since.replace(tzinfo=None).isoformat()[:16])


def test_an_unsigned_request_is_refused_by_the_stand_in(standin):
    import requests

    payload = etree.tostring(consultas.build_request("EFACCONSULTARRUCEMISORES", datetime(2020, 1, 1)))
    answer = requests.post(
        standin.url, data=payload, headers={"SOAPAction": consultas.soap_action("EFACCONSULTARRUCEMISORES")}, timeout=5
    )
    assert answer.status_code == 500 and b"WS-Security" in answer.content
    with pytest.raises(consultas.DirectoryUnavailable, match="WS-Security"):
        consultas.parse_answer(answer.content)


def test_dgi_down_is_recorded_and_keeps_the_directory(service_app, standin):
    standin.app.status = 503
    with service_app.app_context():
        before = db.session().scalar(select(func.count()).select_from(ElectronicIssuerRow))
        with pytest.raises(consultas.DirectoryUnavailable, match="HTTP 503"):
            refresh.refresh()
        session = db.new_session()
        run = session.scalar(select(DirectoryRefresh).order_by(DirectoryRefresh.id.desc()))
        assert "HTTP 503" in run.error and run.count == 0
        assert session.scalar(select(func.count()).select_from(ElectronicIssuerRow)) == before > 0
        session.close()


def test_the_operator_command_refreshes(service_app, service_config, monkeypatch):
    from click.testing import CliRunner

    from portal.service.__main__ import cli

    _empty_directory(service_app)
    monkeypatch.setenv("CFE_DATABASE_URL", service_config["DATABASE_URL"])
    monkeypatch.setenv("CFE_INTERCAMBIO_DIRECTORY", "soap")
    monkeypatch.setenv("CFE_INTERCAMBIO_CONSULTAS_URL", service_config["INTERCAMBIO_CONSULTAS_URL"])
    result = CliRunner().invoke(cli, ["intercambio", "refresh", "--completo"])
    assert result.exit_code == 0, result.output
    assert "electronic issuers from dgi" in result.output
    with service_app.app_context():
        assert find_issuer(db.session(), NORTE) is not None


def test_the_demo_directory_lists_both_demo_companies(service_app):
    # Seeded from the simulator's list (make run works offline).
    with service_app.app_context():
        session = db.session()
        assert find_issuer(session, "219999830019").exchange_email == "intercambio@demo.uy"
        assert find_issuer(session, NORTE) is not None


def test_the_receiver_lookup_says_receptor_electronico(api_client, auth_headers):
    user = auth_headers("usuario@demo.uy")
    listed = api_client.get("/api/v1/receptores/dgi", query_string={"tipoDoc": 2, "nroDoc": NORTE}, headers=user)
    assert listed.status_code == 200 and listed.json["receptorElectronico"] is True
    assert "receptor_no_emisor_electronico" not in {w["codigo"] for w in listed.json["advertencias"]}
    other = api_client.get(
        "/api/v1/receptores/dgi", query_string={"tipoDoc": 2, "nroDoc": NOT_EMISOR_RUT}, headers=user
    )
    assert other.json["receptorElectronico"] is False
    assert "receptor_no_emisor_electronico" in {w["codigo"] for w in other.json["advertencias"]}


def test_smart_issuance_says_receptor_electronico(api_client, auth_headers):
    user = auth_headers("usuario@demo.uy")
    line = {"descripcion": "Consultoría", "cantidad": "10", "precio": "1500"}

    def inferences(document: str) -> dict:
        answer = api_client.post(
            "/api/v1/cfe/previsualizar-emision-inteligente",
            json={"receptor": {"documento": document}, "lineas": [line]},
            headers=user,
        )
        assert answer.status_code == 201, answer.json
        return {i["campo"]: i for i in answer.json["inferencias"]}

    listed = inferences(NORTE)["receptor.electronico"]
    assert listed["valor"] is True and listed["motivo"].startswith("Receptor electrónico")
    assert "receptor.electronico" not in inferences(NOT_EMISOR_RUT)
