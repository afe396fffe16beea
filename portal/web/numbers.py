"""Numbers as people type them in the portal's forms. One reading for every form, so the same text
never means 1500 on one page and 1.5 on another."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

_GROUPED = re.compile(r"-?\d{1,3}(,\d{3})+")


class AmbiguousNumber(ValueError):
    """1.500 could be fifteen hundred (Uruguay) or one and a half (and 1,500 the other way round): on a fiscal
    document, ask."""


def parse_decimal(text: str | None, decimal_mark: str = ",") -> Decimal | None:
    """A number as people type it: 1.234,56 / 1234,56 / 1234.56 (and 1,234.56). None when empty.

    `decimal_mark` is the reader's language's ("," in Spanish, "." in English: i18n.decimal_mark). With both
    separators, the last one is the decimal mark; repeated separators group thousands; a lone separator is a
    decimal mark, unless it is the other language's and exactly three digits follow it: "1.500" to a Spanish
    reader, "1,500" to an English one, may be fifteen hundred as the other language writes it, and raises
    AmbiguousNumber. Raises ValueError for anything else.
    """
    text = (text or "").strip().replace(" ", "")
    if not text:
        return None
    grouping = "." if decimal_mark == "," else ","
    if "," in text and "." in text:
        thousands = "." if text.rfind(",") > text.rfind(".") else ","
        whole = text[: text.rfind("," if thousands == "." else ".")]
        if not _GROUPED.fullmatch(whole.replace(thousands, ",")):
            raise ValueError(text)
        text = text.replace(thousands, "")
    elif text.count(",") > 1 or text.count(".") > 1:
        if not _GROUPED.fullmatch(text.replace(".", ",")):
            raise ValueError(text)
        text = text.replace("," if "," in text else ".", "")
    elif re.fullmatch(rf"-?[1-9]\d{{0,2}}{re.escape(grouping)}\d{{3}}", text):
        raise AmbiguousNumber(text)
    text = text.replace(",", ".")
    if not re.fullmatch(r"-?\d+(\.\d+)?", text):
        raise ValueError(text)
    try:
        return Decimal(text)
    except InvalidOperation as exc:  # pragma: no cover - the pattern above already excludes it
        raise ValueError(text) from exc


def form_text(value: Decimal, decimal_mark: str = ",") -> str:
    """A number as a form's field shows it (a default, a price the catalogue proposes, a rate): `decimal_mark`, no
    grouping, no trailing zeros, so that parse_decimal reads it back as this number in that language (a price of
    1.500 is shown "1500", not asked about as a thousand)."""
    return format(value.normalize(), "f").replace(".", decimal_mark)
