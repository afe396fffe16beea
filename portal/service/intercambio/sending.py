"""The issuer's side of the exchange: every receipt to an electronic receiver is recorded with the receipt,
packed into an EnvioCFE_entreEmpresas for that receiver once it is on its way to DGI (DGI first, CFE-URUGUAY.md
§12), and delivered by the background worker through `transport.deliver` with retries and backoff.

As in envios: every step reads its state from the database and writes the outcome in one transaction, an
envelope's bytes are stored before they are sent and never rebuilt, and a sender takes a lease
(`next_attempt_at`) so two workers never deliver the same envelope at once; a sender killed mid-delivery leaves
a lease that expires and the sweep delivers the same bytes again (the receiver answers a duplicate with S20,
which counts as delivered). Steps return when to run the next one; tasks.py turns that into huey schedules."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from flask import current_app
from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.domain.uruguay_time import MONTEVIDEO
from portal.service.comprobante.models import IssuedCfe
from portal.service.envios.consultas import ElectronicIssuer
from portal.service.envios.models import DgiSubmission
from portal.service.envios.sending import backoff, lease_held
from portal.service.intercambio import envelope, transport
from portal.service.intercambio.directory import find_issuer
from portal.service.intercambio.models import ElectronicIssuerRow, ExchangeCfe, ExchangeEnvelope, SenderNumbering
from portal.service.platform import counters, db
from portal.service.platform.i18n import _, stored
from portal.service.platform.models import Certificate, Company

RUT_DOC_TYPE = 2
# The receipt's DGI road has begun (its envelope to DGI is built, or it goes in the daily report).
DGI_RECORDED = ("en_sobre", "recibido", "aceptado", "observado", "pendiente_reporte", "en_reporte")
DGI_REJECTED = "rechazado"  # before delivery: never delivered (it is void), nothing to notify


@dataclass(frozen=True)
class Next:
    step: str  # "deliver" | "pack"
    target: int  # envelope id or company id
    delay: float


def _now() -> datetime:
    return datetime.now(UTC)


def may_deliver(tipo_cfe: int, doc_type: int | None, rut: str | None, issuer_rut: str) -> bool:
    """Whether a receipt may go to an electronic receiver (then the directory decides): an electronic CFE (1xx,
    never a contingency one) to a RUT other than the issuer's own."""
    return 100 <= tipo_cfe < 200 and doc_type == RUT_DOC_TYPE and bool(rut) and rut != issuer_rut


def record_issued(session: Session, record: IssuedCfe, doc_type: int | None, issuer_rut: str) -> bool:
    """In the issuing transaction: when the receiver is an electronic issuer (its RUT in the directory), record
    that the receipt must be delivered to it. Never for contingency receipts (2xx go to DGI only) nor to the
    company itself. Returns whether it was recorded."""
    rut = record.receptor_doc
    if not may_deliver(record.tipo_cfe, doc_type, rut, issuer_rut):
        return False
    row = session.get(ElectronicIssuerRow, rut)
    if row is None or (row.transition_from is not None and row.transition_from > record.fch_emis):
        return False  # not an electronic issuer, or not yet on the receipt's date
    session.add(
        ExchangeCfe(
            cfe_id=record.id,
            company_id=record.company_id,
            receiver_rut=rut,
            state="pendiente",
            motives=[],
            commercial=False,
            created_at=_now(),
        )
    )
    return True


# --- packing ---------------------------------------------------------------------------------------------


