"""Audit of the sales on behalf of others (131-133 e-Ticket, 141-143 e-Factura venta por cuenta ajena): signed,
valid against CFEDGI.xsd, verified by xmlsec1, the principal written as in DGI's sample envelopes, amounts
recomputed from DGI's formulas, QR and security code checked, the printed legend; and the requests DGI would
refuse are refused field by field before any number exists."""

from __future__ import annotations

import copy
import subprocess
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from urllib.parse import unquote

import pytest
from lxml import etree

from portal import paths
from portal.service.cfe import parse_cfe_input
from portal.service.cfe.pdf import render_receipt
from portal.service.cfe.rules import validate
from portal.service.cfe.rules_dgi import Emission
from tests.unit.cfe.conftest import ISSUER_RUT, UI_VALUE
from tests.unit.cfe.types_bodies import CUENTA_AJENA, amount, changed, signed_valid_verified

NS = {"c": "http://cfe.dgi.gub.uy", "ds": "http://www.w3.org/2000/09/xmldsig#"}
_EMISSION = Emission(signing_date=date(2024, 5, 11))
_CENT = Decimal("0.01")


_dec = amount


def _dgi_sample_principal() -> etree._Element:
    sample = Path(paths.xsd_dir()).parent / "dgi-samples" / "Sob_219999830019_fac-Cta_Ajena-no-enc.xml"
    return etree.parse(str(sample)).find(".//c:Compl_Fiscal/c:Compl_Fiscal_Data", NS)


@pytest.mark.parametrize("name", sorted(CUENTA_AJENA))
def test_cuenta_ajena_is_valid_signed_and_exact(name, sign, xmlsec1_verify):
    body = CUENTA_AJENA[name]
    signed, root, doc = signed_valid_verified(body, f"cta-ajena-{name}", sign, xmlsec1_verify)
    assert etree.QName(doc).localname == ("eTck" if body["tipoCFE"] < 140 else "eFact")

    # Zona K, the last child of the document, shaped as in DGI's sample envelope.
    principal = doc[-1].find("c:Compl_Fiscal_Data", NS)
    assert etree.QName(doc[-1]).localname == "Compl_Fiscal"
    assert [etree.QName(e).localname for e in principal] == [etree.QName(e).localname for e in _dgi_sample_principal()]
    assert principal.findtext("c:RUCEmisor", namespaces=NS) == ISSUER_RUT
    expected_doc = body["complFiscal"]["docMdte"]
    if body["complFiscal"]["tipoDocMdte"] in (1, 2, 3):
        expected_doc = "".join(ch for ch in expected_doc if ch.isdigit())
    assert principal.findtext("c:DocMdte", namespaces=NS) == expected_doc
    assert principal.findtext("c:NombreMdte", namespaces=NS) == body["complFiscal"]["nombreMdte"]

    # DGI's formulas (A-C112, A-C116/117, A-C121/122, A-C124, A-C130), from the signed XML.
    totales = doc.find("c:Encabezado/c:Totales", NS)
    gross = doc.find("c:Encabezado/c:IdDoc/c:MntBruto", NS) is not None
    per: dict[str, Decimal] = {}
    for item in doc.findall("c:Detalle/c:Item", NS):
        amount = (_dec(item, "Cantidad") * _dec(item, "PrecioUnitario")).quantize(_CENT, rounding=ROUND_HALF_UP)
        assert _dec(item, "MontoItem") == amount
        per[item.findtext("c:IndFact", namespaces=NS)] = per.get(item.findtext("c:IndFact", namespaces=NS), 0) + amount
    total = per.get("1", Decimal(0))
    for indicator, net_tag, iva_tag, rate in (
        ("2", "MntNetoIvaTasaMin", "MntIVATasaMin", Decimal("0.10")),
        ("3", "MntNetoIVATasaBasica", "MntIVATasaBasica", Decimal("0.22")),
    ):
        base = per.get(indicator, Decimal(0))
        net = (base / (1 + rate)).quantize(_CENT, rounding=ROUND_HALF_UP) if gross else base
        assert _dec(totales, net_tag) == net
        assert abs(_dec(totales, iva_tag) - net * rate) <= _CENT  # DGI's cent
        total += net + _dec(totales, iva_tag)
    assert _dec(totales, "MntNoGrv") == per.get("1", Decimal(0))
    assert _dec(totales, "MntTotal") == total == _dec(totales, "MntPagar")

    digest = root.findtext(".//ds:DigestValue", namespaces=NS)
    assert signed.security_code == digest[:6]
    fields = signed.qr_url.split("?", 1)[1].split(",")
    assert fields[1] == str(body["tipoCFE"]) and Decimal(fields[4]) == _dec(totales, "MntPagar")
    assert unquote(fields[6]) == digest


