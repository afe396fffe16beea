"""The period's PDF as its reader sees it (read back through poppler's pdftotext, as the other PDF tests do): every
count and amount in the PDF's language (es-UY 1.234,56; English 1,234.56), and a long customer, supplier or
company name wrapped whole, never cut, never over the document and figures beside it."""

from __future__ import annotations

import os
import re
import subprocess
from datetime import date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from flask import Flask

from portal.service.informes.compras_periodo import PurchasesReport
from portal.service.informes.pdf import summary_pdf
from portal.service.informes.periodo import Bucket, PeriodReport
from portal.service.informes.ventas import BookRow
from tests.support.i18n import asked_in

COMPANY = (
    "Compañía Administradora de Servicios Logísticos, Portuarios y Aduaneros del Río de la Plata y del Litoral "
    "Oriental S.A."
)
CUSTOMER = "Distribuidora Internacional de Productos Alimenticios del Litoral Norte S.R.L."
CUSTOMER_RUT = "217654320014"
SUPPLIER = "Cooperativa Agropecuaria de Productores Lecheros y Hortícolas del Litoral Norte y Noreste S.A."
SUPPLIER_RUT = "211003420017"
TICKETS = 1233  # e-Tickets to final consumers, with the e-Factura 1,234 receipts: a count with a thousands mark
START, END = date(2026, 11, 1), date(2026, 11, 30)
A4_WIDTH_PT = 595.28
ENGLISH = "en-US,en;q=0.9"


def _row(tipo: int, party: tuple[str, str] | None, net: str, iva: str, nro: int) -> BookRow:
    amounts = {"netoTasaBasica": Decimal(net), "ivaTasaBasica": Decimal(iva), "total": Decimal(net) + Decimal(iva)}
    doc, name = party or (None, None)
    return BookRow(str(nro), START, tipo, "A", nro, doc, name, "UYU", Decimal(1), "aceptado", None, amounts, amounts)


def _reports() -> tuple[PeriodReport, PurchasesReport]:
    sales = PeriodReport(desde=START, hasta=END, by_day=True)
    sales.timeline = {START + timedelta(days=n): Bucket() for n in range((END - START).days + 1)}
    sales.add(_row(111, (CUSTOMER_RUT, CUSTOMER), "1011940.89", "222627.00", 1))
    for nro in range(2, TICKETS + 2):
        sales.add(_row(101, None, "100.00", "22.00", nro))
    sales.dgi_states = {"aceptado": TICKETS + 1}
    purchases = PurchasesReport(desde=START, hasta=END)
    purchases.add(_row(111, (SUPPLIER_RUT, SUPPLIER), "10500.50", "2310.11", 1))
    return sales, purchases


def _pdf(language: str, tmp_path: Path, *, bbox: bool = False) -> str:
    """The PDF rendered for a request in `language`, as pdftotext -layout reads it (or its words' boxes)."""
    sales, purchases = _reports()
    with asked_in(Flask(__name__), language):
        content = summary_pdf(COMPANY, sales, purchases, datetime(2026, 12, 1, 9, 30))
    path = tmp_path / f"summary-{language[:2]}.pdf"
    path.write_bytes(content)
    if os.environ.get("CFE_SHOTS_DIR"):  # to look at it
        (Path(os.environ["CFE_SHOTS_DIR"]) / f"period-summary-long-names-{language[:2]}.pdf").write_bytes(content)
    mode = "-bbox" if bbox else "-layout"
    return subprocess.run(["pdftotext", mode, str(path), "-"], capture_output=True, text=True, check=True).stdout


def _figures(text: str, label: str) -> list[str]:
    """The figures after `label` on the first line that starts with it."""
    line = next(line.strip() for line in text.splitlines() if line.strip().startswith(label))
    return line[len(label) :].split()


@pytest.mark.parametrize(
    ("language", "labels", "figures"),
    [
        (
            "es-UY,es;q=0.9",
            ("Comprobantes", "Total en pesos", "IVA tasa básica", "Tasa básica (22 %)", "Aceptado por DGI"),
            ("1.234", "$ 1.384.993,89", "249.753,00", "10.500,50 2.310,11 12.810,61", "1.234"),
        ),
        (
            ENGLISH,
            ("Receipts", "Total in pesos", "VAT at the basic rate", "Basic rate (22%)", "Accepted by DGI"),
            ("1,234", "$ 1,384,993.89", "249,753.00", "10,500.50 2,310.11 12,810.61", "1,234"),
        ),
    ],
    ids=["es", "en"],
)
def test_every_count_and_amount_follows_the_pdfs_language(tmp_path, language, labels, figures):
    """An English PDF wrote its amounts "1.384.993,89" and its counts "1234": pdf_text's es-UY formats, meant for
    DGI's printed receipt, not Babel's in the request's language."""
    text = _pdf(language, tmp_path)
    for label, expected in zip(labels, figures, strict=True):
        assert " ".join(_figures(text, label)) == expected, label
    assert _figures(text, "01/11/2026") == [figures[0], figures[1].split()[1]]  # the day's count and total
    # No amount anywhere in the other language's format: two decimals after a comma in English, after a dot in Spanish.
    other_decimals = r"\d\.\d\d(?!\d)" if language.startswith("es") else r"\d,\d\d(?!\d)"
    assert re.findall(other_decimals, text) == []


def _pages(boxes: str) -> list[list[tuple[float, float, float, float, str]]]:
    """Each page's words with their boxes (x0, y0, x1, y1, word) in points, from pdftotext -bbox."""
    pattern = r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>'
    return [
        [(float(a), float(b), float(c), float(d), word) for a, b, c, d, word in re.findall(pattern, page)]
        for page in boxes.split("<page ")[1:]
    ]


@pytest.mark.parametrize("language", ["es-UY,es;q=0.9", ENGLISH], ids=["es", "en"])
def test_a_long_name_wraps_whole_beside_its_rut_and_nothing_overlaps(tmp_path, language):
    """A customer's long name cut the RUT printed after it ("Distribuidora ... del Lit..." and no RUT): every table's
    name now wraps whole in its column, the customer's and the supplier's RUT in their own column on the name's first
    line, the company's name beside the moment the PDF was made; no word overlaps another or leaves the page."""
    text = _pdf(language, tmp_path)
    lines = text.splitlines()
    for rut, name in ((CUSTOMER_RUT, CUSTOMER), (SUPPLIER_RUT, SUPPLIER)):
        (at,) = [index for index, line in enumerate(lines) if rut in line.split()]
        first, *beside = re.split(r"\s{2,}", lines[at].strip())
        assert beside[0] == rut and beside[1] == "1"  # the RUT whole, then the count
        assert "..." not in lines[at]
        wrapped = [first, *(line.strip() for line in lines[at + 1 : at + 3])]
        assert name in " ".join(wrapped), wrapped
    assert COMPANY in " ".join(line.split("  ")[0].strip() for line in lines[:3])
    pages = _pages(_pdf(language, tmp_path, bbox=True))
    assert len(pages) == 2 and all(pages)
    for words in pages:
        assert max(word[2] for word in words) <= A4_WIDTH_PT - 15 / 25.4 * 72 + 1  # the 15 mm margin
        for index, (x0, y0, x1, y1, word) in enumerate(words):
            for other in words[index + 1 :]:
                overlaps = x0 < other[2] - 0.5 and other[0] < x1 - 0.5 and y0 < other[3] - 0.5 and other[1] < y1 - 0.5
                assert not overlaps, (word, other[4])
