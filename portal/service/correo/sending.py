"""Sends of a receipt by e-mail: recorded first, attempted later by the background task.

A send moves en_cola -> enviando -> enviado | fallido, or back to en_cola with a later `next_attempt_at`
after a temporary failure (backoff doubling from MAIL_RETRY_BASE_SECONDS, at most MAX_ATTEMPTS attempts).
`attempt()` is safe to call twice for the same send: only the caller that takes the lease delivers.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from flask import current_app, g, has_request_context
from sqlalchemy import or_, select, update

from portal.service.comprobante import issuing
from portal.service.comprobante.models import IssuedCfe
from portal.service.correo import message, transport
from portal.service.correo.models import FAILED, QUEUED, SENDING, SENT, MailSend, MailTemplate
from portal.service.platform import db
from portal.service.platform.auth import Principal
from portal.service.platform.i18n import _, stored
from portal.service.platform.models import Company

log = logging.getLogger("portal.service.correo")

MAX_ATTEMPTS = 6
LEASE = timedelta(minutes=5)


def retry_delay(attempts: int) -> timedelta:
    """Wait before attempt `attempts + 1`: base, 2×base, 4×base… (1, 2, 4, 8, 16 minutes by default)."""
    return timedelta(seconds=current_app.config["MAIL_RETRY_BASE_SECONDS"] * 2 ** (attempts - 1))


def queue_send(session, principal: Principal, record: IssuedCfe, recipients: list[str]) -> MailSend:
    """Record a send in the caller's transaction; the caller commits, then wakes the task."""
    send = MailSend(
        id=uuid.uuid4().hex,
        company_id=principal.company_id,
        cfe_id=record.id,
        recipients=recipients,
        state=QUEUED,
        attempts=0,
        created_by=principal.actor,
        request_id=g.get("request_id") if has_request_context() else None,
        next_attempt_at=datetime.now(UTC),
    )
    session.add(send)
    session.flush()
    return send


def sends_of(session, company_id: int, cfe_id: str) -> list[MailSend]:
    return list(
        session.scalars(
            select(MailSend)
            .where(MailSend.company_id == company_id, MailSend.cfe_id == cfe_id)
            .order_by(MailSend.created_at.desc())
            .limit(50)
        )
    )


def suggested_recipients(session, record: IssuedCfe) -> list[str]:
    """The addresses this receipt, or the latest receipt of the same customer, was last sent to."""
    latest = sends_of(session, record.company_id, record.id)
    if latest:
        return list(latest[0].recipients)
    if not record.receptor_doc:
        return []
    earlier = session.scalar(
        select(MailSend)
        .join(IssuedCfe, IssuedCfe.id == MailSend.cfe_id)
        .where(
            IssuedCfe.company_id == record.company_id,
            IssuedCfe.receptor_doc == record.receptor_doc,
            MailSend.company_id == record.company_id,
        )
        .order_by(MailSend.created_at.desc())
        .limit(1)
    )
    return list(earlier.recipients) if earlier is not None else []


@dataclass(frozen=True)
class Outcome:
    """What an attempt did: `retry_in` is set when the send waits for another attempt."""

    state: str | None  # None: someone else holds it, or it is already final
    retry_in: timedelta | None = None


def _take_lease(send_id: str, now: datetime) -> bool:
    with db.write_transaction() as session:
        taken = db.rows_affected(
            session,
            update(MailSend)
            .where(
                MailSend.id == send_id,
                or_(MailSend.state == QUEUED, (MailSend.state == SENDING) & (MailSend.lease_until < now)),
            )
            .values(state=SENDING, lease_until=now + LEASE, attempts=MailSend.attempts + 1),
        )
        return bool(taken)


def attempt(send_id: str) -> Outcome:
    """Try to deliver one send now and record the result."""
    now = datetime.now(UTC)
    if not _take_lease(send_id, now):
        return Outcome(None)
    with db.new_session() as session:
        send = session.get_one(MailSend, send_id)  # its lease was just taken
        record = session.get_one(IssuedCfe, send.cfe_id)
        company = session.get_one(Company, send.company_id)
        try:
            pdf = issuing.receipt_pdf(record, logo=issuing.printed_logo(session, record))
            own = session.get(MailTemplate, company.id)
            built = message.build(
                record,
                company,
                list(send.recipients),
                pdf,
                sender=current_app.config["MAIL_FROM"],
                now=now,
                **({"subject": own.subject, "body": own.body} if own else {}),
            )
        except Exception:
            log.exception("could not build the e-mail of send %s", send_id)
            return _finish(send_id, FAILED, error=_("No se pudo armar el correo del comprobante."))
        try:
            transport.deliver(built, send.company_id, send.id)
        except transport.DeliveryError as exc:
            if exc.temporary and send.attempts < MAX_ATTEMPTS:
                delay = retry_delay(send.attempts)
                _finish(send_id, QUEUED, error=exc.reason, next_attempt_at=now + delay)
                return Outcome(QUEUED, retry_in=delay)
            return _finish(send_id, FAILED, error=exc.reason)
        return _finish(send_id, SENT, message_id=str(built["Message-ID"]))


def _finish(
    send_id: str,
    state: str,
    *,
    error: str | None = None,
    next_attempt_at: datetime | None = None,
    message_id: str | None = None,
) -> Outcome:
    with db.write_transaction() as session:
        send = session.get_one(MailSend, send_id)
        send.state, send.lease_until = state, None
        send.last_error = error[:500] if error else None
        send.last_error_texts = stored(error) if error else None
        if next_attempt_at is not None:
            send.next_attempt_at = next_attempt_at
        if state == SENT:
            send.sent_at, send.message_id = datetime.now(UTC), message_id
    return Outcome(state)


def due_sends(now: datetime, limit: int = 200) -> list[str]:
    """Sends a lost wake-up left behind: waiting and due, or stuck mid-attempt past their lease."""
    with db.new_session() as session:
        return list(
            session.scalars(
                select(MailSend.id)
                .where(
                    or_(
                        (MailSend.state == QUEUED) & (MailSend.next_attempt_at <= now),
                        (MailSend.state == SENDING) & (MailSend.lease_until < now),
                    )
                )
                .order_by(MailSend.next_attempt_at)
                .limit(limit)
            )
        )
