"""DGI's reception service `ws_efactura` over SOAP 1.1, the Body signed with the company's certificate.

The three operations of DGI's WSDL (../shared/domain/dgi-samples/wsdl/ws_eprueba.xml), called through zeep
with the lookup client's machinery (portal.service.dgi.soap: the parsed-WSDL settings, the HTTP session, the
transport that tells an HTML error page from a SOAP fault, and the `BodySignature` WS-Security plugin):

    EFACRECEPCIONSOBRE        Datain/xmlData = the signed EnvioCFE      -> Dataout/xmlData = ACKSobre
    EFACCONSULTARESTADOENVIO  Datain/xmlData = ConsultaCFE(IdReceptor, Token) -> ACKCFE, or "not processed yet"
    EFACRECEPCIONREPORTE      Datain/xmlData = the signed ReporteDiarioCFE -> ACKRepDiario

The document travels as `<xmlData><![CDATA[...]]></xmlData>`, as DGI's 2013 example shows. When DGI cannot
take a request it answers, inside xmlData, ExcepcionesServicios.xsd's `<Respuestas><Respuesta><codigo>`;
`_classify` turns those codes, SOAP faults and HTTP failures into the adapter's typed errors.

The shared WSDL copy imports its types from `ws_eprueba.xsd1.xsd`, which DGI serves beside the WSDL but was
not published with it. Its shape is known from the sister service DGI did publish
(dgi-xsd/ws/aws_efactura_intercambio.xsd1.xsd: one `Data` type holding an `xmlData` string, each operation's
element wrapping `Datain`, each answer `Dataout`); `_TYPES` is that schema with ws_efactura's element names,
handed to zeep when it asks for the missing file. Nothing is fetched from the network to load the WSDL.

Settings (the mapping `make_reception` passes):

    DGI_RECEPTION_URL              endpoint; default DGI's test host (the WSDL's address)
    DGI_RECEPTION_TIMEOUT_SECONDS  read timeout per call, default 30, capped at 120 (connect: 5 s)
    DGI_RECEPTION_WSDL_PATH        default the shared samples' ws_eprueba.xml
    DGI_SIGNATURE_DIGEST           sha256 (default) | sha1, shared with the RUT lookups
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import requests
import zeep
import zeep.exceptions
from lxml import etree
from zeep.plugins import Plugin
from zeep.transports import Transport
from zeep.wsdl import Document

from portal import paths
from portal.domain.digits import ascii_number
from portal.service.dgi.soap import ZEEP_SETTINGS, DgiTransport, body_signer, shared_session
from portal.service.envios.consultas import ConsultasClient, DirectoryUnavailable
from portal.service.platform.i18n import _

from .adapter import CfeState, Credentials, DgiPermanentError, DgiReception, DgiTransientError

log = logging.getLogger(__name__)

NAMESPACE = "http://dgi.gub.uy"
BINDING = f"{{{NAMESPACE}}}WS_eFacturaSoapBinding"
WSDL_NAME = "ws_eprueba.xml"
TYPES_NAME = "ws_eprueba.xsd1.xsd"
DGI_TEST_URL = "https://efactura.dgi.gub.uy:6443/ePrueba/ws_eprueba"
DGI_PRODUCTION_URL = "https://efactura.dgi.gub.uy:6443/eFactura/ws_efactura"
OPERATIONS = ("EFACRECEPCIONSOBRE", "EFACCONSULTARESTADOENVIO", "EFACRECEPCIONREPORTE")
CONNECT_TIMEOUT_SECONDS = 5.0
DEFAULT_TIMEOUT_SECONDS = 30.0
MAX_TIMEOUT_SECONDS = 120.0

_TYPES = (
    f'<schema xmlns="http://www.w3.org/2001/XMLSchema" xmlns:tns="{NAMESPACE}" targetNamespace="{NAMESPACE}"'
    ' elementFormDefault="qualified">'
    '<complexType name="Data"><all><element name="xmlData" type="string"/></all></complexType>'
    + "".join(
        f'<element name="WS_eFactura.{op}"><complexType><sequence>'
        '<element minOccurs="1" maxOccurs="1" name="Datain" type="tns:Data"/></sequence></complexType>'
        f'</element><element name="WS_eFactura.{op}Response"><complexType><sequence>'
        '<element minOccurs="1" maxOccurs="1" name="Dataout" type="tns:Data"/></sequence></complexType>'
        "</element>"
        for op in OPERATIONS
    )
    + "</schema>"
).encode("utf-8")

# ExcepcionesServicios.xsd: "not processed yet, ask again later" (13, 99, 105) and "the method failed while
# running" (100, 102; 104 also says "or there is no such envelope", which right after AS means "not yet").
NOT_READY_CODES = frozenset({"13", "99", "105"})
TRANSIENT_CODES = frozenset({"100", "102", "104"})
_EXPECTED_ROOT = {
    "EFACRECEPCIONSOBRE": "ACKSobre",
    "EFACCONSULTARESTADOENVIO": "ACKCFE",
    "EFACRECEPCIONREPORTE": "ACKRepDiario",
}
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
_DECLARED_ENCODING = re.compile(rb"^<\?xml[^>]*encoding=[\"']([A-Za-z0-9._-]+)")


class _WsdlLoader(Transport):
    """Loads the WSDL from disk and answers zeep's request for the unpublished types file with `_TYPES`."""

    def load(self, url):
        if str(url).endswith("/" + TYPES_NAME):
            return _TYPES
        return super().load(url)


