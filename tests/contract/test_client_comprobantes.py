"""The client's receipt list, note and replay methods against a live service: typed results end to end."""

from __future__ import annotations

import csv
import io
import uuid
from dataclasses import replace
from datetime import timedelta
from decimal import Decimal

import pytest

from portal.client import CfeClient, Conflict, ValidationError
from portal.client.cfe import Adjustment, CfeRequest, ItemCode, Line, Payment, Receiver, Reference, Retention
from portal.client.comprobante_list import ReceiptFilters
from portal.domain.cfe_types import IND_FACT_BASIC_RATE
from portal.domain.uruguay_time import today_montevideo
from tests.support import cfe_bodies as bodies


@pytest.fixture
def api(live_service, live_token_for):
    return CfeClient(live_service.url).as_user(live_token_for("usuario@demo.uy"))


def test_search_by_number_pages_totals_and_csv(api):
    issued = [api.issue_receipt(bodies.request(bodies.ETICKET), idempotency_key=uuid.uuid4().hex) for _ in range(3)]
    found = api.search_receipts(ReceiptFilters(number=f"A {issued[1].nro:07d}", tipo_cfe=101))
    assert [r.id for r in found.items] == [issued[1].id]
    assert found.items[0].number == issued[1].number and found.items[0].total == issued[1].totals.total
    tickets = ReceiptFilters(tipo_cfe=101, since=issued[0].issue_date, amount_from=issued[0].totals.total)
    first = api.search_receipts(tickets, limit=2)
    assert first.total == 3 and len(first.items) == 2 and first.next_cursor
    second = api.search_receipts(tickets, cursor=first.next_cursor, limit=2)
    assert [r.id for r in first.items + second.items] == [r.id for r in reversed(issued)]
    assert second.next_cursor is None and first.totals[0].currency == "UYU" and first.totals[0].count == 3
    assert api.search_receipts(ReceiptFilters(amount_from=issued[0].totals.total + 1)).total == 0
    rows = list(csv.reader(io.StringIO(api.export_receipts_csv(tickets).decode("utf-8-sig")), delimiter=";"))
    assert len(rows) == 4 and rows[0][0] == "Fecha"


def test_a_refused_filter_names_the_filters_field(api):
    with pytest.raises(ValidationError) as caught:
        api.search_receipts(ReceiptFilters(number="no es un número"))
    assert caught.value.fields[0].field == "number"
    with pytest.raises(ValidationError) as caught:
        api.export_receipts_csv(ReceiptFilters(dgi_state="perdido"))
    assert caught.value.fields[0].field == "dgi_state"


def test_replayed_issue_is_flagged(api):
    key = uuid.uuid4().hex
    first = api.issue_receipt(bodies.request(bodies.ETICKET), idempotency_key=key)
    again = api.issue_receipt(bodies.request(bodies.ETICKET), idempotency_key=key)
    assert not first.replayed and again.replayed and again.id == first.id


def test_cancel_with_credit_note_links_both_ways(api):
    factura = api.issue_receipt(bodies.request(bodies.EFACTURA), idempotency_key=uuid.uuid4().hex)
    note = api.cancel_with_credit_note(factura.id, "Error de precio", idempotency_key=uuid.uuid4().hex)
    assert note.tipo_cfe == 112 and note.references[0].receipt_id == factura.id
    assert note.references[0].reason == "Error de precio" and note.references[0].amount == factura.totals.total
    original = api.get_receipt(factura.id)
    assert [n.receipt_id for n in original.notes] == [note.id] and original.creditable_balance == 0
    assert [line.name for line in original.lines] == ["Consultoría", "Libros"]
    with pytest.raises(Conflict) as caught:
        api.cancel_with_credit_note(factura.id, "Otra vez", idempotency_key=uuid.uuid4().hex)
    assert caught.value.code == "ya_anulado"


def test_note_draft(api):
    factura = api.issue_receipt(bodies.request(bodies.EFACTURA), idempotency_key=uuid.uuid4().hex)
    draft = api.note_draft(factura.id, "debito")
    assert draft.draft.tipo_cfe == 113 and draft.original_id == factura.id and draft.creditable_balance is None
    assert draft.draft.receiver == factura.receiver and draft.draft.lines == factura.lines
    (reference,) = draft.draft.references
    assert (reference.tipo_cfe, reference.serie, reference.number) == (111, factura.serie, factura.nro)
    assert api.note_draft(factura.id, "credito").creditable_balance == factura.totals.total


