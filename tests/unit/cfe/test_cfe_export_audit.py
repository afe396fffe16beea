"""Audit of the export types (121 e-Factura de Exportación, 122/123 its notes, 124 e-Remito de Exportación):
each realistic receipt is signed, valid against CFEDGI.xsd, verified by xmlsec1, its amounts recomputed from
DGI's formulas out of the signed XML alone, its QR link and security code checked; and a corpus of requests
DGI would reject is refused field by field before any number exists."""

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
from tests.unit.cfe.types_bodies import EXPORT, amount, signed_valid_verified

NS = {"c": "http://cfe.dgi.gub.uy", "ds": "http://www.w3.org/2000/09/xmldsig#"}
_IVA_TAGS = ("IVATasaMin", "IVATasaBasica", "MntIVATasaMin", "MntIVATasaBasica", "MntNetoIVATasaBasica", "MntNoGrv")
_EMISSION = Emission(signing_date=date(2024, 5, 11))


_dec = amount


def _cents(value: Decimal) -> Decimal:
    return value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


@pytest.mark.parametrize("name", sorted(EXPORT))
def test_export_receipt_is_valid_signed_and_exact(name, sign, xmlsec1_verify):
    body = EXPORT[name]
    signed, root, element = signed_valid_verified(body, f"export-{name}", sign, xmlsec1_verify)
    assert etree.QName(element).localname == ("eRem_Exp" if body["tipoCFE"] == 124 else "eFact_Exp")
    id_doc = element.find("c:Encabezado/c:IdDoc", NS)
    assert id_doc.findtext("c:ViaTransp", namespaces=NS) == str(body["viaTransp"])
    assert id_doc.findtext("c:ClauVenta", namespaces=NS) == body.get("clauVenta")
    totales = element.find("c:Encabezado/c:Totales", NS)
    assert not [tag for tag in _IVA_TAGS if totales.find(f"c:{tag}", NS) is not None]  # no IVA at all
    assert totales.findtext("c:TpoMoneda", namespaces=NS) == body.get("tpoMoneda", "UYU")

    # DGI's formulas, from the signed XML alone: B-C24 per line, A-C113 MntExpoyAsim, A-C124, A-C129, A-C130.
    by_indicator: dict[str | None, Decimal] = {}
    items = element.findall("c:Detalle/c:Item", NS)
    for item in items:
        amount = _cents(
            _dec(item, "Cantidad") * _dec(item, "PrecioUnitario")
            - _dec(item, "DescuentoMonto")
            + _dec(item, "RecargoMnt")
        )
        assert _dec(item, "MontoItem") == amount
        indicator = item.findtext("c:IndFact", namespaces=NS)
        by_indicator[indicator] = by_indicator.get(indicator, Decimal(0)) + amount
    adjustments = Decimal(0)
    for dr in element.findall("c:DscRcgGlobal/c:DRG_Item", NS):
        adjustments += _dec(dr, "ValorDR") * (1 if dr.findtext("c:TpoMovDR", namespaces=NS) == "R" else -1)
    expected_expo = by_indicator.get("10" if body["tipoCFE"] != 124 else None, Decimal(0)) + adjustments
    assert _dec(totales, "MntExpoyAsim") == expected_expo
    assert _dec(totales, "MntTotal") == expected_expo
    assert int(totales.findtext("c:CantLinDet", namespaces=NS)) == len(items) == len(body["items"])
    if body["tipoCFE"] != 124:
        nf = by_indicator.get("6", Decimal(0)) - by_indicator.get("7", Decimal(0))
        assert _dec(totales, "MontoNF") == nf
        assert _dec(totales, "MntPagar") == expected_expo + nf
    if "5" in by_indicator:
        assert by_indicator["5"] == 0

    # QR: DGI's link; for the e-Remito de Exportación the amount is MntTotal, otherwise MntPagar.
    digest = root.findtext(".//ds:DigestValue", namespaces=NS)
    assert signed.security_code == digest[:6]
    fields = signed.qr_url.split("?", 1)[1].split(",")
    amount_tag = "MntTotal" if body["tipoCFE"] == 124 else "MntPagar"
    assert fields[:4] == ["219999830019", str(body["tipoCFE"]), "A", "17"]
    assert Decimal(fields[4]) == _dec(totales, amount_tag)
    assert unquote(fields[6]) == digest


