"""Numbers written for people in the request's language (i18n.language(): es-UY by default, English): amounts
"1.234,56" in Spanish and "1,234.56" in English, counts "1.234" / "1,234", decimals such as a rate's "22,5" /
"22.5". Babel's patterns, parsed once, as the portal's formatters (portal/web/i18n.py) use them.

What a receipt prints is Uruguayan whatever the reader's language (cfe.pdf_text: DGI's printed representation);
these are for the service's own documents and messages that follow Accept-Language, such as the period's PDF."""

from __future__ import annotations

from decimal import Decimal
from functools import cache

from babel.numbers import NumberPattern, parse_pattern

from portal.domain.money import currency_sign
from portal.service.platform import i18n
from portal.service.platform.i18n import language
from portal.service.platform.i18n import number_locale as _locale

_AMOUNT = parse_pattern("#,##0.00")


@cache
def _pattern(min_places: int, max_places: int) -> NumberPattern:
    return parse_pattern("#,##0" + ("." + "0" * min_places + "#" * (max_places - min_places) if max_places else ""))


def money(value: Decimal | int, currency: str | None = None, lang: str | None = None) -> str:
    """Two decimals, after the currency's sign when given: "U$S 1.234,50" in Spanish, "U$S 1,234.50" in English."""
    text = _AMOUNT.apply(Decimal(value), _locale(lang or language()))
    return f"{currency_sign(currency)} {text}" if currency else text


def count(value: int, lang: str | None = None) -> str:
    """A whole number with the language's thousands separator: 1.234 in Spanish, 1,234 in English."""
    return i18n.count(value, lang or language())


def decimal(value: Decimal | int, min_places: int, max_places: int, lang: str | None = None) -> str:
    """Between `min_places` and `max_places` decimals, trailing zeros dropped: 22 -> "22", 22.50 -> "22,5"."""
    return _pattern(min_places, max_places).apply(Decimal(value), _locale(lang or language()))
