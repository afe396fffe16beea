"""The exchange mailbox of each company, read over IMAP (imapclient) by UID.

Each poll selects the folder, starts over when its UIDVALIDITY changed, and fetches the messages after the last
UID it handled, oldest first. Every document a message carries (an XML attachment, the XML files of a ZIP, or an
XML body) is handled once, by the message's Message-ID and the document's hash (`ProcessedMail`), in the same
transaction as what it does:

- an EnvioCFE_entreEmpresas (or anything that is not one of the documents below) goes to the intake, answered
  by mail to the address it came from (a broken one is answered BS and kept aside);
- an ACKSobre or ACKCFE answers one of our own envelopes: `intercambio.answers.record_answer`;
- a CFEs_Anulados_x_RechazoDGI marks received CFEs "rechazado por DGI".

A message holds at most what an upload may (uploads.MAX_FILES documents, MAX_EXPANDED_BYTES once its ZIPs are
expanded); past that it is kept aside whole, none of its documents received. A message past MAX_MESSAGE_BYTES is
kept aside unread, recorded by its headers alone. A document that cannot be handled is recorded with why and never
tried again; the UID moves on after each message, so one bad message never blocks the mailbox. A connection that
fails is recorded on the mailbox and tried at the next poll.

URLs: imap://user:password@host:143/INBOX, imaps://...:993/INBOX, ...?starttls=1.
"""

from __future__ import annotations

import email
import hashlib
import logging
import re
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from email import policy
from email.message import EmailMessage
from email.utils import parseaddr
from urllib.parse import parse_qs, unquote, urlsplit

from flask import current_app
from imapclient import IMAPClient  # type: ignore[import-untyped]
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from portal.service.intercambio import answers
from portal.service.platform import db
from portal.service.platform.errors import ApiError, ValidationFailed
from portal.service.platform.i18n import _, stored
from portal.service.platform.keystore import field_cipher
from portal.service.platform.models import Company
from portal.service.recibidos import annulments, intake, uploads
from portal.service.recibidos.models import ExchangeMailbox, ProcessedMail

log = logging.getLogger("portal.service.recibidos")
BATCH = 20
# An upload's 20 MB of attachments in base64 (4/3), and room for the rest. A message past it is never downloaded:
# its size and the headers that name it are asked first, and the bodies are fetched one at a time.
MAX_MESSAGE_BYTES = 32 * 1024 * 1024
_NAMING_HEADERS = "BODY.PEEK[HEADER.FIELDS (MESSAGE-ID FROM REPLY-TO)]"
TIMEOUT_SECONDS = 30
_ROOT = re.compile(rb"<(?:[\w.-]+:)?(EnvioCFE_entreEmpresas|ACKSobre|ACKCFE|CFEs_Anulados_x_RechazoDGI)[\s>/]")


@dataclass(frozen=True)
class ImapSettings:
    host: str
    port: int
    tls: str  # none | starttls | ssl
    username: str
    password: str
    folder: str

    @classmethod
    def from_url(cls, url: str) -> ImapSettings:
        parts = urlsplit(url)
        if parts.scheme not in ("imap", "imaps") or not parts.hostname or not parts.username:
            raise ValueError("El buzón debe ser imap[s]://usuario:clave@servidor[:puerto]/CARPETA")
        options = {key: values[-1] for key, values in parse_qs(parts.query).items()}
        tls = "ssl" if parts.scheme == "imaps" else ("starttls" if options.get("starttls") in ("1", "true") else "none")
        return cls(
            host=parts.hostname,
            port=parts.port or (993 if tls == "ssl" else 143),
            tls=tls,
            username=unquote(parts.username),
            password=unquote(parts.password or ""),
            folder=unquote(parts.path.lstrip("/")) or "INBOX",
        )


def configure(session, company_id: int, url: str) -> ExchangeMailbox:
    """Set (or replace) a company's exchange mailbox; the caller commits."""
    ImapSettings.from_url(url)
    mailbox = session.scalar(select(ExchangeMailbox).where(ExchangeMailbox.company_id == company_id))
    encrypted = field_cipher().encrypt(url.encode())
    if mailbox is None:
        mailbox = ExchangeMailbox(company_id=company_id, url_encrypted=encrypted, enabled=True, last_uid=0)
        mailbox.configured_at = datetime.now(UTC)
        session.add(mailbox)
    elif field_cipher().decrypt(mailbox.url_encrypted).decode() != url:
        mailbox.url_encrypted, mailbox.uidvalidity, mailbox.last_uid = encrypted, None, 0
        mailbox.configured_at, mailbox.last_ok_at = datetime.now(UTC), None  # another mailbox: its own record
    mailbox.enabled = True
    session.flush()
    return mailbox


