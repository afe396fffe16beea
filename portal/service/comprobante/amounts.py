"""A receipt's amounts as the IVA books and the receipt list's export read them: the amount columns stored with
each receipt at issue time (net and IVA per rate, as the signed CFE carries them; `book_amounts`), credit notes
negative. Here, beside the
receipts' table, because the receipt list (comprobante) and the books (informes) both read them, and informes
builds on comprobante, never the other way."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from portal.domain.cfe_types import CREDIT_NOTES
from portal.service.cfe.amounts import Totals
from portal.service.comprobante.models import IssuedCfe
from portal.service.platform.i18n import _

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
AMOUNT_NAMES = tuple(name for name, _source in AMOUNT_COLUMNS)
# Each amount column's name, catalogue messages: the books' headers read them as they are (Spanish, str), their
# "Resumen" sheet and the received CFEs' CSV say them in the reader's language.
AMOUNT_LABELS: dict[str, str] = {
    "noGravado": _("Exento y no gravado"),
    "exportacion": _("Exportación y asimiladas"),
    "ivaSuspenso": _("IVA en suspenso"),
    "netoTasaMinima": _("Neto tasa mínima"),
    "netoTasaBasica": _("Neto tasa básica"),
    "netoOtraTasa": _("Neto otra tasa"),
    "ivaTasaMinima": _("IVA tasa mínima"),
    "ivaTasaBasica": _("IVA tasa básica"),
    "ivaOtraTasa": _("IVA otra tasa"),
    "percepciones": _("Percepciones"),
    "retenciones": _("Retenciones"),
    "total": _("Total"),
}
# The receipt's column of each (IssuedCfe, migration 0240), in AMOUNT_COLUMNS' order: Totals' field names too.
AMOUNT_FIELDS = (
    "mnt_no_grv",
    "mnt_expo_y_asim",
    "mnt_iva_en_susp",
    "mnt_neto_iva_tasa_min",
    "mnt_neto_iva_tasa_basica",
    "mnt_neto_iva_otra",
    "mnt_iva_tasa_min",
    "mnt_iva_tasa_basica",
    "mnt_iva_otra",
    "mnt_impuesto_perc",
    "mnt_tot_retenido",
    "mnt_total",
)
# What book_amounts sets (mnt_total is the receipt's own column since the start, set with mnt_pagar).
_STORED = AMOUNT_FIELDS[:-1]
# The types whose amounts count negative (credit notes, the paper contingency ones too), looked up once per row.
CREDIT_TYPES = CREDIT_NOTES
# How a zero (or an absent amount) is written in the stored totals, or by SQLite's JSON array of them.
_ZERO_TEXTS = frozenset({None, "", "0", "0.0", "0.00", "null"})


def stored_decimal(text: str | None) -> Decimal | None:
    """A stored amount or rate; None when absent or one of the usual zeros (not parsed: most amounts are)."""
    if text is None or text in _ZERO_TEXTS:
        return None
    return Decimal(text)


def book_amounts(totals: Totals) -> dict[str, Decimal]:
    """The book's amount columns of a receipt signed with `totals` (IssuedCfe's columns, mnt_total apart): what
    issuing adds to the receipt's row, so the books read numbers instead of parsing every receipt's totals_json."""
    return {name: getattr(totals, name) for name in _STORED}


def amount_columns() -> list[Any]:
    """The book's amount columns of a receipt, labelled with the book's names, for a statement on IssuedCfe;
    `signed_amounts` reads them back."""
    return [getattr(IssuedCfe, field).label(name) for name, field in zip(AMOUNT_NAMES, AMOUNT_FIELDS, strict=True)]


def is_credit_note(tipo_cfe: int) -> bool:
    return tipo_cfe in CREDIT_TYPES


CENT = Decimal("0.01")


def in_pesos(amount: Decimal, rate: Decimal) -> Decimal:
    """An amount in another currency at the CFE's own rate (TpoCambio), in pesos to the cent: the IVA books' rule."""
    return (amount * rate).quantize(CENT, ROUND_HALF_UP)


def signed_amounts(tipo_cfe: int, values: Iterable[Decimal | float | str | None]) -> dict[str, Decimal]:
    """The amount columns that are not zero (`values` in AMOUNT_COLUMNS' order: the stored columns' numbers, as
    Decimals, or as SQLite's bare floats, or the texts of a CFE's XML), in the receipt's currency, negative for a
    credit note."""
    credit = tipo_cfe in CREDIT_TYPES
    amounts: dict[str, Decimal] = {}
    for name, value in zip(AMOUNT_NAMES, values, strict=True):
        if not value or value in _ZERO_TEXTS:  # converted only when not zero: most amounts are
            continue
        if type(value) is not Decimal:
            # A float is SQLite's Numeric(17, 2) read bare: its two decimals, not its binary expansion.
            amount = Decimal(value) if isinstance(value, str) else Decimal("%.2f" % value)  # noqa: UP031  # twice as fast as f"{:.2f}"
            if not amount:
                continue
        else:
            amount = value
        amounts[name] = -amount if credit else amount
    return amounts
