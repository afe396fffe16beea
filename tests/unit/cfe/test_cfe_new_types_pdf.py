"""Every new type prints (A4; rolls only for the e-Tickets venta por cuenta ajena, as DGI allows thermal paper
only for e-Tickets), with DGI's legends read back by pdftotext and nothing cut to fit."""

from __future__ import annotations

import copy
import subprocess

import pytest

from portal.domain.cfe_types import cfe_type
from portal.service.cfe.pdf import render_receipt
from portal.service.cfe.pdf_base import PaperNotAllowed
from tests.unit.cfe.types_bodies import BOLETA, CUENTA_AJENA, EXPORT

ALL = {**EXPORT, **BOLETA, **CUENTA_AJENA}
LEGENDS = ("RUC EMISOR", "Puede verificar comprobante en", "Código de seguridad:", "CAE Nº", "Fecha de vencimiento")


def _text(pdf: bytes, tmp_path) -> str:
    (tmp_path / "r.pdf").write_bytes(pdf)
    out = subprocess.run(["pdftotext", str(tmp_path / "r.pdf"), "-"], capture_output=True, text=True, check=True)
    return " ".join(out.stdout.split())


def _receiver_box(body: dict) -> str:
    tipo, doc_type = body["tipoCFE"], (body.get("receptor") or {}).get("tipoDocRecep")
    if tipo in (131, 132, 133):
        return "CONSUMO FINAL"
    if tipo in (151, 152, 153):
        return "RUC VENDEDOR" if doc_type == 2 else "VENDEDOR"
    return "RUC COMPRADOR" if doc_type == 2 else "RECEPTOR"


@pytest.mark.parametrize("name", sorted(ALL))
def test_every_new_type_prints_its_legends_on_a4(name, sign, issuer, tmp_path):
    body = ALL[name]
    signed = sign(body)
    text = _text(render_receipt(signed.xml, issuer, security_code=signed.security_code, qr_url=signed.qr_url), tmp_path)
    title = cfe_type(body["tipoCFE"]).name_es
    assert title in text or title.replace("Nota de Crédito de ", "NC ").replace("Nota de Débito de ", "ND ") in text
    for legend in (*LEGENDS, _receiver_box(body), f"Código de seguridad: {signed.security_code}"):
        assert legend in text, legend
    assert "..." not in text  # nothing was cut to fit


@pytest.mark.parametrize("name", ["131", "132", "133"])
def test_cuenta_ajena_etickets_print_on_a_roll(name, sign, issuer, tmp_path):
    signed = sign(CUENTA_AJENA[name])
    pdf = render_receipt(signed.xml, issuer, security_code=signed.security_code, qr_url=signed.qr_url, paper="57mm")
    text = _text(pdf, tmp_path)
    assert "CONSUMO FINAL" in text and "Mandante" in text


@pytest.mark.parametrize("name", ["121-services", "124", "151-imeba", "141-dgi-sample"])
def test_other_new_types_refuse_a_roll(name, sign, issuer):
    signed = sign(ALL[name])
    with pytest.raises(PaperNotAllowed):
        render_receipt(signed.xml, issuer, security_code=signed.security_code, qr_url=signed.qr_url, paper="80mm")


def _with_receiver(name: str, **receptor) -> dict:
    import copy

    body = copy.deepcopy(ALL[name])
    body["receptor"] = {**body["receptor"], **receptor}
    return body


def test_a_buyer_abroad_prints_its_whole_document(sign, issuer, tmp_path):
    """The buyer abroad's document (20 characters, as DocRecepExt allows) printed whole in the receiver box,
    wrapped inside it rather than cut with "..." (section 3: the receiver's document and country)."""
    body = _with_receiver("121-services", tipoDocRecep=5, codPaisRecep="US", docRecep="PA-0123456789-ABCDEF")
    signed = sign(body)
    text = _text(render_receipt(signed.xml, issuer, security_code=signed.security_code, qr_url=signed.qr_url), tmp_path)
    assert "PA-0123456789-ABCDEF" in text.replace(" ", "")
    assert "..." not in text


def test_a_long_buyer_name_keeps_its_address_and_country(sign, issuer, tmp_path):
    """A 150-character name takes several lines; the address, city and country still print (DGI: exports
    print the buyer's name and address)."""
    name = (
        "Importadora y Distribuidora de Productos Agropecuarios y Alimenticios del Mercosur Sociedad "
        "Limitada, Filial Porto Alegre del Estado de Rio Grande"
    )[:150]
    body = _with_receiver(
        "121-goods", rznSocRecep=name, dirRecep="Avenida Borges de Medeiros 2233, sala 1204", ciudadRecep="Porto Alegre"
    )
    signed = sign(body)
    text = _text(render_receipt(signed.xml, issuer, security_code=signed.security_code, qr_url=signed.qr_url), tmp_path)
    assert "Filial Porto Alegre" in text
    assert "Avenida Borges de Medeiros 2233, sala 1204" in text
    assert "Brasil" in text


