"""What an electronic receiver answered to the envelopes this company delivered (ACKSobre, then ACKCFE, maybe
in several messages), recorded per receipt.

Contract: the inbound channels (the exchange web service's RESPUESTASOBRE/RESPUESTACFES, the exchange mailbox)
hand every answer document to `record_answer`; it verifies, matches it to our envelope and records it.

Checks, in order (each failure raises `AnswerRejected` with a stable `code`, and records nothing):
- a well-formed ACKSobre or ACKCFE (no DOCTYPE, size-bounded), valid against ACKSobre.xsd / ACKCFE_Partes.xsd;
- it answers an envelope of ours: RUCEmisor is the company's RUT, IDEmisor one of its exchange envelopes, and
  RUCReceptor the receiver that envelope went to;
- its XML signature verifies with the receiver's certificate: one of that company's own certificates when the
  receiver is a company of this service, otherwise the certificate in the signature, which must be current
  and carry the receiver's RUT (SERIALNUMBER=RUC<rut>, as DGI's CAs issue them).

Recording is idempotent (the same answer twice changes nothing) and a later ACKCFE replaces an earlier verdict
on the same receipt (a receiver may accept first and reject commercially after its own approval); a later ACKCFE
that accepts again is that approval, recorded as the acceptance confirmed. Each new verdict publishes
`intercambio.respuesta`, each confirmed acceptance `intercambio.aceptacion_confirmada`, in the caller's transaction."""

from __future__ import annotations

import base64
from datetime import UTC, datetime
from typing import Literal

from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding
from lxml import etree
from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.domain.commercial_motives import is_commercial
from portal.service.cfe.errors import XmlInputError
from portal.service.cfe.schema import validate_xml
from portal.service.cfe.signing import verify_signature
from portal.service.cfe.xmlsafe import parse_untrusted
from portal.service.comprobante.events import receipt
from portal.service.comprobante.models import IssuedCfe
from portal.service.eventos.publishing import publish
from portal.service.intercambio.models import ExchangeCfe, ExchangeEnvelope
from portal.service.intercambio.states import motive
from portal.service.platform import accredited_cas, responses
from portal.service.platform.certificates import certificate_info
from portal.service.platform.i18n import _
from portal.service.platform.models import Certificate, Company

NS = {"d": "http://cfe.dgi.gub.uy", "ds": "http://www.w3.org/2000/09/xmldsig#"}
SCHEMAS = {"ACKSobre": "ACKSobre.xsd", "ACKCFE": "ACKCFE_Partes.xsd"}
DUPLICATE_ENVELOPE = {"S08", "S20"}  # the receiver already has this envelope: a resend of ours, not a refusal
MAX_ANSWER_BYTES = 2 * 1024 * 1024


class AnswerRejected(ValueError):
    """The document is not a valid, signed answer to one of the company's envelopes. `message` is a catalogue
    message: its `str` is the Spanish the exchange web service answers the sender's software with (recibidos/ws.py
    says why), and a record of it is said in its reader's language."""

    def __init__(self, message: str, code: str):
        super().__init__(message)
        self.message, self.code = message, code


def _text(node: etree._Element, path: str) -> str | None:
    value = node.findtext(path, namespaces=NS)
    return value.strip() if value is not None else None


def _motives(parent: etree._Element, tag: str) -> list[dict]:
    return [
        motive(_text(m, "d:Motivo") or "", _text(m, "d:Glosa"), _text(m, "d:Detalle"))
        for m in parent.findall(f"d:{tag}", namespaces=NS)
    ]


def _signature_certificate(root: etree._Element) -> bytes | None:
    embedded = root.findtext("ds:Signature/ds:KeyInfo/ds:X509Data/ds:X509Certificate", namespaces=NS)
    if not embedded:
        return None
    try:
        cert = x509.load_der_x509_certificate(base64.b64decode("".join(embedded.split())))
    except ValueError:
        return None
    return cert.public_bytes(Encoding.PEM)


