"""What the exchange registers with comprobante (comprobante.hooks): a receipt to an electronic receiver is
recorded for delivery in its issuing transaction (and the exchange woken after the commit), a credit note is
linked to the commercial rejection it corrects; the `intercambio` and `corrigeRechazoComercial` sections of a
receipt's answer and the reason of a credit note's draft. Run by the app factory (each area's
`wiring.init_app`)."""

from __future__ import annotations

from flask import Flask
from sqlalchemy import Select
from sqlalchemy.orm import Session, aliased

from portal.service.cfe import CfeInput
from portal.service.comprobante import hooks
from portal.service.comprobante.models import IssuedCfe
from portal.service.intercambio import sending
from portal.service.intercambio.models import DgiRejectionNotice, ElectronicIssuerRow, ExchangeCfe, ExchangeEnvelope
from portal.service.intercambio.tasks import wake_exchange
from portal.service.intercambio.tracking import (
    CREDIT_NOTES,
    commercial_rejection,
    corrected_receipt,
    exchange_state,
    link_correcting_note,
    rejection_reason,
)


def _record_delivery(session: Session, issued: hooks.Issued) -> hooks.Wakeup | None:
    record, receiver = issued.record, issued.cfe.receptor
    exchanged = sending.record_issued(session, record, receiver.tipo_doc_recep if receiver else None, issued.issuer_rut)
    link_correcting_note(session, record, list(issued.originals))
    if not exchanged:
        return None
    company_id = record.company_id
    return hooks.Wakeup(lambda: wake_exchange(company_id), "intercambio wake-up")


def _plain_covers(cfe: CfeInput, issuer_rut: str) -> bool:
    """The plain path records no delivery: a receipt that may go to an electronic receiver takes the general one
    (its credit notes too: they link the commercial rejection they correct)."""
    receiver = cfe.receptor
    if cfe.tipo_cfe in CREDIT_NOTES:
        return False
    if receiver is None:
        return True
    return not sending.may_deliver(cfe.tipo_cfe, receiver.tipo_doc_recep, receiver.doc_recep, issuer_rut)


def _credit_note_reason(session: Session, original: IssuedCfe) -> str | None:
    rejected = commercial_rejection(session, original)
    return rejection_reason(rejected) if rejected else None


_CORRECTED = aliased(ExchangeCfe, name="intercambio_corregido")


def _tag_columns(statement: Select) -> Select:
    """What the `intercambio` section shows of the receipt's road to its electronic receiver and of rows several
    receipts share (the receiver's directory entry, the envelope it went in, DGI's rejection notice), and the
    receipt whose commercial rejection a credit note corrects (`corrigeRechazoComercial`)."""
    return (
        statement.outerjoin(ExchangeCfe, ExchangeCfe.cfe_id == IssuedCfe.id)
        .outerjoin(ElectronicIssuerRow, ElectronicIssuerRow.rut == ExchangeCfe.receiver_rut)
        .outerjoin(ExchangeEnvelope, ExchangeEnvelope.id == ExchangeCfe.envelope_id)
        .outerjoin(DgiRejectionNotice, DgiRejectionNotice.id == ExchangeCfe.notice_id)
        .outerjoin(_CORRECTED, _CORRECTED.note_id == IssuedCfe.id)
        .add_columns(
            ExchangeCfe.receiver_rut,
            ExchangeCfe.state,
            ExchangeCfe.envelope_id,
            ExchangeCfe.ordinal,
            ExchangeCfe.motives,
            ExchangeCfe.commercial,
            ExchangeCfe.note_id,
            ExchangeCfe.created_at,
            ExchangeCfe.packed_at,
            ExchangeCfe.sent_at,
            ExchangeCfe.envelope_answered_at,
            ExchangeCfe.answered_at,
            ExchangeCfe.confirmed_at,
            ExchangeCfe.notice_id,
            _CORRECTED.cfe_id,
            ElectronicIssuerRow.name,
            ElectronicIssuerRow.ws_url,
            ExchangeEnvelope.idemisor,
            ExchangeEnvelope.file_name,
            ExchangeEnvelope.state,
            ExchangeEnvelope.channel,
            ExchangeEnvelope.ack_state,
            ExchangeEnvelope.ack_motives,
            ExchangeEnvelope.attempts,
            ExchangeEnvelope.last_error,
            ExchangeEnvelope.last_error_texts,
            ExchangeEnvelope.last_attempt_at,
            ExchangeEnvelope.next_attempt_at,
            DgiRejectionNotice.file_name,
            DgiRejectionNotice.state,
            DgiRejectionNotice.channel,
        )
    )


def init_app(app: Flask) -> None:
    hooks.follow_issues("intercambio", hooks.IssueFollowUp(stored=_record_delivery, plain_covers=_plain_covers))
    hooks.add_receipt_sections(
        "intercambio",
        hooks.ReceiptSections(
            exchange=exchange_state,
            corrects_rejection=corrected_receipt,
            credit_note_reason=_credit_note_reason,
            tag=hooks.TagPart(columns=_tag_columns),
        ),
    )
