"""The compliance watch's concerns about DGI's side (registered with checks.register): DGI not answering, and
contingency receipts DGI observed (CE) that wait to be corrected and sent again."""

from __future__ import annotations

from sqlalchemy import func, select

from portal.service.envios import outage
from portal.service.envios.models import DgiSubmission
from portal.service.platform.i18n import Text, _
from portal.service.salud import checks
from portal.service.salud.concerns import NOTHING, OK, PROBLEM, WARNING, Concern, State

CONTINGENCY_PAGE = "/envios/contingencia"
ENVIOS_PAGE = "/envios/"
DOWN_PROBLEM_HOURS = 24  # DGI silent this long: a problem (envelopes and reports may miss DGI's deadlines)


def _since(hours: float) -> Text:
    minutes = int(hours * 60)
    if hours >= 1:
        tenths = f"{hours:.1f}"
        if tenths.endswith(".0"):  # "3 horas", not "3,0 horas"
            whole = int(tenths[:-2])
            return _("una hora") if whole == 1 else _("{n:,} horas", n=whole)
        return _("{n:.1f} horas", n=tenths)  # 1,5 horas / 1.5 hours: written when it is said
    if minutes < 2:  # the watch runs as soon as DGI fails: "hace 0 minutos" read as a fault of the watch
        return _("un minuto") if minutes == 1 else _("menos de un minuto")
    return _("{n} minutos", n=minutes)


def _down_message(since: Text, waiting: int) -> Text:
    if waiting == 0:
        return _(
            "DGI no responde hace {since}. Se sigue emitiendo: todo sale solo en cuanto DGI responda.", since=since
        )
    if waiting == 1:
        return _(
            "DGI no responde hace {since}; 1 comprobante espera para salir. Se sigue emitiendo: todo sale solo en "
            "cuanto DGI responda.",
            since=since,
        )
    return _(
        "DGI no responde hace {since}; {waiting:,} comprobantes esperan para salir. Se sigue emitiendo: "
        "todo sale solo en cuanto DGI responda.",
        since=since,
        waiting=waiting,
    )


def dgi_down(hours: float | None, waiting: int) -> Concern:
    facts = {"horasSinRespuesta": None if hours is None else round(hours, 1), "comprobantesEsperando": waiting}
    if hours is None:
        return Concern("dgi_caido", "dgi_caido", OK, _("DGI responde."), NOTHING, CONTINGENCY_PAGE, facts=facts)
    state: State
    state, level = (PROBLEM, 2) if hours >= DOWN_PROBLEM_HOURS else (WARNING, 1)
    return Concern(
        "dgi_caido",
        "dgi_caido",
        state,
        _down_message(_since(hours), waiting),
        _("Ver qué hacer"),
        CONTINGENCY_PAGE,
        level=level,
        facts=facts,
    )


def observed_contingency(count: int) -> Concern:
    facts = {"cantidad": count}
    if count == 0:
        return Concern(
            "cfc_observados",
            "cfc_observados",
            OK,
            _("Ningún comprobante de contingencia está observado por DGI."),
            NOTHING,
            ENVIOS_PAGE,
            facts=facts,
        )
    return Concern(
        "cfc_observados",
        "cfc_observados",
        WARNING,
        _("DGI observó {count} comprobantes de contingencia: hay que corregirlos y enviarlos de nuevo.", count=count),
        _("Ver los observados"),
        ENVIOS_PAGE,
        level=1,
        facts=facts,
    )


@checks.register
def dgi_availability(ctx: checks.Context) -> list[Concern]:
    seen = outage.status(ctx.session)
    hours = None if seen.down_since is None else (ctx.now - seen.down_since).total_seconds() / 3600
    return [dgi_down(hours, outage.backlog(ctx.session, ctx.company_id).receipts)]


@checks.register
def contingency_observed(ctx: checks.Context) -> list[Concern]:
    count = ctx.session.scalar(
        select(func.count()).where(DgiSubmission.company_id == ctx.company_id, DgiSubmission.state == "observado")
    )
    return [observed_contingency(int(count or 0))]
