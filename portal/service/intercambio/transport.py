"""Delivering an exchange document to another company: by its exchange web service (`aws_efactura_intercambio`,
WS-Security signed) when the directory has one, otherwise by e-mail to its exchange address.

Contract (implemented by the receiving side's work, used by both sides): `deliver(...)` sends one document and
says how it went; the caller records the outcome and retries with backoff on a temporary failure.

The web service is DGI's WSDL (dgi-samples/wsdl/wsdl_con_WS-Security_aws_efactura_intercambio.xml, its types
from dgi-xsd/ws/aws_efactura_intercambio.xsd1.xsd) called through zeep with the company's certificate signing
the Body (`portal.service.dgi.wsse.BodySignature`, as every DGI call of the project). The document travels as
`Datain/xmlData`; the receiver answers `Dataout/xmlData` = `Respuestas/Respuesta/Codigo` of
ws/Respuesta+Servicios-WS_Intercambio.xsd: 0 is received; the other codes are refusals (`recibidos.ws_codes`
says how this product reads them: N002 "try again later" is temporary). A SOAP Fault says whose the failure is:
the receiver's (SOAP 1.1 `Server`, 1.2 `Receiver`) is temporary; any other (`Client`/`Sender`: our request refused
as malformed or not accepted, `VersionMismatch`, a WS-Security fault) is about the bytes we sent, which resending
unchanged cannot fix: permanent, with the fault's text kept for the user and support.

Mail goes through the project's mail path (`correo.transport.deliver`: SMTP, or the development mailbox),
the document attached under its file name.

Language: the e-mail's subject and words are Spanish on purpose, not catalogue messages: they are the company
writing to another Uruguayan company in DGI's exchange (whose documents are Spanish), as the receipt's e-mail to a
customer is the company's Spanish text (correo/), and no reader's language is known there.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formataddr, make_msgid
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import requests
import zeep
import zeep.exceptions
from flask import current_app
from lxml import etree
from zeep import ns
from zeep.loader import parse_xml
from zeep.transports import Transport
from zeep.wsdl import Document
from zeep.wsdl.bindings.soap import Soap12Binding

from portal import paths
from portal.service.correo import transport as mail_transport
from portal.service.dgi.soap import ZEEP_SETTINGS, DgiTransport, shared_session
from portal.service.dgi.wsse import BodySignature
from portal.service.envios.consultas import ElectronicIssuer
from portal.service.platform import db
from portal.service.platform.i18n import _
from portal.service.platform.keystore import private_key_pem, signing_certificate
from portal.service.platform.models import Company

Operation = Literal["SOBRE", "RESPUESTASOBRE", "RESPUESTACFES", "NOTIFICACIONANULACIONCFE"]

NAMESPACE = "http://dgi.gub.uy"
BINDING = f"{{{NAMESPACE}}}WS_eFactura_IntercambioSoapBinding"
WSDL_NAME = "wsdl_con_WS-Security_aws_efactura_intercambio.xml"
TYPES_NAME = "aws_efactura_intercambio.xsd1.xsd"
TIMEOUT_SECONDS = 30.0
CONNECT_TIMEOUT_SECONDS = 5.0
_SUBJECTS = {
    "SOBRE": "Sobre de CFE",
    "RESPUESTASOBRE": "Acuse de recibo de sobre (ACKSobre)",
    "RESPUESTACFES": "Respuesta a comprobantes (ACKCFE)",
    "NOTIFICACIONANULACIONCFE": "CFE anulados por rechazo de DGI",
}


@dataclass(frozen=True)
class DeliveryResult:
    channel: Literal["ws", "correo"]
    delivered: bool
    temporary: bool  # a failure worth retrying (timeout, 5xx, SMTP 4xx)
    detail: str  # the receiver's answer code and text, or the error, for the record


def default_wsdl_path() -> Path:
    return paths.dgi_samples_dir() / "wsdl" / WSDL_NAME


class _WsdlLoader(Transport):
    """Loads DGI's WSDL from disk; its types file lives in the XSD folder (dgi-xsd/ws/), not beside it."""

    def load(self, url: str) -> bytes:
        if str(url).endswith("/" + TYPES_NAME):
            return (paths.xsd_dir() / "ws" / TYPES_NAME).read_bytes()
        return super().load(url)


