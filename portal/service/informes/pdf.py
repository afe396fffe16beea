"""A period's summary as a PDF (A4, fpdf2 with the receipts' font) for an accountant's file: the sales of the
period report (periodo.py: the totals, the IVA return's figures, a bar per day or month, the split by type,
currency and branch, the top customers and the DGI states), the purchases of the purchases report
(compras_periodo.py: net, IVA credit and total by rate, the rejected counted apart, the top suppliers) and the
IVA position the two books give. The reports' sums, never a second way to add them."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from portal.domain.cfe_types import type_name_es
from portal.service.cfe import pdf_text as words
from portal.service.cfe.pdf_base import ReceiptPage
from portal.service.comprobante.export import DGI_STATE_NAMES
from portal.service.informes.compras import PURCHASES
from portal.service.informes.compras_periodo import PurchasesReport, RateLine, net_iva
from portal.service.informes.files import DECLARATION_LABELS
from portal.service.informes.periodo import PeriodReport
from portal.service.informes.ventas import SALES, ZERO
from portal.service.platform.i18n import _, say
from portal.service.platform.numbers import count, decimal, money

_LEFT, _WIDTH = 15.0, 180.0
_ROW = 5.2
_LINE = 3.6  # each further line of a table's cell that wraps
_TABLE_PT = 8.5
_CHART_H = 38.0
_NO_PURCHASES = _(
    "Sin compras en el período: ningún CFE recibido ni e-Boleta de entrada cuenta en el libro de compras."
)


class _Summary:
    def __init__(self, company: str, report: PeriodReport, made_at: datetime) -> None:
        self.pdf = ReceiptPage("A4")
        self.pdf.set_auto_page_break(False)
        # Outside the f-string: pybabel does not read inside one, so the title never reached the catalogue.
        title = say(_("Resumen del período"))
        self.pdf.set_title(f"{title} {words.day(report.desde)} - {words.day(report.hasta)}")
        self.report = report
        self.company = company
        self.made_at = made_at
        self.y = 0.0
        self.page()

    def page(self) -> None:
        """A new page headed by the company's name, wrapped beside the moment the PDF was made, never under it."""
        self.pdf.add_page()
        self.y = 15.0
        made = say(_("Generado el {when}", when=self.made_at.strftime("%d/%m/%Y %H:%M")))
        self.pdf.put(_LEFT, self.y, _WIDTH, made, size=8, align="R")
        self.pdf.use_font(8)
        beside = self.pdf.get_string_width(made) + 2 * self.pdf.c_margin + 4
        for line in self.pdf.lines_of(self.company, _WIDTH - beside, size=9, bold=True):
            self.pdf.put(_LEFT, self.y, _WIDTH - beside, line, size=9, bold=True)
            self.y += 4.2
        self.y += 2.8

    def room(self, height: float) -> None:
        if self.y + height > 282:
            self.page()

    def heading(self, text: str, size: float = 11) -> None:
        self.room(4 * _ROW)
        self.y += 2
        self.pdf.put(_LEFT, self.y, _WIDTH, text, size=size, bold=True, h=6)
        self.y += 7

    def table(
        self, header: tuple[str, ...], rows: list[tuple[str, ...]], widths: tuple[float, ...], total: bool = False
    ) -> None:
        """Rows of text; the first column left-aligned, the others (documents, numbers) right-aligned; the last row
        ruled off and bold when it is the `total` of the others. A cell longer than its column wraps onto more
        lines and the row grows to its tallest cell: a long name reads whole, and never pushes out or cuts the
        document and figures beside it."""
        last = len(rows)
        for index, row in enumerate([header, *rows]):
            bold = index == 0 or (total and index == last)
            cells = [
                self.pdf.lines_of(text, width, size=_TABLE_PT, bold=bold)
                for text, width in zip(row, widths, strict=True)
            ]
            height = _ROW + _LINE * (max(len(lines) for lines in cells) - 1)
            self.room(height)
            if total and index == last:
                self.pdf.line(_LEFT, self.y, _LEFT + sum(widths), self.y)
            x = _LEFT
            for column, (lines, width) in enumerate(zip(cells, widths, strict=True)):
                align = "L" if column == 0 else "R"
                for number, line in enumerate(lines):
                    self.pdf.put(
                        x, self.y + number * _LINE, width, line, size=_TABLE_PT, bold=bold, align=align, h=_ROW
                    )
                x += width
            self.y += height
            if index == 0:
                self.pdf.line(_LEFT, self.y, _LEFT + sum(widths), self.y)

    def note(self, text: str, size: float = 8) -> None:
        """A sentence or two under a table, wrapped at the page's width (word by word: put() cuts a line)."""
        self.pdf.use_font(size, False)
        room = _WIDTH - 2 * self.pdf.c_margin
        lines: list[str] = []
        for word in self.pdf.fontset.clean(text).split():
            joined = f"{lines[-1]} {word}" if lines else word
            if lines and self.pdf.get_string_width(joined) <= room:
                lines[-1] = joined
            else:
                lines.append(word)
        self.y += 1
        for line in lines:
            self.room(4.2)
            self.pdf.put(_LEFT, self.y, _WIDTH, line, size=size)
            self.y += 4.2

    def chart(self) -> None:
        """A bar per day (or month) of the period's total in pesos; its numbers are in the table after it."""
        timeline = self.report.timeline
        if not timeline:
            return
        self.room(_CHART_H + 12)
        top = max((bucket.total for bucket in timeline.values()), default=Decimal(0))
        base = self.y + _CHART_H
        step = _WIDTH / len(timeline)
        self.pdf.set_fill_color(0, 102, 153)
        for index, bucket in enumerate(timeline.values()):
            if top > 0 and bucket.total > 0:
                height = float(bucket.total / top) * _CHART_H
                self.pdf.rect(_LEFT + index * step + step * 0.15, base - height, step * 0.7, height, style="F")
        self.pdf.line(_LEFT, base, _LEFT + _WIDTH, base)
        first, last = list(timeline)[0], list(timeline)[-1]
        shown = "%d/%m" if self.report.by_day else "%m/%Y"
        self.pdf.put(_LEFT, base + 0.5, 40, first.strftime(shown), size=7)
        self.pdf.put(_LEFT + _WIDTH - 40, base + 0.5, 40, last.strftime(shown), size=7, align="R")
        self.pdf.put(
            _LEFT + 40,
            base + 0.5,
            _WIDTH - 80,
            say(_("Máximo: {amount}", amount=money(top, "UYU"))),
            size=7,
            align="C",
        )
        self.y = base + 7

    def output(self) -> bytes:
        return bytes(self.pdf.output())


