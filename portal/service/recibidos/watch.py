"""Each configured exchange mailbox in the compliance watch: how long since its last read without error (the
worker reads it every minute). An hour without one is a warning; a day, a problem: suppliers' envelopes and
the answers to ours wait unread, and DGI's terms to answer them run."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import select

from portal.service.intercambio.watch import elapsed
from portal.service.platform.i18n import Text, _, message_or, say
from portal.service.recibidos.models import ExchangeMailbox
from portal.service.salud import checks
from portal.service.salud.concerns import NOTHING, OK, PROBLEM, WARNING, Concern, State

WARNING_AFTER = timedelta(hours=1)
PROBLEM_AFTER = timedelta(days=1)
KIND = "intercambio_buzon"
LINK = "/recibidos/"


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