def mailboxes() -> list[int]:
    """The mailboxes to poll, the development one from the settings included."""
    url = current_app.config.get("RECIBIDOS_IMAP_URL")
    if url:
        with db.write_transaction() as session:
            configure(session, int(current_app.config.get("RECIBIDOS_IMAP_EMPRESA") or 1), url)
    with db.new_session() as session:
        return list(session.scalars(select(ExchangeMailbox.id).where(ExchangeMailbox.enabled.is_(True))))


def _connect(settings: ImapSettings) -> IMAPClient:
    context = ssl.create_default_context()
    client = IMAPClient(
        settings.host, port=settings.port, ssl=settings.tls == "ssl", ssl_context=context, timeout=TIMEOUT_SECONDS
    )
    try:
        if settings.tls == "starttls":
            client.starttls(context)
        client.login(settings.username, settings.password)
    except BaseException:
        client.shutdown()  # the socket is not left for the garbage collector
        raise
    return client


def poll(mailbox_id: int, wake: Callable[[list[int]], None] = lambda ids: None) -> int:
    """Handle every new message of one mailbox; returns how many messages were handled. `wake` is given the
    answers each envelope recorded, once committed (tasks.poll_mailbox passes tasks.wake)."""
    with db.new_session() as session:
        mailbox = session.get_one(ExchangeMailbox, mailbox_id)
        company_id, last_uid, known_validity = mailbox.company_id, mailbox.last_uid, mailbox.uidvalidity
        settings = ImapSettings.from_url(field_cipher().decrypt(mailbox.url_encrypted).decode())
    handled = 0
    try:
        with _connect(settings) as client:
            selected = client.select_folder(settings.folder, readonly=True)
            validity = int(selected.get(b"UIDVALIDITY", 0))
            if validity != known_validity:
                last_uid = 0
            uids = sorted(uid for uid in client.search(["UID", f"{last_uid + 1}:*"]) if uid > last_uid)
            for start in range(0, len(uids), BATCH):
                batch = uids[start : start + BATCH]
                sizes = client.fetch(batch, ["RFC822.SIZE"])
                for uid in batch:
                    size = int(sizes.get(uid, {}).get(b"RFC822.SIZE") or 0)
                    if size > MAX_MESSAGE_BYTES:
                        _set_aside_unread(company_id, uid, size, client.fetch([uid], [_NAMING_HEADERS]).get(uid, {}))
                    else:
                        raw = client.fetch([uid], ["RFC822"]).get(uid, {}).get(b"RFC822", b"")
                        wake(_handle_message(company_id, uid, raw))
                    _advance(mailbox_id, validity, uid, None)
                    handled += 1
            _advance(mailbox_id, validity, None, None)
    except (OSError, ssl.SSLError, IMAPClient.Error) as exc:
        log.warning("exchange mailbox %s unreachable: %r", mailbox_id, exc)
        # The server's or the OS's own words ("[Errno 111] Connection refused") are a value, said as they are.
        _advance(mailbox_id, None, None, _("No se pudo leer el buzón: {error}", error=str(exc)[:150]))
    except ApiError as exc:  # the message stays unread (its UID not passed): the next poll takes it again
        _advance(mailbox_id, None, None, _("No se pudo procesar el buzón: {mensaje}", mensaje=exc.message))
    return handled


def _advance(mailbox_id: int, validity: int | None, uid: int | None, error: str | None) -> None:
    with db.write_transaction() as session:
        mailbox = session.get_one(ExchangeMailbox, mailbox_id)
        if validity is not None:
            if mailbox.uidvalidity != validity:
                mailbox.uidvalidity, mailbox.last_uid = validity, 0
            if uid is not None:
                mailbox.last_uid = max(mailbox.last_uid, uid)
        mailbox.last_polled_at, mailbox.last_error = datetime.now(UTC), error[:500] if error else None
        mailbox.last_error_texts = stored(error) if error else None  # said in each reader's language
        if error is None:
            mailbox.last_ok_at = mailbox.last_polled_at


