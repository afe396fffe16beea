"""The client's smart-issuance methods against a live service: typed results end to end."""

from __future__ import annotations

import uuid

import pytest

from portal.client import CfeClient, NotFound, ValidationError


@pytest.fixture
def api(live_service, live_token_for):
    return CfeClient(live_service.url).as_user(live_token_for("usuario@demo.uy"))


def test_preview_confirm_and_consult(api):
    preview = api.smart_preview({"receptor": {"documento": "219999830019"},
                                 "lineas": [{"descripcion": "Consultoría", "cantidad": "2", "precio": "1000"}]})
    assert preview.state == "preview" and preview.draft["tipoCFE"] == 111 and preview.preview_token
    assert api.preview_by_token(preview.preview_token).startswith(b"%PDF")
    issued = api.smart_confirm(preview.id, preview.draft_hash, [w.code for w in preview.warnings])
    assert issued.state == "issued" and issued.final and issued.receipt.tipo_cfe == 111
    assert [e.state for e in api.smart_request(preview.id).timeline] == ["preview", "confirmed", "issued"]


def test_direct_issue_and_errors_are_typed(api):
    issued = api.smart_issue({"lineas": [{"descripcion": "Café", "cantidad": "1", "precio": "90"}]},
                             idempotency_key=uuid.uuid4().hex)
    assert issued.receipt is not None and issued.receipt.nro >= 1
    with pytest.raises(ValidationError) as caught:
        api.smart_preview({"lineas": []})
    assert caught.value.fields[0].field == "lineas"
    with pytest.raises(NotFound):
        api.smart_request("ei_missing")