def test_export_notes_reference_export_invoices():
    body = copy.deepcopy(EXPORT["122"])
    body["referencias"][0]["tpoDocRef"] = 111
    errors = validate(parse_cfe_input(body), ui_value=UI_VALUE, emission=_EMISSION).errors
    assert [(e.field, e.code) for e in errors] == [("referencias[0].tpoDocRef", "not_allowed")]


def _change(name: str, path: str, value: object) -> dict:
    body = copy.deepcopy(EXPORT[name])
    target = body
    *parents, last = path.split(".")
    for part in parents:
        target = target[int(part)] if part.isdigit() else target[part]
    if value is _DROP:
        del target[int(last) if last.isdigit() else last]
    elif isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return body


_DROP = object()
# (case, body, field named in the 422, code): what DGI refuses on the export types.
REJECTED = [
    ("no sale clause", _change("121-services", "clauVenta", _DROP), "clauVenta", "required"),
    ("no transport", _change("121-goods", "viaTransp", _DROP), "viaTransp", "required"),
    ("no sale mode on a 121", _change("121-goods", "modVenta", _DROP), "modVenta", "required"),
    ("no sale mode on a 124", _change("124", "modVenta", _DROP), "modVenta", "required"),
    ("services by sea", _change("121-services", "viaTransp", 1), "viaTransp", "not_allowed"),
    ("a remito of services", _change("124", "modVenta", 90), "modVenta", "not_allowed"),
    ("no tipoTraslado on a 124", _change("124", "tipoTraslado", _DROP), "tipoTraslado", "required"),
    ("IVA on an export line", _change("121-goods", "items.0.indFact", 3), "items[0].indFact", "not_allowed"),
    ("exempt line", _change("121-services", "items.0.indFact", 1), "items[0].indFact", "not_allowed"),
    ("gross prices", _change("121-services", "mntBruto", 1), "mntBruto", "not_applicable"),
    ("no exchange rate", _change("121-services", "tpoCambio", _DROP), "tpoCambio", "required"),
    ("no receiver", _change("121-services", "receptor", _DROP), "receptor", "required"),
    ("no receiver name", _change("121-services", "receptor.rznSocRecep", _DROP), "receptor.rznSocRecep", "required"),
    ("no receiver address", _change("124", "receptor.dirRecep", _DROP), "receptor.dirRecep", "required"),
    ("no receiver country", _change("121-goods", "receptor.paisRecep", _DROP), "receptor.paisRecep", "required"),
    (
        "no document country",
        _change("121-services", "receptor.codPaisRecep", _DROP),
        "receptor.codPaisRecep",
        "required",
    ),
    ("no payment terms", _change("121-services", "fmaPago", _DROP), "fmaPago", "required"),
    ("payment terms on a 124", _change("124", "fmaPago", 1), "fmaPago", "not_applicable"),
    (
        "zero price",
        _change("121-services", "items.0.precioUnitario", "0"),
        "items[0].precioUnitario",
        "must_be_positive",
    ),
    (
        "retention on an export line",
        _change("121-services", "items.0.retencPercep", [{"codRet": "2183165", "valRetPerc": "1"}]),
        "items[0].retencPercep",
        "not_applicable",
    ),
    (
        "discount on IVA",
        _change("121-goods", "dscRcgGlobal.0.indFactDR", 3),
        "dscRcgGlobal[0].indFactDR",
        "not_allowed",
    ),
    ("export fields on an e-Factura", {**_change("121-services", "tipoCFE", 111)}, "clauVenta", "not_applicable"),
    ("note of an e-Factura", _change("122", "referencias.0.tpoDocRef", 111), "referencias[0].tpoDocRef", "not_allowed"),
    ("note without reference", _change("123", "referencias", []), "referencias", "required"),
    (
        "free sample with a price",
        _change("124", "items.2.precioUnitario", "3"),
        "items[2].precioUnitario",
        "must_be_zero",
    ),
]


@pytest.mark.parametrize(("case", "body", "field", "code"), REJECTED, ids=[r[0] for r in REJECTED])
def test_dgi_would_reject(case, body, field, code):
    errors = validate(parse_cfe_input(body), ui_value=UI_VALUE, emission=_EMISSION).errors
    assert (field, code) in [(e.field, e.code) for e in errors], errors


def test_unknown_sale_clause_shape_is_refused_at_the_door():
    from portal.service.cfe.errors import CfeValidationError

    with pytest.raises(CfeValidationError) as caught:
        parse_cfe_input(_change("121-goods", "clauVenta", "FOB1"))
    assert [e.field for e in caught.value.errors] == ["clauVenta"]
