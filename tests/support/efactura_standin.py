"""A local stand-in for DGI's reception service ws_efactura (WSDL dgi-samples/wsdl/ws_eprueba.xml).

It speaks the WSDL as DGI does as far as it is published: SOAP 1.1 POST, one SOAPAction per operation, the
document in `Datain/xmlData`, the answer in `Dataout/xmlData` as CDATA. The WS-Security signature over the
Body is verified by the RUT lookup stand-in's verifier (tests.support.dgi_standin.verify_request, which
checks digests with Python's C14N 2.0 and the RSA value with xmlsec); a missing or bad one is HTTP 500 with
a SOAP Client fault. What DGI answers comes from a `DgiReception` behind it — the embedded DGI simulator in
the agreement tests — so the SOAP client and the simulator are judged by the same documents. An envelope DGI
has not finished is answered, as DGI does, with ExcepcionesServicios' `<Respuestas>` code 105.

Knobs for tests: `delay` (seconds before answering), `fault` ((faultcode, text) for every call), `trusted`
(DER certificates allowed to call, like DGI's registered certificates), `calls` (every signed call received,
faulted ones included), `outage` (a callable answering the DGI simulator's outage mode and slow delay,
portal.service.envios.outage: the stand-in then plays the mode on the wire, as DGI's host would: `caido` an
HTTP 503 page from the gateway, `lento` an answer after the delay, `falla_soap` a SOAP Server fault,
`sin_respuestas` code 105 to every status query).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding
from lxml import etree
from werkzeug.wrappers import Request, Response

from portal.service.envios.adapter import Credentials, DgiReception, DgiReceptionError
from portal.service.envios.soap_reception import NAMESPACE, OPERATIONS
from tests.support.dgi_standin import SOAP_ENV, SignatureError, Verified, soap_envelope, soap_fault, verify_request
from tests.support.servers import LiveServer

SOAP_ACTIONS = {f"{NAMESPACE}action/AWS_EFACTURA.{op}": op for op in OPERATIONS}
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)


@dataclass(frozen=True)
class Call:
    operation: str
    xml_data: str
    raw: bytes
    verified: Verified
    answered: bool = True  # False when the stand-in answered with its configured fault


def respuesta(codigo: int, descripcion: str, detalle: str = "") -> bytes:
    """DGI's service exception document (ExcepcionesServicios.xsd)."""
    root = etree.Element("Respuestas")
    answer = etree.SubElement(root, "Respuesta")
    etree.SubElement(answer, "codigo").text = str(codigo)
    etree.SubElement(answer, "descripcion").text = descripcion
    etree.SubElement(answer, "detalle").text = detalle
    return etree.tostring(root, xml_declaration=True, encoding="utf-8")


