"""Telling a company's admins something by e-mail, through the project's one mail path (correo.transport:
SMTP, or the development mailbox). Failures are logged, never raised: the notice is also on the record the
admins see in the portal."""

from __future__ import annotations

import logging
import uuid
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid

from flask import current_app
from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.service.correo import transport
from portal.service.platform.models import Membership, Role, User

log = logging.getLogger("portal.service.eventos")


def admin_addresses(session: Session, company_id: int) -> list[str]:
    return list(
        session.scalars(
            select(User.email)
            .join(Membership, Membership.user_id == User.id)
            .where(Membership.company_id == company_id, Membership.role == Role.ADMIN, User.active.is_(True))
            .order_by(User.email)
        )
    )


def tell_admins(session: Session, company_id: int, subject: str, text: str) -> bool:
    """Send one plain-text message to every admin of the company; True if it was handed over."""
    recipients = admin_addresses(session, company_id)
    if not recipients:
        return False
    sender = current_app.config["MAIL_FROM"]
    message = EmailMessage()
    message["Subject"] = subject
    message["From"] = sender
    message["To"] = ", ".join(recipients)
    message["Date"] = format_datetime(datetime.now(UTC))
    message["Message-ID"] = make_msgid(domain=sender.rpartition("@")[2] or None)
    message.set_content(text)
    try:
        transport.deliver(message, company_id, f"aviso-{uuid.uuid4().hex[:12]}")
    except transport.DeliveryError:
        log.warning("could not tell the admins of company %s: %s", company_id, subject, exc_info=True)
        return False
    return True
