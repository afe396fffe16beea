"""The real client's recibidos methods against a live service: upload, list with filters and cursor, one CFE,
its XML and PDF, accept, reject, book, and field errors named after the client's own fields."""

from __future__ import annotations

from decimal import Decimal

import pytest

from portal.client import CfeClient, Conflict, ValidationError
from portal.client.recibidos import EnvelopeFile, ReceivedCfe, ReceivedDetail, ReceivedFilters, ReceivedPage
from tests.support import recibidos as sup


@pytest.fixture
def api(live_service):
    from tests.conftest import mint_token

    return CfeClient(live_service.url).as_user(mint_token(live_service.app, "usuario@demo.uy"), company_id=1)


def test_the_received_cfes_through_the_client(api):
    [result] = api.upload_envelopes((EnvelopeFile("s.xml", sup.envelope([sup.cfe(n) for n in (1, 2, 3)])),))
    assert (result.state, result.accepted, len(result.received_ids)) == ("AS", 3, 3)
    page = api.list_received(ReceivedFilters(supplier="Comercial"), limit=2)
    assert isinstance(page, ReceivedPage) and [c.nro for c in page.items] == [3, 2] and page.next_cursor
    assert all(isinstance(c, ReceivedCfe) for c in page.items)
    assert page.totals[0].currency == "UYU" and page.totals[0].count == 3
    rest = api.list_received(ReceivedFilters(supplier="Comercial"), cursor=page.next_cursor, limit=2)
    assert [c.nro for c in rest.items] == [1] and rest.next_cursor is None
    assert [c.nro for c in api.list_received(ReceivedFilters(number="A-2")).items] == [2]
    assert b"Comercial del Norte" in api.received_csv(ReceivedFilters(booked=False))

    first = result.received_ids[0]
    detail = api.get_received(first)
    assert isinstance(detail, ReceivedDetail) and detail.lines[0].name == "Cajas de cartón"
    assert dict(detail.totals)["MntTotal"] == detail.cfe.total > Decimal(0)
    assert [a.kind for a in detail.answers] == ["ACKSobre", "ACKCFE"]
    assert api.received_xml(first).startswith(b"<CFE") and api.received_pdf(first).startswith(b"%PDF")
    ack_sobre = api.received_answer_xml(first, detail.answers[0].id)
    assert b"<ACKSobre" in ack_sobre and b"<Estado>AS</Estado>" in ack_sobre

    assert api.accept_received(first).cfe.decision == "aceptado"
    assert api.book_received(first).cfe.booked and not api.unbook_received(first).cfe.booked
    with pytest.raises(ValidationError) as refused:
        api.reject_received(result.received_ids[1], "E45")
    assert refused.value.fields[0].field == "detail"
    rejected = api.reject_received(result.received_ids[1], "E21", "Llegaron mojadas")
    assert rejected.decision_motive.code == "E21" and rejected.cfe.decision == "rechazado"
    with pytest.raises(Conflict):
        api.book_received(result.received_ids[1])


def test_an_upload_result_says_who_sent_it_and_whether_the_supplier_gets_our_answer(api):
    received, unreadable = api.upload_envelopes(
        (EnvelopeFile("s.xml", sup.envelope([sup.cfe(5)], idemisor=5)), EnvelopeFile("no.xml", b"<no>"))
    )
    assert (received.supplier_rut, received.answer_route, received.supplier_answered) == (
        sup.SUPPLIER_RUT,
        "correo",
        True,
    )
    assert (unreadable.state, unreadable.supplier_rut, unreadable.supplier_answered) == ("BS", None, False)


def test_a_hostile_upload_names_the_files_field(api):
    with pytest.raises(ValidationError) as refused:
        api.upload_envelopes((EnvelopeFile("x.zip", b"PK\x03\x04 roto"),))
    assert refused.value.fields[0].field == "files"


def test_a_bad_filter_names_the_client_field(api):
    with pytest.raises(ValidationError) as refused:
        api.list_received(ReceivedFilters(amount_from=Decimal(10), amount_to=Decimal(5)))
    assert refused.value.fields[0].field == "amount_to"


def test_booking_by_the_lists_filters_through_the_client(api):
    [result] = api.upload_envelopes((EnvelopeFile("s.xml", sup.envelope([sup.cfe(n) for n in (1, 2, 3)])),))
    page = api.list_received(ReceivedFilters(number="A-2"), limit=1)
    assert (page.unbooked, page.unbooked_up_to) == (1, result.received_ids[1])
    done = api.book_received_matching(ReceivedFilters(number="A-2", booked=False), page.unbooked_up_to)
    assert (done.booked, done.left) == (1, 0)
    assert api.list_received(ReceivedFilters()).unbooked == 2
    with pytest.raises(ValidationError) as refused:  # named after the client's own field, as the list's
        api.book_received_matching(ReceivedFilters(amount_from=Decimal(10), amount_to=Decimal(5)), None)
    assert refused.value.fields[0].field == "amount_to"


def test_rejecting_several_through_the_client_once_per_key(api):
    [result] = api.upload_envelopes((EnvelopeFile("s.xml", sup.envelope([sup.cfe(n) for n in (1, 2, 3)])),))
    first, second, third = result.received_ids
    api.accept_received(first)
    done = api.reject_many_received((second, first, 999_999), "E21", "Llegaron mojadas", idempotency_key="k" * 32)
    assert (done.rejected, done.missing, done.replayed) == ((second,), (999_999,), False)
    [accepted] = done.not_rejectable
    assert (accepted.received_id, accepted.code, accepted.number) == (first, "ya_decidido", "A-1")
    again = api.reject_many_received((second, first, 999_999), "E21", "Llegaron mojadas", idempotency_key="k" * 32)
    assert again.replayed and again.rejected == (second,)
    with pytest.raises(ValidationError) as refused:
        api.reject_many_received((third,), "E45", idempotency_key="j" * 32)
    assert refused.value.fields[0].field == "detail"
    assert api.get_received(third).cfe.decision is None


def test_the_mail_not_received_through_the_client(api):
    assert api.unreceived_mail() == ()  # the list's shape; its rows: tests/integration/test_intercambio_watch.py
