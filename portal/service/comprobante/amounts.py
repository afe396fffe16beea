"""A receipt's amounts as the IVA books and the receipt list's export read them: the amount columns of the
stored totals (net and IVA per rate, as the signed CFE carries them), credit notes negative. Here, beside the
receipts' table, because the receipt list (comprobante) and the books (informes) both read them, and informes
builds on comprobante, never the other way."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from portal.domain.cfe_types import CFE_TYPES
from portal.service.comprobante.models import IssuedCfe

ZERO = Decimal("0")
# The book's amount columns, in order: the book's name, and the total of the signed CFE it comes from.
AMOUNT_COLUMNS: tuple[tuple[str, str], ...] = (
    ("noGravado", "mntNoGrv"),
    ("exportacion", "mntExpoyAsim"),
    ("ivaSuspenso", "mntIVaenSusp"),
    ("netoTasaMinima", "mntNetoIvaTasaMin"),
    ("netoTasaBasica", "mntNetoIVATasaBasica"),
    ("netoOtraTasa", "mntNetoIVAOtra"),
    ("ivaTasaMinima", "mntIVATasaMin"),
    ("ivaTasaBasica", "mntIVATasaBasica"),
    ("ivaOtraTasa", "mntIVAOtra"),
    ("percepciones", "mntImpuestoPerc"),
    ("retenciones", "mntTotRetenido"),
    ("total", "mntTotal"),
)
AMOUNT_NAMES = tuple(name for name, _ in AMOUNT_COLUMNS)
# The types whose amounts count negative (credit notes), looked up once per row.
CREDIT_TYPES = frozenset(code for code, kind in CFE_TYPES.items() if kind.note_sign < 0)
# How a zero (or an absent amount) is written in the stored totals, or by SQLite's JSON array of them.
_ZERO_TEXTS = frozenset({None, "", "0", "0.0", "0.00", "null"})


def stored_decimal(text: str | None) -> Decimal | None:
    """A stored amount or rate; None when absent or one of the usual zeros (not parsed: most amounts are)."""
    if text is None or text in _ZERO_TEXTS:
        return None
    return Decimal(text)


def amount_columns() -> list[Any]:
    """The book's amount columns read out of a receipt's stored totals by the database (one JSON value each, as
    text, labelled with the book's names), for a statement on IssuedCfe; `signed_amounts` reads them back."""
    return [IssuedCfe.totals_json[source].as_string().label(name) for name, source in AMOUNT_COLUMNS]


def is_credit_note(tipo_cfe: int) -> bool:
    return tipo_cfe in CREDIT_TYPES


def signed_amounts(tipo_cfe: int, texts: Iterable[str | None]) -> dict[str, Decimal]:
    """The amount columns that are not zero (`texts` in AMOUNT_COLUMNS' order, as amount_columns reads them), in
    the receipt's currency, negative for a credit note."""
    credit = tipo_cfe in CREDIT_TYPES
    amounts: dict[str, Decimal] = {}
    for name, text in zip(AMOUNT_NAMES, texts, strict=True):
        if text not in _ZERO_TEXTS:  # parsed only when not one of the usual zeros: most amounts are
            value = Decimal(text)  # type: ignore[arg-type]  # not None: None is one of the zeros
            if value:
                amounts[name] = -value if credit else value
    return amounts