class TooManyDocuments(Exception):
    """The message carries more documents, or more bytes of them, than an upload may: none of them is received."""


def _within_caps(found: list[tuple[str, bytes]]) -> None:
    """An upload's caps, counted over the whole message: each ZIP is expanded on its own (within its own caps),
    and without these a message of a few MB of small ZIPs expanded to gigabytes held at once."""
    if len(found) > uploads.MAX_FILES:
        raise TooManyDocuments(
            f"El mensaje trae más de {uploads.MAX_FILES} documentos (contando los de sus ZIP): no se recibió ninguno."
        )
    if sum(len(data) for _name, data in found) > uploads.MAX_EXPANDED_BYTES:
        raise TooManyDocuments(
            f"Los documentos del mensaje (contando los de sus ZIP) pasan de {uploads.MAX_EXPANDED_BYTES // 2**20} MB:"
            " no se recibió ninguno."
        )


def documents(message: EmailMessage) -> list[tuple[str, bytes]]:
    """The XML documents a message carries: XML attachments, the files of ZIP attachments, or an XML body.
    TooManyDocuments past an upload's caps (uploads.MAX_FILES, MAX_EXPANDED_BYTES) over the whole message."""
    found: list[tuple[str, bytes]] = []
    for part in message.walk():
        if part.is_multipart():
            continue
        name = part.get_filename() or ""
        content_type = part.get_content_type()
        raw = part.get_payload(decode=True)
        payload = raw if isinstance(raw, bytes) else b""
        if name.lower().endswith(".zip") or content_type in ("application/zip", "application/x-zip-compressed"):
            try:
                found += [(entry.name, entry.data) for entry in uploads.expand([(name or "adjunto.zip", payload)])]
            except ValidationFailed as exc:
                found.append((name or "adjunto.zip", b"ZIP rechazado: " + exc.message.encode()))
        elif name.lower().endswith(".xml") or content_type.endswith("/xml"):
            found.append((name or "documento.xml", payload))
        _within_caps(found)
    return found


def _header(message: EmailMessage, name: str) -> str:
    """A header's text, or its raw text when email's parser fails on it: on some malformed addresses and ids (a
    lone `"` or `<`, `a@[`) it raises IndexError or AttributeError instead of noting a defect, and a message that
    raised here was never recorded, so every later poll stopped at it."""
    try:
        return str(message.get(name) or "")
    except Exception:
        raw = next((value for key, value in message.raw_items() if key.lower() == name.lower()), "")
        return " ".join(str(raw).split())


def _named(message: EmailMessage, uid: int) -> tuple[str, str | None]:
    """The message's id (one made from its UID when it has none) and the address it says it comes from."""
    message_id = (_header(message, "Message-ID").strip() or f"<uid-{uid}@sin-message-id>")[:255]
    sender = parseaddr(_header(message, "Reply-To") or _header(message, "From"))[1][:254] or None
    return message_id, sender


def _set_aside_unread(company_id: int, uid: int, size: int, fetched: dict) -> None:
    """A message past MAX_MESSAGE_BYTES, recorded by its headers alone."""
    headers = next((value for key, value in fetched.items() if key.startswith(b"BODY[")), b"")
    message_id, sender = _named(email.message_from_bytes(bytes(headers or b""), policy=policy.default), uid)
    detail = f"El mensaje tiene {-(-size // 2**20)} MB; el máximo es {MAX_MESSAGE_BYTES // 2**20} MB: no se leyó."
    _record(
        company_id,
        ProcessedMail(
            message_id=message_id,
            sha256="",
            uid=uid,
            sender=sender,
            outcome="aparte",
            reason="muy_grande",
            detail=detail,
        ),
    )


_UNREADABLE = "El mensaje no se puede leer: su estructura MIME está mal formada o anidada de más."


