"""Download names: a receipt's type and number, safe in the Content-Disposition header whatever they hold."""

from __future__ import annotations

from portal.web.files import file_response


def test_an_accented_name_goes_as_ascii_and_as_utf8():
    header = file_response(b"", "application/pdf", "Nota de crédito e-Ticket A-0000003.pdf", inline=False).headers[
        "Content-Disposition"
    ]
    assert header == (
        'attachment; filename="Nota_de_credito_e-Ticket_A-0000003.pdf"; '
        "filename*=UTF-8''Nota%20de%20cr%C3%A9dito%20e-Ticket%20A-0000003.pdf"
    )


def test_a_name_cannot_break_the_header_or_name_a_path():
    header = file_response(b"", "application/xml", 'x"\r\nSet-Cookie: a=b/../..\\evil.xml', inline=True).headers[
        "Content-Disposition"
    ]
    assert "\r" not in header and "\n" not in header and header.count('"') == 2
    assert "%2F" not in header and "%5C" not in header and "%22" not in header  # no path, no quote in the name
    assert header.startswith('inline; filename="x_Set-Cookie_ab_.._..evil.xml"')
