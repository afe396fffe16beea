"""The client sends the new types' parts (an export's terms of sale, the principal of a sale on behalf of
others) to a live service, names their field errors in CfeRequest's names, and reads them back in a note's
draft."""

from __future__ import annotations

import uuid
from dataclasses import replace
from decimal import Decimal

import pytest

from portal.client import CfeClient, ValidationError
from portal.client.cfe import CfeRequest, Line, Principal, Receiver

FOREIGN = Receiver(
    doc_type=4, country="US", document="98-7654321", name="Acme Inc.", address="500 Market St", country_name="EE.UU."
)
SOFTWARE = Line(ind_fact=10, name="Desarrollo", quantity=Decimal(10), unit_price=Decimal(45))


@pytest.fixture
def api(live_service, live_token_for):
    return CfeClient(live_service.url).as_user(live_token_for("usuario@demo.uy"))


def test_an_export_issues_and_its_note_draft_carries_its_terms(api):
    export = CfeRequest(
        tipo_cfe=121,
        lines=(SOFTWARE,),
        receiver=FOREIGN,
        payment_form=1,
        currency="USD",
        exchange_rate=Decimal("39.250"),
        sale_clause="N/A",
        sale_mode=90,
        transport=8,
    )
    issued = api.issue_receipt(export, idempotency_key=uuid.uuid4().hex)
    draft = api.note_draft(issued.id, "credito").draft
    assert (draft.tipo_cfe, draft.sale_clause, draft.sale_mode, draft.transport) == (122, "N/A", 90, 8)
    assert draft.receiver.country_name == "EE.UU."


def test_a_missing_term_and_principal_are_named_in_the_requests_names(api):
    with pytest.raises(ValidationError) as caught:
        api.issue_receipt(
            CfeRequest(tipo_cfe=121, lines=(SOFTWARE,), receiver=FOREIGN, payment_form=1, sale_clause="N/A"),
            idempotency_key=uuid.uuid4().hex,
        )
    assert "transport" in {error.field for error in caught.value.fields}
    taxed = Line(ind_fact=3, name="Masas", quantity=Decimal(1), unit_price=Decimal(230))
    with pytest.raises(ValidationError) as caught:
        api.issue_receipt(
            CfeRequest(tipo_cfe=131, lines=(taxed,), payment_form=1, principal=Principal(2, "219000090012", "X")),
            idempotency_key=uuid.uuid4().hex,
        )
    assert "principal.document" in {error.field for error in caught.value.fields}


def test_an_issued_receipt_reads_back_its_terms_and_principal(api):
    """What issuing "another like it" or a correction starts from: an export of goods copied as an export of
    services (N/A, 90, 8, the form's defaults) because the receipt did not say its terms."""
    goods = CfeRequest(
        tipo_cfe=121,
        lines=(replace(SOFTWARE, name="Lana sucia", unit="kg"),),
        receiver=FOREIGN,
        payment_form=1,
        currency="USD",
        exchange_rate=Decimal("39.250"),
        sale_clause="FOB",
        sale_mode=1,
        transport=1,
    )
    issued = api.issue_receipt(goods, idempotency_key=uuid.uuid4().hex)
    for receipt in (issued, api.get_receipt(issued.id)):
        assert (receipt.sale_clause, receipt.sale_mode, receipt.transport, receipt.principal) == ("FOB", 1, 1, None)
    principal = Principal(2, "211003420017", "Comercial del Norte S.R.L.")
    taxed = Line(ind_fact=3, name="Masas", quantity=Decimal(1), unit_price=Decimal(230))
    on_behalf = api.issue_receipt(
        CfeRequest(tipo_cfe=131, lines=(taxed,), payment_form=1, principal=principal), idempotency_key=uuid.uuid4().hex
    )
    assert api.get_receipt(on_behalf.id).principal == principal
    assert api.get_receipt(on_behalf.id).sale_clause is None
