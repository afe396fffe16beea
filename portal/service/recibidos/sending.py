"""Delivering our answers (ACKSobre, ACKCFE) to the company that sent the envelope, by the channel it came from.

An answer moves en_cola -> enviando -> enviado | fallido | sin_destino, or back to en_cola with a later
`next_attempt_at` after a temporary failure (backoff doubling from MAIL_RETRY_BASE_SECONDS, at most
MAX_ATTEMPTS attempts). As with correo's sends, `attempt()` takes a lease on the row first, so two wake-ups
never deliver the same answer and an attempt by a worker that died is taken up again when its lease ends.
An ACKCFE waits until the ACKSobre of its envelope is settled: the sender reads them in that order.

Where an answer goes: the envelope's own channel, to the sender as DGI's directory lists it. By mail, to its
exchange address (not the message's From or Reply-To, which anyone can write); by the web service, to its
exchange web service (its exchange address when it has no web service); an upload through the directory too.
With no route (a sender the directory does not list), the answer stays `sin_destino` (the company can still
download it).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Literal, cast

from flask import current_app
from sqlalchemy import CursorResult, or_, select, update

from portal.service.intercambio import directory, transport
from portal.service.platform import db
from portal.service.platform.i18n import _, stored
from portal.service.recibidos.models import (
    FAILED,
    FINAL_ANSWER_STATES,
    NO_ROUTE,
    QUEUED,
    SENDING,
    SENT,
    ExchangeAnswer,
    ReceivedEnvelope,
)

log = logging.getLogger("portal.service.recibidos")

MAX_ATTEMPTS = 8
WAIT_FOR_SOBRE = timedelta(seconds=5)
OPERATIONS: dict[str, transport.Operation] = {"ACKSobre": "RESPUESTASOBRE", "ACKCFE": "RESPUESTACFES"}


@dataclass(frozen=True)
class Outcome:
    state: str | None  # None: someone else holds it, or it is already final
    retry_in: timedelta | None = None


def lease() -> timedelta:
    return timedelta(seconds=float(current_app.config.get("RECIBIDOS_ANSWER_LEASE_SECONDS", 300)))


def retry_delay(attempts: int) -> timedelta:
    return timedelta(seconds=current_app.config["MAIL_RETRY_BASE_SECONDS"] * 2 ** max(attempts - 1, 0))


def route(envelope: ReceivedEnvelope, session) -> directory.ElectronicIssuer | None:
    """Where the answers to `envelope` go (None: nowhere known)."""
    listed = directory.find_issuer(session, envelope.rut_emisor) if envelope.rut_emisor else None
    if envelope.channel == "correo":
        # By mail, to the sender's exchange address as DGI lists it, never to the address a message claims: From
        # and Reply-To are anyone's to write, and answering them mailed signed answers (with a file name of the
        # sender's choosing) to whatever address an attacker named. A sender DGI does not list is answered nowhere.
        return replace(listed, ws_url=None) if listed is not None and listed.exchange_email else None
    if listed is not None and (listed.ws_url or listed.exchange_email):
        return listed
    return None


def destination(envelope_id: int) -> Literal["servicio_web", "correo"] | None:
    """How the answers to an envelope would go if sent now (`transport.deliver` prefers the web service), or
    None when they go nowhere: what an upload tells the person who made it."""
    with db.new_session() as session:
        receiver = route(session.get_one(ReceivedEnvelope, envelope_id), session)
    if receiver is None:
        return None
    return "servicio_web" if receiver.ws_url else "correo"


def _take_lease(answer_id: int, now: datetime) -> bool:
    with db.write_transaction() as session:
        taken = session.execute(
            update(ExchangeAnswer)
            .where(
                ExchangeAnswer.id == answer_id,
                or_(
                    (ExchangeAnswer.state == QUEUED) & (ExchangeAnswer.next_attempt_at <= now),
                    (ExchangeAnswer.state == SENDING) & (ExchangeAnswer.lease_until < now),
                ),
            )
            .values(state=SENDING, lease_until=now + lease(), attempts=ExchangeAnswer.attempts + 1)
        )
        return bool(cast(CursorResult, taken).rowcount)


def attempt(answer_id: int) -> Outcome:
    """Try to deliver one answer now and record the result."""
    now = datetime.now(UTC)
    with db.new_session() as session:
        answer = session.get(ExchangeAnswer, answer_id)
        if answer is None:
            return Outcome(None)
        if answer.kind == "ACKCFE" and answer.cfe_id is None:
            sobre_state = session.scalar(
                select(ExchangeAnswer.state).where(
                    ExchangeAnswer.sobre_id == answer.sobre_id, ExchangeAnswer.kind == "ACKSobre"
                )
            )
            if sobre_state is not None and sobre_state not in FINAL_ANSWER_STATES:
                return Outcome(QUEUED, retry_in=WAIT_FOR_SOBRE)
    if not _take_lease(answer_id, now):
        return Outcome(None)
    with db.new_session() as session:
        answer = session.get_one(ExchangeAnswer, answer_id)
        envelope = session.get_one(ReceivedEnvelope, answer.sobre_id)
        receiver = route(envelope, session)
        document, filename, company_id, attempts = answer.document, answer.filename, answer.company_id, answer.attempts
    if receiver is None:
        return _finish(answer_id, NO_ROUTE, error=_("No hay servicio web ni correo de intercambio del emisor."))
    try:
        result = transport.deliver(company_id, receiver, OPERATIONS[answer.kind], document, filename)
    except Exception:  # a defect or a missing certificate: recorded, retried like a temporary failure
        log.exception("could not deliver exchange answer %s", answer_id)
        result = transport.DeliveryResult("correo", False, True, _("Error interno al enviar la respuesta."))
    if result.delivered:
        return _finish(answer_id, SENT, by=result.channel, error=None)
    if result.temporary and attempts < MAX_ATTEMPTS:
        delay = retry_delay(attempts)
        _finish(answer_id, QUEUED, error=result.detail, next_attempt_at=now + delay)
        return Outcome(QUEUED, retry_in=delay)
    return _finish(answer_id, FAILED, error=result.detail)


def _finish(
    answer_id: int, state: str, *, error: str | None, by: str | None = None, next_attempt_at: datetime | None = None
) -> Outcome:
    with db.write_transaction() as session:
        answer = session.get_one(ExchangeAnswer, answer_id)
        answer.state, answer.lease_until = state, None
        answer.last_error = error[:500] if error else None
        answer.last_error_texts = stored(error) if error else None
        if next_attempt_at is not None:
            answer.next_attempt_at = next_attempt_at
        if state == SENT:
            answer.sent_at, answer.delivered_by = datetime.now(UTC), by
    return Outcome(state)


def unfinished(limit: int = 1000) -> list[tuple[int, datetime]]:
    """Every answer not yet settled, with the moment it may be attempted (a worker's restart schedules them)."""
    with db.new_session() as session:
        rows = session.execute(
            select(ExchangeAnswer.id, ExchangeAnswer.state, ExchangeAnswer.next_attempt_at, ExchangeAnswer.lease_until)
            .where(ExchangeAnswer.state.in_((QUEUED, SENDING)))
            .order_by(ExchangeAnswer.id)
            .limit(limit)
        ).all()
    return [
        (row.id, row.lease_until if row.state == SENDING and row.lease_until else row.next_attempt_at) for row in rows
    ]


def due_answers(now: datetime, limit: int = 200) -> list[int]:
    """Answers a lost wake-up left behind: waiting and due, or stuck mid-attempt past their lease."""
    with db.new_session() as session:
        return list(
            session.scalars(
                select(ExchangeAnswer.id)
                .where(
                    or_(
                        (ExchangeAnswer.state == QUEUED) & (ExchangeAnswer.next_attempt_at <= now),
                        (ExchangeAnswer.state == SENDING) & (ExchangeAnswer.lease_until < now),
                    )
                )
                .order_by(ExchangeAnswer.id)
                .limit(limit)
            )
        )