@lru_cache(maxsize=4)
def _wsdl(path: str) -> Document:
    # zeep annotates `transport` as type[Transport] but uses (and its own Client passes) an instance
    return Document(path, _WsdlLoader(timeout=10), settings=ZEEP_SETTINGS)  # type: ignore[arg-type]


def default_wsdl_path() -> Path:
    return paths.dgi_samples_dir() / "wsdl" / WSDL_NAME


class _CdataPayload(Plugin):
    """Writes Datain/xmlData as a CDATA section, as DGI's example does (the same characters either way, so
    the Body digest does not change). A payload holding "]]>" cannot be CDATA and stays escaped text."""

    def egress(self, envelope, http_headers, operation, binding_options):
        for node in envelope.iter(f"{{{NAMESPACE}}}xmlData"):
            if node.text and "]]>" not in node.text:
                node.text = etree.CDATA(node.text)
        return envelope, http_headers


def consulta_cfe(id_receptor: str, token: str) -> str:
    """The xmlData of EFACCONSULTARESTADOENVIO: DGI's envelope number and the token of its ACKSobre."""
    if ascii_number(str(id_receptor)) is None or not token or not re.fullmatch(r"[A-Za-z0-9+/=\s]+", token):
        raise DgiPermanentError(_("El número de DGI o el token del sobre no son válidos."), code="dgi_bad_request")
    # None is lxml's default namespace; lxml-stubs type nsmap's keys as str
    root = etree.Element(f"{{{NAMESPACE}}}ConsultaCFE", nsmap={None: NAMESPACE})  # type: ignore[dict-item]
    etree.SubElement(root, f"{{{NAMESPACE}}}IdReceptor").text = str(int(id_receptor))
    etree.SubElement(root, f"{{{NAMESPACE}}}Token").text = token.strip()
    return etree.tostring(root, encoding="unicode")


def timeout_seconds(config: Mapping[str, Any]) -> float:
    raw = config.get("DGI_RECEPTION_TIMEOUT_SECONDS")
    value = DEFAULT_TIMEOUT_SECONDS if raw in (None, "") else float(raw)
    if not value > 0:
        raise ValueError(f"DGI_RECEPTION_TIMEOUT_SECONDS must be positive, not {value!r}")
    return min(value, MAX_TIMEOUT_SECONDS)


