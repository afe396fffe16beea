"""The issuing form's data as the service's JSON body, and the service's error paths back onto the form.

Pure (no Flask, no I/O). The portal holds no tax logic: amounts travel as the user typed them (parsed
into exact decimals) and every total, rate and rule is the service's. Which fields a CFE type carries is
decided here only so the body never sends a field DGI's format does not have for that type.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from portal.domain.identifiers import URUGUAYAN_DOC_TYPES

_PATH = re.compile(r"^(?P<head>[A-Za-z]+)(?:\[(?P<index>\d+)\])?(?:\.(?P<rest>[A-Za-z]+))?")

INVOICE_LIKE = frozenset({101, 102, 103, 111, 112, 113})
NOTES = frozenset({102, 103, 112, 113})
REMITO = 181
RESGUARDO = 182

# Query parameters the issuing form accepts to pre-fill itself (the DGI page's "use as receiver" link
# sends the first seven; the receipt page's "credit/debit note" links add the reference).
PREFILL_PARAMS = {
    "tipoCFE": "tipo_cfe",
    "tipoDocRecep": "tipo_doc_recep",
    "docRecep": "doc_recep",
    "rznSocRecep": "rzn_soc_recep",
    "dirRecep": "dir_recep",
    "ciudadRecep": "ciudad_recep",
    "deptoRecep": "depto_recep",
    "refTipo": "ref_tipo",
    "refSerie": "ref_serie",
    "refNro": "ref_nro",
    "refFecha": "ref_fecha",
}

_HEADER = {
    "tipoCFE": "tipo_cfe",
    "fchEmis": "fch_emis",
    "fmaPago": "fma_pago",
    "fchVenc": "fch_venc",
    "mntBruto": "mnt_bruto",
    "tpoMoneda": "tpo_moneda",
    "tpoCambio": "tpo_cambio",
    "tipoTraslado": "tipo_traslado",
    "adenda": "adenda",
    "receptor": "tipo_doc_recep",
    "referencias": "ref_nro",
}
_RECEPTOR = {
    "tipoDocRecep": "tipo_doc_recep",
    "codPaisRecep": "cod_pais_recep",
    "docRecep": "doc_recep",
    "rznSocRecep": "rzn_soc_recep",
    "dirRecep": "dir_recep",
    "ciudadRecep": "ciudad_recep",
    "deptoRecep": "depto_recep",
}
_ITEM = {
    "retencPercep": "cod_ret",
    "indFact": "ind_fact",
    "nomItem": "nom_item",
    "dscItem": "nom_item",
    "cantidad": "cantidad",
    "uniMed": "uni_med",
    "precioUnitario": "precio_unitario",
    "descuentoMonto": "descuento",
    "descuentoPct": "descuento",
}
_REFERENCE = {
    "tpoDocRef": "ref_tipo",
    "serie": "ref_serie",
    "nroCFERef": "ref_nro",
    "razonRef": "ref_razon",
    "fechaCFEref": "ref_fecha",
}


def _number(value: Decimal) -> str:
    return format(value, "f")


def _text(data: dict, name: str) -> str:
    return (data.get(name) or "").strip()


def _blank_line(line: dict) -> bool:
    return not (
        _text(line, "nom_item")
        or line.get("precio_unitario") is not None
        or line.get("descuento") is not None
        or _text(line, "cod_ret")
        or line.get("valor") is not None
    )


def _retention(line: dict) -> dict:
    """An e-Resguardo line: one retention (code, rate, base, amount)."""
    retention: dict = {"codRet": _text(line, "cod_ret")}
    for form_name, api_name in (("tasa", "tasa"), ("base", "mntSujetoaRet"), ("valor", "valRetPerc")):
        if line.get(form_name) is not None:
            retention[api_name] = _number(line[form_name])
    return {"retencPercep": [{k: v for k, v in retention.items() if v != ""}]}


def _item(line: dict, tipo: int) -> dict:
    if tipo == RESGUARDO:
        return _retention(line)
    item: dict = {}
    if tipo in INVOICE_LIKE and line.get("ind_fact"):
        item["indFact"] = int(line["ind_fact"])
    if _text(line, "nom_item"):
        item["nomItem"] = _text(line, "nom_item")
    if line.get("cantidad") is not None:
        item["cantidad"] = _number(line["cantidad"])
    if _text(line, "uni_med"):
        item["uniMed"] = _text(line, "uni_med")
    if tipo in INVOICE_LIKE:
        if line.get("precio_unitario") is not None:
            item["precioUnitario"] = _number(line["precio_unitario"])
        if line.get("descuento"):
            item["descuentoMonto"] = _number(line["descuento"])
    return item


def _receptor(data: dict) -> dict | None:
    fields = {
        "docRecep": "doc_recep",
        "rznSocRecep": "rzn_soc_recep",
        "dirRecep": "dir_recep",
        "ciudadRecep": "ciudad_recep",
        "deptoRecep": "depto_recep",
    }
    receptor = {api: _text(data, form) for api, form in fields.items() if _text(data, form)}
    doc_type = _text(data, "tipo_doc_recep")
    if doc_type:
        receptor["tipoDocRecep"] = int(doc_type)
        country = _text(data, "cod_pais_recep").upper()
        receptor["codPaisRecep"] = "UY" if int(doc_type) in URUGUAYAN_DOC_TYPES else country or None
        if receptor["codPaisRecep"] is None:
            del receptor["codPaisRecep"]
    return receptor or None


def _reference(data: dict) -> dict | None:
    if not (_text(data, "ref_serie") or _text(data, "ref_nro") or _text(data, "ref_razon")):
        return None
    reference: dict = {
        "tpoDocRef": int(data["ref_tipo"]) if data.get("ref_tipo") else None,
        "serie": _text(data, "ref_serie").upper() or None,
        "nroCFERef": int(_text(data, "ref_nro")) if _text(data, "ref_nro").isdigit() else None,
        "razonRef": _text(data, "ref_razon") or None,
    }
    if isinstance(data.get("ref_fecha"), date):
        reference["fechaCFEref"] = data["ref_fecha"].isoformat()
    return {key: value for key, value in reference.items() if value is not None}


@dataclass(frozen=True)
class Body:
    """The JSON body, and for each of its items the form line it came from (blank lines are skipped)."""

    json: dict
    line_rows: tuple[int, ...]


def build_body(data: dict) -> Body:
    """The service's "issue a CFE" body from the form's data (`form.data`: decimals and dates parsed)."""
    tipo = int(data["tipo_cfe"])
    body: dict = {"tipoCFE": tipo}
    if isinstance(data.get("fch_emis"), date):
        body["fchEmis"] = data["fch_emis"].isoformat()
    if tipo in INVOICE_LIKE:
        body["fmaPago"] = int(data.get("fma_pago") or 1)
        if isinstance(data.get("fch_venc"), date):
            body["fchVenc"] = data["fch_venc"].isoformat()
        body["mntBruto"] = bool(data.get("mnt_bruto"))
    if tipo != REMITO:
        body["tpoMoneda"] = _text(data, "tpo_moneda") or "UYU"
        if body["tpoMoneda"] != "UYU" and data.get("tpo_cambio") is not None:
            body["tpoCambio"] = _number(data["tpo_cambio"])
    else:
        body["tipoTraslado"] = int(data.get("tipo_traslado") or 1)
    receptor = _receptor(data)
    if receptor:
        body["receptor"] = receptor
    rows = [i for i, line in enumerate(data.get("lines") or []) if not _blank_line(line)]
    body["items"] = [_item(data["lines"][i], tipo) for i in rows]
    if tipo in NOTES:
        reference = _reference(data)
        body["referencias"] = [reference] if reference else []
    if _text(data, "adenda"):
        body["adenda"] = _text(data, "adenda")
    if _text(data, "corrige"):
        body["corrigeA"] = _text(data, "corrige")
    return Body(body, tuple(rows))


def form_target(path: str, line_rows: tuple[int, ...]) -> tuple[str | int, ...] | None:
    """Where the service's error path ("items[2].precioUnitario") belongs on the form, or None (banner).

    The answer is ("doc_recep",) for a top-level field or ("lines", row, "precio_unitario") for a line.
    """
    match = _PATH.match(path)
    if not match:
        return None
    head, index, rest = match["head"], match["index"], match["rest"]
    if head == "receptor" and rest:
        return (_RECEPTOR[rest],) if rest in _RECEPTOR else None
    if head == "items":
        if index is None:  # about the lines as a whole (a negative total, too many lines): not one line's
            return None
        row = line_rows[int(index)] if int(index) < len(line_rows) else None
        if row is None:
            return None
        return ("lines", row, _ITEM.get(rest or "", "nom_item")) if not rest or rest in _ITEM else None
    if head == "referencias":
        if rest:
            return (_REFERENCE[rest],) if rest in _REFERENCE else None
        return ("ref_nro",)
    if rest is None and index is None and head in _HEADER:
        return (_HEADER[head],)
    return None


def _decimal(value) -> Decimal | None:
    return None if value in (None, "") else Decimal(str(value))


def _line_data(item: dict) -> dict:
    retention = (item.get("retencPercep") or [{}])[0]
    return {
        "ind_fact": item.get("indFact", 3),
        "nom_item": item.get("nomItem", ""),
        "cantidad": _decimal(item.get("cantidad")),
        "uni_med": item.get("uniMed", ""),
        "precio_unitario": _decimal(item.get("precioUnitario")),
        "descuento": _decimal(item.get("descuentoMonto")),
        "cod_ret": retention.get("codRet", ""),
        "tasa": _decimal(retention.get("tasa")),
        "base": _decimal(retention.get("mntSujetoaRet")),
        "valor": _decimal(retention.get("valRetPerc")),
    }


def form_data(body: dict) -> dict:
    """The issuing form's data for a service body (the inverse of build_body): a note's draft, or a receipt
    to issue again. Fields the form does not have (codes, payments) are left out."""
    receptor = body.get("receptor") or {}
    data: dict = {
        "tipo_cfe": body.get("tipoCFE", 101),
        "fma_pago": body.get("fmaPago", 1),
        "mnt_bruto": bool(body.get("mntBruto")),
        "tpo_moneda": body.get("tpoMoneda", "UYU"),
        "tpo_cambio": _decimal(body.get("tpoCambio")),
        "adenda": body.get("adenda") or "",
        "tipo_doc_recep": str(receptor.get("tipoDocRecep") or ""),
        "cod_pais_recep": receptor.get("codPaisRecep") or "UY",
    }
    if body.get("tipoTraslado"):
        data["tipo_traslado"] = body["tipoTraslado"]
    data.update({form: receptor[api] for api, form in _RECEPTOR.items() if receptor.get(api) and form not in data})
    data["lines"] = [_line_data(item) for item in body.get("items", [])]
    for reference in body.get("referencias", [])[:1]:
        data.update(
            ref_tipo=reference.get("tpoDocRef"),
            ref_serie=reference.get("serie", ""),
            ref_nro=str(reference.get("nroCFERef") or ""),
            ref_razon=reference.get("razonRef", ""),
            ref_fecha=date.fromisoformat(reference["fechaCFEref"]) if reference.get("fechaCFEref") else None,
        )
    return data
