"""The DGI simulator's checks of the new types' own zones: E08 when the Complemento Fiscal's RUC is not the
CFE's, E05 without it, and E05 for IVA on an export or an e-Boleta, or a MntExpoyAsim that is not its lines."""

from __future__ import annotations

import pytest
from lxml import etree

from portal.service.envios.simchecks_types import type_problems
from tests.unit.cfe.types_bodies import BOLETA, CUENTA_AJENA, EXPORT

D = "{http://cfe.dgi.gub.uy}"


def _doc(sign, body) -> etree._Element:
    return etree.fromstring(sign(body).xml)[0]


@pytest.mark.parametrize("body", [*EXPORT.values(), *BOLETA.values(), *CUENTA_AJENA.values()])
def test_what_the_engine_signs_passes(body, sign):
    assert type_problems(_doc(sign, body), body["tipoCFE"]) == []


def test_a_complemento_fiscal_with_another_ruc_is_e08(sign):
    doc = _doc(sign, CUENTA_AJENA["141-dgi-sample"])
    doc.find(f"{D}Compl_Fiscal/{D}Compl_Fiscal_Data/{D}RUCEmisor").text = "219000090011"
    assert [m["codigo"] for m in type_problems(doc, 141)] == ["E08"]
    doc.remove(doc.find(f"{D}Compl_Fiscal"))
    assert [m["codigo"] for m in type_problems(doc, 141)] == ["E05"]


def test_an_export_with_iva_or_another_total_is_e05(sign, realistic):
    doc = _doc(sign, EXPORT["121-goods"])
    doc.find(f"{D}Encabezado/{D}Totales/{D}MntExpoyAsim").text = "1.00"
    assert [m["codigo"] for m in type_problems(doc, 121)] == ["E05"]
    taxed = _doc(sign, realistic[111])  # an e-Factura's totals, read as if it were a 121
    assert "IVATasaBasica" in type_problems(taxed, 121)[0]["detalle"]
