"""The service's own exchange web service, `aws_efactura_intercambio` as DGI's WSDL defines it
(dgi-samples/wsdl/wsdl_con_WS-Security_aws_efactura_intercambio.xml): SOAP 1.1, document/literal, each
operation's `Datain/xmlData` carrying one exchange document, the Body signed with the caller's certificate
(WS-Security, the WSDL's policy `SignedParts/Body`).

    SOBRE                     an EnvioCFE_entreEmpresas for one of our companies -> `intake` (answers go back
                              later by the caller's own RESPUESTASOBRE / RESPUESTACFES)
    RESPUESTASOBRE            an ACKSobre answering one of our envelopes        -> intercambio.answers
    RESPUESTACFES             an ACKCFE answering one of our envelopes          -> intercambio.answers
    NOTIFICACIONANULACIONCFE  CFEs_Anulados_x_RechazoDGI: CFEs we received that DGI rejected -> marked so

Every answer is `Dataout/xmlData` = ws/Respuesta+Servicios-WS_Intercambio.xsd's `Respuestas/Respuesta`
(Codigo, Descripcion, Detalle). DGI publishes the codes (0, 1000-1002, 2000-2002, 3000-3002, 4000-4002) without
their meaning; this service reads them, per operation N = 1 SOBRE, 2 RESPUESTASOBRE, 3 RESPUESTACFES,
4 NOTIFICACIONANULACIONCFE, as: 0 received; N000 the document is unreadable or not the operation's;
N001 it is not addressed to a company this service serves; N002 it cannot be processed now, try again later.
A request that is not SOAP, or whose Body signature is missing or does not verify, gets a SOAP Fault; so does one
signed with a certificate out of its validity or, when `CFE_ACCREDITED_CAS` names them, one no accredited
certification authority issued (platform/accredited_cas.py: the same checks as for the documents' own signers).

Language: the Faults' faultstrings and the answers' Descripcion/Detalle are plain Spanish on purpose, not catalogue
messages: they are read by another company's software speaking DGI's exchange format (Spanish, as DGI's XSD and
codes), which sends no Accept-Language; whoever reads them there reads DGI's Spanish. (The same holds for the
motives in our signed ACKSobre/ACKCFE: cfe/errors.py, XmlInputError.) What this service says to its own users
about an exchange goes through the catalogue.
"""

from __future__ import annotations

import logging
import re
from datetime import UTC, datetime
from typing import cast

from cryptography import x509
from flask import Blueprint, Response, current_app, request
from lxml import etree
from sqlalchemy import select
from werkzeug.exceptions import RequestEntityTooLarge
from werkzeug.wrappers import Response as BaseResponse

from portal import paths
from portal.service.cfe.errors import XmlInputError
from portal.service.cfe.xmlsafe import check_encoding, parse_untrusted
from portal.service.dgi import wsse_verify as wssecurity
from portal.service.dgi.wsse_verify import SOAP_ENV, SignatureError
from portal.service.intercambio import answers
from portal.service.intercambio.transport import NAMESPACE, TYPES_NAME, WSDL_NAME
from portal.service.platform import accredited_cas, db
from portal.service.platform.errors import ApiError
from portal.service.platform.models import Company
from portal.service.recibidos import annulments, tasks

log = logging.getLogger("portal.service.recibidos")

bp = Blueprint("recibidos_ws", __name__, url_prefix="/ws")
PATH = "/aws_efactura_intercambio"
URL_PATH = f"{bp.url_prefix}{PATH}"  # the service's address of the exchange web service
# An envelope is 2 MB at most; inside xmlData its markup is escaped (&lt; ...), and the SOAP envelope and
# its signature come around it.
MAX_REQUEST_BYTES = 6 * 1024 * 1024
OPERATIONS = {"SOBRE": 1, "RESPUESTASOBRE": 2, "RESPUESTACFES": 3, "NOTIFICACIONANULACIONCFE": 4}
_DECLARED_ENCODING = re.compile(r"^\s*<\?xml[^>]*encoding=[\"']([A-Za-z0-9._-]+)")
_RUT_TAGS = {
    "SOBRE": rb"RutReceptor",
    "RESPUESTASOBRE": rb"RUCEmisor",
    "RESPUESTACFES": rb"RUCEmisor",
    "NOTIFICACIONANULACIONCFE": rb"RUCReceptor",
}


