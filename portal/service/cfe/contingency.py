"""Contingency receipts (CFC, types 2xx) as documents: which types they are, and what a CFE built as its 1xx type
becomes when it records a paper receipt (CFE-URUGUAY.md section 13). Pure functions, like the rest of the engine;
what DGI answers about CFCs is envios' (envios/cfc.py), keying paper in is comprobante's (comprobante/contingency.py).

A CFC is the same XML element as its 1xx type (eTck for 201-203 and 231-233, eFact for 211-213 and 241-243,
eFact_Exp for 221-223, eRem_Exp for 224, eBoleta for 251-253, eRem for 281, eResg for 282) with TipoCFE 2xx,
the serie and number printed on the paper, and the CAE data of the printed book DGI authorised.
"""

from __future__ import annotations

from datetime import date

from lxml import etree

from portal.domain.cfe_types import CFC_TYPES, electronic_type
from portal.service.cfe.signing import CfeSigner

__all__ = ["CFC_TYPES", "as_cfc", "base_type", "is_cfc"]
NS = "http://cfe.dgi.gub.uy"
DS = "{http://www.w3.org/2000/09/xmldsig#}"


def is_cfc(tipo_cfe: int) -> bool:
    return tipo_cfe in CFC_TYPES


def base_type(tipo_cfe: int) -> int:
    """The 1xx type whose element a CFC uses (2xx = 1xx + 100)."""
    return electronic_type(tipo_cfe)


def as_cfc(
    signed_cfe: bytes,
    *,
    tipo_cfe: int,
    serie: str,
    nro: int,
    cae_id: str,
    dnro: int,
    hnro: int,
    fec_venc: date,
    signer: CfeSigner,
) -> bytes:
    """A CFE built (and signed) as its 1xx type, made the paper CFC it records: TipoCFE 2xx, the paper's serie
    and number, the book's CAE data, signed again with the company's certificate."""
    if not is_cfc(tipo_cfe):
        raise ValueError(f"{tipo_cfe} no es un tipo de CFC")
    root = etree.fromstring(signed_cfe, etree.XMLParser(resolve_entities=False, no_network=True))
    for signature in root.findall(f"{DS}Signature"):
        root.remove(signature)
    doc = next(child for child in root if isinstance(child.tag, str))
    iddoc = _child(doc, f"Encabezado/{{{NS}}}IdDoc")
    if int(_child(iddoc, "TipoCFE").text or 0) != base_type(tipo_cfe):
        raise ValueError(f"El CFE no es del tipo {base_type(tipo_cfe)}, base del CFC {tipo_cfe}.")
    _child(iddoc, "TipoCFE").text = str(tipo_cfe)
    _child(iddoc, "Serie").text = serie
    _child(iddoc, "Nro").text = str(nro)
    cae = _child(doc, "CAEData")
    _child(cae, "CAE_ID").text = cae_id
    _child(cae, "DNro").text = str(dnro)
    _child(cae, "HNro").text = str(hnro)
    _child(cae, "FecVenc").text = fec_venc.isoformat()
    return signer.sign(root).xml


def _child(element: etree._Element, path: str) -> etree._Element:
    found = element.find(f"{{{NS}}}{path}")
    if found is None:
        raise ValueError(f"El CFE no tiene {path.rpartition('}')[2]}.")
    return found
