"""Contingency receipts (CFC, types 2xx) on their road to DGI: what a paper receipt becomes when it is keyed
in, and what DGI answers about them (CFE-URUGUAY.md section 13).

A CFC is the same XML element as its 1xx type (eTck for 201-203, eFact for 211-213, eRem for 281, eResg for
282) with TipoCFE 2xx, the serie and number printed on the paper, and the CAE data of the printed book DGI
authorised. It goes to DGI only, never to the receiver. DGI never rejects one: it answers AE, or CE
"observado" with C03-C15, and an observed CFC is corrected and sent again.
"""

from __future__ import annotations

from datetime import date

from lxml import etree

from portal.service.cfe.signing import CfeSigner
from portal.service.envios.states import CFC_OBSERVATIONS

CFC_TYPES = frozenset({201, 202, 203, 211, 212, 213, 281, 282})
NS = "http://cfe.dgi.gub.uy"
_DS = "{http://www.w3.org/2000/09/xmldsig#}"

# DGI's observation codes and texts (DGITypes.xsd 1.44.2): states.py holds them with the other motives.
CFC_MOTIVES = CFC_OBSERVATIONS
# What DGI observes on a CFC for what it would reject a CFE for (there is no C07: a paper receipt's signature
# date is when it was keyed in, so the book's dates are checked as its authorisation, C03).
_OBSERVATION_FOR = {
    "E01": "C03",
    "E03": "C03",
    "E04": "C04",
    "E05": "C05",
    "E06": "C06",
    "E07": "C03",
    "E08": "C08",
    "E09": "C09",
    "E10": "C10",
    "E11": "C11",
    "E12": "C12",
    "E13": "C13",
    "E14": "C14",
    "E15": "C15",
}


def is_cfc(tipo_cfe: int) -> bool:
    return tipo_cfe in CFC_TYPES


def base_type(tipo_cfe: int) -> int:
    """The 1xx type whose element a CFC uses (2xx = 1xx + 100)."""
    return tipo_cfe - 100 if is_cfc(tipo_cfe) else tipo_cfe


def observations(motives: list[dict]) -> list[dict]:
    """DGI's verdict on a CFC, as motives: each rejection motive becomes its observation (C-code, DGI's text,
    the detail kept); a duplicate (E02) is not an observation: DGI already holds the CFC."""
    seen: dict[str, dict] = {}
    for m in motives:
        code = _OBSERVATION_FOR.get(m["codigo"])
        if code is None or code in seen:
            continue
        entry = {"codigo": code, "glosa": CFC_MOTIVES[code]}
        if m.get("detalle"):
            entry["detalle"] = m["detalle"]
        seen[code] = entry
    return list(seen.values())


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
    for signature in root.findall(f"{_DS}Signature"):
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
