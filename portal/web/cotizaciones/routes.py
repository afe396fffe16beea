"""Views of the cotizaciones area: a currency's rates day by day over a period (the last 30 days by default), what
each day's receipt takes as TpoCambio, and the days the BCU published nothing."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from flask import request
from flask_babel import format_date
from flask_babel import lazy_gettext as _l

from portal.client.cotizaciones import RateDay, RateDays
from portal.domain.uruguay_time import today_montevideo
from portal.web.auth.session import member_required
from portal.web.backend import api
from portal.web.cotizaciones import bp
from portal.web.cotizaciones.forms import CURRENCY_LABELS, RatesForm
from portal.web.rendering import render

__all__ = ["bp"]
PAGE = "cotizaciones/index.html"
# The UI is an index the service keeps for the e-Ticket threshold: the issuing form proposes no rate from it.
PROPOSED = {"USD", "EUR", "ARS", "BRL"}


@dataclass(frozen=True)
class Row:
    """A day of the table, as the page shows it."""

    rate: RateDay
    weekday: str
    source: object  # a lazy label, or None on a day without a rate
    taken_from_before: bool  # a receipt of the day takes an earlier day's rate


# Each day's rate says whose it is: the stand-in's figures are invented, and must never read as the BCU's.
SOURCES = {
    "bcu": _l("BCU"),
    "simulador": _l("Simulador del BCU (no oficial)"),
    "operador": _l("Corrección del operador"),
}


def _rows(found: RateDays) -> list[Row]:
    return [
        Row(
            d,
            format_date(d.day, "EEE"),
            SOURCES.get(d.source or "", d.source),
            d.receipt_rate_day is not None and d.receipt_rate_day != d.day,
        )
        for d in found.days
    ]


@bp.get("/")
@member_required
def index():
    """A currency's buying and selling rates day by day (newest first), their source, the rate a receipt of each day
    takes, and the days without one with what happens then."""
    form = RatesForm(formdata=request.args or None)
    today: date = today_montevideo()
    form.offer(today)
    if not form.validate():
        return render(PAGE, status=422, form=form, found=None)
    found = api().exchange_rates(form.moneda.data, form.desde.data, form.hasta.data)
    rows = _rows(found)
    return render(
        PAGE,
        form=form,
        found=found,
        rows=rows,
        missing=sum(1 for row in rows if not row.rate.published),
        proposed=found.currency in PROPOSED,
        currency_label=CURRENCY_LABELS[found.currency],
    )
