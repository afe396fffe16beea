"""The ws_efactura SOAP client against the local stand-in: the three operations, the WS-Security signature,
DGI's "not processed yet", and every way a call can fail, each mapped to a transient or permanent error."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest
import requests
from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding
from lxml import etree
from werkzeug.wrappers import Response

from portal.service.envios.adapter import (
    Credentials,
    DgiPermanentError,
    DgiReception,
    DgiTransientError,
)
from portal.service.envios.receptions import make_reception
from portal.service.envios.soap_reception import NAMESPACE, SoapReception, _read_answer
from portal.service.platform.certificates import generate_self_signed
from tests.support.efactura_standin import EfacturaStandIn, RunningEfacturaStandIn, respuesta
from tests.support.servers import serving

RUT = "219999830019"
NS = {
    "soap": "http://schemas.xmlsoap.org/soap/envelope/",
    "ds": "http://www.w3.org/2000/09/xmldsig#",
    "wsse": "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd",
    "wsu": "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd",
    "dgi": NAMESPACE,
}
ENVELOPE = (
    '<?xml version="1.0" encoding="UTF-8"?>\n<EnvioCFE xmlns="http://cfe.dgi.gub.uy" version="1.0">'
    '<Caratula version="1.0"><RutReceptor>214844360018</RutReceptor><RUCEmisor>219999830019'
    '</RUCEmisor><Idemisor>7</Idemisor></Caratula><CFE version="1.0"><eFact><Nota>Ñandú &amp; '
    "cía &lt;ok&gt;</Nota></eFact></CFE></EnvioCFE>"
).encode()
ACK_SOBRE = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n<ACKSobre xmlns="http://cfe.dgi.gub.uy" version="1.0">'
    b"<Detalle><Estado>AS</Estado><ParamConsulta><Token>dG9rZW4=</Token></ParamConsulta></Detalle>"
    b"</ACKSobre>"
)
ACK_CFE = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n<ACKCFE xmlns="http://cfe.dgi.gub.uy" version="1.0">'
    b"<ACKCFE_Det><Estado>AE</Estado></ACKCFE_Det></ACKCFE>"
)
ACK_REPORTE = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n<ACKRepDiario xmlns="http://cfe.dgi.gub.uy" '
    b'version="1.0"><Detalle><Estado>AR</Estado></Detalle></ACKRepDiario>'
)


class ScriptedReception(DgiReception):
    """What DGI answers, set by each test; it records what reached it."""

    def __init__(self):
        self.envelope_answer, self.report_answer = ACK_SOBRE, ACK_REPORTE
        self.processed = False
        self.received: list[tuple[str, bytes | tuple[str, str]]] = []

    def send_envelope(self, envelope_xml, *, file_name, credentials):
        self.received.append(("sobre", envelope_xml))
        return self.envelope_answer

    def query_envelope(self, id_receptor, token, *, credentials):
        self.received.append(("consulta", (id_receptor, token)))
        return ACK_CFE if self.processed else None

    def send_report(self, report_xml, *, file_name, credentials):
        self.received.append(("reporte", report_xml))
        return self.report_answer


@pytest.fixture(scope="module")
def credentials() -> Credentials:
    key_pem, cert_pem = generate_self_signed(RUT, "DGI-RUC PRUEBA")
    return Credentials(RUT, key_pem, cert_pem)


@pytest.fixture
def dgi() -> ScriptedReception:
    return ScriptedReception()


@pytest.fixture
def standin(dgi) -> Iterator[RunningEfacturaStandIn]:
    running = RunningEfacturaStandIn(EfacturaStandIn(dgi))
    yield running
    running.stop()


@pytest.fixture
def http_session() -> Iterator[requests.Session]:
    with requests.Session() as session:
        yield session


def reception(url: str, session: requests.Session, timeout: float = 5) -> SoapReception:
    return SoapReception({"DGI_RECEPTION_URL": url, "DGI_RECEPTION_TIMEOUT_SECONDS": timeout}, session=session)


@pytest.fixture
def client(standin, http_session) -> SoapReception:
    return reception(standin.url, http_session)


def test_an_envelope_reaches_dgi_byte_for_byte_and_its_acksobre_comes_back_unchanged(client, dgi, credentials):
    answer = client.send_envelope(ENVELOPE, file_name="Sob_219999830019_20261123_7.xml", credentials=credentials)
    assert answer == ACK_SOBRE
    assert dgi.received == [("sobre", ENVELOPE)]


def test_the_request_is_soap_1_1_with_a_cdata_payload_and_a_verified_body_signature(client, standin, credentials):
    client.send_envelope(ENVELOPE, file_name="Sob.xml", credentials=credentials)
    (call,) = standin.app.calls
    assert call.operation == "EFACRECEPCIONSOBRE"
    assert b"<![CDATA[<?xml" in call.raw  # the document travels as DGI's example shows
    envelope = etree.fromstring(call.raw)
    assert etree.QName(envelope).namespace == NS["soap"]  # SOAP 1.1
    (body_id,) = envelope.xpath("soap:Body/@wsu:Id", namespaces=NS)
    (reference,) = envelope.xpath("//ds:SignedInfo/ds:Reference/@URI", namespaces=NS)
    assert reference == f"#{body_id}"
    assert call.verified.signed_ids == (body_id,)
    expected = x509.load_pem_x509_certificate(credentials.cert_pem).public_bytes(Encoding.DER)
    assert call.verified.certificate_der == expected


def test_the_status_query_is_not_ready_until_dgi_has_processed_the_envelope(client, dgi, standin, credentials):
    assert client.query_envelope("4711", "dG9rZW4=", credentials=credentials) is None
    dgi.processed = True
    assert client.query_envelope("4711", "dG9rZW4=", credentials=credentials) == ACK_CFE
    assert dgi.received == [("consulta", ("4711", "dG9rZW4=")), ("consulta", ("4711", "dG9rZW4="))]
    query = etree.fromstring(standin.app.calls[0].xml_data.encode())
    assert (etree.QName(query).text, query.findtext("dgi:IdReceptor", namespaces=NS)) == (
        f"{{{NAMESPACE}}}ConsultaCFE",
        "4711",
    )


def test_a_daily_report_gets_its_ackrepdiario(client, dgi, standin, credentials):
    report = b'<?xml version="1.0" encoding="UTF-8"?>\n<ReporteDiarioCFE xmlns="http://cfe.dgi.gub.uy"/>'
    assert client.send_report(report, file_name="Rep.xml", credentials=credentials) == ACK_REPORTE
    assert dgi.received == [("reporte", report)]
    assert standin.app.calls[0].operation == "EFACRECEPCIONREPORTE"


def test_a_token_that_is_not_base64_is_refused_before_the_network(client, standin, credentials):
    with pytest.raises(DgiPermanentError) as caught:
        client.query_envelope("12", "<Token/>", credentials=credentials)
    assert caught.value.code == "dgi_bad_request"
    assert standin.app.calls == []


def test_a_key_that_does_not_match_its_certificate_fails_the_signature_permanently(standin, http_session, credentials):
    other_key, _ = generate_self_signed("211003420017", "OTRA")
    forged = Credentials(RUT, other_key, credentials.cert_pem)
    with pytest.raises(DgiPermanentError) as caught:
        reception(standin.url, http_session).send_envelope(ENVELOPE, file_name="Sob.xml", credentials=forged)
    assert caught.value.code == "dgi_fault"
    assert "does not verify" in caught.value.message
    assert standin.app.calls == []


def test_a_tampered_body_is_refused_by_the_stand_in(client, standin, credentials, http_session):
    client.send_envelope(ENVELOPE, file_name="Sob.xml", credentials=credentials)
    tampered = standin.app.calls[0].raw.replace(b"<Idemisor>7<", b"<Idemisor>8<")
    response = http_session.post(
        standin.url,
        data=tampered,
        headers={"SOAPAction": f'"{NAMESPACE}action/AWS_EFACTURA.EFACRECEPCIONSOBRE"', "Content-Type": "text/xml"},
    )
    assert response.status_code == 500 and b"digest mismatch" in response.content
    assert len(standin.app.calls) == 1


def test_a_certificate_dgi_has_not_registered_is_a_permanent_error(standin, client, credentials):
    standin.app.trusted = set()
    with pytest.raises(DgiPermanentError, match="certificate not registered"):
        client.send_envelope(ENVELOPE, file_name="Sob.xml", credentials=credentials)


def test_an_unusable_certificate_is_a_permanent_error(client):
    with pytest.raises(DgiPermanentError) as caught:
        client.send_envelope(ENVELOPE, file_name="Sob.xml", credentials=Credentials(RUT, b"no", b"pem"))
    assert caught.value.code == "dgi_certificate"


@pytest.mark.parametrize(
    ("faultcode", "error"), [("SOAP-ENV:Server", DgiTransientError), ("SOAP-ENV:Client", DgiPermanentError)]
)
def test_soap_faults_are_transient_when_dgi_failed_and_permanent_when_the_request_did(
    standin, client, credentials, faultcode, error
):
    standin.app.fault = (faultcode, "Servicio no disponible")
    with pytest.raises(error) as caught:
        client.send_report(b"<ReporteDiarioCFE/>", file_name="Rep.xml", credentials=credentials)
    assert type(caught.value) is error and caught.value.code == "dgi_fault"


@pytest.mark.parametrize(
    ("codigo", "error"), [(102, DgiTransientError), (108, DgiPermanentError), (11, DgiPermanentError)]
)
def test_dgi_service_exceptions_keep_their_code(dgi, client, credentials, codigo, error):
    dgi.envelope_answer = respuesta(codigo, "Descripción de DGI", "detalle")
    with pytest.raises(error) as caught:
        client.send_envelope(ENVELOPE, file_name="Sob.xml", credentials=credentials)
    assert type(caught.value) is error
    assert caught.value.code == f"dgi_{codigo}"
    assert "Descripción de DGI" in caught.value.message


@pytest.mark.parametrize("answer", [b"<html>oops</html>", b"<ACKCFE xmlns='http://cfe.dgi.gub.uy'/>"])
def test_an_answer_that_is_not_the_expected_document_is_transient(dgi, client, credentials, answer):
    dgi.envelope_answer = answer
    with pytest.raises(DgiTransientError) as caught:
        client.send_envelope(ENVELOPE, file_name="Sob.xml", credentials=credentials)
    assert caught.value.code == "dgi_bad_answer"


def test_a_slow_dgi_times_out_within_the_bound(standin, http_session, credentials):
    standin.app.delay = 5
    started = time.monotonic()
    with pytest.raises(DgiTransientError) as caught:
        reception(standin.url, http_session, timeout=0.5).send_envelope(
            ENVELOPE, file_name="S.xml", credentials=credentials
        )
    assert time.monotonic() - started < standin.app.delay  # cut short by the timeout, not DGI's late answer
    assert caught.value.code == "dgi_timeout"


def test_a_closed_port_is_transient(http_session, credentials):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(DgiTransientError) as caught:
        reception(f"http://127.0.0.1:{port}/ws", http_session).send_envelope(
            ENVELOPE, file_name="S.xml", credentials=credentials
        )
    assert caught.value.code == "dgi_unavailable"


@pytest.mark.parametrize(("status", "error"), [(503, DgiTransientError), (404, DgiPermanentError)])
def test_an_html_error_page_is_an_http_error(http_session, credentials, status, error):
    def page(environ, start_response):
        return Response("<html>error</html>", status=status, content_type="text/html")(environ, start_response)

    with serving(page) as server:
        with pytest.raises(error) as caught:
            reception(f"{server.url}/ws", http_session).send_envelope(
                ENVELOPE, file_name="S.xml", credentials=credentials
            )
        assert type(caught.value) is error and caught.value.code == "dgi_http_error"


def test_make_reception_builds_the_soap_adapter_from_settings(standin):
    adapter = make_reception(
        {"DGI_RECEPTION": "soap", "DGI_RECEPTION_URL": standin.url, "DGI_RECEPTION_TIMEOUT_SECONDS": "500"}
    )
    assert isinstance(adapter, SoapReception)
    assert (adapter.url, adapter.timeout) == (standin.url, 120.0)


def test_an_answer_declaring_another_encoding_is_returned_in_that_encoding():
    answer = (
        '<?xml version="1.0" encoding="ISO-8859-1"?><ACKSobre xmlns="http://cfe.dgi.gub.uy"><G>Ñandú</G></ACKSobre>'
    )
    raw = _read_answer("EFACRECEPCIONSOBRE", "\n  " + answer)
    assert raw == answer.encode("latin-1")
    assert etree.fromstring(raw).findtext("{*}G") == "Ñandú"


def test_a_document_that_is_not_utf8_is_refused_before_the_network(client, standin, credentials):
    with pytest.raises(DgiPermanentError) as caught:
        client.send_report(
            '<?xml version="1.0" encoding="ISO-8859-1"?><R>Ñ</R>'.encode("latin-1"),
            file_name="Rep.xml",
            credentials=credentials,
        )
    assert caught.value.code == "dgi_bad_request" and standin.app.calls == []