class EfacturaStandIn:
    """The WSGI app (see the module docstring)."""

    def __init__(self, reception: DgiReception, *, delay: float = 0.0, trusted: set[bytes] | None = None):
        self.reception = reception
        self.delay = delay
        self.trusted = trusted
        self.fault: tuple[str, str] | None = None
        self.calls: list[Call] = []
        self.released = threading.Event()  # set it to cut a delay short (teardown)
        self.outage: Callable[[], tuple[str, float]] | None = None

    def __call__(self, environ, start_response):
        return self.handle(Request(environ))(environ, start_response)

    def handle(self, request: Request) -> Response:
        if request.method != "POST":
            return Response("SOAP endpoint: POST only", status=405, headers={"Allow": "POST"})
        operation = SOAP_ACTIONS.get(request.headers.get("SOAPAction", "").strip('"'))
        if operation is None:
            return soap_fault("Unknown SOAPAction")
        raw = request.get_data()
        try:
            envelope = etree.fromstring(raw, _PARSER)
            if envelope.getroottree().docinfo.doctype:
                return soap_fault("DOCTYPE is not allowed")
            verified = verify_request(envelope)
        except (etree.XMLSyntaxError, SignatureError, ValueError) as exc:
            return soap_fault(f"WS-Security: {exc}")
        if self.trusted is not None and verified.certificate_der not in self.trusted:
            return soap_fault("WS-Security: certificate not registered")
        xml_data = envelope.findtext(
            f"{{{SOAP_ENV}}}Body/{{{NAMESPACE}}}WS_eFactura.{operation}/{{{NAMESPACE}}}Datain/{{{NAMESPACE}}}xmlData"
        )
        if xml_data is None:
            return soap_fault(f"WS_eFactura.{operation}/Datain/xmlData is missing")
        mode, slow = self.outage() if self.outage else ("normal", 0.0)
        if mode == "caido":
            self.calls.append(Call(operation, xml_data, raw, verified, answered=False))
            return Response("<html><body>503 Service Unavailable</body></html>", status=503, content_type="text/html")
        self.calls.append(
            Call(operation, xml_data, raw, verified, answered=not self.fault and mode not in ("falla_soap", "lento"))
        )
        if self.delay or mode == "lento":
            self.released.wait(self.delay + (slow if mode == "lento" else 0.0))
        if self.fault:
            return soap_fault(self.fault[1], self.fault[0])
        if mode == "falla_soap":
            return soap_fault("Servicio temporalmente no disponible", "SOAP-ENV:Server")
        if mode == "sin_respuestas" and operation == "EFACCONSULTARESTADOENVIO":
            return _wrapped(operation, respuesta(105, "El sobre aún no ha sido procesado. Vuelva a consultar luego"))
        return _wrapped(operation, self._answer(operation, xml_data, _credentials(verified.certificate_der)))

    def _answer(self, operation: str, xml_data: str, credentials: Credentials) -> bytes:
        document = xml_data.encode("utf-8")
        try:
            if operation == "EFACRECEPCIONSOBRE":
                return self.reception.send_envelope(document, file_name="", credentials=credentials)
            if operation == "EFACRECEPCIONREPORTE":
                return self.reception.send_report(document, file_name="", credentials=credentials)
            query = etree.fromstring(document, _PARSER)
            id_receptor = query.findtext(f"{{{NAMESPACE}}}IdReceptor") or ""
            token = query.findtext(f"{{{NAMESPACE}}}Token") or ""
            if not id_receptor.isdigit():
                return respuesta(2, "El IdReceptor debe ser un número positivo")
            ack = self.reception.query_envelope(id_receptor, token, credentials=credentials)
        except (etree.XMLSyntaxError, DgiReceptionError) as exc:
            return respuesta(1, "El XML recibido no está bien formado", str(exc))
        if ack is None:
            return respuesta(
                105, "El sobre con el Id Receptor especificado aún no ha sido procesado. Vuelva a consultar luego"
            )
        return ack


class InApp(DgiReception):
    """The simulator keeps its memory in the service's database: the stand-in's thread calls it in the app."""

    def __init__(self, reception: DgiReception, app):
        self.reception, self.app = reception, app

    def send_envelope(self, envelope_xml, *, file_name, credentials):
        with self.app.app_context():
            return self.reception.send_envelope(envelope_xml, file_name=file_name, credentials=credentials)

    def query_envelope(self, id_receptor, token, *, credentials):
        with self.app.app_context():
            return self.reception.query_envelope(id_receptor, token, credentials=credentials)

    def query_cfe_state(self, rut, tipo_cfe, serie, nro, *, credentials):
        with self.app.app_context():
            return self.reception.query_cfe_state(rut, tipo_cfe, serie, nro, credentials=credentials)

    def send_report(self, report_xml, *, file_name, credentials):
        with self.app.app_context():
            return self.reception.send_report(report_xml, file_name=file_name, credentials=credentials)


def _wrapped(operation: str, answer: bytes) -> Response:
    response = etree.Element(f"{{{NAMESPACE}}}WS_eFactura.{operation}Response", nsmap={None: NAMESPACE})
    dataout = etree.SubElement(response, f"{{{NAMESPACE}}}Dataout")
    etree.SubElement(dataout, f"{{{NAMESPACE}}}xmlData").text = etree.CDATA(answer.decode("utf-8"))
    return Response(soap_envelope(response), content_type="text/xml; charset=utf-8")


def _credentials(certificate_der: bytes) -> Credentials:
    """What the backend learns of the caller: the certificate of the WS-Security token (no key)."""
    certificate = x509.load_der_x509_certificate(certificate_der)
    serial = certificate.subject.get_attributes_for_oid(x509.NameOID.SERIAL_NUMBER)
    rut = str(serial[0].value).removeprefix("RUC") if serial else ""
    return Credentials(rut=rut, key_pem=b"", cert_pem=certificate.public_bytes(Encoding.PEM))


class RunningEfacturaStandIn:
    """The stand-in served by werkzeug on 127.0.0.1, port 0, in a thread."""

    def __init__(self, app: EfacturaStandIn):
        self.app = app
        self.server = LiveServer().start(app)
        self.url = f"{self.server.url}/ePrueba/ws_eprueba"

    def stop(self) -> None:
        self.app.released.set()
        self.server.stop()