def _rich_factura(reference: Reference) -> CfeRequest:
    """An e-Factura in dollars that uses every part the typed request has."""
    return CfeRequest(
        tipo_cfe=111,
        issue_date=today_montevideo(),
        payment_form=2,
        due_date=today_montevideo() + timedelta(days=30),
        currency="USD",
        exchange_rate=Decimal("39.250"),
        receiver=Receiver(
            doc_type=2,
            country="UY",
            document="214844360018",
            name="DIRECCION GENERAL IMPOSITIVA",
            address="Fernandez Crespo 1534",
            city="Montevideo",
            department="Montevideo",
            purchase_order="OC-4512",
        ),
        lines=(
            Line(
                name="Consultoría",
                quantity=Decimal("10"),
                unit="h",
                unit_price=Decimal("85.50"),
                ind_fact=IND_FACT_BASIC_RATE,
                description="Mayo",
                discount_pct=Decimal("10"),
                discount=Decimal("85.50"),
                codes=(ItemCode("INT1", "CONS-H"),),
            ),
            Line(name="Libros", quantity=Decimal("2"), unit="u", unit_price=Decimal("12.25"), ind_fact=1),
        ),
        adjustments=(Adjustment("D", "Pronto pago", Decimal("5.00"), ind_fact=IND_FACT_BASIC_RATE),),
        payments=(Payment("Transferencia", Decimal("100.00")),),
        references=(reference,),
        adenda="Orden de compra 4512. Gracias por su compra.",
    )


def test_a_typed_efactura_issues_and_reads_back_the_same_values(api):
    earlier = api.issue_receipt(bodies.request(bodies.EFACTURA), idempotency_key=uuid.uuid4().hex)
    reference = Reference(111, earlier.serie, earlier.nro, "Complementa", earlier.issue_date)
    sent = _rich_factura(reference)
    assert api.preview_pdf(sent).startswith(b"%PDF")
    issued = api.issue_receipt(sent, idempotency_key=uuid.uuid4().hex)
    got = api.get_receipt(issued.id)
    assert (got.tipo_cfe, got.issue_date, got.due_date, got.payment_form) == (111, sent.issue_date, sent.due_date, 2)
    assert (got.currency, got.exchange_rate, got.adenda) == ("USD", Decimal("39.250"), sent.adenda)
    assert got.receiver == sent.receiver and got.lines == sent.lines
    assert got.adjustments == sent.adjustments and got.payments == sent.payments
    (ref,) = got.references
    assert (ref.tipo_cfe, ref.serie, ref.nro, ref.reason, ref.issue_date) == (
        111,
        earlier.serie,
        earlier.nro,
        "Complementa",
        earlier.issue_date,
    )
    # 855 - 85.50 discount + 24.50 exempt - 5.00 global discount at the basic rate; the service's arithmetic.
    assert got.totals.line_amounts == (Decimal("769.50"), Decimal("24.50"))
    assert got.totals.total == got.totals.to_pay and got.totals.basic_rate == Decimal("22")


def test_a_note_from_its_draft_issues_with_the_lines_kept(api):
    factura = api.issue_receipt(bodies.request(bodies.EFACTURA), idempotency_key=uuid.uuid4().hex)
    draft = api.note_draft(factura.id, "credito").draft
    note = api.issue_receipt(
        replace(draft, lines=draft.lines[1:], references=(replace(draft.references[0], reason="Devolución"),)),
        idempotency_key=uuid.uuid4().hex,
    )
    assert note.tipo_cfe == 112 and note.lines == factura.lines[1:] and note.receiver == factura.receiver
    assert note.references[0].receipt_id == factura.id and note.references[0].reason == "Devolución"
    assert api.get_receipt(factura.id).creditable_balance == factura.totals.total - note.totals.total


def test_an_eresguardo_and_an_eremito_carry_their_own_parts(api):
    retention = Retention("2183165", amount=Decimal("11000"), rate=Decimal("50"), base=Decimal("22000"))
    resguardo = api.issue_receipt(
        bodies.request(bodies.ERESGUARDO, lines=(Line(retentions=(retention,)),)), idempotency_key=uuid.uuid4().hex
    )
    assert api.get_receipt(resguardo.id).lines[0].retentions == (retention,)
    remito = api.issue_receipt(bodies.request(bodies.EREMITO, transfer_kind=2), idempotency_key=uuid.uuid4().hex)
    assert [(line.name, line.quantity) for line in api.get_receipt(remito.id).lines] == [
        ("Manzanas", Decimal("10")),
        ("Arroz", Decimal("8.5")),
    ]


def test_a_refused_request_names_its_own_fields(api):
    factura = bodies.request(bodies.EFACTURA)
    negative = replace(factura, lines=(factura.lines[0], replace(factura.lines[1], unit_price=Decimal("-1"))))
    with pytest.raises(ValidationError) as caught:
        api.preview_link(negative)
    assert [f.field for f in caught.value.fields] == ["lines[1].unit_price"]
    wrong_rut = replace(factura, receiver=replace(factura.receiver, document="214844360019"))
    with pytest.raises(ValidationError) as caught:
        api.issue_receipt(wrong_rut, idempotency_key=uuid.uuid4().hex)
    assert [f.field for f in caught.value.fields] == ["receiver.document"]
