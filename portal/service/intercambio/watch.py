"""The exchange directory in the compliance watch: how long since its last good refresh (DGI's list of electronic
issuers, refreshed daily). Two days without one is a warning; a week, a problem: receipts to companies that
became electronic receivers meanwhile are not delivered to them."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import func, select

from portal.service.intercambio.models import DirectoryRefresh
from portal.service.platform.i18n import Text, _
from portal.service.salud import checks
from portal.service.salud.concerns import NOTHING, OK, PROBLEM, WARNING, Concern, State

WARNING_AFTER = timedelta(days=2)
PROBLEM_AFTER = timedelta(days=7)
KIND = "intercambio_directorio"
LINK = "/comprobantes/"


def elapsed(now: datetime, then: datetime) -> Text:
    """How long ago, as a person says it: minutes, hours up to two days, then days."""
    minutes = int((now - then).total_seconds() // 60)
    if minutes >= 48 * 60:
        return _("{n} días", n=minutes // (24 * 60))
    return _("{n} horas", n=minutes // 60) if minutes >= 120 else _("{n} minutos", n=minutes)


def directory_concern(now: datetime, last_good: datetime | None, first_attempt: datetime | None) -> Concern:
    """`last_good`: the end of the last refresh without error; `first_attempt`: when the first refresh started
    (None: never tried; the worker refreshes a directory never filled when it starts)."""
    facts = {"ultimaActualizacion": last_good.isoformat() if last_good else None}
    since = last_good or first_attempt
    age = now - since if since else timedelta(0)
    state: State
    state, level = (PROBLEM, 7) if age >= PROBLEM_AFTER else (WARNING, 2) if age >= WARNING_AFTER else (OK, 0)
    if state == OK:
        message = (
            _("El directorio de receptores electrónicos de DGI se actualizó hace {ago}.", ago=elapsed(now, last_good))
            if last_good
            else _("El directorio de receptores electrónicos de DGI se está por actualizar.")
        )
        return Concern(KIND, KIND, OK, message, NOTHING, LINK, facts=facts)
    message = (
        _(
            "El directorio de receptores electrónicos de DGI nunca se pudo actualizar: a las empresas que pasaron "
            "a ser receptores electrónicos no se les entregan los comprobantes por intercambio."
        )
        if last_good is None
        else _(
            "El directorio de receptores electrónicos de DGI no se actualiza desde hace {ago}: a las empresas que "
            "pasaron a ser receptores electrónicos no se les entregan los comprobantes por intercambio.",
            ago=elapsed(now, last_good),
        )
    )
    return Concern(
        KIND,
        KIND,
        state,
        message,
        _("Revisar la conexión con DGI (consulta de emisores electrónicos)"),
        LINK,
        level,
        facts,
    )


@checks.register
def exchange_directory(ctx: checks.Context) -> list[Concern]:
    last_good, first_attempt = ctx.session.execute(
        select(
            func.max(DirectoryRefresh.finished_at).filter(DirectoryRefresh.error.is_(None)),
            func.min(DirectoryRefresh.started_at),
        )
    ).one()
    return [directory_concern(ctx.now, last_good, first_attempt)]
