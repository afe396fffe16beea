"""The development mailbox: with no SMTP server configured, each message is written as an .eml file under
`MAILBOX_DIR/<company id>/`, where the portal's development mailbox page reads it.

Files are named by the send's id (hex), so a name from a URL is checked against that shape before any path
is built from it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from email import policy
from email.message import EmailMessage, Message
from email.parser import BytesParser
from email.utils import parsedate_to_datetime
from pathlib import Path

from flask import current_app

_NAME = re.compile(r"^[0-9a-f]{32}$")


@dataclass(frozen=True)
class Attachment:
    filename: str
    content_type: str
    content: bytes


@dataclass(frozen=True)
class StoredMessage:
    id: str
    sender: str
    to: str
    subject: str
    date: datetime | None
    text: str
    attachments: tuple[Attachment, ...]


def _folder(company_id: int) -> Path:
    return Path(current_app.config["MAILBOX_DIR"]) / str(int(company_id))


def store(company_id: int, name: str, message: EmailMessage) -> None:
    folder = _folder(company_id)
    folder.mkdir(parents=True, exist_ok=True)
    temporary = folder / f".{name}.tmp"
    temporary.write_bytes(message.as_bytes(policy=policy.SMTP))
    temporary.replace(folder / f"{name}.eml")  # whole or not at all: the page never reads half a message


def _parse(path: Path) -> StoredMessage:
    message = BytesParser(policy=policy.default).parsebytes(path.read_bytes())
    body = message.get_body(preferencelist=("plain",))
    attachments = tuple(
        Attachment(part.get_filename() or "adjunto", part.get_content_type(), _decoded(part))
        for part in message.iter_attachments()
    )
    return StoredMessage(
        id=path.stem,
        sender=str(message["From"] or ""),
        to=str(message["To"] or ""),
        subject=str(message["Subject"] or ""),
        date=parsedate_to_datetime(message["Date"]) if message["Date"] else None,
        text=body.get_content() if body is not None else "",
        attachments=attachments,
    )


def messages(company_id: int, limit: int = 100) -> list[StoredMessage]:
    """The company's messages, newest first."""
    folder = _folder(company_id)
    if not folder.is_dir():
        return []
    paths = sorted(folder.glob("*.eml"), key=lambda p: p.stat().st_mtime, reverse=True)[:limit]
    return [_parse(path) for path in paths]


def message(company_id: int, name: str) -> StoredMessage | None:
    if not _NAME.match(name):
        return None
    path = _folder(company_id) / f"{name}.eml"
    return _parse(path) if path.is_file() else None


def _decoded(part: Message) -> bytes:
    """An attachment's bytes, its transfer encoding undone (a multipart part has none: empty)."""
    payload = part.get_payload(decode=True)
    return payload if isinstance(payload, bytes) else b""
