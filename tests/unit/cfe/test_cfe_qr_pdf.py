"""The QR link and the printed representation (checked through poppler's pdftotext and pdfinfo)."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import replace
from datetime import date
from decimal import Decimal

import pytest

from portal.service.cfe import parse_cfe_input, render_pdf, render_preview_pdf, render_signed_pdf
from portal.service.cfe.amounts import compute_totals
from portal.service.cfe.pdf_text import money, trimmed
from portal.service.cfe.printable import from_input, from_xml
from portal.service.cfe.qr import qr_url, qr_url_for


def _poppler(tool: str, pdf: bytes, tmp_path, *args: str) -> str:
    binary = shutil.which(tool)
    assert binary, f"{tool} (Debian package poppler-utils) must be installed"
    path = tmp_path / "receipt.pdf"
    path.write_bytes(pdf)
    return subprocess.run(
        [binary, *args, str(path), "-"] if tool == "pdftotext" else [binary, str(path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    ).stdout


def test_qr_url_percent_encodes_the_digest():
    url = qr_url(
        "219999830019",
        111,
        "A",
        758,
        Decimal("291.45"),
        date(2024, 10, 22),
        "dpmLMfgpd/WbZvORW8oErIkY+DtbsUHnh2gnmZyu5HY=",
    )
    assert url == (
        "https://www.efactura.dgi.gub.uy/consultaQR/cfe?219999830019,111,A,758,291.45,20241022,"
        "dpmLMfgpd%2FWbZvORW8oErIkY%2BDtbsUHnh2gnmZyu5HY%3D"
    )


def test_qr_url_options_and_amount_per_type(realistic):
    url = qr_url(
        "219999830019",
        101,
        "A",
        1,
        Decimal(1007),
        date(2026, 7, 30),
        "ab+c",
        date_format="%d/%m/%Y",
        base_url="https://efactura.testing.dgi.gub.uy/consultaQR/cfe",
    )
    assert url == "https://efactura.testing.dgi.gub.uy/consultaQR/cfe?219999830019,101,A,1,1007.00,30/07/2026,ab%2Bc"
    remito = compute_totals(parse_cfe_input(realistic[181]))
    assert "?219999830019,181,A,1,0,20240511,x" in qr_url_for(
        "219999830019", 181, "A", 1, remito, date(2024, 5, 11), "x"
    )
    resguardo = compute_totals(parse_cfe_input(realistic[182]))
    assert ",55000.00," in qr_url_for("219999830019", 182, "A", 1, resguardo, date(2024, 5, 31), "x")


def test_signed_cfe_carries_the_qr_url(realistic, sign, issuer, numbering):
    signed = sign(realistic[111])
    assert signed.qr_url.startswith(
        f"https://www.efactura.dgi.gub.uy/consultaQR/cfe?{issuer.rut},111,"
        f"{numbering.serie},{numbering.nro},29170.70,20240511,"
    )
    assert "+" not in signed.qr_url and "/" not in signed.qr_url.split("?")[1]


def test_es_uy_number_formats():
    assert money(Decimal("1234567.5")) == "1.234.567,50"
    assert money(Decimal("-1234.567")) == "-1.234,57"
    assert money(Decimal("0")) == "0,00"
    assert trimmed(Decimal("40.000"), 0, 3) == "40" and trimmed(Decimal("8.5"), 0, 3) == "8,5"
    assert trimmed(Decimal("4200"), 2, 6) == "4.200,00" and trimmed(Decimal("15.333333"), 2, 6) == "15,333333"


def test_invoice_shows_totals_per_rate_and_legends(realistic, sign, issuer, numbering, tmp_path):
    cfe = parse_cfe_input(realistic[111])
    text = _poppler("pdftotext", render_signed_pdf(cfe, issuer, numbering, sign(realistic[111])), tmp_path, "-layout")
    for expected in (
        "e-Factura",
        "Forma de pago: Crédito",
        "Neto IVA tasa básica 22%",
        "8.910,00",
        "1.960,20",
        "Neto IVA tasa mínima 10%",
        "10.500,00",
        "1.050,00",
        "Exento / no gravado",
        "700,50",
        "TOTAL UYU",
        "23.120,70",
        "Monto no facturable",
        "5.000,00",
        "TOTAL A PAGAR UYU",
        "29.170,70",
        "ADENDA",
        "Entregar en depósito 2.",
        "Pronto pago 1%",
        "Transferencia",
        "Res. DGI 1234/2024",
        "Almacén de Prueba",
        "Avda. Daniel Fernández Crespo 1534",
        "214844360018",
    ):
        assert expected in text, expected


def test_notes_print_their_references(realistic, sign, issuer, numbering, tmp_path):
    cfe = parse_cfe_input(realistic[112])
    text = _poppler("pdftotext", render_signed_pdf(cfe, issuer, numbering, sign(realistic[112])), tmp_path)
    assert "Referencias" in text and "e-Factura A 2 del 11/05/2024 - Mercadería en mal estado" in text


@pytest.mark.parametrize(
    ("tipo", "referenced", "printed"),
    [(112, 211, "e-Factura de contingencia"), (102, 201, "e-Ticket de contingencia")],
)
def test_a_note_names_the_paper_contingency_receipt_it_adjusts(
    tipo, referenced, printed, realistic, sign, issuer, numbering, tmp_path
):
    """A note on a paper receipt keyed in (2xx) names it by its type, not "Tipo 211"."""
    body = {
        **realistic[tipo],
        "referencias": [{"tpoDocRef": referenced, "serie": "B", "nroCFERef": 5, "fechaCFEref": "2024-05-01"}],
    }
    text = _poppler("pdftotext", render_signed_pdf(parse_cfe_input(body), issuer, numbering, sign(body)), tmp_path)
    assert f"{printed} B 5 del 01/05/2024" in " ".join(text.split())


def test_signed_render_requires_fiscal_data(realistic, issuer):
    printable = from_input(parse_cfe_input(realistic[101]), issuer)  # a preview: no number, CAE or QR
    with pytest.raises(ValueError):
        render_pdf(replace(printable, preview=False))


def test_the_qr_and_security_code_are_read_from_the_signed_xml_when_not_stored(realistic, sign, issuer, tmp_path):
    signed = sign(realistic[111])
    printable = from_xml(signed.xml, issuer)
    assert printable.security_code == signed.security_code and printable.qr_url == signed.qr_url


def test_characters_outside_the_font_do_not_break_rendering(realistic, issuer, tmp_path):
    body = realistic[101]
    body["items"][0]["nomItem"] = "Té verde 🍵 — “premium” € ✓"
    text = _poppler("pdftotext", render_preview_pdf(parse_cfe_input(body), issuer), tmp_path)
    # The check mark is beyond Helvetica, so the receipt is drawn with DejaVu Sans whole; nothing draws the emoji.
    assert "Té verde ? — “premium” € ✓" in text


def test_dejavu_can_be_embedded_instead_of_the_core_font(realistic, issuer, tmp_path, monkeypatch):
    from portal.service.cfe import fonts

    dejavu = fonts._build("dejavu")
    assert dejavu.family == "DejaVu" and dejavu.files is not None
    monkeypatch.setattr(fonts, "font_set", lambda: dejavu)
    body = realistic[101]
    body["items"][0]["nomItem"] = "Té “verde” — ñandú"
    pdf = render_preview_pdf(parse_cfe_input(body), issuer)
    text = _poppler("pdftotext", pdf, tmp_path)
    assert "Té “verde” — ñandú" in text and "SIN VALOR FISCAL" in text
    assert b"/FontFile2" in pdf  # embedded


@pytest.mark.parametrize("tipo", [111, 181])
def test_a_line_without_a_unit_prints_no_unit(tipo, realistic, sign, issuer, numbering, tmp_path):
    """A line whose unit is N/A (the default) prints its quantity alone, as the receipt page shows it; a line
    with a unit still prints it."""
    body = realistic[tipo]
    body["items"][0].pop("uniMed", None)
    text = _poppler(
        "pdftotext", render_signed_pdf(parse_cfe_input(body), issuer, numbering, sign(body)), tmp_path, "-layout"
    )
    assert "N/A" not in text
    rows = [line.split() for line in text.splitlines()]
    assert any(row[:1] == [body["items"][1]["nomItem"]] and "kg" in row for row in rows)
