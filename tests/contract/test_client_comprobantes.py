"""The client's receipt list, note and replay methods against a live service: typed results end to end."""

from __future__ import annotations

import csv
import io
import uuid
from decimal import Decimal

import pytest

from portal.client import CfeClient, Conflict, ValidationError
from tests.support import cfe_bodies as bodies


@pytest.fixture
def api(live_service, live_token_for):
    return CfeClient(live_service.url).as_user(live_token_for("usuario@demo.uy"))


def test_search_by_number_pages_totals_and_csv(api):
    issued = [api.issue_receipt(bodies.body(bodies.ETICKET), idempotency_key=uuid.uuid4().hex) for _ in range(3)]
    found = api.search_receipts({"numero": f"A {issued[1].nro:07d}", "tipoCFE": 101})
    assert [r.id for r in found.receipts] == [issued[1].id]
    assert found.receipts[0].number == issued[1].number and found.receipts[0].total == Decimal(
        issued[1].totals["mntTotal"]
    )
    first = api.search_receipts({"tipoCFE": 101}, limit=2)
    assert first.count == 3 and len(first.receipts) == 2 and first.next_cursor
    second = api.search_receipts({"tipoCFE": 101}, cursor=first.next_cursor, limit=2)
    assert [r.id for r in first.receipts + second.receipts] == [r.id for r in reversed(issued)]
    assert second.next_cursor is None and first.totals[0].currency == "UYU" and first.totals[0].count == 3
    rows = list(csv.reader(io.StringIO(api.export_receipts_csv({"tipoCFE": 101}).decode("utf-8-sig")), delimiter=";"))
    assert len(rows) == 4 and rows[0][0] == "Fecha"
    with pytest.raises(ValidationError) as caught:
        api.search_receipts({"numero": "no es un número"})
    assert caught.value.fields[0].field == "numero"


def test_replayed_issue_is_flagged(api):
    key = uuid.uuid4().hex
    first = api.issue_receipt(bodies.body(bodies.ETICKET), idempotency_key=key)
    again = api.issue_receipt(bodies.body(bodies.ETICKET), idempotency_key=key)
    assert not first.replayed and again.replayed and again.id == first.id


def test_cancel_with_credit_note_links_both_ways(api):
    factura = api.issue_receipt(bodies.body(bodies.EFACTURA), idempotency_key=uuid.uuid4().hex)
    note = api.cancel_with_credit_note(factura.id, "Error de precio", idempotency_key=uuid.uuid4().hex)
    assert note.tipo_cfe == 112 and note.references[0].receipt_id == factura.id
    assert note.references[0].reason == "Error de precio" and note.references[0].amount == Decimal(
        factura.totals["mntTotal"]
    )
    original = api.get_receipt(factura.id)
    assert [n.receipt_id for n in original.notes] == [note.id] and original.creditable_balance == 0
    assert [line["nomItem"] for line in original.lines] == ["Consultoría", "Libros"]
    with pytest.raises(Conflict) as caught:
        api.cancel_with_credit_note(factura.id, "Otra vez", idempotency_key=uuid.uuid4().hex)
    assert caught.value.code == "ya_anulado"


def test_note_draft(api):
    factura = api.issue_receipt(bodies.body(bodies.EFACTURA), idempotency_key=uuid.uuid4().hex)
    draft = api.note_draft(factura.id, "debito")
    assert draft.body["tipoCFE"] == 113 and draft.original_id == factura.id and draft.creditable_balance is None
    assert api.note_draft(factura.id, "credito").creditable_balance == Decimal(factura.totals["mntTotal"])
