"""From what the user typed in step 1 to the service's smart-issuance body. Pure: no Flask, no I/O, so every
rule here is unit-tested on plain dicts."""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal

from portal.domain.identifiers import digits_only, is_valid_ci, is_valid_rut
from portal.web.numbers import AmbiguousNumber, parse_decimal

# Keep in step with the service's CATEGORY_RATES (the portal does not import the service).
CATEGORIES = (
    "general",
    "servicios",
    "bebidas",
    "alimentos_basicos",
    "medicamentos",
    "hoteleria",
    "transporte_pasajeros",
    "libros",
    "leche",
    "frutas_verduras",
    "educacion",
)
RATES = ("basica", "minima", "exenta", "no_facturable")
CURRENCIES = ("UYU", "USD", "EUR", "ARS", "BRL")


def parse_amount(text: str | None) -> Decimal | None:
    """A non-negative number read as every portal form reads numbers (portal.web.numbers), or None.

    An ambiguous "1.500" raises AmbiguousNumber: the form asks instead of guessing.
    """
    try:
        value = parse_decimal(text)
    except AmbiguousNumber:
        raise
    except ValueError:
        return None
    return value if value is not None and value >= 0 else None


def classify_document(text: str | None) -> str:
    """What the service will make of a receiver document: "empty", "rut", "ci" or "unknown".

    Mirrors the service's inference: a valid 12-digit RUT means e-Factura, a valid cédula (or nobody)
    e-Ticket; anything else needs its document type, which this form does not ask for.
    """
    value = (text or "").strip()
    if not value:
        return "empty"
    digits = digits_only(value)
    if digits == re.sub(r"[.\- ]", "", value) and len(digits) == 12 and is_valid_rut(digits):
        return "rut"
    if digits and len(digits) <= 8 and is_valid_ci(digits):
        return "ci"
    return "unknown"


def _text(values: Mapping, name: str) -> str:
    return (values.get(name) or "").strip()


def _number(text: str) -> str:
    try:
        parsed = parse_amount(text)
    except AmbiguousNumber:  # the form refuses it before a body is built; keep the text if it gets here
        return text
    return str(parsed) if parsed is not None else text


def _line(line: Mapping) -> dict:
    result = {
        "descripcion": _text(line, "descripcion"),
        "cantidad": _number(_text(line, "cantidad")),
        "precio": _number(_text(line, "precio")),
    }
    if _text(line, "tasa"):
        result["tasa"] = _text(line, "tasa")
    if _text(line, "categoria"):
        result["categoria"] = _text(line, "categoria")
    return result


def to_request(values: Mapping) -> dict:
    """The body of previsualizar-emision-inteligente for step 1's values (the form's `data`)."""
    currency = _text(values, "moneda") or "UYU"
    body: dict = {
        "lineas": [_line(line) for line in values.get("lineas") or []],
        "preciosIncluyenIva": bool(values.get("precios_incluyen_iva")),
        "moneda": currency,
        "formaPago": int(_text(values, "forma_pago") or 1),
    }
    if _text(values, "documento"):
        body["receptor"] = {"documento": _text(values, "documento")}
        if _text(values, "nombre"):
            body["receptor"]["nombre"] = _text(values, "nombre")
    if currency != "UYU" and _text(values, "tipo_cambio"):
        body["tipoCambio"] = _number(_text(values, "tipo_cambio"))
    if _text(values, "ref_id"):
        body["referencia"] = {
            "idCfeEmitido": _text(values, "ref_id"),
            "tipo": _text(values, "ref_tipo") or "credito",
            "razon": _text(values, "ref_razon"),
        }
    if _text(values, "adenda"):
        body["adenda"] = _text(values, "adenda")
    return body
