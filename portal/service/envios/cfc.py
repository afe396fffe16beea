"""Contingency receipts (CFC, types 2xx) on their road to DGI: what DGI answers about them (CFE-URUGUAY.md
section 13; the documents themselves: cfe/contingency.py). A CFC goes to DGI only, never to the receiver. DGI
never rejects one: it answers AE, or CE "observado" with C03-C15, and an observed CFC is corrected and sent
again.
"""

from __future__ import annotations

from portal.service.envios.states import CFC_MOTIVES  # DGI's codes and texts (DGITypes.xsd), with the other motives

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


def observations(motives: list[dict]) -> list[dict]:
    """DGI's verdict on a CFC, as motives: each rejection motive becomes its observation (C-code, DGI's text,
    the detail kept); a duplicate (E02) is not an observation: DGI already holds the CFC."""
    seen: dict[str, dict] = {}
    for m in motives:
        code = _OBSERVATION_FOR.get(m["codigo"])
        if code is None or code in seen:
            continue
        entry = {"codigo": code, "glosa": str(CFC_MOTIVES[code])}  # DGI's Spanish, as stored and signed
        if m.get("detalle"):
            entry["detalle"] = m["detalle"]
        seen[code] = entry
    return list(seen.values())
