"""One grammar for a typed receipt number and one way to print it (portal.domain.receipt_numbers)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from portal.domain.receipt_numbers import PATTERN, ReceiptNumber, is_receipt_number, printed


@pytest.mark.parametrize(
    ("typed", "serie", "number"),
    [
        ("A-15", "A", 15),
        ("A-0000015", "A", 15),
        ("a 0000015", "A", 15),
        ("A15", "A", 15),
        (" ab - 9999999 ", "AB", 9999999),
        ("1A 15", "1A", 15),
        ("15", None, 15),
        ("0000015", None, 15),
    ],
)
def test_what_people_type_is_read_the_same_everywhere(typed, serie, number):
    assert ReceiptNumber.parse(typed) == ReceiptNumber(serie, number)
    assert re.match(PATTERN, typed)  # the pattern OpenAPI publishes accepts what the parser accepts


@pytest.mark.parametrize("typed", ["", "A-", "A-0", "ABC-15", "A-12345678", "Factura quince", "A--15", "0A 1"])
def test_what_is_not_a_number_is_refused(typed):
    assert not is_receipt_number(typed)
    with pytest.raises(ValueError):
        ReceiptNumber.parse(typed)


@given(st.from_regex(r"[A-Z]{1,2}", fullmatch=True), st.integers(min_value=1, max_value=9_999_999))
def test_a_printed_number_reads_back(serie, number):
    assert printed(serie, number) == f"{serie}-{number:07d}"
    assert ReceiptNumber.parse(printed(serie, number)) == ReceiptNumber(serie, number)
    assert str(ReceiptNumber(serie, number)) == printed(serie, number)