@pytest.mark.parametrize("name", ["121-services", "151-imeba"])
def test_a_long_item_description_is_printed_whole(name, sign, issuer, tmp_path):
    """Each line of a wrapped name or description fits its column: none loses its last letters to "..."."""
    import copy

    description = (
        "Desarrollo de software a medida: análisis, diseño, programación, pruebas y puesta en producción del "
        "módulo de facturación electrónica para el cliente, incluidas las horas de soporte del período"
    )
    body = copy.deepcopy(ALL[name])
    body["items"][0]["dscItem"] = description
    signed = sign(body)
    text = _text(render_receipt(signed.xml, issuer, security_code=signed.security_code, qr_url=signed.qr_url), tmp_path)
    assert "..." not in text
    assert "pruebas y puesta en producción" in text


@pytest.mark.parametrize("name", ["141-dgi-sample", "142"])
def test_a_received_cuenta_ajena_cobranza_prints_its_whole_type(name, sign, issuer, tmp_path):
    """A supplier's e-Factura venta por cuenta ajena documenting own collections (A-C20 IndCobPropia, "Cobranza"
    after the type's name) is too long for one line of the document box at 3 mm: it wraps there, never cut."""
    from lxml import etree

    signed = sign(ALL[name])
    root = etree.fromstring(signed.xml)
    id_doc = root.find(".//{http://cfe.dgi.gub.uy}IdDoc")
    etree.SubElement(id_doc, "{http://cfe.dgi.gub.uy}IndCobPropia").text = "1"
    pdf = render_receipt(etree.tostring(root), issuer, security_code=signed.security_code, qr_url=signed.qr_url)
    text = _text(pdf, tmp_path)
    assert "e-Factura Venta por Cuenta Ajena Cobranza" in text
    assert "..." not in text


def test_a_buyer_abroad_named_in_another_script_prints_in_it_and_a_latin_receipt_embeds_no_font(sign, issuer, tmp_path):
    """Helvetica (the PDF's core font, nothing embedded) draws Windows-1252 only: a buyer named in Cyrillic or
    Greek printed as "??? ????". Such a receipt is printed with DejaVu Sans embedded whole; the others as before."""
    body = copy.deepcopy(EXPORT["121-services"])
    body["receptor"]["rznSocRecep"] = "ООО Ромашка Εταιρεία"
    signed = sign(body)
    pdf = render_receipt(signed.xml, issuer, security_code=signed.security_code, qr_url=signed.qr_url)
    text = _text(pdf, tmp_path)
    assert "ООО Ромашка Εταιρεία" in text and "???" not in text
    assert b"/FontFile2" in pdf  # a TrueType font embedded
    latin = sign(EXPORT["121-services"])
    plain = render_receipt(latin.xml, issuer, security_code=latin.security_code, qr_url=latin.qr_url)
    assert b"/FontFile2" not in plain and b"/Helvetica" in plain


def test_a_buyer_abroad_named_in_chinese_prints_in_it_from_the_fallback_font(sign, issuer, tmp_path):
    """DejaVu Sans has no Chinese, Japanese or Korean: such a buyer's name printed as "????". Droid Sans Fallback
    (fonts-droid-fallback) draws what DejaVu lacks, so the printed receipt says what the signed XML says; a long
    address still wraps inside its box. What neither font draws (an emoji) prints as "?"."""
    body = copy.deepcopy(EXPORT["121-services"])
    body["receptor"]["rznSocRecep"] = "上海贸易有限公司 (Shanghai) 株式会社東京 한국무역 🙂"
    body["receptor"]["dirRecep"] = "浦东新区世纪大道100号上海环球金融中心" * 3
    signed = sign(body)
    pdf = render_receipt(signed.xml, issuer, security_code=signed.security_code, qr_url=signed.qr_url)
    text = _text(pdf, tmp_path)
    assert "上海贸易有限公司 (Shanghai) 株式会社東京 한국무역 ?" in text, text
    address = text.split("한국무역 ?")[1].split("San Francisco")[0].replace(" ", "")  # its lines, joined
    assert address == "浦东新区世纪大道100号上海环球金融中心" * 3, address
    assert b"DroidSansFallback" in pdf
