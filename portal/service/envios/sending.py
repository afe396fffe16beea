"""The road of an envelope: pack pending receipts (bytes recorded before anything is sent), deliver them to
DGI, and fetch DGI's per-receipt answers with the token it gave.

Every step reads its state from the database and writes the outcome in one transaction, so any step may run
twice (a sweep and a scheduled retry, a worker killed and restarted) without harm: an envelope that was
built is resent with the same bytes (never rebuilt), and an answer already recorded is not recorded again.
Steps return when to run the next one; the tasks module turns that into huey schedules.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import TypeVar

from flask import current_app
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from portal.domain.uruguay_time import MONTEVIDEO, montevideo_time, today_montevideo
from portal.service.comprobante.events import receipt_verdict
from portal.service.comprobante.models import IssuedCfe, VoidedRange
from portal.service.comprobante.notes import release_rejected
from portal.service.envios import ack_trust, acks, envelope, outage
from portal.service.envios.adapter import (
    CfeState,
    Credentials,
    DgiPermanentError,
    DgiReception,
    DgiTransientError,
)
from portal.service.envios.models import DgiDailyReport, DgiEnvelope, DgiSubmission
from portal.service.envios.receptions import make_reception
from portal.service.envios.states import ROUTE_ENVELOPE
from portal.service.envios.tracking import set_state
from portal.service.eventos.publishing import publish
from portal.service.platform import db
from portal.service.platform.i18n import Text, _, stored
from portal.service.platform.keystore import private_key_pem
from portal.service.platform.models import Certificate, Company

T = TypeVar("T")
MAX_DELAY_SECONDS = 600
S08_ASKING = _("DGI ya tiene un sobre con este número (S08): se consulta a DGI el estado de cada comprobante.")
SLACK = timedelta(seconds=1)


@dataclass(frozen=True)
class Next:
    """What to run next for an envelope, and in how many seconds."""

    step: str  # "deliver" | "fetch" | "report" | "pack" | "probe" (DGI is down: the probe calls it in `delay` s)
    envelope_id: int  # the envelope's id (the report's, for "report"; the company's, for "pack")
    delay: float


def reception() -> DgiReception:
    """The DGI adapter of this app (built once)."""
    if "dgi_reception" not in current_app.extensions:
        current_app.extensions["dgi_reception"] = make_reception(current_app.config)
    return current_app.extensions["dgi_reception"]


def backoff(attempts: int) -> float:
    """2, 4, 8 ... seconds, at most ten minutes."""
    return float(min(2 ** max(attempts, 1), MAX_DELAY_SECONDS))


def credentials(session: Session, company_id: int, certificate_id: int) -> Credentials:
    company = session.get_one(Company, company_id)
    cert = session.get_one(Certificate, certificate_id)
    return Credentials(rut=company.rut, key_pem=private_key_pem(cert), cert_pem=cert.cert_pem.encode())


def _now() -> datetime:
    return datetime.now(UTC)


# --- packing ---------------------------------------------------------------------------------------------


def pack(company_id: int) -> list[int]:
    """Put every pending receipt of the company in envelopes (<=250 CFEs, <=2 MB, one certificate each) and
    record them. Returns the new envelopes' ids."""
    built: list[int] = []
    while True:
        with db.write_transaction() as session:
            rows = session.execute(
                select(DgiSubmission, IssuedCfe)
                .join(IssuedCfe, IssuedCfe.id == DgiSubmission.cfe_id)
                .where(
                    DgiSubmission.company_id == company_id,
                    DgiSubmission.route == ROUTE_ENVELOPE,
                    DgiSubmission.state == "pendiente",
                )
                .order_by(DgiSubmission.created_at, IssuedCfe.nro)
                .limit(envelope.MAX_CFES)
                .with_for_update(of=DgiSubmission, skip_locked=True)
            ).all()
            if not rows:
                return built
            certificate_id = rows[0][1].certificate_id
            chosen: list[tuple[DgiSubmission, IssuedCfe]] = []
            size = 0
            for sub, record in rows:
                if record.certificate_id != certificate_id:
                    continue
                if chosen and envelope.OVERHEAD + size + len(record.xml) > envelope.MAX_BYTES:
                    break
                chosen.append((sub, record))
                size += len(record.xml)
            built.append(_record_envelope(session, company_id, certificate_id, chosen))