def pack(company_id: int) -> tuple[list[int], bool]:
    """Put the company's pending receipts that are already on their way to DGI into envelopes, one receiver and
    one certificate per envelope (<=250 CFEs, <=2 MB). Returns the new envelopes' ids, and whether receipts are
    still waiting for DGI's road to begin (the caller looks again a little later)."""
    built: list[int] = []
    while True:
        with db.write_transaction() as session:
            rows = session.execute(
                select(ExchangeCfe, IssuedCfe, DgiSubmission.state)
                .join(IssuedCfe, IssuedCfe.id == ExchangeCfe.cfe_id)
                .outerjoin(DgiSubmission, DgiSubmission.cfe_id == ExchangeCfe.cfe_id)
                .where(ExchangeCfe.company_id == company_id, ExchangeCfe.state == "pendiente")
                .order_by(ExchangeCfe.created_at, IssuedCfe.nro)
                .limit(envelope.MAX_CFES * 4)
                .with_for_update(of=ExchangeCfe, skip_locked=True)
            ).all()
            for ex, _rec, dgi_state in rows:
                if dgi_state == DGI_REJECTED:
                    ex.state = "anulado"
            ready = [(ex, rec) for ex, rec, dgi_state in rows if dgi_state is None or dgi_state in DGI_RECORDED]
            # Their DGI envelope is about to be built (seconds); one DGI refused waits for support and the sweep.
            waiting = any(dgi_state == "pendiente" for _ex, _rec, dgi_state in rows)
            if not ready:
                return built, waiting
            first_ex, first_rec = ready[0]
            chosen: list[tuple[ExchangeCfe, IssuedCfe]] = []
            size = 0
            for ex, rec in ready:
                if ex.receiver_rut != first_ex.receiver_rut or rec.certificate_id != first_rec.certificate_id:
                    continue
                adds = envelope.item_size(rec.xml, rec.input_json.get("adenda"))
                if len(chosen) == envelope.MAX_CFES or (
                    chosen and envelope.OVERHEAD + size + adds > envelope.MAX_BYTES
                ):
                    break
                chosen.append((ex, rec))
                size += adds
            built.append(_record_envelope(session, company_id, first_ex.receiver_rut, first_rec.certificate_id, chosen))


def _record_envelope(
    session: Session,
    company_id: int,
    receiver_rut: str,
    certificate_id: int,
    chosen: list[tuple[ExchangeCfe, IssuedCfe]],
) -> int:
    company = session.get_one(Company, company_id)
    cert = session.get_one(Certificate, certificate_id)
    idemisor = counters.take(session, SenderNumbering.last_idemisor, company_id)
    moment = datetime.now(MONTEVIDEO).replace(microsecond=0)
    xml = envelope.build(
        [(rec.xml, rec.input_json.get("adenda")) for _ex, rec in chosen],
        rut_receptor=receiver_rut,
        rut_emisor=company.rut,
        idemisor=idemisor,
        moment=moment,
        cert_pem=cert.cert_pem.encode(),
    )
    sobre = ExchangeEnvelope(
        company_id=company_id,
        receiver_rut=receiver_rut,
        idemisor=idemisor,
        file_name=envelope.file_name(company.rut, moment, idemisor),
        xml=xml,
        cfe_count=len(chosen),
        certificate_id=certificate_id,
        state="armado",
        attempts=0,
        ack_motives=[],
    )
    session.add(sobre)
    session.flush()
    now = _now()
    for ordinal, (ex, _rec) in enumerate(chosen, start=1):
        ex.envelope_id, ex.ordinal, ex.packed_at, ex.state = sobre.id, ordinal, now, "en_sobre"
    return sobre.id


# --- delivering ------------------------------------------------------------------------------------------


def _receiver(session: Session, rut: str) -> ElectronicIssuer | None:
    return find_issuer(session, rut)


def deliver(envelope_id: int) -> Next | None:
    """Deliver a recorded envelope (its stored bytes) through the transport, under a lease."""
    with db.write_transaction() as session:
        sobre = session.get_one(ExchangeEnvelope, envelope_id)
        now = _now()
        if sobre is None or sobre.state != "armado" or lease_held(sobre.next_attempt_at, now):
            return None
        sobre.next_attempt_at = now + timedelta(seconds=current_app.config["INTERCAMBIO_SEND_LEASE_SECONDS"])
        receiver = _receiver(session, sobre.receiver_rut)
        company_id, xml, name = sobre.company_id, sobre.xml, sobre.file_name
    if receiver is None:
        return _failed(envelope_id, _("El receptor ya no figura en el directorio de emisores electrónicos."), False)
    try:
        result = transport.deliver(company_id, receiver, "SOBRE", xml, name)
    except NotImplementedError:  # a build without the delivery channels: kept, and retried once they exist
        return _failed(envelope_id, _("No hay transporte de intercambio en esta instalación."), True)
    except Exception as exc:  # a defect of ours or of the channel: recorded and retried, never lost
        current_app.logger.exception("exchange envelope %s could not be delivered", envelope_id)
        return _failed(envelope_id, _("Error inesperado: {error}", error=str(exc)[:450]), True)
    if not result.delivered:
        return _failed(envelope_id, result.detail or _("El receptor no tomó el sobre."), result.temporary)
    with db.write_transaction() as session:
        sobre = session.get_one(ExchangeEnvelope, envelope_id)
        if sobre.state != "armado":
            return None
        now = _now()
        sobre.state, sobre.channel, sobre.detail = "entregado", result.channel, (result.detail or "")[:500]
        sobre.sent_at, sobre.last_attempt_at, sobre.next_attempt_at = now, now, None
        sobre.last_error = sobre.last_error_texts = None
        for ex in session.scalars(select(ExchangeCfe).where(ExchangeCfe.envelope_id == envelope_id)):
            if ex.state == "en_sobre":
                ex.state, ex.sent_at = "enviado", now
    return None


