"""From what the user typed in step 1 to the client's smart-issuance request. Pure: no Flask, no I/O, so
every rule here is unit-tested on plain dicts."""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal

from portal.client.inteligente_requests import SmartIssueRequest, SmartLine, SmartReceiver, SmartReference
from portal.domain.identifiers import digits_only, is_valid_ci, is_valid_rut
from portal.domain.iva_categories import CATEGORY_RATES, RATE_TO_IND_FACT
from portal.web.numbers import AmbiguousNumber, parse_decimal

CATEGORIES = tuple(CATEGORY_RATES)
RATES = tuple(RATE_TO_IND_FACT)
CURRENCIES = ("UYU", "USD", "EUR", "ARS", "BRL")


def parse_amount(text: str | None, decimal_mark: str = ",") -> Decimal | None:
    """A non-negative number read as every portal form reads numbers (portal.web.numbers, with the reader's
    `decimal_mark`), or None.

    An ambiguous "1.500" (to a Spanish reader; "1,500" to an English one) raises AmbiguousNumber: the form asks
    instead of guessing.
    """
    try:
        value = parse_decimal(text, decimal_mark)
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


def _number(text: str, decimal_mark: str) -> Decimal:
    """A number the form already checked (SmartForm's number fields refuse anything else)."""
    parsed = parse_amount(text, decimal_mark)
    if parsed is None:
        raise ValueError(f"not a number: {text!r}")
    return parsed


def _line(line: Mapping, decimal_mark: str) -> SmartLine:
    return SmartLine(
        description=_text(line, "descripcion"),
        quantity=_number(_text(line, "cantidad"), decimal_mark),
        price=_number(_text(line, "precio"), decimal_mark),
        rate=_text(line, "tasa") or None,
        category=_text(line, "categoria") or None,
    )


def to_request(values: Mapping, decimal_mark: str = ",") -> SmartIssueRequest:
    """The smart-issuance request for step 1's values (the validated form's `data`, its numbers as typed in the
    reader's language, whose `decimal_mark` reads them)."""
    currency = _text(values, "moneda") or "UYU"
    document = _text(values, "documento")
    return SmartIssueRequest(
        lines=tuple(_line(line, decimal_mark) for line in values.get("lineas") or []),
        prices_include_tax=bool(values.get("precios_incluyen_iva")),
        currency=currency,
        payment_form=int(_text(values, "forma_pago") or 1),
        receiver=SmartReceiver(document, name=_text(values, "nombre") or None) if document else None,
        exchange_rate=_number(_text(values, "tipo_cambio"), decimal_mark)
        if currency != "UYU" and _text(values, "tipo_cambio")
        else None,
        reference=SmartReference(
            _text(values, "ref_id"), _text(values, "ref_razon"), _text(values, "ref_tipo") or "credito"
        )
        if _text(values, "ref_id")
        else None,
        adenda=_text(values, "adenda") or None,
    )