def _record_envelope(
    session: Session, company_id: int, certificate_id: int, chosen: list[tuple[DgiSubmission, IssuedCfe]]
) -> int:
    company = session.get_one(Company, company_id)
    cert = session.get_one(Certificate, certificate_id)
    idemisor = (
        session.scalar(select(func.max(DgiEnvelope.idemisor)).where(DgiEnvelope.company_id == company_id)) or 0
    ) + 1
    moment = datetime.now(MONTEVIDEO).replace(microsecond=0)
    xml = envelope.build_envelope(
        [record.xml for _sub, record in chosen],
        rut_receptor=current_app.config["DGI_RUT"],
        rut_emisor=company.rut,
        idemisor=idemisor,
        moment=moment,
        cert_pem=cert.cert_pem.encode(),
    )
    sobre = DgiEnvelope(
        company_id=company_id,
        idemisor=idemisor,
        xml=xml,
        cfe_count=len(chosen),
        file_name=envelope.file_name(company.rut, moment, idemisor),
        certificate_id=certificate_id,
        state="armado",
        ack_motives=[],
        attempts=0,
    )
    session.add(sobre)
    session.flush()
    now = _now()
    for ordinal, (sub, record) in enumerate(chosen, start=1):
        sub.envelope_id, sub.ordinal, sub.packed_at = sobre.id, ordinal, now
        set_state(sub, record, "en_sobre")
    return sobre.id


# --- delivering ------------------------------------------------------------------------------------------


def deliver(envelope_id: int, *, probe: bool = False) -> Next | None:
    """Send a recorded envelope (its stored bytes) and record DGI's ACKSobre.

    The sender first takes a lease on the envelope (next_attempt_at), so two workers woken for the same
    envelope (a retry and a sweep) do not both send it; a sender killed mid-send leaves a lease that
    expires, and the sweep then resends the same bytes. While DGI is down (outage.py) only the probe sends;
    the others wait to be woken when DGI answers."""
    with db.write_transaction() as session:
        sobre = session.get(DgiEnvelope, envelope_id)
        now = _now()
        if sobre is None or sobre.state != "armado" or lease_held(sobre.next_attempt_at, now):
            return None
        if not probe and outage.is_down(session):
            return None  # the probe calls DGI; its answer wakes this one
        sobre.next_attempt_at = now + timedelta(seconds=current_app.config["ENVIOS_SEND_LEASE_SECONDS"])
        creds = credentials(session, sobre.company_id, sobre.certificate_id)
        xml, name = sobre.xml, sobre.file_name
    try:
        ack_xml = reception().send_envelope(xml, file_name=name, credentials=creds)
        answer = acks.read_ack_sobre(ack_xml)
    except (DgiTransientError, acks.AckUnreadable) as exc:
        return _unanswered(envelope_id, "armado", exc.message)
    except DgiPermanentError as exc:
        return _failed(envelope_id, "armado", exc.message, None)
    except Exception as exc:  # a defect of ours or of the adapter: recorded and retried, never lost
        current_app.logger.exception("envelope %s could not be delivered", envelope_id)
        return _failed(envelope_id, "armado", _unexpected(exc), "deliver")
    outage.answered()
    with db.write_transaction() as session:
        sobre = session.get_one(DgiEnvelope, envelope_id)
        if sobre.state != "armado":
            return None
        now = query_after = _now()
        sobre.ack_state, sobre.ack_motives, sobre.sent_at = answer.estado, answer.motives, sobre.sent_at or now
        sobre.ack_xml = ack_xml
        sobre.ack_signature = ack_trust.signature_state(session, ack_xml, f"ACKSobre of envelope {envelope_id}")
        if answer.estado == "AS":
            sobre.state, sobre.received_at = "recibido", now
            sobre.id_receptor, sobre.token = answer.id_receptor, answer.token
            sobre.query_after = query_after = _moment(answer.query_after) or now
            sobre.attempts, sobre.next_attempt_at = 0, sobre.query_after
            record_error(sobre, None)
        elif any(m["codigo"] == "S08" for m in answer.motives):
            # DGI already holds an envelope with this number: ours, from a delivery whose answer we lost, or
            # another one that reused the number. Nothing is rebuilt or resent blindly: `fetch` asks DGI
            # (ws_consultas) what it holds of each receipt and records that.
            sobre.state, sobre.received_at = "recibido", now
            sobre.attempts, sobre.next_attempt_at = 0, now
            record_error(sobre, S08_ASKING)
            return Next("fetch", envelope_id, 0.5)
        else:
            sobre.state = "rechazado"
        for sub, record in _contents(session, envelope_id):
            if answer.estado == "AS":
                sub.received_at = now
                set_state(sub, record, "recibido")
            else:
                sub.motives = answer.motives
                set_state(sub, record, "sobre_rechazado")
        if answer.estado != "AS":
            publish(session, sobre.company_id, "sobre.rechazado", _envelope_event(sobre))
            return None
        return Next("fetch", envelope_id, max((query_after - now).total_seconds(), 0.5))


