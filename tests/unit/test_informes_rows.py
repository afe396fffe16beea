"""The IVA book's per-row shortcuts say exactly what the plain code said: the JSON row written by hand parses to
the dict the book documents, two_decimals formats as f"{:.2f}", SQLite's array of amounts splits back into them,
and a credit note's amounts (in pesos too) are negative."""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from portal.service.comprobante.amounts import signed_amounts
from portal.service.informes.compras import PURCHASES
from portal.service.informes.files import _CsvLines
from portal.service.informes.routes import _fila, fila_json
from portal.service.informes.ventas import AMOUNT_NAMES, SALES, _row, two_decimals


def _book_row(tipo: int = 111, moneda: str = "UYU", rate: str | None = None, name: str | None = 'Ñandú "SA" \\ =1+1'):
    values = ("id1", date(2026, 11, 3), tipo, "A", 17, "211234560018", name, moneda, "aceptado", rate, None)
    texts = ["700.50", "0.00", None, "0", "15000.00", "0.00", "0.00", "3300.00", "null", "0.00", "12.5", "19013.00"]
    return _row(values, texts)


def test_the_json_row_is_the_documented_dict_for_both_books():
    for row in (_book_row(), _book_row(112, "USD", "39.875"), _book_row(name=None)):
        for kind in (SALES, PURCHASES):
            assert json.loads(fila_json(row, kind)) == _fila(row, kind)


def test_a_credit_note_in_dollars_is_negative_in_both_currencies():
    row = _book_row(112, "USD", "39.875")
    assert row.amounts["total"] == Decimal("-19013.00")
    assert row.amounts_uyu["total"] == Decimal("-758143.38")  # 19013 x 39.875 = 758143.375, half up
    assert row.amounts_uyu["retenciones"] == Decimal("-498.44")  # 12.5 x 39.875 = 498.4375
    assert set(row.amounts) == {"noGravado", "netoTasaBasica", "ivaTasaBasica", "retenciones", "total"}


def test_a_peso_receipt_shares_its_amounts_and_the_csv_writes_them_with_a_comma():
    row = _book_row()
    assert row.amounts_uyu is row.amounts and row.tipo_cambio == 1
    line = _CsvLines(SALES).row(row)
    own = line[8 : 8 + len(AMOUNT_NAMES)]
    assert own[AMOUNT_NAMES.index("retenciones")] == "12,50"
    assert own[AMOUNT_NAMES.index("noGravado")] == "700,50" and own[1] == "0,00"
    assert line[5] == 'Ñandú "SA" \\ =1+1'
    assert _CsvLines(SALES).row(_book_row(name="=HYPERLINK(1)"))[5] == "'=HYPERLINK(1)"  # text, never a formula


@given(st.decimals(min_value=-(10**12), max_value=10**12, allow_nan=False, places=None))
def test_two_decimals_formats_as_the_format_spec(value):
    assert two_decimals(value) == f"{value:.2f}"


def test_stored_amounts_read_the_same_as_decimals_as_sqlites_floats_and_as_texts():
    """The amount columns as PostgreSQL answers them (Decimals), as SQLite's bare floats and integers, and as a
    CFE's XML writes them: the same non-zero amounts, with their two decimals, a credit note's negative."""
    decimals = [Decimal(text) for text in ("700.50", "0.00", "0", "0.10", "15000.00")] + [Decimal("0.00")] * 7
    floats = [700.5, 0.0, 0, 0.1, 15000] + [0.0] * 7
    texts = ["700.50", "0.00", None, "0.10", "15000.00"] + ["0"] * 7
    expected = {"noGravado": Decimal("700.50"), "netoTasaMinima": Decimal("0.10"), "netoTasaBasica": Decimal("15000")}
    for values in (decimals, floats, texts):
        amounts = signed_amounts(111, values)
        assert amounts == expected
        assert [str(value) for value in amounts.values()] == ["700.50", "0.10", "15000.00"]
        assert signed_amounts(112, values) == {name: -value for name, value in expected.items()}
    assert len(AMOUNT_NAMES) == 12