def _verify(session: Session, document: bytes, root: etree._Element, receiver_rut: str) -> None:
    ours = session.scalar(select(Company.id).where(Company.rut == receiver_rut))
    if ours is not None:  # a company of this service: its own certificates, nothing taken from the document
        pems = [c.cert_pem.encode() for c in session.scalars(select(Certificate).where(Certificate.company_id == ours))]
        if any(verify_signature(document, pem) for pem in pems):
            return
        raise AnswerRejected(_("La firma de la respuesta no es de un certificado del receptor."), "firma_invalida")
    pem = _signature_certificate(root)
    if pem is None:
        raise AnswerRejected(_("La respuesta no trae el certificado con que se firmó."), "firma_invalida")
    info = certificate_info(pem)
    if info.rut != receiver_rut or not info.is_valid_at(datetime.now(UTC)):
        raise AnswerRejected(
            _("El certificado de la respuesta no es del receptor o no está vigente."), "certificado_invalido"
        )
    if not accredited_cas.issued_by_accredited_ca(x509.load_pem_x509_certificate(pem), datetime.now(UTC)):
        raise AnswerRejected(
            _("El certificado de la respuesta no lo emitió una autoridad certificadora acreditada en Uruguay."),
            "certificado_invalido",
        )
    if not verify_signature(document, pem):
        raise AnswerRejected(_("La firma de la respuesta no es válida."), "firma_invalida")


def record_answer(session: Session, company_id: int, document: bytes, channel: Literal["ws", "correo"]) -> None:
    """Records an ACKSobre or ACKCFE that `company_id` received for one of its own envelopes (the caller
    commits). Raises AnswerRejected when it is not a valid, signed answer to one of them."""
    try:
        root = parse_untrusted(document, max_bytes=MAX_ANSWER_BYTES).getroot()
    except XmlInputError as exc:
        raise AnswerRejected(_("La respuesta no es un XML válido: {motivo}", motivo=exc.text), "formato") from exc
    kind = etree.QName(root).localname if etree.QName(root).namespace == NS["d"] else None
    if kind not in SCHEMAS:
        raise AnswerRejected(_("No es un ACKSobre ni un ACKCFE."), "formato")
    problems = validate_xml(document, SCHEMAS[kind])
    if problems:
        raise AnswerRejected(
            _("La respuesta no cumple {esquema}: {problema}", esquema=SCHEMAS[kind], problema=problems[0]), "formato"
        )
    company = session.get(Company, company_id)
    receiver_rut = _text(root, "d:Caratula/d:RUCReceptor") or ""
    idemisor = _text(root, "d:Caratula/d:IDEmisor") or ""
    sobre = (
        session.scalar(
            select(ExchangeEnvelope).where(
                ExchangeEnvelope.company_id == company_id, ExchangeEnvelope.idemisor == int(idemisor)
            )
        )
        if company is not None and _text(root, "d:Caratula/d:RUCEmisor") == company.rut and idemisor.isdigit()
        else None
    )
    if sobre is None or sobre.receiver_rut != receiver_rut:
        raise AnswerRejected(_("La respuesta no corresponde a un sobre enviado por la empresa."), "sobre_desconocido")
    _verify(session, document, root, receiver_rut)
    now = datetime.now(UTC)
    contents = list(session.scalars(select(ExchangeCfe).where(ExchangeCfe.envelope_id == sobre.id)))
    if kind == "ACKSobre":
        _record_envelope_ack(sobre, contents, root, document, now)
    else:
        _record_cfe_ack(session, sobre, contents, root, now)
    if sobre.state in ("armado", "error"):  # an answer proves delivery (a lost "delivered" of ours)
        sobre.state, sobre.channel = "entregado", sobre.channel or channel
        sobre.sent_at, sobre.next_attempt_at = sobre.sent_at or now, None


