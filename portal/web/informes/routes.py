"""Views of the informes area: a period's sales with charts and tables, and the IVA sales and purchases books as CSV or
XLSX."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import request, url_for
from flask_babel import format_date
from flask_babel import lazy_gettext as _l

from portal.client.informes import PeriodReport
from portal.domain.uruguay_time import today_montevideo
from portal.web.auth.session import member_required
from portal.web.backend import api
from portal.web.comprobantes.choices import type_name
from portal.web.files import file_response
from portal.web.i18n import day
from portal.web.informes import bp, periods
from portal.web.informes.forms import PeriodForm
from portal.web.rendering import render

__all__ = ["bp"]
PAGE = "informes/index.html"
# The IVA return's figures as the service names them, in the order an accountant copies them.
IVA_LABELS = {
    "ventasTasaBasica": _l("Ventas gravadas a tasa básica (neto)"),
    "ivaTasaBasica": _l("IVA tasa básica"),
    "ventasTasaMinima": _l("Ventas gravadas a tasa mínima (neto)"),
    "ivaTasaMinima": _l("IVA tasa mínima"),
    "ventasOtraTasa": _l("Ventas gravadas a otra tasa (neto)"),
    "ivaOtraTasa": _l("IVA otra tasa"),
    "ventasExentasONoGravadas": _l("Ventas exentas y no gravadas"),
    "exportaciones": _l("Exportaciones y asimiladas"),
    "ivaEnSuspenso": _l("IVA en suspenso"),
    "ivaDebitoFiscal": _l("IVA débito fiscal"),
    "percepciones": _l("Percepciones"),
    "retenciones": _l("Retenciones"),
}
_BOOK_MEDIA = {
    "csv": "text/csv; charset=utf-8",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}


@dataclass(frozen=True)
class Chart:
    """What a chart draws, for static/js/charts.js (read from a JSON element: no inline script)."""

    kind: str  # "bar" or "doughnut"
    labels: list[str]
    values: list[float]
    series: str  # the dataset's name

    @property
    def empty(self) -> bool:
        """Nothing to draw: an empty doughnut is blank space, an empty bar chart axes from 0 to 1 peso."""
        return not any(self.values)

    def as_json(self) -> dict[str, object]:
        return {"kind": self.kind, "labels": self.labels, "values": self.values, "series": self.series}


def _charts(report: PeriodReport) -> dict[str, Chart]:
    fmt = "dd/MM" if report.by_day else "MMM y"
    timeline = Chart(
        "bar",
        [format_date(d.day, fmt) for d in report.timeline],
        [float(d.total_uyu) for d in report.timeline],
        "UYU",
    )
    by_type = Chart(
        "doughnut",
        [type_name(int(t.key)) for t in report.by_type],
        [float(t.total_uyu) for t in report.by_type],
        "UYU",
    )
    return {"timeline": timeline, "by_type": by_type}


def _downloads(period: periods.Period) -> dict[str, str]:
    args: dict[str, Any] = {"periodo": period.code}
    if period.code == periods.RANGE:
        args |= {"desde": period.start.isoformat(), "hasta": period.end.isoformat()}
    links = {
        f"{libro}_{fmt}": url_for("informes.book", libro=libro, formato=fmt, **args)
        for libro in ("ventas", "compras")
        for fmt in _BOOK_MEDIA
    }
    return {**links, "pdf": url_for("informes.summary_pdf", **args)}


@bp.get("/")
@member_required
def index():
    """A period's sales: totals, charts of days or months and of types, IVA by rate, top customers, DGI states."""
    form = PeriodForm(formdata=request.args or None)
    form.offer(today_montevideo())
    if not form.validate():
        return render(PAGE, status=422, form=form, report=None)
    period = form.period()
    report = api().period_report(period.start, period.end)
    return render(
        PAGE,
        form=form,
        period=period,
        report=report,
        charts=_charts(report),
        downloads=_downloads(period),
        iva_labels=IVA_LABELS,
        title_range=f"{day(period.start)} – {day(period.end)}",
    )


@bp.get("/libro-<any(ventas, compras):libro>/<any(csv, xlsx):formato>")
@member_required
def book(libro: str, formato: str):
    """The IVA sales or purchases book of the period, as the service writes it."""
    return _period_file(
        lambda period: api().book(libro, period.start, period.end, formato),  # type: ignore[arg-type]  # any()
        _BOOK_MEDIA[formato],
        f"libro-{libro}-{{start}}-{{end}}.{formato}",
    )


def _period_file(fetch, mimetype: str, name: str):
    """A file of the period the query asks for (`name` with {start} and {end} as AAAAMMDD), or the page with
    the period's errors."""
    form = PeriodForm(formdata=request.args or None)
    form.offer(today_montevideo())
    if not form.validate():
        return render(PAGE, status=422, form=form, report=None)
    period = form.period()
    filename = name.format(start=f"{period.start:%Y%m%d}", end=f"{period.end:%Y%m%d}")
    return file_response(fetch(period), mimetype, filename, inline=False)


@bp.get("/resumen.pdf")
@member_required
def summary_pdf():
    """The period's summary as a PDF, as the service draws it."""
    return _period_file(
        lambda period: api().period_summary_pdf(period.start, period.end),
        "application/pdf",
        "resumen-{start}-{end}.pdf",
    )
