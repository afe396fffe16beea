"""A product suggested on the issuing form carries the price the other way round (with IVA or without) that the
service gives (`precioOtro`), converted as the price is when the receipt is in another currency: the portal does
no IVA arithmetic of its own."""

from __future__ import annotations

from decimal import Decimal
from types import SimpleNamespace

import pytest

from portal.client.productos import Product, ProductPage
from portal.web.comprobantes import catalogue

pytestmark = pytest.mark.usefixtures("in_spanish")


def _product(price: str, other: str) -> Product:
    return Product(
        id=1,
        code="YER-1",
        name="Yerba 1 kg",
        unit="kg",
        price=Decimal(price),
        price_includes_tax=True,
        ind_fact=3,
        currency="UYU",
        other_price=Decimal(other),
    )


@pytest.fixture
def service(monkeypatch):
    """The service's answer to the product search, whatever its IVA rules made of the price."""
    found: list[Product] = []
    backend = SimpleNamespace(list_products=lambda typed, limit: ProductPage(tuple(found), None))
    monkeypatch.setattr(catalogue, "api", lambda: backend)
    return found


def test_the_price_the_other_way_is_the_services(service):
    # Not 122 / 1.22: what the service says is what the line gets (its rates, its rounding).
    service.append(_product("122", "99.9876"))

    [suggestion] = catalogue.product_suggestions("Yerba", 0)

    assert suggestion.data["precio"] == "122" and suggestion.data["precio_otro"] == "99,9876"


def test_the_price_the_other_way_is_converted_as_the_price_is(service):
    service.append(_product("122", "100"))

    [suggestion] = catalogue.product_suggestions("Yerba", 0, "USD", rate="40")

    assert suggestion.data["precio"] == "3,05" and suggestion.data["precio_otro"] == "2,5"  # 100 / 40
