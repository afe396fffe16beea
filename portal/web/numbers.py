"""Numbers as people type them in the portal's forms. One reading for every form, so the same text
never means 1500 on one page and 1.5 on another."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

_GROUPED = re.compile(r"-?\d{1,3}(,\d{3})+")


class AmbiguousNumber(ValueError):
    """1.500 could be fifteen hundred (Uruguay) or one and a half: on a fiscal document, ask."""


def parse_decimal(text: str | None) -> Decimal | None:
    """A number as people type it in Uruguay: 1.234,56 / 1234,56 / 1234.56. None when empty.

    With both separators, the last one is the decimal mark; a lone comma is a decimal comma; repeated
    separators group thousands; a lone dot is a decimal point unless exactly three digits follow it
    (1.500), which raises AmbiguousNumber. Raises ValueError for anything else.
    """
    text = (text or "").strip().replace(" ", "")
    if not text:
        return None
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
    elif re.fullmatch(r"-?[1-9]\d{0,2}\.\d{3}", text):
        raise AmbiguousNumber(text)
    text = text.replace(",", ".")
    if not re.fullmatch(r"-?\d+(\.\d+)?", text):
        raise ValueError(text)
    try:
        return Decimal(text)
    except InvalidOperation as exc:  # pragma: no cover - the pattern above already excludes it
        raise ValueError(text) from exc