@lru_cache(maxsize=4)
def wsdl(path: str) -> Document:
    return Document(path, _WsdlLoader(timeout=10), settings=ZEEP_SETTINGS)  # type: ignore[arg-type]  # an instance, as zeep takes it


_clients: dict[tuple[bytes, str], zeep.Client] = {}
_clients_lock = threading.Lock()


def _client(key_pem: bytes, cert_pem: bytes) -> zeep.Client:
    digest = str(current_app.config.get("DGI_SIGNATURE_DIGEST") or "sha256")
    path = str(current_app.config.get("INTERCAMBIO_WSDL_PATH") or default_wsdl_path())
    with _clients_lock:
        client = _clients.get((cert_pem, path))
        if client is None:
            if len(_clients) >= 64:
                _clients.clear()
            transport = DgiTransport(
                session=shared_session(),
                timeout=TIMEOUT_SECONDS,
                operation_timeout=(CONNECT_TIMEOUT_SECONDS, TIMEOUT_SECONDS),
            )
            client = _clients[(cert_pem, path)] = zeep.Client(
                wsdl(path), wsse=BodySignature(key_pem, cert_pem, digest), transport=transport, settings=ZEEP_SETTINGS
            )
        return client


def deliver(
    company_id: int, receiver: ElectronicIssuer, operation: Operation, document: bytes, filename: str
) -> DeliveryResult:
    """Sends `document` (an EnvioCFE_entreEmpresas, ACKSobre, ACKCFE or CFEs_Anulados_x_RechazoDGI) from
    `company_id` to `receiver`."""
    if receiver.ws_url:
        return _by_web_service(company_id, receiver.ws_url, operation, document)
    if receiver.exchange_email:
        return _by_mail(company_id, receiver, operation, document, filename)
    return DeliveryResult("correo", False, False, _("El receptor no tiene servicio web ni correo de intercambio."))


def _by_web_service(company_id: int, url: str, operation: Operation, document: bytes) -> DeliveryResult:
    with db.new_session() as session:
        cert = signing_certificate(session, company_id)
        key_pem, cert_pem = private_key_pem(cert), cert.cert_pem.encode()
    service = _client(key_pem, cert_pem).create_service(BINDING, url)
    try:
        result = getattr(service, operation)(Datain={"xmlData": document.decode("utf-8")})
    except requests.Timeout:
        return DeliveryResult(
            "ws",
            False,
            True,
            _("El servicio de intercambio no respondió en {seconds} s.", seconds=f"{TIMEOUT_SECONDS:g}"),
        )
    except requests.RequestException:
        return DeliveryResult("ws", False, True, _("No se pudo conectar con el servicio de intercambio."))
    except zeep.exceptions.Fault as exc:
        return _faulted(exc)
    except zeep.exceptions.TransportError as exc:
        status = exc.status_code or 0
        return DeliveryResult("ws", False, status >= 500 or status in (408, 429), f"HTTP {status}")
    except (zeep.exceptions.Error, etree.XMLSyntaxError) as exc:
        return DeliveryResult(
            "ws", False, True, _("Respuesta ilegible del servicio de intercambio: {why}", why=str(exc)[:440])
        )
    return _read_answer(getattr(result, "xmlData", result))


# The receiver's own failure: the same request may succeed later. Every other fault is about the request.
TEMPORARY_FAULTS = frozenset({"Server", "Receiver"})
# zeep reads SOAP 1.2 faults with this binding; DGI's WSDL (SOAP 1.1) gives the client a 1.1 one only.
_SOAP12 = Soap12Binding(None, None, None, None, "document")


