"""The issuing form filled from the company's catalogues: a line's product as the person types its description,
the receiver's customer record when the document matches one, and the day's exchange rate.

Nothing here computes a receipt: it only puts values in the form's fields, which the person can change; the
service still does the arithmetic and the rules when previewing or issuing.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from flask_babel import gettext as _

from portal.client import errors as client_errors
from portal.client.clientes import Customer
from portal.client.cotizaciones import ExchangeRate
from portal.client.productos import Product
from portal.domain.money import cfe_rate
from portal.domain.uruguay_time import today_montevideo
from portal.web.backend import api
from portal.web.comprobantes.conversion import Conversion, convert, days_rates, rates_name, typed_rate
from portal.web.i18n import decimal_mark
from portal.web.numbers import form_text

log = logging.getLogger(__name__)

PRODUCTS_SHOWN = 8
MIN_TYPED = 2
_UNAVAILABLE = (client_errors.ServiceUnavailable, client_errors.RateLimited, client_errors.ValidationError)


def form_number(value: Decimal) -> str:
    """A number as the form's NumberField shows it back, in the reader's language."""
    return form_text(value, decimal_mark())


@dataclass(frozen=True)
class ProductSuggestion:
    product: Product
    line: int
    data: dict[str, str | bool | None]
    note: str = ""  # how its price was converted to the receipt's currency, or that it could not be


def _suggestion(product: Product, line: int, conversion: Conversion | None) -> ProductSuggestion:
    price = product.price if conversion is None else conversion.price
    # The service's price the other way round (with IVA or without), converted as the price was.
    other = product.other_price if conversion is None else conversion.alike(product.other_price)
    return ProductSuggestion(
        product,
        line,
        {
            "cod_item": product.code,
            "nom_item": product.name[:80],
            "uni_med": (product.unit or "")[:4],
            "ind_fact": str(product.ind_fact),
            # None: no rate to convert it with, the person writes the price (static/js/app.js)
            "precio": None if price is None else form_number(price),
            "precio_otro": None if other is None else form_number(other),
            "con_iva": product.price_includes_tax,
            "nota": conversion.note if conversion else "",
        },
        conversion.note if conversion else "",
    )


def product_suggestions(
    typed: str | None, line: int, currency: str = "", day: date | None = None, rate: str | None = None
) -> list[ProductSuggestion]:
    """The company's products with a word of the name or the code starting with what was typed (none for less
    than two characters), each priced in the receipt's `currency` (conversion.py: the day's rates, the form's
    `rate` for the receipt's currency); a service failure only means no suggestions."""
    typed = (typed or "").strip()[:80]
    if len(typed) < MIN_TYPED:
        return []
    try:
        found = api().list_products(typed, limit=PRODUCTS_SHOWN).items
    except _UNAVAILABLE as exc:
        log.info("products unavailable: %s %s", exc.status, exc.code)
        return []
    rates, receipt_rate = days_rates(day), typed_rate(rate)
    return [_suggestion(p, line, convert(p.price, p.currency, currency, rates, receipt_rate)) for p in found]


def find_customer(doc_type: int, digits: str) -> Customer | None:
    """The company's customer with this document, or None (also when the service does not answer)."""
    try:
        page = api().list_customers(digits, limit=5)
    except _UNAVAILABLE as exc:
        log.info("customers unavailable: %s %s", exc.status, exc.code)
        return None
    # A foreign document is kept as typed: "ab123456" is the passport AB123456.
    return next((c for c in page.items if c.doc_type == doc_type and c.document.upper() == digits.upper()), None)


# Form field -> (the Customer attribute that fills it, the value the form starts with: a field still at its
# default counts as not chosen by the person).
CUSTOMER_FIELDS: dict[str, tuple[str, str]] = {
    "rzn_soc_recep": ("name", ""),
    "dir_recep": ("address", ""),
    "ciudad_recep": ("city", ""),
    "depto_recep": ("department", ""),
    "enviar_a": ("email", ""),
    "tpo_moneda": ("currency", "UYU"),
    "fma_pago": ("payment_terms", "1"),
}


def customer_value(customer: Customer | None, name: str) -> str:
    if customer is None:
        return CUSTOMER_FIELDS[name][1]
    value = getattr(customer, CUSTOMER_FIELDS[name][0])
    return "" if value is None else str(value)


def untouched(name: str, form: Mapping[str, str], record: Mapping[str, str]) -> bool:
    """The field is empty, at its default, or still holds what was filled in automatically before."""
    current = (form.get(name) or "").strip()
    return not current or current == CUSTOMER_FIELDS[name][1] or current == record.get(name)


@dataclass(frozen=True)
class RateNote:
    """The exchange rate for the form: the value to put in an empty rate field, and what to say beside it."""

    rate: ExchangeRate | None
    fill: str | None  # the new value of tpo_cambio (None: leave it), "" clears what was filled before
    if_value: str
    missing: bool = False  # a foreign currency with no published rate

    @property
    def message(self) -> str:
        if self.rate is None:
            return _("No hay cotización publicada para esa fecha: escribí el tipo de cambio.") if self.missing else ""
        day = self.rate.day.strftime("%d/%m/%Y")
        if self.rate.source == "bcu":
            return _("Cotización BCU del %(day)s", day=day)
        if self.rate.source == "simulador":  # invented figures (development, demo): never said to be the BCU's
            return _("Cotización del simulador del BCU (no oficial) del %(day)s", day=day)
        return _("Cotización del %(day)s", day=day)


def rate_note(currency: str | None, day: date | None, current: str | None, filled_before: str | None) -> RateNote:
    """The day's rate for a receipt in `currency`: filled into the rate field when it is empty (or still holds
    the rate filled before); the person's own rate is left alone."""
    current = (current or "").strip()
    ours = not current or current == (filled_before or "")
    currency = (currency or "UYU").strip().upper()
    if currency == "UYU":
        return RateNote(None, "" if current and ours else None, current)
    try:
        rate = api().exchange_rate(rates_name(currency), day or today_montevideo())
    except _UNAVAILABLE as exc:
        log.info("exchange rate unavailable: %s %s", exc.status, exc.code)
        return RateNote(None, None, current)
    if rate is None:
        return RateNote(None, None, current, missing=True)
    return RateNote(rate, form_number(cfe_rate(rate.sell)) if ours else None, current)


@dataclass(frozen=True)
class SimpleFill:
    """Put `value` in the form field `field` if it still holds `if_value` (static/js/app.js, data-fill-field)."""

    field: str
    value: str
    if_value: str


def customer_fills_for(
    customer: Customer | None, form: Mapping[str, str], fields: Mapping[str, str]
) -> tuple[SimpleFill, ...]:
    """The customer's data for another form's fields (`fields`: form field -> the issuing form's name of it, a key
    of CUSTOMER_FIELDS), only in those still empty or at their default: what the person chose stays."""
    if customer is None:
        return ()
    fills = []
    for field_name, ours in fields.items():
        current = (form.get(field_name) or "").strip()
        value = customer_value(customer, ours)
        if value and (not current or current == CUSTOMER_FIELDS[ours][1]) and value != current:
            fills.append(SimpleFill(field_name, value, form.get(field_name) or ""))
    return tuple(fills)