class SoapReception(DgiReception):
    """The `soap` adapter. `session` replaces the process-wide HTTP session (tests pass their own)."""

    def __init__(self, config: Mapping[str, Any], *, session: requests.Session | None = None):
        self.url = config.get("DGI_RECEPTION_URL") or DGI_TEST_URL
        self.consultas_url = config.get("INTERCAMBIO_CONSULTAS_URL") or None
        self.timeout = timeout_seconds(config)
        self.wsdl_path = str(config.get("DGI_RECEPTION_WSDL_PATH") or default_wsdl_path())
        self.digest = str(config.get("DGI_SIGNATURE_DIGEST") or "sha256")
        self._session = session
        self._services: dict[Credentials, Any] = {}
        self._lock = threading.Lock()

    def send_envelope(self, envelope_xml: bytes, *, file_name: str, credentials: Credentials) -> bytes:
        # DGI's SOAP call carries no file name: the name is the caller's record of the envelope.
        log.info("Sending envelope %s to DGI (%d bytes)", file_name, len(envelope_xml))
        return self._document("EFACRECEPCIONSOBRE", _as_text(envelope_xml), credentials)

    def query_envelope(self, id_receptor: str, token: str, *, credentials: Credentials) -> bytes | None:
        return self._call("EFACCONSULTARESTADOENVIO", consulta_cfe(id_receptor, token), credentials)

    def query_cfe_state(self, rut: str, tipo_cfe: int, serie: str, nro: int, *, credentials: Credentials) -> CfeState:
        # ws_consultas, not ws_efactura: its own endpoint (CFE_INTERCAMBIO_CONSULTAS_URL, the directory's too).
        try:
            client = ConsultasClient(
                credentials.key_pem,
                credentials.cert_pem,
                url=self.consultas_url,
                timeout=self.timeout,
                digest=self.digest,
                session=self._session,
            )
            return client.cfe_state(rut, tipo_cfe, serie, nro)
        except ValueError as exc:
            raise DgiPermanentError(
                _("El certificado de la empresa no se puede usar para firmar."), code="dgi_certificate"
            ) from exc
        except DirectoryUnavailable as exc:
            raise DgiTransientError(exc.message, code="dgi_consultas") from exc

    def send_report(self, report_xml: bytes, *, file_name: str, credentials: Credentials) -> bytes:
        log.info("Sending daily report %s to DGI (%d bytes)", file_name, len(report_xml))
        return self._document("EFACRECEPCIONREPORTE", _as_text(report_xml), credentials)

    def _service(self, credentials: Credentials):
        with self._lock:
            service = self._services.get(credentials)
            if service is None:
                try:
                    signer = body_signer(credentials.key_pem, credentials.cert_pem, self.digest)
                except ValueError as exc:
                    raise DgiPermanentError(
                        _("El certificado de la empresa no se puede usar para firmar."), code="dgi_certificate"
                    ) from exc
                transport = DgiTransport(
                    session=self._session or shared_session(),
                    timeout=self.timeout,
                    operation_timeout=(min(CONNECT_TIMEOUT_SECONDS, self.timeout), self.timeout),
                )
                client = zeep.Client(
                    _wsdl(self.wsdl_path),
                    wsse=signer,
                    transport=transport,
                    plugins=[_CdataPayload()],
                    settings=ZEEP_SETTINGS,
                )
                if len(self._services) >= 64:  # one per company certificate; keep the dict small
                    self._services.clear()
                service = self._services[credentials] = client.create_service(BINDING, self.url)
            return service

    def _document(self, operation: str, xml_data: str, credentials: Credentials) -> bytes:
        """_call for an operation DGI always answers with a document (only a query may be "not ready")."""
        answer = self._call(operation, xml_data, credentials)
        if answer is None:
            raise DgiTransientError(_("DGI respondió sin documento."), code="dgi_bad_answer")
        return answer

    def _call(self, operation: str, xml_data: str, credentials: Credentials) -> bytes | None:
        service = self._service(credentials)
        try:
            result = getattr(service, operation)(Datain={"xmlData": xml_data})
        except (requests.RequestException, zeep.exceptions.Error, etree.XMLSyntaxError) as exc:
            raise _classify(exc, self.timeout) from exc
        answer = getattr(result, "xmlData", result)  # zeep unwraps a one-field Dataout to its string
        if not isinstance(answer, str) or not answer.strip():
            raise DgiTransientError(_("DGI respondió sin documento."), code="dgi_bad_answer")
        return _read_answer(operation, answer)


