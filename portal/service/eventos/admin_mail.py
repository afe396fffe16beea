"""Telling a company's admins, or one user, something by e-mail, through the project's one mail path
(correo.transport: SMTP, or the development mailbox). Failures are logged, never raised: what the mail tells has
already happened (and an admins' notice is also on the record they see in the portal).

The e-mail is the service speaking to its own users, so it is said from the one catalogue in each admin's
language (`User.locale`, the OIDC `locale` claim: the language they last signed in or switched the portal to,
identity/account.py), one message per language. That differs on purpose from the receipt's e-mail (correo.message):
that one is the company writing to its customers, in its own (Spanish) words."""

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
from portal.service.platform.i18n import DEFAULT, LANGUAGES, Text, say
from portal.service.platform.models import Membership, Role, User

log = logging.getLogger("portal.service.eventos")


def reading_language(locale: str | None) -> str:
    """The catalogue language (es, en) of a user's stored `locale` ("en-US" -> "en"; anything else -> es)."""
    language = (locale or DEFAULT).split("-")[0].split("_")[0].lower()
    return language if language in LANGUAGES else DEFAULT


def admin_addresses(session: Session, company_id: int) -> dict[str, list[str]]:
    """The active admins' addresses by the language they read (es, en)."""
    found: dict[str, list[str]] = {}
    rows = session.execute(
        select(User.email, User.locale)
        .join(Membership, Membership.user_id == User.id)
        .where(Membership.company_id == company_id, Membership.role == Role.ADMIN, User.active.is_(True))
        .order_by(User.email)
    )
    for email, locale in rows:
        found.setdefault(reading_language(locale), []).append(email)
    return found


def tell_admins(session: Session, company_id: int, subject: Text, *paragraphs: Text) -> bool:
    """Send one plain-text message to every admin of the company, each in their language: `subject` and the body's
    `paragraphs` are catalogue messages. True if every one was handed over."""
    told = [
        _send(company_id, to, say(subject, language), "\n\n".join(say(p, language) for p in paragraphs) + "\n")
        for language, to in admin_addresses(session, company_id).items()
    ]
    return bool(told) and all(told)


def tell_user(user: User, subject: Text, *paragraphs: Text) -> bool:
    """Send one plain-text message to `user` alone, in their language. True if it was handed over. The development
    mailbox keeps it under the first company they belong to (0: none)."""
    language = reading_language(user.locale)
    company_id = min((m.company_id for m in user.memberships), default=0)
    text = "\n\n".join(say(p, language) for p in paragraphs) + "\n"
    return _send(company_id, [user.email], say(subject, language), text)


def _send(company_id: int, recipients: list[str], subject: str, text: str) -> bool:
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
        log.warning("could not send a notice (company %s): %s", company_id, subject, exc_info=True)
        return False
    return True
