"""Views of the informes area: a period's sales and purchases with charts and tables, and the IVA sales and purchases
books as CSV or XLSX."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from flask import request, url_for
from flask_babel import format_date, format_percent
from flask_babel import lazy_gettext as _l

from portal.client.informes import PeriodReport, PurchasesReport
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
    "comprasTasaBasica": _l("Compras gravadas a tasa básica (neto)"),
    "comprasTasaMinima": _l("Compras gravadas a tasa mínima (neto)"),
    "comprasOtraTasa": _l("Compras gravadas a otra tasa (neto)"),
    "comprasExentasONoGravadas": _l("Compras exentas y no gravadas"),
    "ivaCreditoFiscal": _l("IVA crédito fiscal"),
}
# The purchases book's IVA rates as the service names them.
RATE_LABELS = {
    "basica": _l("Tasa básica"),
    "minima": _l("Tasa mínima"),
    "otra": _l("Otra tasa"),
    "exento": _l("Exento y no gravado"),
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


def rate_label(rate: str, percent: Decimal | None = None) -> str:
    """A rate's name, with its percentage when it has one ("Tasa básica (22 %)", "Basic rate (22%)")."""
    label = str(RATE_LABELS.get(rate, rate))
    return f"{label} ({format_percent(percent / 100)})" if percent is not None else label


def _purchase_chart(purchases: PurchasesReport) -> Chart:
    return Chart(
        "bar",
        [rate_label(line.rate, line.percent) for line in purchases.by_rate],
        [float(line.total_uyu) for line in purchases.by_rate],
        "UYU",
    )


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
    """A period's sales (totals, charts of days or months and of types, IVA by rate, top customers, DGI states) and
    its purchases (the purchases book by IVA rate, by type, top suppliers)."""
    form = PeriodForm(formdata=request.args or None)
    form.offer(today_montevideo())
    if not form.validate():
        return render(PAGE, status=422, form=form, report=None)
    period = form.period()
    report = api().period_report(period.start, period.end)
    purchases = api().purchases_report(period.start, period.end)
    return render(
        PAGE,
        form=form,
        period=period,
        report=report,
        purchases=purchases,
        charts=_charts(report) | {"rates": _purchase_chart(purchases)},
        rate_label=rate_label,
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
