"""The bilingual printed receipt: for a receiver abroad (and on request) our labels print in Spanish and
English, while DGI's fiscal legends stay exactly as DGI writes them; a receipt for a Uruguayan receiver stays
in Spanish unless asked."""

from __future__ import annotations

import subprocess

import pytest

from portal.service.cfe.pdf import render_receipt
from tests.unit.cfe.types_bodies import EXPORT

FISCAL_LEGENDS = (
    "RUC EMISOR",
    "e-Factura de Exportación",
    "Fecha de vencimiento",
    "Código de seguridad:",
    "Puede verificar comprobante en www.dgi.gub.uy",
    "CAE Nº 90240000194",
)
ENGLISH = (
    "Fecha / Date:",
    "TOTAL A PAGAR / AMOUNT DUE",
    "Página 1 de 1 / Page 1 of 1",
    "Cláusula de venta / Incoterm: FOB",
)


def _text(pdf: bytes, tmp_path) -> str:
    (tmp_path / "r.pdf").write_bytes(pdf)
    out = subprocess.run(["pdftotext", str(tmp_path / "r.pdf"), "-"], capture_output=True, text=True, check=True)
    return " ".join(out.stdout.split())


def _print(signed, issuer, **options) -> bytes:
    return render_receipt(signed.xml, issuer, security_code=signed.security_code, qr_url=signed.qr_url, **options)


def test_a_receiver_abroad_gets_both_languages_and_dgis_legends_untouched(sign, issuer, tmp_path):
    text = _text(_print(sign(EXPORT["121-goods"]), issuer), tmp_path)
    for label in ENGLISH:
        assert label in text
    for legend in FISCAL_LEGENDS:
        assert legend in text
    assert "Description" in text and "Unit price" in text  # the table's titles, English under Spanish
    assert "ISSUER" not in text and "Security code" not in text and "Expiry" not in text


@pytest.mark.parametrize(
    ("body", "asked", "expected"), [("efactura", None, False), ("efactura", True, True), ("export", False, False)]
)
def test_bilingual_on_request_and_off_on_request(body, asked, expected, sign, issuer, realistic, tmp_path):
    request = realistic[111] if body == "efactura" else EXPORT["121-goods"]
    text = _text(_print(sign(request), issuer, bilingual=asked), tmp_path)
    assert ("Fecha / Date:" in text) is expected
    assert ("Página 1 de 1 / Page 1 of 1" in text) is expected
    assert "RUC EMISOR" in text and "RUC COMPRADOR" in text or body == "export"


def test_a_roll_stays_in_spanish(sign, issuer, realistic, tmp_path):
    text = _text(_print(sign(realistic[101]), issuer, bilingual=True, paper="80mm"), tmp_path)
    assert "/ Date" not in text