def respuesta(code: str, description: str, detail: str = "") -> str:
    """Respuesta+Servicios-WS_Intercambio.xsd's answer document, as the text of Dataout/xmlData."""
    root = etree.Element("Respuestas")
    answer = etree.SubElement(root, "Respuesta")
    etree.SubElement(answer, "Codigo").text = code
    etree.SubElement(answer, "Descripcion").text = description
    etree.SubElement(answer, "Detalle").text = detail[:1000]
    return etree.tostring(root, encoding="unicode")


def _response(operation: str, xml_data: str) -> Response:
    tag = f"{{{NAMESPACE}}}WS_eFactura_Intercambio.{operation}Response"
    element = etree.Element(tag, nsmap=cast(dict[str, str], {None: NAMESPACE}))
    etree.SubElement(etree.SubElement(element, f"{{{NAMESPACE}}}Dataout"), f"{{{NAMESPACE}}}xmlData").text = xml_data
    return Response(wssecurity.soap_envelope(element), status=200, content_type="text/xml; charset=utf-8")


@bp.get(PATH)
def wsdl() -> Response:
    """DGI's WSDL with this service's address (`?wsdl`), and its types file (`?xsd1`)."""
    if "xsd1" in request.args:
        return Response((paths.xsd_dir() / "ws" / TYPES_NAME).read_bytes(), content_type="text/xml; charset=utf-8")
    text = (paths.dgi_samples_dir() / "wsdl" / WSDL_NAME).read_text("utf-8")
    here = request.base_url
    text = re.sub(r'location="[^"]*"', f'location="{here}"', text).replace(
        f'schemaLocation="{TYPES_NAME}"', f'schemaLocation="{here}?xsd1"'
    )
    return Response(text, content_type="text/xml; charset=utf-8")


def _fault(message: str, code: str = "SOAP-ENV:Client") -> BaseResponse:
    return wssecurity.soap_fault(message, code)


@bp.errorhandler(RequestEntityTooLarge)
def _too_large(_exc: RequestEntityTooLarge) -> BaseResponse:
    """A body past the cap is refused before it is read; the caller is a SOAP client, so it gets a Fault to
    read, not werkzeug's HTML page (413 still says what happened)."""
    response = _fault(f"La solicitud supera {MAX_REQUEST_BYTES // (1024 * 1024)} MB.")
    response.status_code = 413
    return response


@bp.post(PATH)
def soap() -> BaseResponse:
    """One call of aws_efactura_intercambio."""
    request.max_content_length = MAX_REQUEST_BYTES
    try:
        envelope = parse_untrusted(request.get_data(), max_bytes=MAX_REQUEST_BYTES).getroot()
    except XmlInputError as exc:
        return _fault(f"La solicitud no es un SOAP legible: {exc}")
    body = envelope.find(f"{{{SOAP_ENV}}}Body")
    call = body[0] if body is not None and len(body) else None
    name = etree.QName(call).localname if call is not None else ""
    operation = name.removeprefix("WS_eFactura_Intercambio.")
    if call is None or envelope.tag != f"{{{SOAP_ENV}}}Envelope" or operation not in OPERATIONS:
        return _fault(
            "Operación desconocida: se espera SOBRE, RESPUESTASOBRE, RESPUESTACFES o NOTIFICACIONANULACIONCFE."
        )
    if current_app.config.get("INTERCAMBIO_WS_REQUIRE_SIGNATURE", True):
        try:
            signer = wssecurity.verify(envelope)
        except SignatureError as exc:
            return _fault(f"La firma WS-Security del Body no es válida: {exc}", "SOAP-ENV:Client")
        refused = _signer_refused(signer)
        if refused:
            return _fault(refused, "SOAP-ENV:Client")
    text = call.findtext(f"{{{NAMESPACE}}}Datain/{{{NAMESPACE}}}xmlData")
    n = OPERATIONS[operation]
    if not text or not text.strip():
        return _response(operation, respuesta(f"{n}000", "Documento ilegible", "Datain/xmlData está vacío."))
    document = _as_bytes(text)
    try:
        check_encoding(document)  # before the RUT is looked for: a UTF-16 one read as "Receptor desconocido"
    except XmlInputError as exc:
        return _response(operation, respuesta(f"{n}000", "Documento ilegible", str(exc)))
    try:
        return _response(operation, _dispatch(operation, n, document))
    except db.DatabaseBusy:
        return _response(operation, respuesta(f"{n}002", "Servicio ocupado", "Reintente en unos segundos."))
    except ApiError as exc:  # the company cannot answer now (no valid signing certificate, ...)
        return _response(operation, respuesta(f"{n}002", "No disponible", exc.message))
    except Exception:  # a defect: the caller retries later, and never sees a stack trace
        log.exception("exchange web service %s failed", operation)
        return _response(operation, respuesta(f"{n}002", "Error interno", "Reintente más tarde."))


