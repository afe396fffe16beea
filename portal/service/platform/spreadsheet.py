"""XLSX downloads (the IVA books, the receipt list): openpyxl's write-only mode, which writes each row out as it
comes so memory stays flat, with real numbers and dates in the formats a spreadsheet in Uruguay shows, and text
that people typed kept as text (openpyxl would store a string that starts with "=" as a formula)."""

from __future__ import annotations

import tempfile
from datetime import date
from decimal import Decimal
from typing import IO

from openpyxl import Workbook
from openpyxl.cell import WriteOnlyCell
from openpyxl.worksheet._write_only import WriteOnlyWorksheet

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
DATE_FORMAT = "DD/MM/YYYY"
AMOUNT_FORMAT = "#,##0.00"
RATE_FORMAT = "0.000"


def workbook() -> Workbook:
    """An empty workbook that streams its sheets' rows (`Workbook.create_sheet`, then `append`)."""
    return Workbook(write_only=True)


def formatted(sheet: WriteOnlyWorksheet, value: object, number_format: str) -> WriteOnlyCell:
    cell = WriteOnlyCell(sheet, value=value)
    cell.number_format = number_format
    return cell


def day(sheet: WriteOnlyWorksheet, value: date) -> WriteOnlyCell:
    return formatted(sheet, value, DATE_FORMAT)


def amount(sheet: WriteOnlyWorksheet, value: Decimal | int | float) -> WriteOnlyCell:
    return formatted(sheet, value, AMOUNT_FORMAT)


def text(sheet: WriteOnlyWorksheet, value: str | None) -> str | WriteOnlyCell:
    """A text as typed: as it is, unless it would be read as a formula (a receiver named "=HYPERLINK(...)"),
    then a cell of type string."""
    if not value or not value.startswith("="):
        return value or ""
    cell = WriteOnlyCell(sheet, value=value)
    cell.data_type = "s"
    return cell


def saved(book: Workbook) -> IO[bytes]:
    """The workbook in a temporary file (in memory up to a few MB, then on disk), read from its start."""
    out = tempfile.SpooledTemporaryFile(max_size=8 * 1024 * 1024)
    book.save(out)
    out.seek(0)
    return out