def summary_pdf(company: str, report: PeriodReport, purchases: PurchasesReport, made_at: datetime) -> bytes:
    doc = _Summary(company, report, made_at)
    book = report.book
    total = book.total
    title = say(_("Resumen del período"))
    doc.heading(f"{title} {words.day(report.desde)} - {words.day(report.hasta)}", size=14)
    doc.table(
        (say(_("Ventas del período")), say(_("Importe"))),
        [
            (say(_("Comprobantes")), count(total.count)),
            (say(_("Total en pesos")), money(total.amounts["total"], "UYU")),
            (say(_("Rechazados por DGI (no suman)")), count(len(book.rejected))),
        ],
        (130, 50),
    )
    doc.heading(say(_("IVA del período (para la declaración)")))
    doc.table(
        (say(_("Concepto")), say(_("Pesos"))),
        [(say(DECLARATION_LABELS[key]), money(value)) for key, value in book.declaration.items()],
        (130, 50),
    )
    doc.heading(say(_("Total por día")) if report.by_day else say(_("Total por mes")))
    doc.chart()
    shown = "%d/%m/%Y" if report.by_day else "%m/%Y"
    doc.table(
        (say(_("Fecha")), say(_("Cantidad")), say(_("Total en pesos"))),
        [(d.strftime(shown), count(b.count), money(b.total)) for d, b in report.timeline.items() if b.count],
        (100, 30, 50),
    )
    doc.heading(say(_("Por tipo de comprobante")))
    doc.table(
        (say(_("Tipo")), say(_("Cantidad")), say(_("Total en pesos"))),
        [(type_name_es(code), count(t.count), money(t.amounts["total"])) for code, t in sorted(book.by_type.items())],
        (100, 30, 50),
    )
    doc.heading(say(_("Por moneda")))
    doc.table(
        (say(_("Moneda")), say(_("Cantidad")), say(_("Total")), say(_("Total en pesos"))),
        [
            (currency, count(t.count), money(t.own["total"], currency), money(t.amounts["total"]))
            for currency, t in sorted(book.by_currency.items())
        ],
        (60, 30, 45, 45),
    )
    if report.top_customers():
        doc.heading(say(_("Principales clientes")))
        doc.table(
            (say(_("Cliente")), say(_("Documento")), say(_("Cantidad")), say(_("Total en pesos"))),
            [(name or doc_, doc_, count(b.count), money(b.total)) for doc_, name, b in report.top_customers()],
            (95, 30, 20, 35),
        )
    doc.heading(say(_("Estados ante DGI")))
    doc.table(
        (say(_("Estado")), say(_("Cantidad"))),
        [(say(DGI_STATE_NAMES.get(state, state)), count(number)) for state, number in report.dgi_states.items()],
        (130, 50),
    )
    _purchases(doc, purchases)
    _position(doc, report, purchases)
    return doc.output()


