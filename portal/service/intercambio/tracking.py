"""Each receipt's state at its electronic receiver, presented with the receipt (the `intercambio` key of
getByIdCfeEmitido), and the link between a commercial rejection and its correcting credit note."""

from __future__ import annotations

from flask import url_for
from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.domain.cfe_types import CREDIT_NOTES  # every credit note: a 142 corrects a 141 as a 112 a 111
from portal.service.comprobante.models import IssuedCfe
from portal.service.comprobante.tracking_schemas import EstadoIntercambio
from portal.service.intercambio.directory import find_issuer
from portal.service.intercambio.models import DgiRejectionNotice, ExchangeCfe, ExchangeEnvelope
from portal.service.intercambio.states import AGREED_TEXTS, FINAL_STATES, STATES, said_motives
from portal.service.platform.i18n import said_or, say

REASON_MAX = 90  # razonRef (F-C6)


def _motive_reason(entry: dict) -> str:
    """A motive in a credit note's reason: its code and its words. An agreed motive's (E27-E60) words are the
    receiver's detail, its glosa being a standard text that says nothing; E20-E26 are said by their glosa."""
    glosa, detail = (entry.get("glosa") or "").strip(), (entry.get("detalle") or "").strip()
    return f"{entry['codigo']} {detail if detail and glosa in AGREED_TEXTS else glosa}".strip()


def rejection_reason(ex: ExchangeCfe) -> str:
    """The receiver's commercial motive as a credit note's reason (razonRef), cut at a word when it is longer."""
    motives = ", ".join(_motive_reason(m) for m in ex.motives if m.get("codigo"))
    reason = f"Rechazo comercial del receptor: {motives}"
    if len(reason) <= REASON_MAX:
        return reason
    return reason[: REASON_MAX - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def commercial_rejection(session: Session, record: IssuedCfe) -> ExchangeCfe | None:
    ex = session.get(ExchangeCfe, record.id)
    return ex if ex is not None and ex.state == "rechazado" and ex.commercial else None


def link_correcting_note(session: Session, note: IssuedCfe, originals: list[IssuedCfe]) -> None:
    """In the issuing transaction of a credit note: it corrects each referenced receipt that its receiver
    rejected commercially and that has no correcting note yet."""
    if note.tipo_cfe not in CREDIT_NOTES:
        return
    for original in originals:
        ex = commercial_rejection(session, original)
        if ex is not None and ex.note_id is None:
            ex.note_id = note.id


def corrected_receipt(session: Session, note: IssuedCfe) -> str | None:
    """The receipt whose commercial rejection this credit note corrects, if any (no query for other types)."""
    if note.tipo_cfe not in CREDIT_NOTES:
        return None
    return session.scalar(select(ExchangeCfe.cfe_id).where(ExchangeCfe.note_id == note.id))


def exchange_state(session: Session, record: IssuedCfe) -> EstadoIntercambio | None:
    """None when the receipt does not go to an electronic receiver."""
    if not (record.receptor_doc and len(record.receptor_doc) == 12):
        return None  # no RUT receiver (most e-Tickets): nothing to read
    ex = session.get(ExchangeCfe, record.id)
    if ex is None:
        return None
    issuer = find_issuer(session, ex.receiver_rut)
    sobre = session.get(ExchangeEnvelope, ex.envelope_id) if ex.envelope_id else None
    notice = session.get(DgiRejectionNotice, ex.notice_id) if ex.notice_id else None
    offer = ex.state == "rechazado" and ex.commercial and ex.note_id is None
    return EstadoIntercambio.model_validate(
        {
            "receptor": {
                "rut": ex.receiver_rut,
                "nombre": issuer.name if issuer else (record.receptor_nombre or ex.receiver_rut),
                "canal": None if issuer is None else ("ws" if issuer.ws_url else "correo"),
            },
            "estado": ex.state,
            "descripcion": say(STATES.get(ex.state, "")),
            "final": ex.state in FINAL_STATES,
            "motivos": said_motives(ex.motives),
            "rechazoComercial": ex.commercial,
            "sobre": None
            if sobre is None
            else {
                "idSobre": sobre.id,
                "idEmisor": sobre.idemisor,
                "archivo": sobre.file_name,
                "estado": sobre.state,
                "canal": sobre.channel,
                "acuse": sobre.ack_state,
                "motivosSobre": said_motives(sobre.ack_motives),
                "intentos": sobre.attempts,
                "ultimoError": said_or(sobre.last_error_texts, sobre.last_error),
                "ultimoIntento": sobre.last_attempt_at,
                # While it is being delivered after a failure, its lease or backoff is when the job tries again.
                "proximoIntento": sobre.next_attempt_at if sobre.state == "armado" and sobre.attempts else None,
                "ordinal": ex.ordinal,
            },
            "notaCorrectiva": ex.note_id,
            "borradorNota": url_for("comprobante.borrador_nota", idCfeEmitido=record.id, tipo="credito", _external=True)
            if offer
            else None,
            "avisoAnulacion": None
            if notice is None
            else {"idAviso": notice.id, "archivo": notice.file_name, "estado": notice.state, "canal": notice.channel},
            "fechas": {
                key: value
                for key, value in {
                    "registrado": ex.created_at,
                    "enSobre": ex.packed_at,
                    "enviado": ex.sent_at,
                    "sobreRespondido": ex.envelope_answered_at,
                    "respondido": ex.answered_at,
                    "confirmado": ex.confirmed_at if ex.state == "aceptado" else None,
                }.items()
                if value
            },
        }
    )
