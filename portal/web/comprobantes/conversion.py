"""A catalogue product's price in the receipt's currency: a product kept in dollars picked on a receipt in pesos
(or the reverse, or in euros on one in dollars) is converted with the day's rate from the service's exchange
rates (BCU's, as the form's rate field takes them), through pesos, and the line says how ("U$S 10,00 a 39,850 =
$ 398,50"). For the receipt's own currency the rate the person has in the form's rate field counts, since that is
the rate the receipt will carry. When a rate is not known the price is not converted: the line says so and the
person writes the price."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_UP, Decimal

from flask_babel import format_decimal
from flask_babel import gettext as _

from portal.client import errors as client_errors
from portal.domain.uruguay_time import today_montevideo
from portal.web.backend import api
from portal.web.i18n import decimal_mark, money
from portal.web.numbers import parse_decimal

log = logging.getLogger(__name__)

PESOS = "UYU"
CENT = Decimal("0.01")
PRICE_PLACES = Decimal("0.0001")  # a price the other way round, as the service gives it (precioOtro)
_UNAVAILABLE = (client_errors.ServiceUnavailable, client_errors.RateLimited, client_errors.ValidationError)

# Pesos per unit of a currency for the day (None: not known).
RateLookup = Callable[[str], Decimal | None]


@dataclass(frozen=True)
class Conversion:
    """The price to put in the line (None: none known, the person writes it) and what to say beside it."""

    price: Decimal | None
    note: str
    factor: Decimal | None = None  # units of the receipt's currency per unit of the product's

    def alike(self, price: Decimal) -> Decimal | None:
        """Another price of the product (the service's price the other way round, with or without IVA) converted
        the same way, to the places such a price has (PRICE_PLACES); None when this price was not converted."""
        if self.factor is None:
            return None
        return (price * self.factor).quantize(PRICE_PLACES, ROUND_HALF_UP)


def typed_rate(text: str | None) -> Decimal | None:
    """The form's rate field as the form reads it (portal.web.numbers, in the reader's language), or None while it
    is empty, not a number or ambiguous (the form says so when it is sent)."""
    try:
        value = parse_decimal(text, decimal_mark())
    except ValueError:
        return None
    return value if value is not None and value > 0 else None


# A receipt's currency (DGI's TpoMoneda, ISO 4217) as the service's rates name it: the unidad indexada is "UYI"
# on a CFE and "UI" at the BCU.
_RATES_NAME = {"UYI": "UI"}


def rates_name(currency: str) -> str:
    """The name the service's exchange rates give a receipt's currency."""
    return _RATES_NAME.get(currency, currency)


def days_rates(day: date | None) -> RateLookup:
    """The service's rate (the selling one, what TpoCambio takes) of each currency for `day` (today when None),
    asked once per currency; a service that does not answer knows no rate."""
    asked: dict[str, Decimal | None] = {}

    def lookup(currency: str) -> Decimal | None:
        if currency not in asked:
            try:
                rate = api().exchange_rate(rates_name(currency), day or today_montevideo())
            except _UNAVAILABLE as exc:
                log.info("exchange rate unavailable: %s %s", exc.status, exc.code)
                rate = None
            asked[currency] = rate.sell if rate else None
        return asked[currency]

    return lookup


def _rate_text(value: Decimal) -> str:
    return format_decimal(value, format="#,##0.000")


def convert(
    price: Decimal, currency: str, receipt_currency: str, rates: RateLookup, receipt_rate: Decimal | None
) -> Conversion | None:
    """`price` in `currency` as a price in `receipt_currency` (rounded half up to the cent), or None when both
    are the same. `receipt_rate`: the form's rate for the receipt's currency (the day's when None)."""
    if not receipt_currency or currency == receipt_currency:
        return None
    source = Decimal(1) if currency == PESOS else rates(currency)
    target = Decimal(1) if receipt_currency == PESOS else (receipt_rate or rates(receipt_currency))
    if source is None or target is None:
        missing = currency if source is None else receipt_currency
        return Conversion(
            None,
            _(
                "Precio en %(price)s y no hay cotización de %(currency)s para esa fecha: escribí el precio en "
                "%(receipt)s.",
                price=money(price, currency),
                currency=missing,
                receipt=receipt_currency,
            ),
        )
    factor = source / target
    converted = (price * source / target).quantize(CENT, ROUND_HALF_UP)
    shown = {"price": money(price, currency), "converted": money(converted, receipt_currency)}
    if currency == PESOS:
        note = _("%(price)s a %(rate)s = %(converted)s", rate=_rate_text(target), **shown)
        return Conversion(converted, note, factor)
    if receipt_currency == PESOS:
        note = _("%(price)s a %(rate)s = %(converted)s", rate=_rate_text(source), **shown)
        return Conversion(converted, note, factor)
    pesos = money((price * source).quantize(CENT, ROUND_HALF_UP), PESOS)
    note = _(
        "%(price)s a %(rate)s = %(pesos)s, a %(other)s = %(converted)s",
        rate=_rate_text(source),
        pesos=pesos,
        other=_rate_text(target),
        **shown,
    )
    return Conversion(converted, note, factor)
