"""A catalogue product's price converted to the receipt's currency through pesos with the day's rates (the form's
rate for the receipt's own currency), rounded half up to the cent, and said beside the line; no rate, no price."""

from __future__ import annotations

from decimal import Decimal

import pytest

from portal.web.comprobantes.conversion import convert, typed_rate

DAY = {"USD": Decimal("39.850"), "EUR": Decimal("43.100")}

pytestmark = pytest.mark.usefixtures("in_spanish")


def _rates(currency: str) -> Decimal | None:
    return DAY.get(currency)


def test_dollars_on_a_receipt_in_pesos():
    converted = convert(Decimal("10"), "USD", "UYU", _rates, None)
    assert converted is not None and converted.price == Decimal("398.50")
    assert converted.note == "U$S\u00a010,00 a 39,850 = $\u00a0398,50"


def test_pesos_on_a_receipt_in_dollars_take_the_forms_rate():
    converted = convert(Decimal("122"), "UYU", "USD", _rates, Decimal("40"))
    assert converted is not None and converted.price == Decimal("3.05")
    assert converted.note == "$\u00a0122,00 a 40,000 = U$S\u00a03,05"
    halfway = convert(Decimal("0.25"), "UYU", "USD", _rates, Decimal("10"))  # 0.025: half up, not to even
    assert halfway is not None and halfway.price == Decimal("0.03")


def test_euros_on_a_receipt_in_dollars_go_through_pesos():
    converted = convert(Decimal("10"), "EUR", "USD", _rates, None)
    assert converted is not None and converted.price == Decimal("10.82")  # 431 / 39.85 = 10.8155...
    assert "= $\u00a0431,00, a 39,850 = U$S\u00a010,82" in converted.note
    # The service's price the other way round (with IVA) goes the same way, to four places: 12.2 x 43.1 / 39.85.
    assert converted.alike(Decimal("12.2")) == Decimal("13.1950")


def test_no_rate_leaves_the_price_to_the_person_and_says_why():
    converted = convert(Decimal("10"), "BRL", "UYU", _rates, None)
    assert converted is not None and converted.price is None
    assert "no hay cotización de BRL" in converted.note and "escribí el precio en UYU" in converted.note
    assert converted.alike(Decimal("12.2")) is None
    assert convert(Decimal("10"), "UYU", "UYU", _rates, None) is None
    assert convert(Decimal("10"), "USD", "", _rates, None) is None


@pytest.mark.parametrize(
    ("typed", "rate"),
    [("39,85", Decimal("39.85")), ("39.85", Decimal("39.85")), ("1.039,5", Decimal("1039.5")), ("", None)],
)
def test_the_forms_rate_is_read_as_typed(typed, rate):
    assert typed_rate(typed) == rate
    assert typed_rate("abc") is None and typed_rate("0") is None and typed_rate("-3") is None
