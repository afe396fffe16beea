"""The IVA books (sales and purchases, `BookKind`) as files: CSV for a spreadsheet in Uruguay (as the receipt
list's export: `;`, decimal comma, dd/mm/aaaa, UTF-8 with a byte-order mark, typed text never read as a formula)
and XLSX with real numbers and dates (portal/service/platform/spreadsheet.py, streamed row by row).

Language: the book itself (its rows, column headers, type names, states in words, the groups kept apart, the CSV
whole) is a fiscal record in DGI's terms and stays Spanish whatever the request's Accept-Language: the same file for an
accountant, DGI and a program that reads its columns. The XLSX's "Resumen" sheet is a summary for a person, like
the period's PDF, so its name and words are said in the request's language (the figures are the same)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator
from datetime import date
from decimal import Decimal
from typing import IO

from openpyxl.worksheet._write_only import WriteOnlyWorksheet

from portal.domain.cfe_types import BOLETA_TYPES, type_name_es, with_cfc
from portal.service.comprobante.amounts import AMOUNT_LABELS
from portal.service.comprobante.export import DGI_STATE_NAMES, text_cell
from portal.service.informes.ventas import AMOUNT_NAMES, SALES, ZERO, BookKind, BookRow, BookSummary, two_decimals
from portal.service.platform import spreadsheet
from portal.service.platform.i18n import _, say

# Catalogue messages, as AMOUNT_LABELS (comprobante.amounts).
DECLARATION_LABELS: dict[str, str] = {
    "ventasTasaBasica": _("Ventas gravadas a tasa básica (neto)"),
    "ivaTasaBasica": _("IVA tasa básica"),
    "ventasTasaMinima": _("Ventas gravadas a tasa mínima (neto)"),
    "ivaTasaMinima": _("IVA tasa mínima"),
    "ventasOtraTasa": _("Ventas gravadas a otra tasa (neto)"),
    "ivaOtraTasa": _("IVA otra tasa"),
    "ventasExentasONoGravadas": _("Ventas exentas y no gravadas"),
    "exportaciones": _("Exportaciones y asimiladas"),
    "ivaEnSuspenso": _("IVA en suspenso"),
    "ivaDebitoFiscal": _("IVA débito fiscal (total)"),
    "percepciones": _("Percepciones"),
    "retenciones": _("Retenciones"),
    "comprasTasaBasica": _("Compras gravadas a tasa básica (neto)"),
    "comprasTasaMinima": _("Compras gravadas a tasa mínima (neto)"),
    "comprasOtraTasa": _("Compras gravadas a otra tasa (neto)"),
    "comprasExentasONoGravadas": _("Compras exentas y no gravadas"),
    "ivaCreditoFiscal": _("IVA crédito fiscal (total)"),
}


def header(kind: BookKind = SALES) -> tuple[str, ...]:
    return (
        "Fecha",
        "Tipo",
        "Serie",
        "Número",
        f"Documento del {kind.party_label.lower()}",
        kind.party_label,
        "Moneda",
        "Tipo de cambio",
        *(f"{AMOUNT_LABELS[name]} (moneda)" for name in AMOUNT_NAMES),
        *(f"{AMOUNT_LABELS[name]} (UYU)" for name in AMOUNT_NAMES),
        kind.state_label,
    )


# What the company did with a received CFE, for the purchases book's state column in words. The JSON keeps the codes
# (estadoDgi, estado): a program reads those.
_PURCHASE_STATES = {
    "recibido": "Recibido",
    "aceptado": "Aceptado por la empresa",
    "rechazado_comercial": "Rechazado por la empresa",
    "rechazado_al_recibir": "Rechazado al recibirlo",
    "rechazado_dgi": "Rechazado por DGI",
}
_OWN_BOLETAS = with_cfc(BOLETA_TYPES)


def state_words(kind: BookKind, row: BookRow) -> str:
    """A row's state as the book's reader reads it, in Spanish as the whole book ("pendiente_reporte" was written as
    its code): a received CFE's by what the company did with it, a receipt of ours (a sale, an e-Boleta de
    entrada) by what DGI said."""
    if kind is not SALES and row.tipo_cfe not in _OWN_BOLETAS:
        return _PURCHASE_STATES.get(row.dgi_status, row.dgi_status)
    return DGI_STATE_NAMES.get(row.dgi_status, row.dgi_status)


HEADER = header(SALES)
_BATCH = 500
XLSX = spreadsheet.XLSX


_ZERO_COMMA = "0,00"
_POSITION = {name: index for index, name in enumerate(AMOUNT_NAMES)}


def _comma_texts(amounts: dict[str, Decimal]) -> list[str]:
    """Every amount column with a decimal comma, the zeros (most of them) as one shared text."""
    texts = [_ZERO_COMMA] * len(AMOUNT_NAMES)
    for name, value in amounts.items():
        texts[_POSITION[name]] = two_decimals(value).replace(".", ",")
    return texts


class _CsvLines:
    """A book's rows as CSV lines. What repeats from row to row (a day, a type, a currency, a state, the few
    rates of a month) is formatted once and remembered: the per-row work is the receiver's text and the amounts
    that are not zero (docs/PERFORMANCE.md, "The IVA books")."""

    def __init__(self, kind: BookKind) -> None:
        self._kind = kind
        self._days: dict[date, str] = {}
        self._rates: dict[Decimal, str] = {}
        self._kinds: dict[tuple[int, str, str, str], tuple[str, str, str, str]] = {}

    def row(self, row: BookRow) -> list[object]:
        day = self._days.get(row.fecha)
        if day is None:
            day = self._days[row.fecha] = row.fecha.strftime("%d/%m/%Y")
        rate = self._rates.get(row.tipo_cambio)
        if rate is None:
            rate = self._rates[row.tipo_cambio] = f"{row.tipo_cambio:f}".replace(".", ",")
        key = (row.tipo_cfe, row.serie, row.moneda, row.dgi_status)
        kind = self._kinds.get(key)
        if kind is None:
            kind = self._kinds[key] = (
                text_cell(type_name_es(row.tipo_cfe)),
                text_cell(row.serie),
                text_cell(row.moneda),
                text_cell(state_words(self._kind, row)),
            )
        own = _comma_texts(row.amounts)
        uyu = own if row.amounts_uyu is row.amounts else _comma_texts(row.amounts_uyu)
        return [
            day,
            kind[0],
            kind[1],
            row.nro,
            text_cell(row.receptor_doc or ""),
            text_cell(row.receptor_nombre or ""),
            kind[2],
            rate,
            *own,
            *uyu,
            kind[3],
        ]


def csv_chunks(rows: Iterable[BookRow], summary: BookSummary) -> Iterator[str]:
    """The book's rows as they are read, then the ones kept apart (DGI rejected them; purchases we rejected),
    each group under its own heading, in chunks of a few hundred lines."""
    kind = summary.kind or SALES
    lines = _CsvLines(kind)
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=";", lineterminator="\r\n")
    buffer.write("\ufeff")
    writer.writerow(header(kind))
    add, write, line = summary.add, writer.writerow, lines.row
    for count, row in enumerate(rows, start=1):
        add(row)
        if row.apart is None:
            write(line(row))
        if count % _BATCH == 0:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    for apart, _key, heading in kind.apart:
        if summary.apart.get(apart):
            writer.writerow(())
            writer.writerow((f"{heading} (fuera del libro)",))
            for row in summary.apart[apart]:
                writer.writerow(line(row))
    yield buffer.getvalue()


def _cells(sheet: WriteOnlyWorksheet, kind: BookKind, row: BookRow) -> list[object]:
    amounts = [
        spreadsheet.amount(sheet, value)
        for value in (
            *(row.amounts.get(n, ZERO) for n in AMOUNT_NAMES),
            *(row.amounts_uyu.get(n, ZERO) for n in AMOUNT_NAMES),
        )
    ]
    texts = (type_name_es(row.tipo_cfe), row.serie)
    receiver = (spreadsheet.text(sheet, row.receptor_doc), spreadsheet.text(sheet, row.receptor_nombre), row.moneda)
    rate = spreadsheet.formatted(sheet, row.tipo_cambio, spreadsheet.RATE_FORMAT)
    return [spreadsheet.day(sheet, row.fecha), *texts, row.nro, *receiver, rate, *amounts, state_words(kind, row)]


def xlsx_file(rows: Iterable[BookRow], summary: BookSummary, desde: date, hasta: date) -> IO[bytes]:
    """The book as an XLSX workbook in a temporary file (in memory up to a few MB, then on disk): the sheet
    "Libro de ventas" (or compras), then "Resumen" (the IVA return's figures, totals per type and currency) and
    one sheet per group kept apart ("Rechazados por DGI"...)."""
    kind = summary.kind or SALES
    book = spreadsheet.workbook()
    sheet = book.create_sheet(kind.title)
    sheet.append(list(header(kind)))
    for row in rows:
        summary.add(row)
        if not row.rejected:
            sheet.append(_cells(sheet, kind, row))
    _overview(book.create_sheet(say(_("Resumen"))), kind, summary, desde, hasta)
    for apart, _key, heading in kind.apart:
        rejected = book.create_sheet(heading)
        rejected.append(list(header(kind)))
        for row in summary.apart.get(apart, []):
            rejected.append(_cells(rejected, kind, row))
    return spreadsheet.saved(book)


def _overview(overview: WriteOnlyWorksheet, kind: BookKind, summary: BookSummary, desde: date, hasta: date) -> None:
    """The "Resumen" sheet, in the request's language (the module's docstring says why only it)."""
    dates = {"desde": f"{desde:%d/%m/%Y}", "hasta": f"{hasta:%d/%m/%Y}"}
    period = (
        _("Libro de ventas del {desde} al {hasta}", **dates)
        if kind is SALES
        else _("Libro de compras del {desde} al {hasta}", **dates)
    )
    overview.append([say(period), None])
    overview.append([say(_("Comprobantes en el libro")), summary.total.count])
    overview.append([])
    overview.append([say(_("Para la declaración de IVA (en pesos)")), None])
    for key, value in summary.declaration.items():
        overview.append([say(DECLARATION_LABELS[key]), value])
    amounts = [say(AMOUNT_LABELS[n]) for n in AMOUNT_NAMES]
    overview.append([])
    overview.append([say(_("Por tipo (en pesos)")), say(_("Cantidad")), *amounts])
    for code, totals in sorted(summary.by_type.items()):
        overview.append([type_name_es(code), totals.count, *(totals.amounts[n] for n in AMOUNT_NAMES)])
    overview.append([])
    overview.append([say(_("Por moneda (en la moneda)")), say(_("Cantidad")), *amounts])
    for currency, totals in sorted(summary.by_currency.items()):
        overview.append([currency, totals.count, *(totals.own[n] for n in AMOUNT_NAMES)])
