"""Audit of the e-Boleta de entrada (151) and its notes (152, 153): signed, valid against CFEDGI.xsd, verified
by xmlsec1, amounts recomputed from DGI's formulas out of the signed XML, QR and security code checked; and
the requests DGI would refuse are refused field by field before any number exists."""

from __future__ import annotations

import copy
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from urllib.parse import unquote

import pytest
from lxml import etree

from portal.service.cfe import parse_cfe_input
from portal.service.cfe.rules import validate
from portal.service.cfe.rules_dgi import Emission
from tests.unit.cfe.conftest import UI_VALUE
from tests.unit.cfe.types_bodies import BOLETA, amount, changed, signed_valid_verified

NS = {"c": "http://cfe.dgi.gub.uy", "ds": "http://www.w3.org/2000/09/xmldsig#"}
_EMISSION = Emission(signing_date=date(2024, 5, 11))
_NOT_TAXED = ("13", "14", "15", "17")


_dec = amount


@pytest.mark.parametrize("name", sorted(BOLETA))
def test_boleta_is_valid_signed_and_exact(name, sign, xmlsec1_verify):
    body = BOLETA[name]
    signed, root, doc = signed_valid_verified(body, f"boleta-{name}", sign, xmlsec1_verify)
    assert etree.QName(doc).localname == "eBoleta"
    id_doc = doc.find("c:Encabezado/c:IdDoc", NS)
    assert id_doc.findtext("c:MntBruto", namespaces=NS) == (str(body["mntBruto"]) if "mntBruto" in body else None)
    assert id_doc.find("c:IVAalDia", NS) is None
    totales = doc.find("c:Encabezado/c:Totales", NS)
    assert totales.find("c:IVATasaBasica", NS) is None and totales.find("c:MntNetoIVATasaBasica", NS) is None

    per_indicator: dict[str, Decimal] = {}
    for item in doc.findall("c:Detalle/c:Item", NS):
        amount = (
            _dec(item, "Cantidad") * _dec(item, "PrecioUnitario")
            - _dec(item, "DescuentoMonto")
            + _dec(item, "RecargoMnt")
        ).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
        assert _dec(item, "MontoItem") == amount
        key = item.findtext("c:IndFact", namespaces=NS)
        per_indicator[key] = per_indicator.get(key, Decimal(0)) + amount
    for dr in doc.findall("c:DscRcgGlobal/c:DRG_Item", NS):
        sign_ = 1 if dr.findtext("c:TpoMovDR", namespaces=NS) == "R" else -1
        key = dr.findtext("c:IndFactDR", namespaces=NS)
        per_indicator[key] = per_indicator.get(key, Decimal(0)) + sign_ * _dec(dr, "ValorDR")
    not_taxed = sum((per_indicator.get(k, Decimal(0)) for k in _NOT_TAXED), Decimal(0))
    assert _dec(totales, "MntNoGrv") == not_taxed
    assert _dec(totales, "MntIVaenSusp") == per_indicator.get("12", Decimal(0))
    assert _dec(totales, "MntTotal") == not_taxed + per_indicator.get("12", Decimal(0))
    nf = per_indicator.get("6", Decimal(0)) - per_indicator.get("7", Decimal(0))
    assert _dec(totales, "MontoNF") == nf
    assert _dec(totales, "MntPagar") == _dec(totales, "MntTotal") + _dec(totales, "MntTotRetenido") + nf

    digest = root.findtext(".//ds:DigestValue", namespaces=NS)
    assert signed.security_code == digest[:6]
    fields = signed.qr_url.split("?", 1)[1].split(",")
    assert fields[1] == str(body["tipoCFE"]) and Decimal(fields[4]) == _dec(totales, "MntPagar")
    assert unquote(fields[6]) == digest


def _change(name: str, **changes) -> dict:
    return changed(BOLETA, name, **changes)


def _line(name: str, index: int, **changes) -> dict:
    body = copy.deepcopy(BOLETA[name])
    body["items"][index].update(changes)
    return body


REJECTED = [
    ("IVA-included prices", _change("151-several", mntBruto=1), "mntBruto", "not_allowed"),
    ("IMEBA prices without an IMEBA seller", _change("151-several", mntBruto=2), "mntBruto", "not_allowed"),
    ("a line with IVA", _line("151-imeba", 0, indFact=3), "items[0].indFact", "not_allowed"),
    ("an export line", _line("151-imeba", 0, indFact=10), "items[0].indFact", "not_allowed"),
    ("no seller", _change("151-imeba", receptor=None), "receptor", "required"),
    (
        "no seller name",
        {**_change("151-imeba"), "receptor": {**BOLETA["151-imeba"]["receptor"], "rznSocRecep": None}},
        "receptor.rznSocRecep",
        "required",
    ),
    (
        "a bad CI",
        {**_change("151-imeba"), "receptor": {**BOLETA["151-imeba"]["receptor"], "docRecep": "1.335.321-5"}},
        "receptor.docRecep",
        "check_digit",
    ),
    ("no payment terms", _change("151-imeba", fmaPago=None), "fmaPago", "required"),
    ("no exchange rate", _change("151-several", tpoCambio=None), "tpoCambio", "required"),
    (
        "a discount on IVA",
        {**_change("151-several"), "dscRcgGlobal": [{"tpoMovDR": "D", "glosaDR": "x", "valorDR": "1", "indFactDR": 3}]},
        "dscRcgGlobal[0].indFactDR",
        "not_allowed",
    ),
    ("export fields", _change("151-imeba", viaTransp=8), "viaTransp", "not_applicable"),
    (
        "a note of an e-Factura",
        {**_change("152"), "referencias": [{"tpoDocRef": 111, "serie": "A", "nroCFERef": 1}]},
        "referencias[0].tpoDocRef",
        "not_allowed",
    ),
    ("zero price", _line("151-several", 0, precioUnitario="0"), "items[0].precioUnitario", "must_be_positive"),
]


@pytest.mark.parametrize(("case", "body", "field", "code"), REJECTED, ids=[r[0] for r in REJECTED])
def test_dgi_would_reject(case, body, field, code):
    body = {k: v for k, v in body.items() if v is not None}
    if isinstance(body.get("receptor"), dict):
        body["receptor"] = {k: v for k, v in body["receptor"].items() if v is not None}
    errors = validate(parse_cfe_input(body), ui_value=UI_VALUE, emission=_EMISSION).errors
    assert (field, code) in [(e.field, e.code) for e in errors], errors


def test_mnt_bruto_2_stays_refused_outside_the_boleta(realistic):
    errors = validate(parse_cfe_input({**realistic[111], "mntBruto": 2}), ui_value=UI_VALUE, emission=_EMISSION).errors
    assert ("mntBruto", "not_supported") in [(e.field, e.code) for e in errors]
