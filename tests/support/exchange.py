"""A recording stand-in for `portal.service.intercambio.transport.deliver` (the real one comes from the receiving
side's work): tests replace the seam with it and script its outcomes."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import select

from portal.domain.uruguay_time import MONTEVIDEO
from portal.service.envios import acks
from portal.service.intercambio.transport import DeliveryResult
from portal.service.platform import db
from portal.service.platform.keystore import signer_for
from portal.service.platform.models import Certificate
from tests.support import cfe_bodies as bodies

NORTE = "211003420017"  # Comercial del Norte S.R.L., company 2 of the demo and an electronic issuer
NOW = datetime.now(MONTEVIDEO).replace(microsecond=0)


@dataclass
class Delivery:
    company_id: int
    receiver_rut: str
    operation: str
    document: bytes
    filename: str


@dataclass
class RecordingTransport:
    """Delivers nothing; records each call and answers with the next scripted outcome (default: delivered)."""

    outcomes: list[DeliveryResult | Exception] = field(default_factory=list)
    calls: list[Delivery] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, company_id, receiver, operation, document, filename) -> DeliveryResult:
        with self.lock:
            self.calls.append(Delivery(company_id, receiver.rut, operation, document, filename))
            outcome = self.outcomes.pop(0) if self.outcomes else OK
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    def of(self, operation: str) -> list[Delivery]:
        return [call for call in self.calls if call.operation == operation]


OK = DeliveryResult(channel="ws", delivered=True, temporary=False, detail="0 Recibido")
BUSY = DeliveryResult(channel="ws", delivered=False, temporary=True, detail="HTTP 503")
REFUSED = DeliveryResult(channel="correo", delivered=False, temporary=False, detail="550 buzón inexistente")


def to_norte(name: str = "Comercial del Norte S.R.L.", adenda: str | None = "Orden de compra 4512 & cía.") -> dict:
    body = bodies.body(bodies.EFACTURA)
    body["receptor"] = {**body["receptor"], "docRecep": NORTE, "rznSocRecep": name}
    if adenda:
        body["adenda"] = adenda
    return body


# --- a receiver's exchange web service answering SOAP Faults (test_intercambio_faults, test_intercambio_retry) ---

SOAP11 = "http://schemas.xmlsoap.org/soap/envelope/"
SOAP12 = "http://www.w3.org/2003/05/soap-envelope"


def _soap11(code: str, text: str) -> bytes:
    return (
        f'<soap:Envelope xmlns:soap="{SOAP11}"><soap:Body><soap:Fault>'
        f"<faultcode>soap:{code}</faultcode><faultstring>{text}</faultstring>"
        "</soap:Fault></soap:Body></soap:Envelope>"
    ).encode()


def _soap12(code: str, text: str) -> bytes:
    return (
        f'<env:Envelope xmlns:env="{SOAP12}"><env:Body><env:Fault>'
        f"<env:Code><env:Value>env:{code}</env:Value></env:Code>"
        f'<env:Reason><env:Text xml:lang="es">{text}</env:Text></env:Reason>'
        "</env:Fault></env:Body></env:Envelope>"
    ).encode()


# (status, content type, body) as a receiver's web service answers; SOAP 1.2 puts Sender faults on 400.
CLIENT_11 = (500, "text/xml; charset=utf-8", _soap11("Client", "Firma WS-Security inválida"))
SENDER_12 = (400, "application/soap+xml; charset=utf-8", _soap12("Sender", "Sobre mal formado"))
SERVER_11 = (500, "text/xml; charset=utf-8", _soap11("Server", "Base de datos caída"))
RECEIVER_12 = (500, "application/soap+xml; charset=utf-8", _soap12("Receiver", "Servicio sobrecargado"))
UNAVAILABLE = (503, "text/plain", b"Service Unavailable")


class FaultingService:
    """A receiver's exchange web service that answers every call with one scripted answer, counting the calls."""

    def __init__(self, answer: tuple[int, str, bytes]):
        self.answer = answer
        self.calls = 0

    def __call__(self, environ, start_response):
        environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        self.calls += 1
        status, content_type, body = self.answer
        start_response(f"{status} X", [("Content-Type", content_type), ("Content-Length", str(len(body)))])
        return [body]


# --- the receiver's side of the answers (signed as Comercial del Norte, company 2) -----------------------------


def norte_signer(app):
    with app.app_context():
        cert = db.session().scalar(select(Certificate).where(Certificate.company_id == 2))
        return signer_for(cert)


def receiver_ack_sobre(app, estado="AS", motives=(), idemisor=1, signer=None, rut=NORTE) -> bytes:
    root = acks.ack_sobre_document(
        rut_dgi=rut,
        rut_emisor="219999830019",
        id_respuesta=7,
        file_name="Sob_219999830019_1.xml",
        received=NOW,
        idemisor=idemisor,
        id_receptor=40,
        count=2,
        estado=estado,
        motives=list(motives),
        token=None,
        query_after=None,
    )
    with app.app_context():
        return (signer or norte_signer(app)).sign(root).xml


def receiver_ack_cfe(app, cfes, verdicts, id_respuesta=8) -> bytes:
    """The receiver's ACKCFE with a verdict per CFE; `id_respuesta` tells one of its answers from another."""
    root = unsigned_ack_cfe(cfes, verdicts, id_respuesta)
    with app.app_context():
        return norte_signer(app).sign(root).xml


def unsigned_ack_cfe(cfes, verdicts, id_respuesta=8):
    """Comercial del Norte's ACKCFE to Demo's first envelope, not signed yet: a verdict (estado, motives) per CFE
    (a dict with tipoCFE, serie and nro, as emitir answers)."""
    lines = [
        acks.CfeVerdict(ordinal, cfe["tipoCFE"], cfe["serie"], cfe["nro"], estado, motives)
        for ordinal, (cfe, (estado, motives)) in enumerate(zip(cfes, verdicts, strict=True), start=1)
    ]
    root = acks.ack_cfe_document(
        rut_dgi=NORTE,
        rut_emisor="219999830019",
        id_respuesta=id_respuesta,
        file_name="Sob_219999830019_1.xml",
        received=NOW,
        idemisor=1,
        id_receptor=40,
        verdicts=lines,
        answered=NOW,
    )
    for tag in ("CantCFCAceptados", "CantCFCObservados", "CantOtrosRechazados"):
        for node in root.iter(f"{{{acks.NS}}}{tag}"):
            node.getparent().remove(node)
    return root