def _envelope_event(sobre: DgiEnvelope) -> dict:
    codes = [m["codigo"] for m in sobre.ack_motives or []]
    return {
        "idSobre": sobre.id,
        "idEmisor": sobre.idemisor,
        "estado": sobre.ack_state,
        "motivos": codes,
        "cantidadCfe": sobre.cfe_count,
    }


def _unexpected(exc: Exception) -> Text:
    return _("Error inesperado: {error}", error=str(exc)[:450])


def record_error(row: DgiEnvelope | DgiDailyReport, error: str | None) -> None:
    """An envelope's or daily report's last error (or note), kept as i18n.stored keeps it too (migration 0362)."""
    row.last_error = error[:500] if error else None
    row.last_error_texts = stored(error) if error else None


def lease_held(next_attempt_at: datetime | None, now: datetime) -> bool:
    """Whether another sender's lease (or a retry scheduled for later) still holds. A retry scheduled for
    next_attempt_at may start a moment early (clocks): a second of slack."""
    return next_attempt_at is not None and next_attempt_at > now + SLACK


def _moment(value: str | None) -> datetime | None:
    if not value:
        return None
    return montevideo_time(datetime.fromisoformat(value)).astimezone(UTC)


def _contents(session, envelope_id: int):
    return session.execute(
        select(DgiSubmission, IssuedCfe)
        .join(IssuedCfe, IssuedCfe.id == DgiSubmission.cfe_id)
        .where(DgiSubmission.envelope_id == envelope_id)
        .order_by(DgiSubmission.ordinal)
    ).all()


def _unanswered(envelope_id: int, expected_state: str, error: str) -> Next | None:
    """DGI did not answer (or not readably): DGI is down from now on; the envelope waits, free to be taken
    again, and the probe (not this envelope's own schedule) decides when DGI is called next."""
    delay = outage.failed(error, float(current_app.config.get("DGI_OUTAGE_PROBE_MAX_SECONDS", 30.0)))
    with db.write_transaction() as session:
        sobre = session.get(DgiEnvelope, envelope_id)
        if sobre is None or sobre.state != expected_state:
            return None
        sobre.attempts += 1
        record_error(sobre, error)
        sobre.next_attempt_at = None
        return Next("probe", envelope_id, delay)


def _failed(envelope_id: int, expected_state: str, error: str, retry_step: str | None) -> Next | None:
    """Record a failed attempt; a transient one is retried with backoff, a permanent one waits for support."""
    with db.write_transaction() as session:
        sobre = session.get_one(DgiEnvelope, envelope_id)
        if sobre.state != expected_state:
            return None
        sobre.attempts += 1
        record_error(sobre, error)
        if retry_step is None:
            sobre.state, sobre.next_attempt_at = "error", None
            return None
        delay = backoff(sobre.attempts)
        sobre.next_attempt_at = _now() + timedelta(seconds=delay)
        return Next(retry_step, envelope_id, delay)


# --- DGI's answers ---------------------------------------------------------------------------------------