def _handle_message(company_id: int, uid: int, raw: bytes) -> list[int]:
    try:
        message = email.message_from_bytes(raw, policy=policy.default)
    except Exception:  # RecursionError: the parser recurses once per nested multipart (1,000 fit in 60 KB)
        log.exception("exchange message of UID %s could not be parsed", uid)
        row = ProcessedMail(message_id=f"<uid-{uid}@sin-message-id>", sha256=hashlib.sha256(raw).hexdigest(), uid=uid)
        row.outcome, row.reason, row.detail = "aparte", "ilegible", _UNREADABLE
        _record(company_id, row)
        return []
    message_id, sender = _named(message, uid)
    reason, aside = "sin_documentos", "El mensaje no trae documentos XML."
    try:
        found = documents(message)
    except TooManyDocuments as exc:
        found, reason, aside = [], "demasiados", str(exc)
    except Exception:  # a message email's parser cannot take apart: kept aside, not retried
        log.exception("exchange message %s could not be read", message_id)
        found, reason, aside = [], "ilegible", _UNREADABLE
    if not found:
        _record(
            company_id,
            ProcessedMail(
                message_id=message_id, sha256="", uid=uid, sender=sender, outcome="aparte", reason=reason, detail=aside
            ),
        )
        return []
    answer_ids: list[int] = []
    for name, data in found:
        try:
            answer_ids += _handle_document(company_id, uid, message_id, sender, name, data)
        except (ApiError, db.DatabaseBusy):
            raise  # the company cannot answer now (no signing certificate) or the database is busy: next poll
        except Exception:  # a defect: recorded once, never retried forever
            log.exception("exchange document %s of %s failed", name, message_id)
            _record(
                company_id,
                ProcessedMail(
                    message_id=message_id,
                    sha256=hashlib.sha256(data).hexdigest(),
                    uid=uid,
                    sender=sender,
                    filename=name[:200],
                    outcome="aparte",
                    reason="error_interno",
                    detail="Error interno al procesar el documento.",
                ),
            )
    return answer_ids


def _record(company_id: int, row: ProcessedMail) -> None:
    row.company_id = company_id
    try:
        with db.write_transaction() as session:
            session.add(row)
    except IntegrityError:
        pass  # handled already (another poll got there first)


def _seen(company_id: int, message_id: str, sha256: str) -> bool:
    with db.new_session() as session:
        return (
            session.scalar(
                select(ProcessedMail.id).where(
                    ProcessedMail.company_id == company_id,
                    ProcessedMail.message_id == message_id,
                    ProcessedMail.sha256 == sha256,
                )
            )
            is not None
        )


def _handle_document(
    company_id: int, uid: int, message_id: str, sender: str | None, name: str, data: bytes
) -> list[int]:
    digest = hashlib.sha256(data).hexdigest()
    if _seen(company_id, message_id, digest):
        return []
    row = ProcessedMail(message_id=message_id, sha256=digest, uid=uid, sender=sender, filename=name[:200])
    kind = _ROOT.search(data[:4096])
    root = kind.group(1).decode() if kind else None
    if root in ("ACKSobre", "ACKCFE"):
        row.outcome = "respuesta"
        try:
            with db.write_transaction() as session:
                answers.record_answer(session, company_id, data, "correo")
                row.company_id = company_id
                session.add(row)
            return []
        except (NotImplementedError, ValueError) as exc:
            row.outcome, row.reason = "aparte", "respuesta"
            row.detail = f"La respuesta no se pudo registrar: {exc}"[:500]
            _record(company_id, row)
            return []
    if root == "CFEs_Anulados_x_RechazoDGI":
        try:
            marked = annulments.record_notice(company_id, data)
            row.outcome, row.detail = "anulacion", f"{marked} comprobante(s) marcados"
        except annulments.NoticeRefused as exc:
            row.outcome, row.reason, row.detail = "aparte", "aviso_dgi", str(exc)[:500]
        _record(company_id, row)
        return []
    with db.new_session() as session:
        rut = session.get_one(Company, company_id).rut
    examined = intake.examine_bounded(data, rut)
    try:
        with db.write_transaction() as session:
            company = session.get_one(Company, company_id)
            result = intake.record(
                session, company, examined, "correo", reply_to=sender, source_name=f"{name} {message_id}"[:200]
            )
            row.company_id, row.sobre_id = company_id, result.sobre_id
            row.outcome = "sobre" if result.estado == "AS" else "aparte"
            row.reason = None if result.estado == "AS" else "sobre_rechazado"
            row.detail = (
                "; ".join(f"{m['codigo']} {m.get('detalle') or m['glosa']}" for m in result.motives)[:500] or None
            )
            session.add(row)
    except IntegrityError:
        return []  # another poll handled the same message and document in the meantime
    return result.answer_ids
