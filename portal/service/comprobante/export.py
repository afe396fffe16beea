"""The receipt list as CSV for a spreadsheet in Uruguay: `;` between fields, decimal comma, dd/mm/aaaa,
UTF-8 with a byte-order mark (without it Excel reads the file as Windows-1252 and breaks "Crédito")."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator
from decimal import Decimal

from portal.domain.cfe_types import CFE_TYPES
from portal.domain.dgi_states import DGI_STATES

HEADER = (
    "Fecha",
    "Tipo",
    "Serie",
    "Número",
    "Documento del receptor",
    "Receptor",
    "Moneda",
    "Total",
    "Total a pagar",
    "Estado DGI",
    "Identificador",
    "Solicitud",
)
_BATCH = 500


def _amount(value) -> str:
    return f"{Decimal(str(value)):.2f}".replace(".", ",")


def _type(code: int) -> str:
    kind = CFE_TYPES.get(code)
    return kind.name_es if kind else str(code)


def csv_row(row) -> tuple:
    return (
        row.fch_emis.strftime("%d/%m/%Y"),
        _type(row.tipo_cfe),
        row.serie,
        row.nro,
        row.receptor_doc or "",
        row.receptor_nombre or "",
        row.tpo_moneda,
        _amount(row.mnt_total),
        _amount(row.mnt_pagar),
        DGI_STATES.get(row.dgi_status, row.dgi_status),
        row.id,
        row.request_id or "",
    )


def csv_chunks(rows: Iterable) -> Iterator[str]:
    """The file in chunks of a few hundred lines, so a long export starts at once and stays small in memory."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=";", lineterminator="\r\n")
    buffer.write("\ufeff")
    writer.writerow(HEADER)
    for count, row in enumerate(rows, start=1):
        writer.writerow(csv_row(row))
        if count % _BATCH == 0:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()
