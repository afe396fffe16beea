"""The body of the printed CFE: detail table, totals per rate, discounts, payments, references, adenda.

Works on the page object of pdf.py (`_ReceiptPdf`) through its small helpers: `room` breaks the page when a
block would run into the footer, and the table header is repeated by the page header while `columns` is set.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from fpdf.enums import XPos, YPos

from portal.service.cfe import pdf_text as words

if TYPE_CHECKING:
    from portal.service.cfe.pdf import _ReceiptPdf

LEFT, RIGHT, LINE, SMALL = 10.0, 200.0, 4.2, 3.4
_ITEM_COLUMNS = [("Descripción", 76, "L"), ("IVA", 14, "C"), ("Cant.", 18, "R"), ("Unid.", 12, "C"),
                 ("P. unitario", 24, "R"), ("Desc./Rec.", 22, "R"), ("Importe", 24, "R")]
_REMITO_COLUMNS = [("Descripción", 130, "L"), ("Cantidad", 30, "R"), ("Unidad", 30, "C")]
_RESGUARDO_COLUMNS = [("Línea", 14, "C"), ("Código", 30, "L"), ("Tasa %", 26, "R"),
                      ("Monto sujeto a retención", 50, "R"), ("Valor retenido", 40, "R"), ("", 30, "C")]


def draw_body(pdf: _ReceiptPdf) -> None:
    """Everything between the page header and the footer, over as many pages as it takes."""
    element = pdf.kind.element
    if element == "eResg":
        _start_table(pdf, _RESGUARDO_COLUMNS)
        _retention_rows(pdf)
    else:
        _start_table(pdf, _REMITO_COLUMNS if element == "eRem" else _ITEM_COLUMNS)
        _item_rows(pdf, element == "eRem")
    pdf.columns = []
    pdf.set_y(pdf.get_y() + 2)
    if element in ("eTck", "eFact"):
        _discounts(pdf)
        _invoice_totals(pdf)
        _payments(pdf)
    elif element == "eResg":
        _retention_totals(pdf)
    else:
        _section(pdf, "", [f"Cantidad de líneas: {pdf.doc.totals.cant_lin_det}"])
    _section(pdf, "Referencias", [words.reference_line(ref) for ref in pdf.doc.cfe.referencias])
    if pdf.doc.cfe.info_adicional_doc:
        _section(pdf, "Información adicional", [pdf.doc.cfe.info_adicional_doc])
    if pdf.doc.cfe.adenda:
        _adenda(pdf, pdf.doc.cfe.adenda)


def _start_table(pdf: _ReceiptPdf, columns: list[tuple[str, float, str]]) -> None:
    pdf.columns = columns
    pdf._table_header()


def _cells(pdf: _ReceiptPdf, y: float, values: list[str], first: int = 1) -> None:
    x = LEFT + sum(width for _, width, _ in pdf.columns[:first])
    for (_, width, align), value in zip(pdf.columns[first:], values, strict=True):
        pdf._put(x + 0.5, y, width - 1, value, size=8, align=align)
        x += width


def _item_rows(pdf: _ReceiptPdf, remito: bool) -> None:
    width = pdf.columns[0][1]
    for item, amount in zip(pdf.doc.cfe.items, pdf.doc.totals.line_amounts, strict=True):
        name = pdf.wrapped(width, item.nom_item or "", 8)
        extra = []
        if item.cod_item:
            extra.append("Cód.: " + ", ".join(f"{c.tpo_cod} {c.cod}" for c in item.cod_item))
        if item.dsc_item:
            extra += pdf.wrapped(width, item.dsc_item, 7)
        height = len(name) * LINE + len(extra) * SMALL + 0.8
        pdf.room(height)
        y = pdf.get_y()
        for index, line in enumerate(name):
            pdf._put(LEFT + 0.5, y + index * LINE, width - 1, line, size=8)
        for index, line in enumerate(extra):
            pdf._put(LEFT + 0.5, y + len(name) * LINE + index * SMALL, width - 1, line, size=7, h=SMALL)
        quantity = words.trimmed(item.cantidad or Decimal(0), 0, 3)
        if remito:
            _cells(pdf, y, [quantity, item.uni_med])
        else:
            adjust = " ".join(filter(None, (f"-{words.money(item.descuento_monto)}" if item.descuento_monto else "",
                                            f"+{words.money(item.recargo_mnt)}" if item.recargo_mnt else "")))
            _cells(pdf, y, [words.IND_FACT.get(item.ind_fact, ""), quantity, item.uni_med,
                            words.trimmed(item.precio_unitario or Decimal(0), 2, 6), adjust, words.money(amount)])
        pdf.set_y(y + height)


def _retention_rows(pdf: _ReceiptPdf) -> None:
    for number, item in enumerate(pdf.doc.cfe.items, start=1):
        for ret in item.retenc_percep:
            pdf.room(LINE)
            y = pdf.get_y()
            _cells(pdf, y, [str(number), ret.cod_ret, words.trimmed(ret.tasa, 0, 3) if ret.tasa is not None else "",
                            words.money(ret.mnt_sujetoa_ret or Decimal(0)), words.money(ret.val_ret_perc),
                            "Anula" if item.ind_fact == 9 else ""], first=0)
            pdf.set_y(y + LINE)


def _invoice_totals(pdf: _ReceiptPdf) -> None:
    totals, currency = pdf.doc.totals, pdf.doc.cfe.tpo_moneda
    lines: list[tuple[str, Decimal, bool, float]] = []
    for label, value in (("Exento / no gravado", totals.mnt_no_grv),
                         ("Exportación y asimiladas", totals.mnt_expo_y_asim),
                         ("Impuesto percibido", totals.mnt_impuesto_perc),
                         ("IVA en suspenso", totals.mnt_iva_en_susp),
                         ("Neto IVA tasa mínima 10%", totals.mnt_neto_iva_tasa_min),
                         ("Neto IVA tasa básica 22%", totals.mnt_neto_iva_tasa_basica),
                         ("Neto IVA otra tasa", totals.mnt_neto_iva_otra)):
        if value:
            lines.append((label, value, False, 8))
    for label, net, tax in (("IVA tasa mínima 10%", totals.mnt_neto_iva_tasa_min, totals.mnt_iva_tasa_min),
                            ("IVA tasa básica 22%", totals.mnt_neto_iva_tasa_basica, totals.mnt_iva_tasa_basica),
                            ("IVA otra tasa", totals.mnt_neto_iva_otra, totals.mnt_iva_otra)):
        if net:
            lines.append((label, tax, False, 8))
    lines.append((f"TOTAL {currency}", totals.mnt_total, True, 8))
    for label, value in (("Retenciones / percepciones", totals.mnt_tot_retenido),
                         ("Créditos fiscales", totals.mnt_tot_cred_fisc),
                         ("Monto no facturable", totals.monto_nf)):
        if value:
            lines.append((label, value, False, 8))
    lines.append((f"TOTAL A PAGAR {currency}", totals.mnt_pagar, True, 10))
    pdf.room(len(lines) * LINE + 4)
    for label, value, bold, size in lines:
        pdf.money_line(label, value, bold, size)
    pdf.set_y(pdf.get_y() + 2)


def _retention_totals(pdf: _ReceiptPdf) -> None:
    totals, currency = pdf.doc.totals, pdf.doc.cfe.tpo_moneda
    pdf.room((len(totals.retenc_percep) + 2) * LINE + 4)
    for code, value in totals.retenc_percep:
        pdf.money_line(f"Código {code}", value)
    if totals.mnt_tot_cred_fisc:
        pdf.money_line("Créditos fiscales", totals.mnt_tot_cred_fisc)
    pdf.money_line(f"TOTAL RETENIDO {currency}", totals.mnt_tot_retenido, bold=True, size=10)
    pdf.set_y(pdf.get_y() + 2)


def _discounts(pdf: _ReceiptPdf) -> None:
    lines = [f"{'Descuento' if dr.tpo_mov_dr == 'D' else 'Recargo'}: {dr.glosa_dr} "
             f"({words.IND_FACT.get(dr.ind_fact_dr, '')}) {'-' if dr.tpo_mov_dr == 'D' else '+'}"
             f"{words.money(dr.valor_dr)}" for dr in pdf.doc.cfe.dsc_rcg_global]
    _section(pdf, "Descuentos y recargos globales", lines)


def _payments(pdf: _ReceiptPdf) -> None:
    lines = [f"{payment.glosa_mp}: {words.money(payment.valor_pago)}" for payment in pdf.doc.cfe.medios_pago]
    _section(pdf, "Medios de pago", lines)


def _section(pdf: _ReceiptPdf, title: str, lines: list[str]) -> None:
    if not lines:
        return
    wrapped = [part for line in lines for part in pdf.wrapped(RIGHT - LEFT, line, 8)]
    pdf.room(min(len(wrapped) + 1, 4) * LINE)  # keep a title with its first lines
    rows = ([(title, True)] if title else []) + [(line, False) for line in wrapped]
    for text, bold in rows:
        pdf.room(LINE)
        y = pdf.get_y()
        pdf._put(LEFT, y, RIGHT - LEFT, text, size=8, bold=bold)
        pdf.set_y(y + LINE)
    pdf.set_y(pdf.get_y() + 1.5)


def _adenda(pdf: _ReceiptPdf, text: str) -> None:
    pdf.room(3 * LINE)
    y = pdf.get_y() + 1
    pdf.set_fill_color(235, 235, 235)
    pdf.rect(LEFT, y, RIGHT - LEFT, 5.5, style="F")
    pdf._put(LEFT + 1, y + 0.7, 50, "ADENDA", size=8, bold=True)
    pdf.set_xy(LEFT + 5, y + 7)
    pdf._font(8)
    # DGI asks for 5 mm margins around an adenda printed inside the receipt.
    pdf.multi_cell(RIGHT - LEFT - 10, LINE, pdf.fontset.clean(text), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
