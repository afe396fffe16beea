"""The receipt list as CSV for a spreadsheet in Uruguay: `;` between fields, decimal comma, dd/mm/aaaa,
UTF-8 with a byte-order mark (without it Excel reads the file as Windows-1252 and breaks "Crédito"). Text that
people typed (a receiver's name) never becomes a formula (`text_cell`). The portal's export is this file."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator

from portal.domain.cfe_types import CFE_TYPES
from portal.domain.dgi_states import DGI_STATES
from portal.service.cfe.pdf_text import number
from portal.service.i18n import _

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
    _("Identificador"),
    _("Solicitud"),
)
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


def csv_row(row) -> tuple:
    return (
        row.fch_emis.strftime("%d/%m/%Y"),
        text_cell(_type(row.tipo_cfe)),
        text_cell(row.serie),
        row.nro,
        text_cell(row.receptor_doc or ""),
        text_cell(row.receptor_nombre or ""),
        text_cell(row.tpo_moneda),
        _amount(row.mnt_total),
        _amount(row.mnt_pagar),
        text_cell(DGI_STATES.get(row.dgi_status, row.dgi_status)),
        text_cell(row.id),
        text_cell(row.request_id or ""),
    )


def csv_chunks(rows: Iterable, header: Iterable[str] = HEADER) -> Iterator[str]:
    """The file in chunks of a few hundred lines, so a long export starts at once and stays small in memory.
    `header`: the column names in the request's language (`say` them while the request is there)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=";", lineterminator="\r\n")
    buffer.write("\ufeff")
    writer.writerow(header)
    for count, row in enumerate(rows, start=1):
        writer.writerow(csv_row(row))
        if count % _BATCH == 0:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()
