"""The exchange mailboxes in the compliance watch.

Each configured mailbox: how long since its last read without error (the worker reads it every minute). An hour
without one is a warning; a day, a problem: suppliers' envelopes and the answers to ours wait unread, and DGI's
terms to answer them run.

The messages it set aside in the last days (too big, too many documents, unreadable, an envelope refused): a
warning, since a supplier's mail was read and not received, and only the company can ask for it again. A message
with no XML at all is what any public address gets, and is not news."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import func, select

from portal.service.intercambio.watch import elapsed
from portal.service.platform.i18n import Text, _, message_or, say
from portal.service.recibidos.models import ExchangeMailbox, ProcessedMail
from portal.service.salud import checks
from portal.service.salud.concerns import NOTHING, OK, PROBLEM, WARNING, Concern, State

WARNING_AFTER = timedelta(hours=1)
PROBLEM_AFTER = timedelta(days=1)
KIND = "intercambio_buzon"
LINK = "/recibidos/"
SET_ASIDE_LINK = "/recibidos/correos-no-recibidos"


def mailbox_concern(
    mailbox_id: int, now: datetime, last_ok: datetime | None, configured: datetime | None, error: str | None
) -> Concern:
    """`last_ok`: the last read without error; `configured`: when this mailbox was set (counted from when it
    was never read well); `error`: the last one, a catalogue message (`Text`) to be said in each reader's language,
    or the Spanish sentence of a mailbox read before migration 0381."""
    key = f"{KIND}:{mailbox_id}"
    facts = {"ultimaLectura": last_ok.isoformat() if last_ok else None, "error": say(error) if error else None}
    since = last_ok or configured
    age = now - since if since else timedelta(0)
    state: State
    state, level = (PROBLEM, 24) if age >= PROBLEM_AFTER else (WARNING, 1) if age >= WARNING_AFTER else (OK, 0)
    if state == OK:
        message = (
            _("El buzón de intercambio se leyó hace {ago}.", ago=elapsed(now, last_ok))
            if last_ok
            else _("El buzón de intercambio todavía no se leyó.")
        )
        return Concern(key, KIND, OK, message, NOTHING, LINK, facts=facts)
    what = (
        _("El buzón de intercambio nunca se pudo leer")
        if last_ok is None
        else _("El buzón de intercambio no se puede leer desde hace {ago}", ago=elapsed(now, last_ok))
    )
    message = (
        _(
            "{what}: los sobres de proveedores y las respuestas esperan sin leer. Último error: {error}",
            what=what,
            error=error if isinstance(error, Text) else error[:200],  # fits a notice (400); a Text's value is cut
        )
        if error
        else _("{what}: los sobres de proveedores y las respuestas esperan sin leer.", what=what)
    )
    return Concern(key, KIND, state, message, _("Revisar la dirección y la clave del buzón"), LINK, level, facts)


@checks.register
def exchange_mailboxes(ctx: checks.Context) -> list[Concern]:
    rows = ctx.session.scalars(
        select(ExchangeMailbox)
        .where(ExchangeMailbox.company_id == ctx.company_id, ExchangeMailbox.enabled.is_(True))
        .order_by(ExchangeMailbox.id)
    )
    return [
        mailbox_concern(m.id, ctx.now, m.last_ok_at, m.configured_at, message_or(m.last_error_texts, m.last_error))
        for m in rows
    ]


SET_ASIDE_KIND = "intercambio_correos"
SET_ASIDE_DAYS = 7
# Why a message was set aside (ProcessedMail.reason), as the notice says it; "sin_documentos" is not news.
SET_ASIDE_REASONS: dict[str, Text] = {
    "muy_grande": _("pesaba demasiado para leerlo"),
    "demasiados": _("traía más documentos de los que se reciben juntos"),
    "ilegible": _("no se pudo leer"),
    "error_interno": _("no se pudo procesar por un error nuestro"),
    "respuesta": _("traía una respuesta a un sobre nuestro que no se pudo registrar"),
    "aviso_dgi": _("traía un aviso de DGI que no se pudo registrar"),
    "sobre_rechazado": _("traía un sobre que se rechazó (BS), y se le avisó al proveedor"),
}


def set_aside_concern(count: int, sender: str | None, reason: str | None, mailbox_configured: bool) -> list[Concern]:
    """`count` messages set aside in the last SET_ASIDE_DAYS days, the newest from `sender` for `reason`."""
    key = SET_ASIDE_KIND
    if not count:
        if not mailbox_configured:
            return []
        message = _(
            "Ningún correo del buzón de intercambio quedó sin recibir en los últimos {days} días.", days=SET_ASIDE_DAYS
        )
        return [Concern(key, SET_ASIDE_KIND, OK, message, NOTHING, LINK)]
    who = sender[:80] if sender else _("un remitente sin dirección")
    why = SET_ASIDE_REASONS.get(reason or "", SET_ASIDE_REASONS["ilegible"])
    message = (
        _(
            "Un correo del buzón de intercambio no se recibió en los últimos {days} días: el de {sender}, que {why}.",
            days=SET_ASIDE_DAYS,
            sender=who,
            why=why,
        )
        if count == 1
        else _(
            "{count:,} correos del buzón de intercambio no se recibieron en los últimos {days} días; el último, de "
            "{sender}, {why}.",
            count=count,
            days=SET_ASIDE_DAYS,
            sender=who,
            why=why,
        )
    )
    action = _("Pedile al proveedor que lo mande de nuevo, o subí sus sobres en Comprobantes recibidos")
    facts = {"correos": count, "remitente": sender, "motivo": reason}
    return [Concern(key, SET_ASIDE_KIND, WARNING, message, action, SET_ASIDE_LINK, 1, facts)]


def set_aside(company_id: int, since: datetime) -> tuple:
    """The conditions of the messages of `company_id`'s mailbox set aside since `since` that are news (a reason
    of SET_ASIDE_REASONS): the watch counts them, and the company's list of them shows them."""
    return (
        ProcessedMail.company_id == company_id,
        ProcessedMail.outcome == "aparte",
        ProcessedMail.reason.in_(sorted(SET_ASIDE_REASONS)),
        ProcessedMail.received_at >= since,
    )


@checks.register
def set_aside_messages(ctx: checks.Context) -> list[Concern]:
    counted = set_aside(ctx.company_id, ctx.now - timedelta(days=SET_ASIDE_DAYS))
    count = ctx.session.scalar(select(func.count(func.distinct(ProcessedMail.message_id))).where(*counted)) or 0
    newest = ctx.session.execute(
        select(ProcessedMail.sender, ProcessedMail.reason).where(*counted).order_by(ProcessedMail.id.desc()).limit(1)
    ).first()
    configured = ctx.session.scalar(
        select(ExchangeMailbox.id).where(
            ExchangeMailbox.company_id == ctx.company_id, ExchangeMailbox.enabled.is_(True)
        )
    )
    sender, reason = (newest.sender, newest.reason) if newest else (None, None)
    return set_aside_concern(count, sender, reason, mailbox_configured=configured is not None)
