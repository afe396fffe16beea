"""The client's smart-issuance methods against a live service: typed results end to end."""

from __future__ import annotations

import uuid
from datetime import timedelta
from decimal import Decimal

import pytest

from portal.client import CfeClient, NotFound, ValidationError
from portal.client.inteligente import SmartIssueRequest, SmartLine, SmartReceiver, SmartReference
from portal.domain.cfe_types import IND_FACT_EXEMPT, IND_FACT_MINIMUM_RATE
from portal.domain.uruguay_time import today_montevideo


@pytest.fixture
def api(live_service, live_token_for):
    return CfeClient(live_service.url).as_user(live_token_for("usuario@demo.uy"))


def test_preview_confirm_and_consult(api):
    preview = api.smart_preview(
        SmartIssueRequest(
            lines=(SmartLine("Consultoría", Decimal("2"), Decimal("1000")),), receiver=SmartReceiver("219999830019")
        )
    )
    assert preview.state == "preview" and preview.draft.tipo_cfe == 111 and preview.preview_token
    assert api.preview_by_token(preview.preview_token).startswith(b"%PDF")
    issued = api.smart_confirm(preview.id, preview.draft_hash, [w.code for w in preview.warnings])
    assert issued.state == "issued" and issued.final and issued.receipt.tipo_cfe == 111
    assert [e.state for e in api.smart_request(preview.id).timeline] == ["preview", "confirmed", "issued"]


def test_direct_issue_and_errors_are_typed(api):
    issued = api.smart_issue(
        SmartIssueRequest(lines=(SmartLine("Café", Decimal("1"), Decimal("90")),)), idempotency_key=uuid.uuid4().hex
    )
    assert issued.receipt is not None and issued.receipt.nro >= 1
    with pytest.raises(ValidationError) as caught:
        api.smart_preview(SmartIssueRequest(lines=()))
    assert caught.value.fields[0].field == "lines"  # the request's name, not the service's "lineas"
    with pytest.raises(ValidationError) as caught:
        api.smart_preview(SmartIssueRequest(lines=(SmartLine("Café", Decimal("1"), Decimal("-5")),)))
    assert "lines[0].price" in [f.field for f in caught.value.fields]
    with pytest.raises(NotFound):
        api.smart_request("ei_missing")


def test_the_company_requests_come_back_typed_and_paged(api):
    issued = api.smart_issue(
        SmartIssueRequest(lines=(SmartLine("Café", Decimal("2"), Decimal("122")),)), idempotency_key=uuid.uuid4().hex
    )
    previewed = api.smart_preview(SmartIssueRequest(lines=(SmartLine("Café", Decimal("1"), Decimal("90")),)))
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


def test_every_part_of_a_typed_smart_request_reaches_the_draft(api):
    factura = api.smart_issue(
        SmartIssueRequest(
            lines=(
                SmartLine("Libro", Decimal("2"), Decimal("10.50"), unit="u", category="libros"),
                SmartLine("Hotel", Decimal("1"), Decimal("80"), rate="minima", discount_pct=Decimal("10")),
            ),
            receiver=SmartReceiver("219999830019", name="Cliente con nombre propio"),
            prices_include_tax=False,
            currency="USD",
            exchange_rate=Decimal("39.250"),
            payment_form=2,
            adenda="Reserva 77",
        ),
        idempotency_key=uuid.uuid4().hex,
    )
    draft = factura.draft
    assert (draft.tipo_cfe, draft.currency, draft.exchange_rate, draft.payment_form) == (
        111,
        "USD",
        Decimal("39.25"),
        2,
    )
    assert draft.gross_amounts is None and draft.adenda == "Reserva 77" and draft.receiver.document == "219999830019"
    assert [(line.name, line.unit, line.ind_fact) for line in draft.lines] == [
        ("Libro", "u", IND_FACT_EXEMPT),
        ("Hotel", "N/A", IND_FACT_MINIMUM_RATE),
    ]
    assert draft.lines[1].discount == Decimal("8.00") and factura.receipt.lines == draft.lines
    assert factura.totals.line_amounts == (Decimal("21.00"), Decimal("72.00"))

    note = api.smart_preview(
        SmartIssueRequest(
            lines=(SmartLine("Libro devuelto", Decimal("1"), Decimal("10.50"), category="libros"),),
            receiver=SmartReceiver("219999830019"),
            currency="USD",
            exchange_rate=Decimal("39.250"),
            reference=SmartReference(factura.receipt.id, "Devolución de un libro"),
        )
    )
    assert note.draft.tipo_cfe == 112
    (reference,) = note.draft.references
    assert (reference.tipo_cfe, reference.serie, reference.number, reference.reason) == (
        111,
        factura.receipt.serie,
        factura.receipt.nro,
        "Devolución de un libro",
    )
    forced = api.smart_preview(SmartIssueRequest(lines=(SmartLine("Café", Decimal("1"), Decimal("90")),), tipo_cfe=101))
    assert forced.draft.tipo_cfe == 101 and forced.draft.prices_include_tax
