"""The exchange directory in the compliance watch: how long since its last good refresh (DGI's list of electronic
issuers, refreshed daily). Two days without one is a warning; a week, a problem: receipts to companies that
became electronic receivers meanwhile are not delivered to them."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import func, select

from portal.service.intercambio.models import DirectoryRefresh
from portal.service.salud import checks
from portal.service.salud.concerns import OK, PROBLEM, WARNING, Concern, State

WARNING_AFTER = timedelta(days=2)
PROBLEM_AFTER = timedelta(days=7)
KIND = "intercambio_directorio"
LINK = "/comprobantes/"


def elapsed(now: datetime, then: datetime) -> str:
    """How long ago, as a person says it: minutes, hours up to two days, then days."""
    minutes = int((now - then).total_seconds() // 60)
    if minutes >= 48 * 60:
        return f"{minutes // (24 * 60)} días"
    return f"{minutes // 60} horas" if minutes >= 120 else f"{minutes} minutos"


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
            f"El directorio de receptores electrónicos de DGI se actualizó hace {elapsed(now, last_good)}."
            if last_good
            else "El directorio de receptores electrónicos de DGI se está por actualizar."
        )
        return Concern(KIND, KIND, OK, message, "Nada que hacer", LINK, facts=facts)
    what = "nunca se pudo actualizar" if last_good is None else f"no se actualiza desde hace {elapsed(now, last_good)}"
    message = (
        f"El directorio de receptores electrónicos de DGI {what}: a las empresas que pasaron a ser receptores "
        "electrónicos no se les entregan los comprobantes por intercambio."
    )
    return Concern(
        KIND,
        KIND,
        state,
        message,
        "Revisar la conexión con DGI (consulta de emisores electrónicos)",
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