def _failed(envelope_id: int, error: str, temporary: bool) -> Next | None:
    """A failed attempt: a temporary one is retried with backoff up to INTERCAMBIO_MAX_ATTEMPTS; then, or for a
    permanent one, the envelope and its receipts wait for support (state error)."""
    with db.write_transaction() as session:
        sobre = session.get_one(ExchangeEnvelope, envelope_id)
        if sobre.state != "armado":
            return None
        now = _now()
        sobre.attempts, sobre.last_attempt_at = sobre.attempts + 1, now
        sobre.last_error, sobre.last_error_texts = error[:500], stored(error)
        if temporary and sobre.attempts < current_app.config["INTERCAMBIO_MAX_ATTEMPTS"]:
            delay = backoff(sobre.attempts)
            sobre.next_attempt_at = now + timedelta(seconds=delay)  # the retry's moment, said while it will come
            return Next("deliver", envelope_id, delay)
        sobre.state, sobre.next_attempt_at = "error", None
        for ex in session.scalars(select(ExchangeCfe).where(ExchangeCfe.envelope_id == envelope_id)):
            ex.state = "error"
        return None


class NotRetriable(ValueError):
    """The envelope is not in error: it is being delivered, or it was delivered (nothing to send again)."""


# Why the same bytes and not a new envelope (CFE-URUGUAY.md §12): the envelope carries the signed CFEs unchanged
# and a Caratula with this company's own Idemisor; a state `error` means the bytes never got past the channel
# (a refusal of our request, a receiver missing from the directory, attempts exhausted), never that the receiver
# judged them: that would be its ACKSobre (BS, S01-S07: `sobre_rechazado`, not retried here). So nothing in the
# bytes is at fault, and a new envelope could only hurt: a receiver that did take the first one (a lost answer)
# recognises the same envelope as a duplicate (S20, which counts as delivered) but would take the same CFEs in
# another envelope twice. What may have changed is where the receiver is: every attempt reads its directory
# entry, and a retry asked for reads it afresh from DGI first (tasks.redeliver_exchange).
def reopen(session: Session, company_id: int, envelope_id: int) -> ExchangeEnvelope | None:
    """In the caller's write transaction: an envelope in error goes back to being delivered, attempts from zero.
    None when the company has no such envelope; NotRetriable when it is not in error."""
    sobre = session.get(ExchangeEnvelope, envelope_id, with_for_update=True)
    if sobre is None or sobre.company_id != company_id:
        return None
    if sobre.state != "error":
        raise NotRetriable(sobre.state)
    sobre.state, sobre.attempts, sobre.next_attempt_at = "armado", 0, None
    sobre.last_error = sobre.last_error_texts = None
    for ex in session.scalars(select(ExchangeCfe).where(ExchangeCfe.envelope_id == envelope_id)):
        ex.state = "en_sobre"
    return sobre


def retry(company_id: int, envelope_id: int) -> bool:
    """Support's retry of an envelope that failed for good (`reopen` in a transaction of its own)."""
    with db.write_transaction() as session:
        try:
            return reopen(session, company_id, envelope_id) is not None
        except NotRetriable:
            return False
