"""The body of the A4 receipt: legends, detail table, totals, discounts, payments, references, adenda.

Works on a `BodyPage` (pdf.py's A4 page is one) through its small helpers: `room` breaks the page when a block
would run into the footer, and the table header is repeated by the page header while `columns` is set.
Every value comes from the `Printable` (the XML), never from the request.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from portal.service.cfe import pdf_text as words
from portal.service.cfe.pdf_base import ReceiptPage
from portal.service.cfe.printable import Printable

LEFT, RIGHT, LINE = 10.0, 200.0, 4.2
M = words.MANDATORY_PT
# The rate column fits its longest label ("No fact.", "IVA mín.") at 8.5 pt; tests check none is cut.
# Amounts up to 999.999.999.999,99 fit their columns at 8.5 pt.
_ITEM_COLUMNS = [
    ("Descripción", 60, "L"),
    ("IVA", 16, "C"),
    ("Cant.", 14, "R"),
    ("Unid.", 12, "C"),
    ("P. unitario", 30, "R"),
    ("Desc./Rec.", 26, "R"),
    ("Importe", 32, "R"),
]
_NO_IVA_COLUMNS = [("Descripción", 76, "L"), *_ITEM_COLUMNS[2:]]
_REMITO_COLUMNS = [("Descripción", 130, "L"), ("Cantidad", 30, "R"), ("Unidad", 30, "C")]
_RESGUARDO_COLUMNS = [
    ("Línea", 14, "C"),
    ("Código", 30, "L"),
    ("Tasa %", 26, "R"),
    ("Monto sujeto a retención", 50, "R"),
    ("Valor retenido", 40, "R"),
    ("", 30, "C"),
]


class BodyPage(ReceiptPage):
    """The page the body is drawn on: the receipt (`doc`), the table's `columns` while one is open (the page
    header repeats them), and the two helpers below."""

    doc: Printable
    columns: list[tuple[str, float, str]]

    def table_header(self) -> None:
        x, y = LEFT, self.get_y()
        self.set_fill_color(235, 235, 235)
        height = 9.7 if self.doc.bilingual else 5.5  # a bilingual title has its English under it
        self.rect(LEFT, y, RIGHT - LEFT, height, style="F")
        for title, width, align in self.columns:
            self.put(x + 0.5, y + 0.7, width - 1, title, bold=True, align=align)
            english = words.english(self.doc, title)
            if english:
                self.put(x + 0.5, y + 4.9, width - 1, english, align=align, shrink=True)
            x += width
        self.set_y(y + height + 1.5)

    def room(self, height: float) -> None:
        """Start a new page unless `height` millimetres still fit above the footer."""
        if self.get_y() + height > self.page_break_trigger:
            self.add_page()


def draw_body(pdf: BodyPage) -> None:
    """Everything between the page header and the footer, over as many pages as it takes."""
    doc, element = pdf.doc, pdf.doc.element
    _legends(pdf)
    if element == "eResg":
        _start_table(pdf, _RESGUARDO_COLUMNS)
        _retention_rows(pdf)
    elif element == "eRem":
        _start_table(pdf, _REMITO_COLUMNS)
        _item_rows(pdf, remito=True)
    else:
        _start_table(pdf, _ITEM_COLUMNS if doc.mentions_iva else _NO_IVA_COLUMNS)
        _item_rows(pdf, remito=False)
    pdf.columns = []
    pdf.set_y(pdf.get_y() + 2)
    if element == "eRem":
        _section(pdf, "", [f"Cantidad de líneas: {doc.cant_lin_det}"])
    else:
        if element != "eResg":
            _discounts(pdf)
        _totals(pdf)
        _section(pdf, "Medios de pago", [f"{glosa}: {words.money(value)}" for glosa, value in doc.payments])
    _section(pdf, "Exportación", words.export_lines(doc))
    _section(pdf, "Referencias", [words.reference_line(ref) for ref in doc.references])
    if doc.info_adicional:
        _section(pdf, "Información adicional", [doc.info_adicional])
    if doc.adenda:
        _adenda(pdf, doc.adenda)


def _legends(pdf: BodyPage) -> None:
    """ "Pagos por cuenta de terceros", "Bienes de Terceros ...": 3 mm characters, no fixed place."""
    for legend in words.header_legends(pdf.doc):
        for line in pdf.lines_of(legend, RIGHT - LEFT, M, bold=True):
            y = pdf.get_y()
            pdf.put(LEFT, y, RIGHT - LEFT, line, size=M, bold=True, h=6)
            pdf.set_y(y + 6)
    pdf.set_y(pdf.get_y() + 1)


def _start_table(pdf: BodyPage, columns: Sequence[tuple[str, float, str]]) -> None:
    pdf.columns = list(columns)
    pdf.table_header()


def _cells(pdf: BodyPage, y: float, values: list[str], first: int = 1) -> None:
    x = LEFT + sum(width for _, width, _ in pdf.columns[:first])
    for (_, width, align), value in zip(pdf.columns[first:], values, strict=True):
        pdf.put(x + 0.5, y, width - 1, value, align=align, shrink=True)
        x += width


def _item_rows(pdf: BodyPage, remito: bool) -> None:
    doc = pdf.doc
    width = pdf.columns[0][1] - 1  # the text box put() draws in the column: lines wrapped to it are never cut
    for line in doc.lines:
        name = pdf.lines_of(line.name, width)
        extra = [f"Cód.: {', '.join(line.codes)}"] if line.codes else []
        if line.description:
            extra += pdf.lines_of(line.description, width)
        height = (len(name) + len(extra)) * LINE + 0.6
        pdf.room(height)
        y = pdf.get_y()
        for index, text in enumerate([*name, *extra]):
            pdf.put(LEFT + 0.5, y + index * LINE, width, text)
        quantity = words.trimmed(line.quantity or Decimal(0), 0, 3)
        if remito:
            quantity = f"-{quantity}" if line.ind_fact == 8 else quantity  # an item that reduces a remito
            _cells(pdf, y, [quantity, words.unit(line.unit)])
        else:
            adjust = " ".join(
                filter(
                    None,
                    (
                        f"-{words.money(line.discount)}" if line.discount else "",
                        f"+{words.money(line.surcharge)}" if line.surcharge else "",
                    ),
                )
            )
            values = [
                quantity,
                words.unit(line.unit),
                words.trimmed(line.unit_price or Decimal(0), 2, 6),
                adjust,
                words.money(line.amount or Decimal(0)),
            ]
            if doc.mentions_iva:
                values.insert(0, words.ind_fact_label(doc, line.ind_fact))
            _cells(pdf, y, values)
        pdf.set_y(y + height)


def _retention_rows(pdf: BodyPage) -> None:
    for line in pdf.doc.lines:
        for ret in line.retentions:
            pdf.room(LINE)
            y = pdf.get_y()
            _cells(
                pdf,
                y,
                [
                    str(line.number),
                    ret.code,
                    words.trimmed(ret.rate, 0, 3) if ret.rate is not None else "",
                    words.money(ret.base or Decimal(0)),
                    words.money(ret.value),
                    "Anula" if line.ind_fact == 9 else "",
                ],
                first=0,
            )
            pdf.set_y(y + LINE)


def _totals(pdf: BodyPage) -> None:
    rows = words.total_rows(pdf.doc)
    pdf.room(len(rows) * (LINE + 0.6) + 4)
    for label, value, strong in rows:
        y, size = pdf.get_y(), M if strong and label.startswith("TOTAL A PAGAR") else words.TEXT_PT
        height = 6.0 if size == M else LINE
        pdf.put(LEFT, y, 160 - LEFT, label, size=size, bold=strong, align="R", h=height)  # room for a bilingual label
        pdf.put(160, y, RIGHT - 160, words.money(value), size=size, bold=strong, align="R", h=height, shrink=True)
        pdf.set_y(y + height)
    pdf.set_y(pdf.get_y() + 2)


def _discounts(pdf: BodyPage) -> None:
    doc = pdf.doc
    lines = [
        f"{'Descuento' if dr.kind == 'D' else 'Recargo'}: {dr.glosa}"
        f"{f' ({words.ind_fact_label(doc, dr.ind_fact)})' if words.ind_fact_label(doc, dr.ind_fact) else ''}"
        f" {'-' if dr.kind == 'D' else '+'}{words.money(dr.value)}"
        for dr in doc.adjustments
    ]
    _section(pdf, "Descuentos y recargos globales", lines)


def _section(pdf: BodyPage, title: str, lines: list[str]) -> None:
    if not lines:
        return
    title = words.bi(pdf.doc, title)
    wrapped = [part for line in lines for part in pdf.lines_of(line, RIGHT - LEFT)]
    pdf.room(min(len(wrapped) + 1, 4) * LINE)  # keep a title with its first lines
    rows = ([(title, True)] if title else []) + [(line, False) for line in wrapped]
    for text, bold in rows:
        pdf.room(LINE)
        y = pdf.get_y()
        pdf.put(LEFT, y, RIGHT - LEFT, text, bold=bold)
        pdf.set_y(y + LINE)
    pdf.set_y(pdf.get_y() + 1.5)


def _adenda(pdf: BodyPage, text: str) -> None:
    """DGI: a zone marked "ADENDA", 5 mm clear of the receipt's data; a frame on every page it spans."""
    lines = pdf.lines_of(text, RIGHT - LEFT - 6)
    pdf.set_y(pdf.get_y() + 5)
    title = "ADENDA"
    while lines:
        pdf.room(3 * LINE + 2)
        top = pdf.get_y()
        fit = max(1, int((pdf.page_break_trigger - top - LINE - 3) // LINE))
        chunk, lines = lines[:fit], lines[fit:]
        pdf.put(LEFT + 2, top + 1, 60, title, bold=True)
        for index, line in enumerate(chunk):
            pdf.put(LEFT + 3, top + 1 + (index + 1) * LINE, RIGHT - LEFT - 6, line)
        height = (len(chunk) + 1) * LINE + 2.5
        pdf.rect(LEFT, top, RIGHT - LEFT, height)
        pdf.set_y(top + height + 1)
        title = "ADENDA (continúa)"
