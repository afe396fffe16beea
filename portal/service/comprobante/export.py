"""The receipt list as CSV for a spreadsheet in Uruguay: `;` between fields, decimal comma, dd/mm/aaaa,
UTF-8 with a byte-order mark (without it Excel reads the file as Windows-1252 and breaks "Crédito"). Text that
people typed (a receiver's name) never becomes a formula (`text_cell`). The portal's export is this file, or the
same columns as XLSX (`xlsx_file`) with real dates and numbers."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator, Mapping
from decimal import Decimal
from typing import IO

from openpyxl.worksheet._write_only import WriteOnlyWorksheet

from portal.domain.cfe_types import CFE_TYPES
from portal.domain.dgi_states import DGI_STATES
from portal.domain.receipt_numbers import printed
from portal.service.cfe.pdf_text import number
from portal.service.comprobante.amounts import AMOUNT_NAMES, ZERO, is_credit_note, signed_amounts
from portal.service.platform import spreadsheet
from portal.service.platform.i18n import _

HEADER = (
    _("Fecha"),
    _("Tipo"),
    _("Serie"),
    _("Número"),
    _("Documento del receptor"),
    _("Receptor"),
    _("Moneda"),
    _("Total"),
    _("Total a pagar"),
    _("Estado DGI"),
    _("Anulado por"),
    # The sales book's amount columns (portal/service/informes/ventas.py), in the receipt's currency.
    _("Exento y no gravado"),
    _("Exportación y asimiladas"),
    _("IVA en suspenso"),
    _("Neto tasa mínima"),
    _("Neto tasa básica"),
    _("Neto otra tasa"),
    _("IVA tasa mínima"),
    _("IVA tasa básica"),
    _("IVA otra tasa"),
    _("Percepciones"),
    _("Retenciones"),
    # The service's identifiers last, as before the book's columns came.
    _("Identificador"),
    _("Solicitud"),
)
# The DGI states' names (portal.domain.dgi_states, the same Spanish) as catalogue messages: the export's "Estado DGI"
# column is said in the reader's language with its header (the route says them while the request is there).
DGI_STATE_NAMES = {
    "pendiente": _("Pendiente de envío a DGI"),
    "en_sobre": _("Enviando a DGI"),
    "recibido": _("Recibido por DGI"),
    "aceptado": _("Aceptado por DGI"),
    "rechazado": _("Rechazado por DGI"),
    "observado": _("Observado por DGI"),
    "sobre_rechazado": _("Sobre rechazado por DGI"),
    "pendiente_reporte": _("Va en el reporte diario"),
    "en_reporte": _("Incluido en el reporte diario"),
}
# The book's columns the CSV adds after the list's own (its total is the list's Total already).
BOOK_COLUMNS = tuple(name for name in AMOUNT_NAMES if name != "total")
_BATCH = 500
# What makes a spreadsheet read a cell as a formula (OWASP, "CSV Injection").
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def text_cell(value: str) -> str:
    """A text cell as a spreadsheet must show it: one that starts like a formula (`=HYPERLINK(...)` as a
    receiver's name) gets a leading `'`, so it is shown as typed and never run. Only for text: an amount such as
    -12,50 stays a number."""
    return "'" + value if value.startswith(_FORMULA_STARTS) else value


def _amount(value) -> str:
    return number(value, 2, grouped=False)


def _type(code: int) -> str:
    kind = CFE_TYPES.get(code)
    return kind.name_es if kind else str(code)


def _note_name(note) -> str:
    return f"{_type(note.tipo_cfe)} {printed(note.serie, note.nro)}" if note else ""


def csv_row(row, cancelled_by=None, states: Mapping[str, str] = DGI_STATES) -> tuple:
    """A receipt (search.EXPORTED columns) as a line: amounts negative for a credit note, as the list's totals
    count it; the note that cancelled it, if one did; net and IVA per rate as the sales book reads them."""
    sign = -1 if is_credit_note(row.tipo_cfe) else 1
    amounts = signed_amounts(row.tipo_cfe, (getattr(row, name, None) for name in AMOUNT_NAMES))
    return (
        row.fch_emis.strftime("%d/%m/%Y"),
        text_cell(_type(row.tipo_cfe)),
        text_cell(row.serie),
        row.nro,
        text_cell(row.receptor_doc or ""),
        text_cell(row.receptor_nombre or ""),
        text_cell(row.tpo_moneda),
        _amount(sign * Decimal(str(row.mnt_total))),
        _amount(sign * Decimal(str(row.mnt_pagar))),
        text_cell(states.get(row.dgi_status, row.dgi_status)),
        text_cell(_note_name(cancelled_by)),
        *(_amount(amounts.get(name, ZERO)) for name in BOOK_COLUMNS),
        text_cell(row.id),
        text_cell(row.request_id or ""),
    )


def _xlsx_cells(sheet: WriteOnlyWorksheet, row, cancelled_by, states: Mapping[str, str]) -> list[object]:
    """`csv_row` for a spreadsheet: the date a date, the amounts numbers (credit notes negative), the receiver's
    text as typed."""
    sign = -1 if is_credit_note(row.tipo_cfe) else 1
    amounts = signed_amounts(row.tipo_cfe, (getattr(row, name, None) for name in AMOUNT_NAMES))
    return [
        spreadsheet.day(sheet, row.fch_emis),
        _type(row.tipo_cfe),
        row.serie,
        row.nro,
        spreadsheet.text(sheet, row.receptor_doc),
        spreadsheet.text(sheet, row.receptor_nombre),
        row.tpo_moneda,
        spreadsheet.amount(sheet, sign * Decimal(str(row.mnt_total))),
        spreadsheet.amount(sheet, sign * Decimal(str(row.mnt_pagar))),
        states.get(row.dgi_status, row.dgi_status),
        _note_name(cancelled_by),
        *(spreadsheet.amount(sheet, amounts.get(name, ZERO)) for name in BOOK_COLUMNS),
        row.id,
        spreadsheet.text(sheet, row.request_id),
    ]


def xlsx_file(
    rows: Iterable[tuple],
    header: Iterable[str] = HEADER,
    title: str = "Comprobantes",
    states: Mapping[str, str] = DGI_STATES,
) -> IO[bytes]:
    """The same list as an XLSX workbook of one sheet (`title`), from the same (row, cancelling note) pairs,
    streamed row by row as the IVA books are (portal/service/platform/spreadsheet.py)."""
    book = spreadsheet.workbook()
    sheet = book.create_sheet(title)
    sheet.append(list(header))
    for row, cancelled_by in rows:
        sheet.append(_xlsx_cells(sheet, row, cancelled_by, states))
    return spreadsheet.saved(book)


def csv_chunks(
    rows: Iterable[tuple], header: Iterable[str] = HEADER, states: Mapping[str, str] = DGI_STATES
) -> Iterator[str]:
    """The file from (row, cancelling note) pairs (search.export_rows_closing), in chunks of a few hundred
    lines, so a long export starts at once and stays small in memory.
    `header`, `states`: the column names and the DGI states' names in the request's language (`say` them while the
    request is there)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=";", lineterminator="\r\n")
    buffer.write("\ufeff")
    writer.writerow(header)
    for count, (row, cancelled_by) in enumerate(rows, start=1):
        writer.writerow(csv_row(row, cancelled_by, states))
        if count % _BATCH == 0:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()
