"""Delivering a built message: over SMTP (`CFE_SMTP_URL`) with the standard library's smtplib, or, when no
SMTP server is configured (development), into the development mailbox.

    smtp://host:25                          plain SMTP
    smtp://user:pass@host:587?starttls=1    STARTTLS, then AUTH
    smtps://user:pass@host:465              SMTP over TLS
    ...?timeout=20                          seconds for connecting and each reply (default 30)

Failures are sorted into temporary (a 4xx reply, a dropped or refused connection, a timeout: worth trying
again later) and permanent (a 5xx reply: the server will say the same next time).
"""

from __future__ import annotations

import logging
import smtplib
import ssl
from dataclasses import dataclass
from email.message import EmailMessage
from urllib.parse import parse_qs, unquote, urlsplit

from flask import current_app

from portal.service.correo import mailbox
from portal.service.platform.i18n import _

DEFAULT_TIMEOUT = 30.0
# The server's own words in a reason: the send keeps at most 500 characters of it (correo_envio.last_error), the
# message's words around them included.
SERVER_WORDS = 400
log = logging.getLogger("portal.service.correo")


class DeliveryError(Exception):
    """A send that did not reach the server's acceptance. `temporary` says whether to try again."""

    def __init__(self, reason: str, *, temporary: bool):
        super().__init__(reason)
        self.reason = reason  # a catalogue message (i18n.Text), said in each reader's language
        self.temporary = temporary


@dataclass(frozen=True)
class SmtpSettings:
    host: str
    port: int
    tls: str  # "none" | "starttls" | "ssl"
    username: str | None
    password: str | None
    timeout: float

    @classmethod
    def from_url(cls, url: str) -> SmtpSettings:
        parts = urlsplit(url)
        if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
            raise ValueError("CFE_SMTP_URL debe ser smtp://[usuario:clave@]servidor[:puerto] o smtps://…")
        options = {key: values[-1] for key, values in parse_qs(parts.query).items()}
        tls = (
            "ssl"
            if parts.scheme == "smtps"
            else ("starttls" if options.get("starttls", "0").lower() in ("1", "true", "yes") else "none")
        )
        default_port = {"ssl": 465, "starttls": 587, "none": 25}[tls]
        return cls(
            host=parts.hostname,
            port=parts.port or default_port,
            tls=tls,
            username=unquote(parts.username) if parts.username else None,
            password=unquote(parts.password) if parts.password else None,
            timeout=float(options.get("timeout", DEFAULT_TIMEOUT)),
        )


def uses_mailbox() -> bool:
    """True when no SMTP server is configured: messages go to the development mailbox."""
    return not current_app.config.get("SMTP_URL")


def deliver(message: EmailMessage, company_id: int, name: str) -> None:
    """Hand `message` to the SMTP server (or the development mailbox); raise DeliveryError if it is not
    accepted for every recipient."""
    if uses_mailbox():
        mailbox.store(company_id, name, message)
        return
    settings = SmtpSettings.from_url(current_app.config["SMTP_URL"])
    try:
        _send_smtp(settings, message)
    except smtplib.SMTPRecipientsRefused as exc:
        codes = [code for code, _text in exc.recipients.values()]
        refused = ", ".join(f"{address} ({code} {_decode(text)})" for address, (code, text) in exc.recipients.items())
        raise DeliveryError(
            _("El servidor de correo rechazó: {rechazados}", rechazados=refused[:SERVER_WORDS]),
            temporary=all(400 <= code < 500 for code in codes),
        ) from exc
    except smtplib.SMTPResponseException as exc:
        raise DeliveryError(
            _(
                "El servidor de correo respondió {codigo} {respuesta}",
                codigo=exc.smtp_code,
                respuesta=_decode(exc.smtp_error)[:SERVER_WORDS],
            ),
            temporary=400 <= exc.smtp_code < 500,
        ) from exc
    except smtplib.SMTPNotSupportedError as exc:  # the server lacks what this message needs: it will next time too
        log.warning("SMTP %s:%s cannot take this message: %s", settings.host, settings.port, exc)
        raise DeliveryError(
            _(
                "El servidor de correo no admite lo que este envío necesita (usuario y clave, o direcciones con "
                "tildes); revisá CFE_SMTP_URL."
            ),
            temporary=False,
        ) from exc
    except (smtplib.SMTPException, OSError) as exc:  # refused, dropped, timed out, TLS failed
        log.warning("SMTP %s:%s unreachable: %r", settings.host, settings.port, exc)
        raise DeliveryError(
            _(
                "No se pudo conectar con el servidor de correo (no respondió, rechazó la conexión o la cortó); se "
                "vuelve a intentar."
            ),
            temporary=True,
        ) from exc


def _send_smtp(settings: SmtpSettings, message: EmailMessage) -> None:
    context = ssl.create_default_context()
    connection: smtplib.SMTP
    if settings.tls == "ssl":
        connection = smtplib.SMTP_SSL(settings.host, settings.port, timeout=settings.timeout, context=context)
    else:
        connection = smtplib.SMTP(settings.host, settings.port, timeout=settings.timeout)
    with connection as smtp:
        if settings.tls == "starttls":
            smtp.starttls(context=context)
        if settings.username:
            smtp.login(settings.username, settings.password or "")
        # send_message raises SMTPRecipientsRefused only when *every* recipient is refused; a partial refusal
        # comes back as a dict, which we treat the same way so no address is silently dropped.
        refused = smtp.send_message(message)
        if refused:
            raise smtplib.SMTPRecipientsRefused(refused)


def _decode(text: bytes | str) -> str:
    return text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)
