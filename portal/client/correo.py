"""Client methods of the Correo endpoints (a receipt by e-mail, its sends, the development mailbox)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from urllib.parse import quote

import requests

from portal.client import errors
from portal.client.models import JsonObject, optional_datetime, parse_datetime
from portal.client.transport import Transport

BASE = "/api/v1/correo"
FINAL_STATES = ("enviado", "fallido")


@dataclass(frozen=True)
class MailSend:
    """One send of a receipt: to whom, when, and its state (en_cola, enviando, enviado, fallido)."""

    id: str
    receipt_id: str
    recipients: tuple[str, ...]
    state: str
    attempts: int
    error: str | None
    next_attempt_at: datetime | None
    created_by: str
    created_at: datetime
    sent_at: datetime | None
    replayed: bool = False  # the same Idempotency-Key again: this is the earlier send, no new e-mail

    @property
    def final(self) -> bool:
        return self.state in FINAL_STATES

    @classmethod
    def from_json(cls, data: JsonObject) -> MailSend:
        return cls(
            id=data["id"],
            receipt_id=data["idCfeEmitido"],
            recipients=tuple(data["destinatarios"]),
            state=data["estado"],
            attempts=int(data["intentos"]),
            error=data.get("error"),
            next_attempt_at=optional_datetime(data.get("proximoIntento")),
            created_by=data["creadoPor"],
            created_at=parse_datetime(data["creadoEn"]),
            sent_at=optional_datetime(data.get("enviadoEn")),
        )


@dataclass(frozen=True)
class MailSends:
    """A receipt's sends (newest first), the addresses to suggest, and whether mail goes to the development
    mailbox (no SMTP server configured)."""

    receipt_id: str
    suggested: tuple[str, ...]
    dev_mailbox: bool
    sends: tuple[MailSend, ...]

    @property
    def pending(self) -> bool:
        return any(not send.final for send in self.sends)

    @classmethod
    def from_json(cls, data: JsonObject) -> MailSends:
        return cls(
            receipt_id=data["idCfeEmitido"],
            suggested=tuple(data["sugeridos"]),
            dev_mailbox=bool(data["buzonDesarrollo"]),
            sends=tuple(MailSend.from_json(item) for item in data["envios"]),
        )


@dataclass(frozen=True)
class MailSummary:
    """A receipt's e-mail sends as getByIdCfeEmitido carries them: how many, and the latest."""

    count: int
    latest: MailSend

    @classmethod
    def from_json(cls, data: JsonObject) -> MailSummary:
        return cls(count=int(data["envios"]), latest=MailSend.from_json(data["ultimo"]))


@dataclass(frozen=True)
class MailboxAttachment:
    filename: str
    content_type: str
    size: int


@dataclass(frozen=True)
class MailboxMessage:
    id: str
    sender: str
    to: str
    subject: str
    date: datetime | None
    attachments: tuple[MailboxAttachment, ...]
    text: str | None = None  # only when one message is read

    @classmethod
    def from_json(cls, data: JsonObject) -> MailboxMessage:
        return cls(
            id=data["id"],
            sender=data["de"],
            to=data["para"],
            subject=data["asunto"],
            date=optional_datetime(data.get("fecha")),
            text=data.get("texto"),
            attachments=tuple(MailboxAttachment(a["nombre"], a["tipo"], int(a["bytes"])) for a in data["adjuntos"]),
        )


@dataclass(frozen=True)
class Download:
    content: bytes
    content_type: str
    filename: str

    @classmethod
    def of(cls, response: requests.Response, default_name: str) -> Download:
        """A file the service answered, named as its Content-Disposition says."""
        filename = response.headers.get("Content-Disposition", "").partition('filename="')[2].rstrip('"')
        return cls(
            response.content, response.headers.get("Content-Type", "application/octet-stream"), filename or default_name
        )


@dataclass(frozen=True)
class MailPlaceholder:
    """A {name} the mail's subject and text may use, and what it puts there."""

    name: str
    meaning: str


@dataclass(frozen=True)
class MailTemplate:
    """The subject and text of the e-mail that carries a receipt: the company's own (`own`) or the default."""

    subject: str
    body: str
    own: bool = False
    placeholders: tuple[MailPlaceholder, ...] = ()

    @classmethod
    def from_json(cls, data: JsonObject) -> MailTemplate:
        return cls(
            subject=data["asunto"],
            body=data["cuerpo"],
            own=bool(data.get("propia")),
            placeholders=tuple(
                MailPlaceholder(name, meaning) for name, meaning in (data.get("variables") or {}).items()
            ),
        )


class CorreoApi(Transport):
    def get_mail_template(self) -> MailTemplate:
        """GET plantilla: the subject and text receipts go out with, and the placeholders they may use."""
        return MailTemplate.from_json(self._json("GET", f"{BASE}/plantilla"))

    def set_mail_template(self, *, subject: str, body: str) -> MailTemplate:
        """PUT plantilla (admins): the company's own subject and text, from the next e-mail on. Field errors
        name `subject` and `body`."""
        with errors.fields_named({"asunto": "subject", "cuerpo": "body"}):
            return MailTemplate.from_json(
                self._json("PUT", f"{BASE}/plantilla", json={"asunto": subject, "cuerpo": body})
            )

    def send_receipt_by_mail(
        self, receipt_id: str, recipients: list[str], *, idempotency_key: str | None = None
    ) -> MailSend:
        """Queue a send of the receipt's PDF and XML; the same key again returns the same send, `replayed`."""
        response = self._request(
            "POST",
            f"{BASE}/comprobante/{quote(receipt_id, safe='')}/envios",
            json={"destinatarios": recipients},
            idempotency_key=idempotency_key,
        )
        send = MailSend.from_json(response.json())
        return replace(send, replayed=True) if response.headers.get("Idempotent-Replayed") == "true" else send

    def receipt_mail_sends(self, receipt_id: str) -> MailSends:
        return MailSends.from_json(self._json("GET", f"{BASE}/comprobante/{quote(receipt_id, safe='')}/envios"))

    def dev_mailbox(self) -> tuple[MailboxMessage, ...]:
        """The development mailbox (admins and soporte); NotFound when an SMTP server is configured."""
        return tuple(MailboxMessage.from_json(item) for item in self._json("GET", f"{BASE}/buzon")["items"])

    def dev_mailbox_message(self, message_id: str) -> MailboxMessage:
        return MailboxMessage.from_json(self._json("GET", f"{BASE}/buzon/{quote(message_id, safe='')}"))

    def dev_mailbox_attachment(self, message_id: str, index: int) -> Download:
        response = self._request(
            "GET", f"{BASE}/buzon/{quote(message_id, safe='')}/adjuntos/{int(index)}", accept="*/*"
        )
        return Download.of(response, "adjunto")