def test_the_printed_receipt_names_the_principal(sign, issuer, tmp_path):
    signed = sign(CUENTA_AJENA["141-dgi-sample"])
    pdf = render_receipt(signed.xml, issuer, security_code=signed.security_code, qr_url=signed.qr_url)
    (tmp_path / "r.pdf").write_bytes(pdf)
    text = subprocess.run(
        ["pdftotext", str(tmp_path / "r.pdf"), "-"], capture_output=True, text=True, check=True
    ).stdout
    assert "e-Factura Venta por Cuenta Ajena" in text
    assert "Venta por cuenta ajena - Mandante: DGI PRUEBA (RUT 219000090011, UY)" in " ".join(text.split())
    assert "RUC COMPRADOR" in text


def test_a_cuenta_ajena_eticket_prints_on_a_roll(sign, issuer):
    signed = sign(CUENTA_AJENA["131"])
    pdf = render_receipt(signed.xml, issuer, security_code=signed.security_code, qr_url=signed.qr_url, paper="80mm")
    assert pdf.startswith(b"%PDF")


def _with(name: str, **changes) -> dict:
    return changed(CUENTA_AJENA, name, **changes)


def _principal(name: str, **changes) -> dict:
    body = copy.deepcopy(CUENTA_AJENA[name])
    body["complFiscal"].update(changes)
    return body


REJECTED = [
    ("no principal on a 141", _with("141-dgi-sample", complFiscal=None), "complFiscal", "required"),
    ("no principal on a 131", _with("131", complFiscal=None), "complFiscal", "required"),
    ("a principal on an e-Factura", _with("141-dgi-sample", tipoCFE=111), "complFiscal", "not_applicable"),
    ("a bad principal RUT", _principal("141-dgi-sample", docMdte="219000090012"), "complFiscal.docMdte", "check_digit"),
    ("a Uruguayan RUT abroad", _principal("141-dgi-sample", pais="AR"), "complFiscal.pais", "not_allowed"),
    (
        "a DNI of Spain",
        _principal("131", tipoDocMdte=6, pais="ES", docMdte="12345678"),
        "complFiscal.pais",
        "not_allowed",
    ),
    (
        "a 141 without a RUT buyer",
        _with(
            "141-dgi-sample",
            receptor={
                "tipoDocRecep": 3,
                "docRecep": "13353214",
                "rznSocRecep": "X",
                "dirRecep": "Y",
                "ciudadRecep": "Z",
            },
        ),
        "receptor.tipoDocRecep",
        "rut_required",
    ),
    ("a 142 with no reference", _with("142", referencias=[]), "referencias", "required"),
]


# Refused when issuing, where the referenced receipt is looked up (a 132 refers to 131-133 only): see
# tests/integration/test_cuenta_ajena_api.py.
NOTE_OF_ANOTHER_FAMILY = _with("132", referencias=[{"tpoDocRef": 101, "serie": "A", "nroCFERef": 1}])


@pytest.mark.parametrize(("case", "body", "field", "code"), REJECTED, ids=[r[0] for r in REJECTED])
def test_dgi_would_reject(case, body, field, code):
    errors = validate(parse_cfe_input(body), ui_value=UI_VALUE, emission=_EMISSION).errors
    assert (field, code) in [(e.field, e.code) for e in errors], errors