def _rate_name(line: RateLine) -> str:
    """The rate's name, with its percentage when it has one: "Tasa básica (22 %)"."""
    percent = decimal(line.percent, 0, 2) if line.percent is not None else ""
    names = {
        "basica": _("Tasa básica ({percent} %)", percent=percent),
        "minima": _("Tasa mínima ({percent} %)", percent=percent),
        "otra": _("Otra tasa"),
        "exento": _("Exento y no gravado"),
        "total": _("Total"),
    }
    return say(names[line.rate])


def _purchases(doc: _Summary, purchases: PurchasesReport) -> None:
    """The purchases book's side: what counts, the IVA credit, the rejected apart, by rate and the suppliers."""
    book = purchases.book
    total = book.total
    doc.heading(say(_("Compras")), size=13)
    doc.table(
        (say(_("Compras del período")), say(_("Importe"))),
        [
            (say(_("Comprobantes")), count(total.count)),
            (say(_("Total en pesos")), money(total.amounts["total"], "UYU")),
            (say(DECLARATION_LABELS[PURCHASES.iva_total]), money(book.declaration[PURCHASES.iva_total], "UYU")),
            (say(_("Rechazados por DGI (no suman)")), count(purchases.apart("dgi"))),
            (say(_("Rechazados por la empresa (no suman)")), count(purchases.apart("empresa"))),
        ],
        (130, 50),
    )
    if not total.count:
        doc.note(say(_NO_PURCHASES))
        return
    doc.heading(say(_("Compras por tasa de IVA")))
    doc.table(
        (say(_("Tasa")), say(_("Neto en pesos")), say(_("IVA en pesos")), say(_("Total en pesos"))),
        [
            (_rate_name(line), money(line.net), money(line.iva), money(line.total))
            for line in [*purchases.by_rate(), purchases.rates_total()]
        ],
        (75, 35, 35, 35),
        total=True,
    )
    doc.heading(say(_("Principales proveedores")))
    doc.table(
        (say(_("Proveedor")), say(_("Documento")), say(_("Cantidad")), say(_("Total en pesos"))),
        [(name or doc_, doc_, count(b.count), money(b.total)) for doc_, name, b in purchases.suppliers.top()],
        (95, 30, 20, 35),
    )


def _position(doc: _Summary, report: PeriodReport, purchases: PurchasesReport) -> None:
    """Débito fiscal less crédito fiscal, said as what it is: an estimate from the books, not the return."""
    position = net_iva(report.book, purchases.book)
    doc.heading(say(_("Posición de IVA del período (estimada)")))
    doc.table(
        (say(_("Concepto")), say(_("Pesos"))),
        [
            (say(_("IVA débito fiscal (ventas)")), money(report.book.declaration[SALES.iva_total])),
            (
                say(_("IVA crédito fiscal (compras)")),
                money(ZERO - purchases.book.declaration[PURCHASES.iva_total]),
            ),
            (
                say(_("IVA a pagar estimado")) if position >= 0 else say(_("Saldo a favor estimado")),
                money(abs(position)),
            ),
        ],
        (130, 50),
        total=True,
    )
    doc.note(
        say(
            _(
                "Estimación según los libros del período: el débito fiscal de las ventas menos el crédito fiscal de "
                "las compras, antes de las retenciones y percepciones de IVA sufridas, de los saldos a favor de "
                "períodos anteriores y del crédito de compras destinadas a operaciones exentas que no se deduce. No "
                "es la declaración jurada ante DGI."
            )
        )
    )