def fetch(envelope_id: int, *, probe: bool = False) -> Next | None:
    """Ask DGI for the per-receipt answers of a received envelope and record them."""
    with db.new_session() as session:
        sobre = session.get(DgiEnvelope, envelope_id)
        if sobre is None or sobre.state != "recibido":
            return None
        if not probe and outage.is_down(session):
            return None  # the probe calls DGI; its answer wakes this one
        creds = credentials(session, sobre.company_id, sobre.certificate_id)
        id_receptor, token = sobre.id_receptor, sobre.token
        s08 = any(m["codigo"] == "S08" for m in sobre.ack_motives or [])
        asks = [(r.id, r.tipo_cfe, r.serie, r.nro) for _sub, r in _contents(session, envelope_id)] if s08 else []
    if s08:
        return _reconcile(envelope_id, creds, asks)
    if id_receptor is None or token is None:  # DGI's ACKSobre said AS without them: nothing to ask with
        return _failed(envelope_id, "recibido", _("DGI recibió el sobre sin darle IDReceptor y Token."), None)

    def ask() -> tuple[bytes | None, list[acks.CfeVerdict] | None]:
        data = reception().query_envelope(id_receptor, token, credentials=creds)
        return data, acks.read_ack_cfe(data) if data is not None else None

    try:
        data, verdicts = _ask_dgi(envelope_id, "answers", ask)
    except _NoAnswer as failure:
        return failure.next_step
    if verdicts is None:
        return _failed(envelope_id, "recibido", _("DGI aún no terminó de procesar el sobre."), "fetch")
    with db.write_transaction() as session:
        sobre = session.get_one(DgiEnvelope, envelope_id)
        if sobre.state != "recibido":
            return None
        now = _now()
        sobre.state, sobre.answer_xml, sobre.answered_at = "respondido", data, now
        sobre.answer_signature = ack_trust.signature_state(session, data, f"ACKCFE of envelope {envelope_id}")
        sobre.next_attempt_at = None
        record_error(sobre, None)
        by_ordinal = {v.ordinal: v for v in verdicts}
        for sub, record in _contents(session, envelope_id):
            verdict = by_ordinal.get(sub.ordinal)
            if verdict is not None:
                _record_verdict(session, sub, record, verdict, now)
    return None


class _NoAnswer(Exception):
    """DGI gave no usable answer to a question about a received envelope; the failure is recorded."""

    def __init__(self, next_step: Next | None):
        super().__init__()
        self.next_step = next_step


def _ask_dgi(envelope_id: int, what: str, ask: Callable[[], T]) -> T:
    """Ask DGI something about a received envelope. DGI not answering (or unreadably) is an outage, a refusal
    waits for support, a defect of ours is retried; each is recorded and raised as _NoAnswer with what next."""
    try:
        answer = ask()
    except (DgiTransientError, acks.AckUnreadable) as exc:
        raise _NoAnswer(_unanswered(envelope_id, "recibido", exc.message)) from exc
    except DgiPermanentError as exc:
        raise _NoAnswer(_failed(envelope_id, "recibido", exc.message, None)) from exc
    except Exception as exc:  # as in deliver
        current_app.logger.exception("the %s of envelope %s could not be fetched", what, envelope_id)
        raise _NoAnswer(_failed(envelope_id, "recibido", _unexpected(exc), "fetch")) from exc
    outage.answered()
    return answer


def _reconcile(envelope_id: int, creds: Credentials, asks: list[tuple[str, int, str, int]]) -> Next | None:
    """After S08: ask DGI (ws_consultas EFACCONSULTARESTADOCFE) what it holds of each receipt of the envelope
    and record it. A verdict is recorded as ACKCFE's would be; a receipt DGI never received goes back to
    pending, into a new envelope with a new number; while DGI is still judging one, ask again later."""

    def ask() -> dict[str, CfeState]:
        return {
            cfe_id: reception().query_cfe_state(creds.rut, tipo, serie, nro, credentials=creds)
            for cfe_id, tipo, serie, nro in asks
        }

    try:
        states = _ask_dgi(envelope_id, "receipts' states", ask)
    except _NoAnswer as failure:
        return failure.next_step
    if any(state.estado == "en_proceso" for state in states.values()):
        return _failed(
            envelope_id, "recibido", _("DGI aún no terminó de procesar los comprobantes del sobre."), "fetch"
        )
    with db.write_transaction() as session:
        sobre = session.get_one(DgiEnvelope, envelope_id)
        if sobre.state != "recibido":
            return None
        now, again = _now(), 0
        for sub, record in _contents(session, envelope_id):
            state = states.get(sub.cfe_id)
            if state is None:  # joined the envelope after the question: impossible, envelopes never grow
                continue
            if state.estado == "no_recibido":
                sub.envelope_id, sub.ordinal, sub.packed_at = None, None, None
                set_state(sub, record, "pendiente")
                again += 1
                continue
            verdict = acks.CfeVerdict(sub.ordinal or 0, record.tipo_cfe, record.serie, record.nro, state.estado)
            _record_verdict(session, sub, record, replace(verdict, motives=state.motives), now)
        sobre.state, sobre.answered_at, sobre.next_attempt_at = "respondido", now, None
        record_error(
            sobre,
            _(
                "DGI ya tenía un sobre con este número (S08): estado de cada comprobante consultado a DGI; "
                "{respondidos} con respuesta de DGI, {nuevos} que DGI no recibió van en un sobre nuevo.",
                respondidos=len(states) - again,
                nuevos=again,
            ),
        )
        company_id = sobre.company_id
    return Next("pack", company_id, 0.0) if again else None


