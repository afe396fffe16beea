"""One money formatter and one sign table on the service's side, one file-response helper per side that never
lets a name it did not choose into a header."""

from __future__ import annotations

from decimal import Decimal

import pytest
from flask import Flask

from portal.domain.money import currency_sign
from portal.service.cfe.pdf_text import money, number
from portal.service.platform import files as service_files
from portal.web import files as portal_files

HOSTILE = ["../../etc/passwd", 'factura".pdf', "a\r\nSet-Cookie: x=1.pdf", "", None, "Ñandú S.A. 😀.pdf"]


@pytest.mark.parametrize(
    ("value", "currency", "said"),
    [
        (Decimal("1234.5"), "USD", "U$S 1.234,50"),
        (Decimal("-1234567.891"), "UYU", "$ -1.234.567,89"),
        (Decimal("0"), "EUR", "EUR 0,00"),
        (1234.5, None, "1.234,50"),
    ],
)
def test_the_services_one_money_formatter(value, currency, said):
    assert money(value, currency) == said


def test_a_spreadsheet_cell_is_the_same_number_without_thousands():
    assert number(Decimal("1234567.5"), 2, grouped=False) == "1234567,50"
    assert currency_sign("UYU") == "$" and currency_sign("USD") == "U$S" and currency_sign(None) == ""


@pytest.mark.parametrize("side", [portal_files, service_files])
@pytest.mark.parametrize("name", HOSTILE)
def test_a_file_name_never_breaks_the_header(side, name):
    with Flask(__name__).test_request_context():
        response = side.file_response(b"x", "application/pdf", name, inline=False)
    header = response.headers["Content-Disposition"]
    # The ASCII name (filename=), then maybe the readable one percent-encoded (filename*=, RFC 6266).
    plain, _, readable = header.partition("; filename*=UTF-8''")
    assert plain.startswith('attachment; filename="') and plain.endswith('"')
    inside = plain[len('attachment; filename="') : -1]
    assert inside and all(c.isalnum() or c in "._-" for c in inside) and ".." not in inside.replace("...", "")
    assert "\r" not in header and "\n" not in header and "/" not in inside
    assert all(c.isalnum() or c in "%._-" for c in readable)  # percent-encoded: no quote, space or slash
