"""The real client's products against a live service: a product typed with the service's price the other way
round (with IVA or without), which the issuing form puts in a line whose prices go the other way."""

from __future__ import annotations

import uuid
from decimal import Decimal

import pytest

from portal.client import CfeClient
from portal.client.productos import ProductFields


@pytest.fixture
def api(live_service, live_token_for):
    return CfeClient(live_service.url, retries=0).as_user(live_token_for("usuario@demo.uy"), company_id=1)


def test_a_product_comes_with_its_price_the_other_way_round(api):
    code = "OTR-" + uuid.uuid4().hex[:8]
    created = api.create_product(
        ProductFields(code=code, name="Mate " + code, price=Decimal("320"), price_includes_tax=True)
    )
    assert created.price == Decimal("320") and created.other_price == Decimal("262.2951")  # 320 / 1.22
    changed = api.update_product(
        created.id, ProductFields(code=code, name=created.name, price=Decimal("100"), ind_fact=2)
    )
    assert changed.other_price == Decimal("110")  # IVA mínima added to a price without it
    [found] = [p for p in api.list_products(code).items if p.id == created.id]
    assert found == changed