def _record_envelope_ack(sobre: ExchangeEnvelope, contents: list[ExchangeCfe], root, document: bytes, now) -> None:
    estado = _text(root, "d:Detalle/d:Estado") or ""
    motives = _motives(root.find("d:Detalle", namespaces=NS), "MotivosRechazo")
    if estado != "AS" and motives and {m["codigo"] for m in motives} <= DUPLICATE_ENVELOPE:
        return  # the receiver already holds this envelope (our resend): its first answer stands
    if sobre.ack_state == estado and sobre.ack_xml == document:
        return
    sobre.ack_state, sobre.ack_motives, sobre.ack_at, sobre.ack_xml = estado, motives, now, document
    sobre.id_receptor = _text(root, "d:Caratula/d:IDReceptor")
    for ex in contents:
        ex.envelope_answered_at = ex.envelope_answered_at or now
        if ex.state in ("en_sobre", "enviado", "error"):
            if estado == "AS":
                ex.state = "sobre_recibido"
            else:
                ex.state, ex.motives = "sobre_rechazado", motives


def _confirm(ex: ExchangeCfe, state: str, answer_ref: str | None, now: datetime) -> bool:
    """The verdict a receipt already has, again: the same answer sent twice changes nothing, but an AE in another
    answer of the receiver (its IDRespuesta) is its accountant's acceptance after the AE it answered on arrival.
    A verdict recorded before its IDRespuesta was kept only learns it. Returns whether the acceptance was confirmed
    now (once per acceptance: a rejection clears it, and a new acceptance may be confirmed again)."""
    if ex.answer_ref is None:
        ex.answer_ref = answer_ref
    elif state == "aceptado" and answer_ref and answer_ref != ex.answer_ref and ex.confirmed_at is None:
        ex.answer_ref, ex.confirmed_at = answer_ref, now
        return True
    return False


def _record_cfe_ack(session: Session, sobre: ExchangeEnvelope, contents: list[ExchangeCfe], root, now) -> None:
    answer_ref = _text(root, "d:Caratula/d:IDRespuesta")
    by_ordinal = {ex.ordinal: ex for ex in contents}
    for det in root.findall("d:ACKCFE_Det", namespaces=NS):
        ordinal = _text(det, "d:Nro_ordinal") or ""
        ex = by_ordinal.get(int(ordinal)) if ordinal.isdigit() else None
        if ex is None:
            continue
        record = session.get_one(IssuedCfe, ex.cfe_id)  # the row cascades with its receipt
        tipo, serie, nro = _text(det, "d:TipoCFE"), _text(det, "d:Serie"), _text(det, "d:NroCFE")
        if tipo and (int(tipo), serie, int(nro or 0)) != (record.tipo_cfe, record.serie, record.nro):
            continue  # the line names another receipt than the one at that ordinal: not ours to record
        estado = _text(det, "d:Estado")
        state, motives = ("aceptado", []) if estado == "AE" else ("rechazado", _motives(det, "MotivosRechazoCF"))
        if (ex.state, ex.motives) == (state, motives):
            if _confirm(ex, state, answer_ref, now):
                confirmed = receipt(record, rutReceptor=sobre.receiver_rut, confirmado=responses.moment(now))
                publish(session, sobre.company_id, "intercambio.aceptacion_confirmada", confirmed)
            continue
        ex.envelope_answered_at = ex.envelope_answered_at or now
        ex.answered_at = now
        ex.state, ex.motives = state, motives
        ex.answer_ref, ex.confirmed_at = answer_ref, None
        ex.commercial = any(is_commercial(m["codigo"]) for m in motives)
        publish(
            session,
            sobre.company_id,
            "intercambio.respuesta",
            receipt(
                record,
                rutReceptor=sobre.receiver_rut,
                estadoReceptor=state,
                rechazoComercial=ex.commercial,
                motivos=[{"codigo": m["codigo"], "glosa": m.get("glosa")} for m in motives],
            ),
        )