def _as_text(document: bytes) -> str:
    # The signed document's characters go into xmlData; its declaration (UTF-8, as we build it) stays.
    try:
        return document.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DgiPermanentError(_("El documento a enviar no está en UTF-8."), code="dgi_bad_request") from exc


def _read_answer(operation: str, answer: str) -> bytes | None:
    """DGI's document as bytes in the encoding it declares; None for "not processed yet"; errors otherwise."""
    text = answer.lstrip()
    declared = _DECLARED_ENCODING.match(text.encode("ascii", "replace"))
    raw = text.encode(declared.group(1).decode() if declared else "utf-8", "xmlcharrefreplace")
    try:
        root = etree.fromstring(raw, _PARSER)
    except (etree.XMLSyntaxError, LookupError) as exc:
        raise DgiTransientError(_("DGI respondió algo que no se puede leer."), code="dgi_bad_answer") from exc
    if root.getroottree().docinfo.doctype:  # type: ignore[union-attr]  # lxml-stubs' DocInfo has no doctype
        raise DgiTransientError(_("DGI respondió algo que no se puede leer."), code="dgi_bad_answer")
    name = etree.QName(root).localname
    if name == _EXPECTED_ROOT[operation]:
        return raw
    if name in ("Respuestas", "Respuesta"):
        code = (root.findtext(".//{*}codigo") or root.findtext(".//codigo") or "").strip()
        text = " ".join(
            filter(
                None,
                ((root.findtext(".//{*}descripcion") or "").strip(), (root.findtext(".//{*}detalle") or "").strip()),
            )
        )
        if operation == "EFACCONSULTARESTADOENVIO" and code in NOT_READY_CODES:
            return None
        kind = DgiTransientError if code in TRANSIENT_CODES | NOT_READY_CODES else DgiPermanentError
        raise kind(
            _(
                "DGI no aceptó el pedido (código {codigo}): {detalle}.",
                codigo=code or "?",
                detalle=text or _("sin detalle"),
            ),
            code=f"dgi_{code}" if code.isdigit() else "dgi_error",
        )
    raise DgiTransientError(_("DGI respondió un documento inesperado ({nombre}).", nombre=name), code="dgi_bad_answer")


def _classify(exc: Exception, timeout: float) -> DgiTransientError | DgiPermanentError:
    """The adapter error for a failed call: transient when the same request may succeed later."""
    if isinstance(exc, requests.Timeout):
        return DgiTransientError(_("DGI no respondió en {segundos} s.", segundos=f"{timeout:g}"), code="dgi_timeout")
    if isinstance(exc, requests.RequestException):
        return DgiTransientError(_("No se pudo conectar con el servicio de DGI."), code="dgi_unavailable")
    if isinstance(exc, zeep.exceptions.Fault):
        # Server/Receiver: DGI failed; anything else (Client, wsse:*) is about the request, which resending
        # unchanged will not fix.
        fault = (exc.code or "").rpartition(":")[2]
        kind = DgiTransientError if fault in ("Server", "Receiver") else DgiPermanentError
        return kind(_("DGI rechazó el pedido: {motivo}", motivo=str(exc.message)), code="dgi_fault")
    if isinstance(exc, zeep.exceptions.TransportError):
        status = exc.status_code or 0
        kind = DgiTransientError if status >= 500 or status in (408, 429) else DgiPermanentError
        return kind(_("DGI respondió HTTP {estado}.", estado=status), code="dgi_http_error")
    return DgiTransientError(_("DGI respondió algo que no se puede leer."), code="dgi_bad_answer")