def _record_verdict(session, sub: DgiSubmission, record: IssuedCfe, verdict: acks.CfeVerdict, now: datetime) -> None:
    sub.answered_at, sub.motives = now, verdict.motives
    codes = {m["codigo"] for m in verdict.motives}
    if verdict.estado in ("AE", "FE") or (verdict.estado == "BE" and codes == {"E02"}):
        # E02 alone: DGI already holds this very receipt (an earlier delivery we could not confirm): reconciled.
        # FE, "Comprobante Reliquidado" (ACKCFE_DGI.xsd): DGI holds it with its amounts recomputed; it is no
        # rejection, so its number is not voided (the daily report would say voided what DGI has as issued).
        set_state(sub, record, "aceptado")
    elif verdict.estado == "CE":  # a contingency receipt DGI observed: corrected and sent again, never voided
        sub.observations = (sub.observations or 0) + 1
        set_state(sub, record, "observado")
    else:
        set_state(sub, record, "rechazado")
        void_by_rejection(session, record, verdict.motives)
    receipt_verdict(session, record, verdict.motives)


def void_by_rejection(session, record: IssuedCfe, motives: list[dict]) -> None:
    """A receipt DGI rejects counts as not issued: its number is voided by that rejection
    (CFEs_Anulados_x_RechazoDGI: Motivo_Cod RD); a note so rejected gives back what it took from its receipts."""
    release_rejected(session, record.id)
    if session.scalar(select(VoidedRange.id).where(VoidedRange.cfe_id == record.id)):
        return
    codes = ", ".join(m["codigo"] for m in motives) or "BE"
    reason = _("Comprobante anulado por rechazo de DGI ({codigos})", codigos=codes[:150])
    session.add(
        VoidedRange(
            company_id=record.company_id,
            cae_range_id=record.cae_range_id,
            libreta_id=record.libreta_id,  # a paper contingency receipt's book (DGI observes those, never rejects)
            tipo_cfe=record.tipo_cfe,
            serie=record.serie,
            nro_desde=record.nro,
            nro_hasta=record.nro,
            fecha=today_montevideo(),
            source="rechazo_dgi",
            reason=reason,
            reason_texts=stored(reason),
            cfe_id=record.id,
            created_by="DGI",
        )
    )


# --- support's way forward -------------------------------------------------------------------------------


def retry(company_id: int, envelope_id: int) -> DgiEnvelope | None:
    """An admin's retry of an envelope DGI refused or that failed for good. A refused envelope (BS/BA) never
    reached DGI's books, so its receipts go back to pending and into a new envelope; one that failed (a
    permanent error, an S08 to reconcile) is sent again as it is, the same bytes. None: no such envelope of the
    company; ValueError: nothing to retry."""
    with db.write_transaction() as session:
        sobre = session.get(DgiEnvelope, envelope_id, with_for_update=True)
        if sobre is None or sobre.company_id != company_id:
            return None
        if sobre.state == "error":
            sobre.state, sobre.attempts, sobre.next_attempt_at = "armado", 0, None
            record_error(sobre, None)
        elif sobre.state == "rechazado":
            for sub, record in _contents(session, envelope_id):
                sub.envelope_id, sub.ordinal, sub.motives = None, None, []
                set_state(sub, record, "pendiente")
            record_error(sobre, _("Sus comprobantes se reenviaron en un sobre nuevo."))
        else:
            raise ValueError(sobre.state)
        return sobre
