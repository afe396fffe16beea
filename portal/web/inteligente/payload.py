"""From what the user typed in step 1 to the client's smart-issuance request, and the service's field errors
back onto the form. Pure: no Flask, no I/O, so every rule here is unit-tested on plain dicts."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from decimal import Decimal

from portal.client.inteligente_requests import SmartIssueRequest, SmartLine, SmartReceiver, SmartReference
from portal.domain.identifiers import digits_only, is_valid_ci, is_valid_rut
from portal.domain.iva_categories import CATEGORY_RATES, RATE_TO_IND_FACT
from portal.web.numbers import AmbiguousNumber, parse_decimal

CATEGORIES = tuple(CATEGORY_RATES)
RATES = tuple(RATE_TO_IND_FACT)
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


def _number(text: str) -> Decimal:
    """A number the form already checked (SmartForm's number fields refuse anything else)."""
    parsed = parse_amount(text)
    if parsed is None:
        raise ValueError(f"not a number: {text!r}")
    return parsed


def _line(line: Mapping) -> SmartLine:
    return SmartLine(
        description=_text(line, "descripcion"),
        quantity=_number(_text(line, "cantidad")),
        price=_number(_text(line, "precio")),
        rate=_text(line, "tasa") or None,
        category=_text(line, "categoria") or None,
    )


def to_request(values: Mapping) -> SmartIssueRequest:
    """The smart-issuance request for step 1's values (the validated form's `data`)."""
    currency = _text(values, "moneda") or "UYU"
    document = _text(values, "documento")
    return SmartIssueRequest(
        lines=tuple(_line(line) for line in values.get("lineas") or []),
        prices_include_tax=bool(values.get("precios_incluyen_iva")),
        currency=currency,
        payment_form=int(_text(values, "forma_pago") or 1),
        receiver=SmartReceiver(document, name=_text(values, "nombre") or None) if document else None,
        exchange_rate=_number(_text(values, "tipo_cambio"))
        if currency != "UYU" and _text(values, "tipo_cambio")
        else None,
        reference=SmartReference(
            _text(values, "ref_id"), _text(values, "ref_razon"), _text(values, "ref_tipo") or "credito"
        )
        if _text(values, "ref_id")
        else None,
        adenda=_text(values, "adenda") or None,
    )


# The service's field paths (its input's, and the inferred draft's) -> the form's fields.
_TOP_FIELDS = {
    "receptor": "documento",
    "receptor.documento": "documento",
    "receptor.tipoDoc": "documento",
    "receptor.pais": "documento",
    "receptor.nombre": "nombre",
    "receptor.tipoDocRecep": "documento",
    "receptor.docRecep": "documento",
    "receptor.rznSocRecep": "nombre",
    "preciosIncluyenIva": "precios_incluyen_iva",
    "mntBruto": "precios_incluyen_iva",
    "moneda": "moneda",
    "tpoMoneda": "moneda",
    "tipoCambio": "tipo_cambio",
    "tpoCambio": "tipo_cambio",
    "formaPago": "forma_pago",
    "fmaPago": "forma_pago",
    "referencia": "ref_id",
    "referencia.idCfeEmitido": "ref_id",
    "referencia.tipo": "ref_tipo",
    "referencia.razon": "ref_razon",
    "referencias": "ref_id",
    "adenda": "adenda",
    "lineas": "lineas",
    "items": "lineas",
}
_LINE_FIELDS = {
    "descripcion": "descripcion",
    "nomItem": "descripcion",
    "cantidad": "cantidad",
    "precio": "precio",
    "precioUnitario": "precio",
    "tasa": "tasa",
    "indFact": "tasa",
    "categoria": "categoria",
    "descuentoPct": "precio",
    "uniMed": "descripcion",
}
_LINE_PATH = re.compile(r"^(?:lineas|items)\[(\d+)\](?:\.(\w+))?")


def form_field(path: str) -> str | None:
    """The form field for a service field path: "lineas-2-precio" for lineas[2].precio (and the draft's
    items[2].precioUnitario), "documento" for receptor.documento; None when no field of step 1 fits."""
    line = _LINE_PATH.match(path)
    if line:
        index, name = line.groups()
        return f"lineas-{index}-{_LINE_FIELDS.get(name or '', 'descripcion')}"
    if path in _TOP_FIELDS:
        return _TOP_FIELDS[path]
    if path.startswith("receptor."):
        return "documento"
    if path.startswith("referencias"):
        return "ref_id"
    return None


def place_errors(fields: Iterable[tuple[str, str]]) -> tuple[dict[str, list[str]], list[str]]:
    """Service (path, message) pairs -> ({form field: messages}, messages that fit no field)."""
    placed: dict[str, list[str]] = {}
    loose: list[str] = []
    for path, message in fields:
        name = form_field(path)
        if name is None:
            loose.append(message)
        elif message not in placed.setdefault(name, []):
            placed[name].append(message)
    return placed, loose
