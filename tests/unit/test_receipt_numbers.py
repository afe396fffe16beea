"""One grammar for a typed receipt number and one way to print it (portal.domain.receipt_numbers)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from markupsafe import Markup

from portal.domain.receipt_numbers import PATTERN, PRINTED_IN_TEXT, ReceiptNumber, is_receipt_number, printed
from portal.web.comprobantes.choices import unbroken_numbers


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


@given(
    st.from_regex(r"[A-Z]{1,2}|[1-9][A-Z]", fullmatch=True),
    st.integers(min_value=1, max_value=9_999_999),
    st.sampled_from(["e-Factura {}", "Nota de crédito e-Ticket {}, de e-Ticket A-0000002", "({}).", "{}"]),
)
def test_a_printed_number_is_found_whole_in_a_text(serie, number, sentence):
    text = sentence.format(printed(serie, number))
    assert printed(serie, number) in [m[0] for m in PRINTED_IN_TEXT.finditer(text)]


@pytest.mark.parametrize(
    "text", ["RUT 21-484436-001-8", "2026-11-28", "e-Factura", "ABC-15", "A-12345678", "CAE 90260100050", "X-A-15"]
)
def test_what_is_not_a_printed_number_is_left_alone(text):
    assert PRINTED_IN_TEXT.search(text) is None
    assert unbroken_numbers(text) == Markup.escape(text)


def test_a_number_is_kept_whole_and_the_text_is_the_same():
    """An element around each number (CSS keeps it on one line), nothing else: the text read and copied is the
    same, escaped as any text, and markup given keeps its tags."""
    title = unbroken_numbers("Nota de crédito e-Factura A-0000003, de <e-Factura> A-0000001")
    assert title == Markup(
        'Nota de crédito e-Factura <span class="receipt-number">A-0000003</span>, de &lt;e-Factura&gt; '
        '<span class="receipt-number">A-0000001</span>'
    )
    assert title.striptags() == "Nota de crédito e-Factura A-0000003, de <e-Factura> A-0000001"
    linked = Markup('<a href="/x" title="A-0000001">e-Ticket A-0000001</a>')
    assert unbroken_numbers(linked) == Markup(
        '<a href="/x" title="A-0000001">e-Ticket <span class="receipt-number">A-0000001</span></a>'
    )