def _faulted(fault: zeep.exceptions.Fault) -> DeliveryResult:
    """A SOAP Fault's delivery result: temporary for the receiver's failure (Server/Receiver), permanent for a
    refusal of our request (Client/Sender and the rest), which resending the same bytes cannot change."""
    fault = _as_soap12(fault) or fault
    code = (fault.code or "").strip()
    why = " ".join(str(fault.message or "").split())[:400] or _("sin detalle")
    kind = code.rpartition(":")[2].split(".")[0]  # soap:Client, Client.Authentication, env:Sender
    if not code or kind in TEMPORARY_FAULTS:  # no code read: not known to be ours, tried again
        return DeliveryResult("ws", False, True, _("El servicio de intercambio falló: {why}", why=why))
    return DeliveryResult(
        "ws", False, False, _("El servicio de intercambio rechazó el envío ({code}): {why}", code=code[:40], why=why)
    )


def _as_soap12(fault: zeep.exceptions.Fault) -> zeep.exceptions.Fault | None:
    """A SOAP 1.2 Fault read by zeep's SOAP 1.2 binding. The client's SOAP 1.1 binding finds no 1.1 Fault in such
    an answer and raises one without a code, the whole answer as its `detail`."""
    if fault.code or not isinstance(fault.detail, bytes):
        return None
    try:
        # bytes, as zeep's own reply parsing passes them (its hint says str; a str would refuse an encoding line)
        envelope = parse_xml(fault.detail, None, settings=ZEEP_SETTINGS)  # type: ignore[arg-type]
    except (zeep.exceptions.Error, etree.XMLSyntaxError):
        return None
    if envelope.tag != etree.QName(ns.SOAP_ENV_12, "Envelope").text:
        return None
    try:
        _SOAP12.process_error(envelope, None)
    except zeep.exceptions.Fault as read:
        return read if read.code else None
    return None


def _read_answer(answer: Any) -> DeliveryResult:
    if not isinstance(answer, str) or not answer.strip():
        return DeliveryResult("ws", False, True, _("El servicio de intercambio respondió sin documento."))
    try:
        root = etree.fromstring(
            answer.strip().encode("utf-8"), etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
        )
    except etree.XMLSyntaxError:
        return DeliveryResult("ws", False, True, _("El servicio de intercambio respondió algo ilegible."))
    code = (root.findtext(".//{*}Codigo") or root.findtext(".//Codigo") or "").strip()
    text = " ".join(
        filter(None, ((root.findtext(".//Descripcion") or "").strip(), (root.findtext(".//Detalle") or "").strip()))
    )
    detail = f"{code}: {text}"[:500] if text else code
    if code == "0":
        return DeliveryResult("ws", True, False, detail)
    return DeliveryResult("ws", False, code.endswith("002"), detail or _("Respuesta sin código."))


def _by_mail(
    company_id: int, receiver: ElectronicIssuer, operation: Operation, document: bytes, filename: str
) -> DeliveryResult:
    with db.new_session() as session:
        company = session.get_one(Company, company_id)
        name, rut = company.razon_social, company.rut
    sender = current_app.config["MAIL_FROM"]
    message = EmailMessage()
    message["Subject"] = f"{_SUBJECTS[operation]} de {name} (RUT {rut})"
    message["From"] = formataddr((name, sender))
    message["To"] = receiver.exchange_email
    message["Message-ID"] = make_msgid(domain=sender.rpartition("@")[2] or None)
    message.set_content(
        f"{name} (RUT {rut}) le envía el documento de intercambio adjunto ({filename}), "
        "según el formato de DGI para el intercambio de CFE entre empresas.\n"
    )
    message.add_attachment(document, maintype="application", subtype="xml", filename=filename)
    try:
        mail_transport.deliver(message, company_id, filename.rsplit(".", 1)[0])
    except mail_transport.DeliveryError as exc:
        return DeliveryResult("correo", False, exc.temporary, exc.reason)
    return DeliveryResult("correo", True, False, str(message["Message-ID"]))
