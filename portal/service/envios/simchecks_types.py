"""What the DGI simulator checks on the types with their own zones (issue 29): a sale on behalf of others
carries its Complemento Fiscal with the CFE's own RUC (DGI's motive E08, "No coincide RUC de CFE y Complemento
Fiscal"); an export carries no IVA and its MntExpoyAsim is its export lines (E05); so does an e-Boleta de
entrada, whose total is its not-taxed and suspended-IVA purchases (E05)."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from lxml import etree

from portal.domain.cfe_types import CUENTA_AJENA_TYPES, EXPORT_TYPES
from portal.service.envios.states import motive

NS = {"d": "http://cfe.dgi.gub.uy"}
_IVA = ("IVATasaMin", "IVATasaBasica", "MntIVATasaMin", "MntIVATasaBasica", "MntNetoIvaTasaMin", "MntNetoIVATasaBasica")


def _amount(node: etree._Element | None, tag: str) -> Decimal:
    if node is None:
        return Decimal(0)
    try:
        return Decimal((node.findtext(f"d:{tag}", default="0", namespaces=NS) or "0").strip())
    except InvalidOperation:
        return Decimal(0)


def type_problems(doc: etree._Element, tipo_cfe: int) -> list[dict]:
    """DGI's motives for the zones only some types have; `doc` is the eTck/eFact/eFact_Exp/... element."""
    problems = []
    if tipo_cfe in CUENTA_AJENA_TYPES:
        data = doc.find("d:Compl_Fiscal/d:Compl_Fiscal_Data", NS)
        own = (doc.findtext("d:Encabezado/d:Emisor/d:RUCEmisor", default="", namespaces=NS) or "").strip()
        if doc.find("d:Compl_Fiscal", NS) is None:
            problems.append(motive("E05", "Una venta por cuenta ajena debe llevar el Complemento Fiscal (mandante)."))
        elif data is not None and (data.findtext("d:RUCEmisor", default="", namespaces=NS) or "").strip() != own:
            problems.append(motive("E08"))
    totales = doc.find("d:Encabezado/d:Totales", NS)
    if tipo_cfe in EXPORT_TYPES or 151 <= tipo_cfe <= 153:
        iva = [tag for tag in _IVA if totales is not None and totales.find(f"d:{tag}", NS) is not None]
        if iva:
            problems.append(motive("E05", f"Este tipo de CFE no lleva IVA ({', '.join(iva)})."))
    if tipo_cfe in EXPORT_TYPES and totales is not None:
        expected = _export_lines(doc, remito=tipo_cfe == 124)
        stated = _amount(totales, "MntExpoyAsim")
        if expected != stated:
            detail = f"MntExpoyAsim {stated} no es la suma de las líneas de exportación ({expected})."
            problems.append(motive("E05", detail))
    return problems


def _export_lines(doc: etree._Element, *, remito: bool) -> Decimal:
    """A-C113: the export lines (IndFact 10; on the e-Remito de Exportación the lines without an indicator,
    less those that reduce an earlier one, IndFact 8) and the global adjustments of indicator 10."""
    total = Decimal(0)
    for item in doc.findall("d:Detalle/d:Item", NS):
        indicator = (item.findtext("d:IndFact", default="", namespaces=NS) or "").strip()
        if indicator == ("" if remito else "10"):
            total += _amount(item, "MontoItem")
        elif remito and indicator == "8":
            total -= _amount(item, "MontoItem")
    for dr in doc.findall("d:DscRcgGlobal/d:DRG_Item", NS):
        if (dr.findtext("d:IndFactDR", default="", namespaces=NS) or "").strip() == "10":
            sign = 1 if (dr.findtext("d:TpoMovDR", default="", namespaces=NS) or "").strip() == "R" else -1
            total += sign * _amount(dr, "ValorDR")
    return total