def _signer_refused(signer: wssecurity.Verified) -> str | None:
    """Why the WS-Security signer's certificate is not believed (out of its validity, or CFE_ACCREDITED_CAS set and
    none of its CAs issued it), or None."""
    try:
        certificate = x509.load_der_x509_certificate(signer.certificate_der)
    except ValueError:
        return "El certificado de la firma WS-Security no se puede leer."
    now = datetime.now(UTC)
    if not certificate.not_valid_before_utc <= now <= certificate.not_valid_after_utc:
        return "El certificado de la firma WS-Security no está vigente."
    if not accredited_cas.issued_by_accredited_ca(certificate, now):
        return "El certificado de la firma WS-Security no lo emitió una autoridad certificadora acreditada en Uruguay."
    return None


def _as_bytes(text: str) -> bytes:
    """The document's characters back as bytes in the encoding its declaration names (UTF-8 otherwise)."""
    declared = _DECLARED_ENCODING.match(text)
    try:
        return text.lstrip().encode(declared.group(1) if declared else "utf-8", "xmlcharrefreplace")
    except LookupError:
        return text.lstrip().encode("utf-8")


def _company_id(operation: str, document: bytes) -> int | None:
    found = re.search(rb"<(?:[\w.-]+:)?" + _RUT_TAGS[operation] + rb">\s*(\d{12})\s*<", document[:16384])
    if not found:
        return None
    with db.new_session() as session:
        return session.scalar(select(Company.id).where(Company.rut == found.group(1).decode()))


def _said(motive: dict) -> str:
    """A motive as the sender reads it: DGI's words for its code, and what was found wrong (as its ACKSobre says)."""
    found = (motive.get("detalle") or "").strip().rstrip(".")
    return f"{motive['codigo']} {motive['glosa']}" + (f": {found}" if found else "")


def _dispatch(operation: str, n: int, document: bytes) -> str:
    company_id = _company_id(operation, document)
    if company_id is None:
        return respuesta(f"{n}001", "Receptor desconocido", "El RUT al que se dirige no es atendido por este servicio.")
    if operation == "SOBRE":
        result = tasks.receive_and_answer(company_id, document, "ws")
        detail = (
            f"Sobre {result.estado}: número de recepción {result.id_receptor}."
            " El acuse va por RESPUESTASOBRE y RESPUESTACFES."
        )
        if result.motives:  # last: what is past Detalle's 1,000 characters is cut
            detail += " " + "; ".join(_said(m) for m in result.motives) + "."
        return respuesta("0", "Sobre recibido", detail)
    if operation in ("RESPUESTASOBRE", "RESPUESTACFES"):
        try:
            with db.write_transaction() as session:
                answers.record_answer(session, company_id, document, "ws")
        except NotImplementedError:
            return respuesta(f"{n}002", "No disponible", "Las respuestas aún no se pueden registrar; reintente.")
        except ValueError as exc:  # AnswerRejected: its str is the catalogue message's Spanish (see Language above)
            return respuesta(f"{n}000", "Documento rechazado", str(exc))
        return respuesta("0", "Respuesta recibida")
    try:
        marked = annulments.record_notice(company_id, document)
    except annulments.NoticeRefused as exc:
        return respuesta(f"{n}000", "Documento rechazado", str(exc))
    return respuesta("0", "Notificación recibida", f"{marked} comprobante(s) marcados como rechazados por DGI.")
