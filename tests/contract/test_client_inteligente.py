"""The client's smart-issuance methods against a live service: typed results end to end."""

from __future__ import annotations

import uuid
from datetime import timedelta
from decimal import Decimal

import pytest

from portal.client import CfeClient, NotFound, ValidationError
from portal.domain.uruguay_time import today_montevideo


@pytest.fixture
def api(live_service, live_token_for):
    return CfeClient(live_service.url).as_user(live_token_for("usuario@demo.uy"))


def test_preview_confirm_and_consult(api):
    preview = api.smart_preview(
        {
            "receptor": {"documento": "219999830019"},
            "lineas": [{"descripcion": "Consultoría", "cantidad": "2", "precio": "1000"}],
        }
    )
    assert preview.state == "preview" and preview.draft["tipoCFE"] == 111 and preview.preview_token
    assert api.preview_by_token(preview.preview_token).startswith(b"%PDF")
    issued = api.smart_confirm(preview.id, preview.draft_hash, [w.code for w in preview.warnings])
    assert issued.state == "issued" and issued.final and issued.receipt.tipo_cfe == 111
    assert [e.state for e in api.smart_request(preview.id).timeline] == ["preview", "confirmed", "issued"]


def test_direct_issue_and_errors_are_typed(api):
    issued = api.smart_issue(
        {"lineas": [{"descripcion": "Café", "cantidad": "1", "precio": "90"}]}, idempotency_key=uuid.uuid4().hex
    )
    assert issued.receipt is not None and issued.receipt.nro >= 1
    with pytest.raises(ValidationError) as caught:
        api.smart_preview({"lineas": []})
    assert caught.value.fields[0].field == "lineas"
    with pytest.raises(NotFound):
        api.smart_request("ei_missing")


def test_the_company_requests_come_back_typed_and_paged(api):
    issued = api.smart_issue(
        {"lineas": [{"descripcion": "Café", "cantidad": "2", "precio": "122"}]}, idempotency_key=uuid.uuid4().hex
    )
    previewed = api.smart_preview({"lineas": [{"descripcion": "Café", "cantidad": "1", "precio": "90"}]})
    first = api.smart_requests(limit=1)
    assert [r.id for r in first.items] == [previewed.id] and first.next_cursor
    assert first.items[0].state == "preview" and first.items[0].receipt is None
    second = api.smart_requests(limit=1, cursor=first.next_cursor)
    row = second.items[0]
    assert row.id == issued.id and row.state == "issued" and row.created_by == "usuario@demo.uy"
    assert row.receipt.id == issued.receipt.id and row.receipt.number == issued.receipt.number
    assert row.receipt.total == Decimal("244.00") and row.receipt.currency == "UYU"
    found = api.smart_requests(
        number=f"{issued.receipt.serie} {issued.receipt.nro:07d}",
        state="issued",
        since=today_montevideo() - timedelta(days=1),
        until=today_montevideo() + timedelta(days=1),
    )
    assert [r.id for r in found.items] == [issued.id] and found.next_cursor is None
    with pytest.raises(ValidationError) as caught:
        api.smart_requests(number="Factura quince")
    assert caught.value.fields[0].field == "numero" and "como A-15" in caught.value.fields[0].message
