"""DGI's "Formato de la representación impresa", checked on the PDFs themselves (docs/PRINTED-FORMAT.md).

Legends by text extraction (poppler's pdftotext); sizes, boxes, margins, the QR and its clearances from the
PDF's own font sizes and drawn positions (pdf_layout.measure, pdfminer.six).
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
from dataclasses import replace

import pytest
from lxml import etree
from PIL import Image

from portal.service.cfe import build_signed_cfe, parse_cfe_input, render_preview_pdf, render_signed_pdf
from portal.service.cfe.pdf import render_receipt
from portal.service.cfe.pdf_base import PaperNotAllowed
from tests.unit.cfe.conftest import SIGNED_AT, UI_VALUE
from tests.unit.cfe.pdf_layout import Box, measure

TYPES = [101, 102, 103, 111, 112, 113, 181, 182]
PRINTS = [(tipo, "a4") for tipo in TYPES] + [(tipo, paper) for tipo in (101, 102, 103) for paper in ("80mm", "57mm")]
COMPANY_URL = "https://www.almacen.com.uy/verificar"


def _text(pdf: bytes, tmp_path) -> str:
    binary = shutil.which("pdftotext")
    assert binary, "pdftotext (Debian package poppler-utils) must be installed"
    path = tmp_path / "receipt.pdf"
    path.write_bytes(pdf)
    text = subprocess.run([binary, str(path), "-"], capture_output=True, text=True, check=True, timeout=30).stdout
    return "\f".join(" ".join(page.split()) for page in text.split("\f"))  # a narrow roll wraps lines


@pytest.fixture
def printed(realistic, sign, issuer, numbering, signer):
    """printed(tipo, paper="a4", body=None, **issuer_changes) -> PDF bytes of a receipt signed by that issuer."""

    def _print(tipo: int, paper: str = "a4", body: dict | None = None, **changes) -> bytes:
        cfe = parse_cfe_input(body or realistic[tipo])
        settings = replace(issuer, **{"url_verificacion": COMPANY_URL, **changes})
        signed = build_signed_cfe(cfe, settings, numbering, signer, UI_VALUE, SIGNED_AT)
        return render_signed_pdf(cfe, settings, numbering, signed, paper=paper)

    return _print


_PRINTS: dict[tuple[int, str], tuple[bytes, list]] = {}


@pytest.fixture
def standard(printed):
    """standard(tipo, paper) -> (pdf, measured pages) of the standard receipt, printed once per test run."""

    def _standard(tipo: int, paper: str):
        if (tipo, paper) not in _PRINTS:
            pdf = printed(tipo, paper)
            _PRINTS[tipo, paper] = (pdf, measure(pdf))
        return _PRINTS[tipo, paper]

    return _standard


def _mandatory(tipo: int) -> list[str]:
    """Texts DGI wants at 3 mm or more on this type (sections 2, 3 and 5)."""
    found = ["219999830019", "Serie A Nº 0000017", "Fecha de vencimiento", "CAE 10/05/2026"]
    found.append("CONSUMO FINAL" if tipo < 110 else "RUC COMPRADOR")
    if tipo >= 110:
        found.append("214844360018")  # the receiver's RUC, inside the box
    if tipo < 180:
        found.append("Forma de pago:")
    return found


@pytest.mark.parametrize(("tipo", "paper"), PRINTS)
def test_every_mandatory_legend_is_printed(tipo, paper, standard, sign, realistic, tmp_path):
    text = _text(standard(tipo, paper)[0], tmp_path)
    code = sign(realistic[tipo]).security_code
    for legend in (
        "219999830019",
        "DGI RUC PRUEBA NO CEDE",
        "Avda. Daniel Fernández Crespo 1534",
        "Serie A Nº 0000017",
        f"Código de seguridad: {code}",
        "Res. DGI 1234/2024",
        "CAE Nº 90240000194",
        "Serie A del Nº 1 al 100000",
        "Fecha de vencimiento",
        "CAE 10/05/2026",
    ):
        assert legend in text, legend
    name = {
        101: "e-Ticket",
        102: "Nota de Crédito de e-Ticket",
        103: "Nota de Débito de e-Ticket",
        111: "e-Factura",
        112: "Nota de Crédito de e-Factura",
        113: "Nota de Débito de e-Factura",
        181: "e-Remito",
        182: "e-Resguardo",
    }[tipo]
    short = name.replace("Nota de Crédito de ", "NC ").replace("Nota de Débito de ", "ND ")
    assert name in text or (paper == "57mm" and short in text)  # DGI allows NC/ND where the name does not fit
    assert ("IVA al día" in text) is (tipo < 180)  # A-C17 exists on e-Tickets and e-Facturas only
    assert "..." not in text  # nothing was cut to fit
    site = "www.almacen.com.uy/verificar" if tipo < 110 else "www.dgi.gub.uy"
    assert f"Puede verificar comprobante en {site}" in text
    assert ("CONSUMO FINAL" if tipo < 110 else "RUC COMPRADOR") in text
    if tipo < 180:
        assert re.search(r"Forma de pago: (Contado|Crédito)", text)


@pytest.mark.parametrize(("tipo", "paper"), PRINTS)
def test_mandatory_text_is_3_mm_high_and_the_rest_2_mm(tipo, paper, standard):
    page = standard(tipo, paper)[1][0]
    for legend in _mandatory(tipo):
        chars = page.find(legend)
        assert min(c.cap_mm for c in chars) >= 3.0, (legend, min(c.cap_mm for c in chars))
    smallest = min(page.chars, key=lambda c: c.cap_mm)
    assert smallest.cap_mm >= 2.0, smallest


@pytest.mark.parametrize(("tipo", "paper"), PRINTS)
def test_boxes_qr_margins_and_strokes(tipo, paper, standard):
    page = standard(tipo, paper)[1][0]
    title = page.find("CONSUMO FINAL" if tipo < 110 else "RUC COMPRADOR")
    receiver_box = page.box_around(title)
    assert receiver_box.width >= 40 and receiver_box.height >= 10, receiver_box
    expiry_box = page.box_around(page.find("Fecha de vencimiento") + page.find("CAE 10/05/2026"))
    assert expiry_box.width >= 20 and expiry_box.height >= 10, expiry_box
    # The QR: one square image of 22 to 30 mm, 3 mm clear of every character and every line.
    [qr] = page.images
    assert 22 <= qr.width <= 30 and abs(qr.width - qr.height) < 0.1, qr
    assert min(qr.gap(c.box) for c in page.chars) >= 3.0
    assert min(qr.gap(s.box) for s in page.strokes) >= 3.0
    # The security code right under the QR.
    code = page.find("Código de seguridad")
    assert all(c.box.top >= qr.bottom for c in code)
    assert code[0].box.x0 < qr.x1 and code[-1].box.x1 > qr.x0
    # 5 mm margins on every side, and no hairline a 200 dpi thermal head would drop.
    inked = [
        Box(
            s.box.x0 - s.width_mm / 2,
            s.box.top - s.width_mm / 2,
            s.box.x1 + s.width_mm / 2,
            s.box.bottom + s.width_mm / 2,
        )
        for s in page.strokes
    ]  # a stroke's ink spreads both ways
    for item in [c.box for c in page.chars] + inked + page.images:
        assert item.x0 >= 5 and item.top >= 5 and item.x1 <= page.width - 5 and item.bottom <= page.height - 5, item
    assert all(s.width_mm >= 0.25 for s in page.strokes)


@pytest.mark.parametrize(("tipo", "paper"), PRINTS)
def test_lines_are_at_least_single_spaced(tipo, paper, standard):
    """DGI: "interlineado simple" at least. A character's box is one font size high, so two lines whose boxes
    do not overlap are spaced at least singly."""
    page = standard(tipo, paper)[1][0]
    lines = [
        Box(
            min(c.box.x0 for c in line),
            min(c.box.top for c in line),
            max(c.box.x1 for c in line),
            max(c.box.bottom for c in line),
        )
        for line in page.lines
        if line
    ]
    for index, one in enumerate(lines):
        for other in lines[index + 1 :]:
            overlap_x = min(one.x1, other.x1) - max(one.x0, other.x0)
            overlap_y = min(one.bottom, other.bottom) - max(one.top, other.top)
            assert overlap_x <= 0 or overlap_y <= 0.05, (one, other)


@pytest.mark.parametrize("paper", ["80mm", "57mm"])
def test_thermal_roll_is_one_page_as_wide_as_the_roll(paper, printed):
    pages = measure(printed(101, paper))
    assert len(pages) == 1
    assert pages[0].width == pytest.approx(float(paper[:2]), abs=0.1)
    assert 100 < pages[0].height < 400


@pytest.mark.parametrize("tipo", [111, 112, 113, 181, 182])
def test_a_roll_for_other_types_is_refused(tipo, printed):
    with pytest.raises(PaperNotAllowed):
        printed(tipo, "80mm")


@pytest.mark.parametrize(
    ("regimen", "legend"),
    [
        ("iva_minimo", "Contribuyente IVA MINIMO"),
        ("monotributo", "MONOTRIBUTO"),
        ("monotributo_mides", "MONOTRIBUTO SOCIAL MIDES"),
        ("exonerado", "Contribuyente Exonerado Ley 18.083 art. 52"),
    ],
)
@pytest.mark.parametrize("paper", ["a4", "80mm"])
def test_regime_box_is_4_by_1_cm_with_3_mm_characters(regimen, legend, paper, realistic, sign, issuer, tmp_path):
    signed = sign(realistic[101])
    settings = replace(issuer, regimen=regimen, norma_exoneracion="Ley 18.083 art. 52")
    pdf = render_receipt(signed.xml, settings, security_code=signed.security_code, qr_url=signed.qr_url, paper=paper)
    page = measure(pdf)[0]
    chars = page.find(legend.split(" Ley")[0])
    assert min(c.cap_mm for c in chars) >= 3.0
    box = page.box_around(chars)
    assert box.width >= 40 and box.height >= 10
    # The box comes before the receiver's identification.
    assert box.bottom <= page.find("CONSUMO FINAL")[0].box.top
    text = _text(pdf, tmp_path)
    if regimen in ("iva_minimo", "monotributo", "monotributo_mides"):  # no IVA mention but the constancia
        assert "IVA" not in text.replace("IVA al día", "").replace("IVA MINIMO", "")
    assert ("IVA al día" in text) is (regimen not in ("monotributo", "monotributo_mides"))


def test_fecha_emisor_when_the_issuer_entered_without_a_resolution(printed, tmp_path):
    text = _text(printed(111, resolucion=None, fecha_emisor="2019-07-01"), tmp_path)
    assert "Fecha emisor: 01/07/2019" in text and "Res." not in text


def test_etickets_without_a_company_url_point_to_dgi(printed, tmp_path):
    text = _text(printed(101, url_verificacion=None), tmp_path)
    assert "Puede verificar comprobante en www.dgi.gub.uy" in text


def test_an_issuer_without_iva_al_dia_prints_what_the_xml_says(printed, tmp_path):
    text = _text(printed(111, iva_al_dia=False), tmp_path)
    assert "No IVA al día emisor" in text and text.count("IVA al día") == 1


def _with_id_doc_flags(xml: bytes, **flags: str) -> bytes:
    """The signed XML with extra IdDoc elements (the printer reads them; the signature is not rechecked)."""
    root = etree.fromstring(xml)
    id_doc = root.find(".//{http://cfe.dgi.gub.uy}IdDoc")
    for tag, value in flags.items():
        etree.SubElement(id_doc, f"{{http://cfe.dgi.gub.uy}}{tag}").text = value
    return etree.tostring(root)


def test_third_party_and_collection_legends_come_from_the_xml(realistic, sign, issuer, tmp_path):
    signed = sign(realistic[111])
    xml = _with_id_doc_flags(signed.xml, IndPagCta3ros="1", IndCobPropia="1")
    pdf = render_receipt(xml, issuer, security_code=signed.security_code, qr_url=signed.qr_url)
    page = measure(pdf)[0]
    assert min(c.cap_mm for c in page.find("Pagos por cuenta de terceros")) >= 3.0
    assert min(c.cap_mm for c in page.find("e-Factura Cobranza")) >= 3.0
    remito = sign(realistic[181])
    xml = _with_id_doc_flags(remito.xml, IndPropiedad="1", DocProp="214844360018", RznSocProp="Dueño S.A.")
    text = _text(render_receipt(xml, issuer, security_code="abcdef", qr_url=remito.qr_url), tmp_path)
    assert "Bienes de Terceros Dueño S.A. 214844360018" in text


def test_a_reprint_shows_what_was_signed_not_the_request(realistic, sign, issuer, numbering, tmp_path):
    signed = sign(realistic[111])
    changed = realistic[111]
    changed["items"][0]["precioUnitario"] = "99999"  # as if the stored request or today's rules differed
    changed["adenda"] = "Adenda guardada"
    text = _text(render_signed_pdf(parse_cfe_input(changed), issuer, numbering, signed), tmp_path)
    assert "29.170,70" in text and "99.999" not in text
    assert "Adenda guardada" in text  # the adenda is not signed: it comes from the stored request


def test_the_rate_column_never_cuts_a_label(printed, realistic, tmp_path):
    body = realistic[111]
    body["items"] = [
        {"indFact": n, "nomItem": f"Ítem {n}", "cantidad": "1", "precioUnitario": "0" if n == 5 else "10"}
        for n in (1, 2, 3, 5, 6)
    ]
    body["dscRcgGlobal"] = []
    text = _text(printed(111, body=body), tmp_path)
    for label in ("Exento", "10%", "22%", "Gratis", "No fact."):
        assert label in text, label
    assert "..." not in text


def test_long_receipt_repeats_the_identification_and_qr_on_every_page(realistic, sign, issuer, numbering, tmp_path):
    body = realistic[111]
    body["items"] = [
        {"indFact": 3, "nomItem": f"Artículo {n}", "cantidad": "1", "precioUnitario": "10"} for n in range(150)
    ]
    body["dscRcgGlobal"] = []
    signed = sign(body)
    pdf = render_signed_pdf(parse_cfe_input(body), issuer, numbering, signed)
    pages = measure(pdf)
    assert len(pages) > 1
    texts = _text(pdf, tmp_path).split("\f")
    for number, (page, text) in enumerate(zip(pages, texts, strict=False), start=1):
        for legend in (
            "DGI RUC PRUEBA NO CEDE",
            "219999830019",
            "214844360018",
            "e-Factura",
            "Serie A Nº 0000017",
            f"Página {number} de {len(pages)}",
            f"Código de seguridad: {signed.security_code}",
        ):
            assert legend in text, (number, legend)
        assert len(page.images) == 1
        # DGI: the rest of the footer only on the last page.
        assert ("CAE Nº 90240000194" in text) is (number == len(pages))
    assert "Artículo 149" in texts[len(pages) - 1] and "TOTAL A PAGAR" in texts[len(pages) - 1]
    assert pdf.count(b"/Subtype /Image") == 1  # the QR is made and embedded once


def _logo() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (300, 100), (200, 30, 30)).save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.mark.parametrize("paper", ["a4", "80mm"])
def test_the_logo_sits_at_the_top_and_takes_at_most_a_fifth(paper, realistic, sign, issuer):
    signed = sign(realistic[101])
    pdf = render_receipt(
        signed.xml, issuer, security_code=signed.security_code, qr_url=signed.qr_url, logo=_logo(), paper=paper
    )
    page = measure(pdf)[0]
    logo = min(page.images, key=lambda box: box.top)
    assert logo.top < 11 and logo.width * logo.height <= page.width * page.height / 5
    assert len(page.images) == 2


def test_a_logo_never_pushes_out_the_mandatory_issuer_lines(realistic, issuer, numbering, signer):
    name = (
        "Cooperativa Agraria de Responsabilidad Limitada de Productores Hortifrutícolas, Vitivinícolas y "
        "Lecheros del Litoral Norte y Centro Sur del Uruguay"
    )[:150]
    norma = "Ley 18.083 artículo 52, Decreto 150/007 artículo 3 y Resolución DGI 1.234/2020 numeral 4 literal b"
    crowded = replace(
        issuer,
        razon_social=name,
        regimen="exonerado",
        norma_exoneracion=norma[:100],
        domicilio_fiscal="Avenida Daniel Fernández Crespo 1534 esquina Avenida General Rondeau 2",
    )
    body = realistic[101]
    body["items"] = [{**item, "indFact": 1} for item in body["items"]]  # an exonerated issuer sells exempt
    signed = build_signed_cfe(parse_cfe_input(body), crowded, numbering, signer, UI_VALUE, SIGNED_AT)
    pdf = render_receipt(signed.xml, crowded, security_code=signed.security_code, qr_url=signed.qr_url, logo=_logo())
    page = measure(pdf)[0]
    domicilio = page.find("Avenida Daniel Fernández Crespo 1534")
    box = page.box_around(page.find("Contribuyente Exonerado"))
    assert all(c.box.bottom <= box.top for c in domicilio + page.find("Almacén de Prueba") + page.find("Cooperativa"))
    assert box.bottom <= page.find("CONSUMO FINAL")[0].box.top
    lines = [
        Box(
            min(c.box.x0 for c in line),
            min(c.box.top for c in line),
            max(c.box.x1 for c in line),
            max(c.box.bottom for c in line),
        )
        for line in page.lines
        if line
    ]
    for index, one in enumerate(lines):  # nothing overlaps, the logo included
        for other in lines[index + 1 :] + page.images:
            assert (
                one.gap(other) > 0
                or min(one.x1, other.x1) <= max(one.x0, other.x0)
                or min(one.bottom, other.bottom) - max(one.top, other.top) <= 0.05
            ), (one, other)


@pytest.mark.parametrize("paper", ["a4", "57mm"])
def test_preview_says_sin_valor_fiscal_and_has_no_fiscal_data(paper, realistic, issuer, tmp_path):
    pdf = render_preview_pdf(parse_cfe_input(realistic[101]), issuer, paper=paper)
    text = _text(pdf, tmp_path)
    assert "SIN VALOR FISCAL" in text and "Serie/Nro: (vista previa)" in text
    assert "Código de seguridad" not in text and "CAE Nº" not in text
    assert b"/Subtype /Image" not in pdf


def test_large_amounts_print_whole(printed, realistic, tmp_path):
    body = realistic[111]
    body["items"] = [
        {"indFact": 3, "nomItem": "Planta industrial", "cantidad": "10", "precioUnitario": "98765432109.87"}
    ]
    body["dscRcgGlobal"], body["mediosPago"] = [], []
    text = _text(printed(111, body=body), tmp_path)
    assert "987.654.321.098,70" in text and "217.283.950.641,71" in text and "1.204.938.271.740,41" in text
    assert "..." not in text


def test_an_older_snapshot_takes_the_regime_from_the_signed_xml(realistic, issuer, numbering, signer, tmp_path):
    """A receipt signed by an IVA mínimo issuer (CAE especial 2, MntBruto 3) whose stored settings predate the
    regime setting still prints the box and no IVA mention."""
    minimo = replace(issuer, regimen="iva_minimo")
    body = realistic[101]
    body["mntBruto"] = 3
    body["items"] = [{**item, "indFact": 16} for item in body["items"]]
    signed = build_signed_cfe(
        parse_cfe_input(body), minimo, replace(numbering, cae_especial=2), signer, UI_VALUE, SIGNED_AT
    )
    pdf = render_receipt(
        signed.xml, replace(issuer, regimen="general"), security_code=signed.security_code, qr_url=signed.qr_url
    )
    text = _text(pdf, tmp_path)
    assert "Contribuyente IVA MINIMO" in text
    assert "IVA" not in text.replace("IVA al día", "").replace("IVA MINIMO", "")


def test_an_efacturas_retentions_print_each_code_and_rate_not_only_the_total(printed, realistic, tmp_path):
    body = realistic[111]
    body["items"][0] |= {
        "indAgenteResp": "R",
        "retencPercep": [
            {"codRet": "2183165", "tasa": "7", "mntSujetoaRet": "9000", "valRetPerc": "630"},
            {"codRet": "2183158", "tasa": "10", "mntSujetoaRet": "100", "valRetPerc": "10"},
        ],
    }
    pdf = printed(111, "a4", body)
    path = tmp_path / "retentions.pdf"
    path.write_bytes(pdf)
    layout = subprocess.run(
        [shutil.which("pdftotext"), "-layout", str(path), "-"], capture_output=True, text=True, check=True, timeout=30
    ).stdout
    rows = {" ".join(line.split()) for line in layout.splitlines()}
    # Line 2's 1,050 at 10 % and line 1's 10 at 10 % share a row; line 1's 630 at 7 % has its own.
    assert {
        "Retención/percepción 2183165 (7%) 630,00",
        "Retención/percepción 2183158 (10%) 1.060,00",
        "Retenciones / percepciones 1.690,00",
    } <= rows, layout
