"""A person finds, follows and corrects the company's receipts: the list finds one issued through the API by
its number, filters by date and receiver and downloads the CSV; an e-Factura is cancelled with a full
credit note and both link; Back after issuing and submitting again shows the first receipt; an e-Resguardo
is issued. Screenshots at 1366 px and 390 px go to /tmp/shots-receipts/, and no page scrolls sideways."""

from __future__ import annotations

import csv
import io
import re
import uuid
from dataclasses import replace
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from portal.client import CfeClient
from tests.browser.pages import ReceiptListPage, ReceiptsPage, Shell, screenshot, settled
from tests.support import cfe_bodies as bodies


@pytest.fixture
def service_api(live_service, live_token_for):
    return CfeClient(live_service.url).as_user(live_token_for("usuario@demo.uy"))


def _signed_in(page: Page) -> tuple[Shell, ReceiptListPage, ReceiptsPage]:
    shell = Shell(page)
    shell.sign_in("usuario@demo.uy")
    return shell, ReceiptListPage(page), ReceiptsPage(page)


def _no_sideways_scroll(page: Page) -> None:
    width = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert width[0] <= width[1], f"{page.url} is {width[0]} px wide in a {width[1]} px window"


def test_find_a_receipt_issued_through_the_api_by_its_number(page: Page, service_api):
    issued = [
        service_api.issue_receipt(bodies.request(bodies.ETICKET), idempotency_key=uuid.uuid4().hex) for _ in range(3)
    ]
    shell, listing, _receipts = _signed_in(page)
    listing.open()
    expect(listing.rows()).to_have_count(3)
    listing.type_filter("Número", f"A-{issued[1].nro}")
    expect(listing.rows()).to_have_count(1)
    expect(page).to_have_url(re.compile(r"numero=A-2"))
    page.get_by_role("link", name=f"e-Ticket {issued[1].number}").click()
    expect(page.get_by_test_id("receipt-id")).to_have_text(issued[1].id)
    page.go_back()
    expect(page.get_by_label("Número", exact=True)).to_have_value("A-2")
    expect(listing.rows()).to_have_count(1)
    shell.assert_no_csp_violations()


def test_filter_by_date_and_receiver_and_download_the_csv(page: Page, service_api):
    norte = bodies.request(bodies.EFACTURA)
    norte = replace(norte, receiver=replace(norte.receiver, document="211003420017", name="Comercial del Norte"))
    service_api.issue_receipt(bodies.request(bodies.EFACTURA), idempotency_key=uuid.uuid4().hex)
    receipt = service_api.issue_receipt(norte, idempotency_key=uuid.uuid4().hex)
    shell, listing, _receipts = _signed_in(page)
    listing.open()
    expect(listing.rows()).to_have_count(2)
    day = receipt.issue_date.strftime("%d/%m/%Y")  # as Uruguayans write it, whatever the browser's language
    # A day half typed is not a filter yet: the list waits until the field is left (no "not a date" meanwhile).
    page.get_by_label("Desde", exact=True).press_sequentially(day[:4])
    page.wait_for_timeout(600)  # past the 400 ms pause after which other filters apply
    expect(page.get_by_text("Escribí la fecha como")).to_have_count(0)
    page.get_by_label("Desde", exact=True).press_sequentially(day[4:])
    with page.expect_response(lambda r: "/comprobantes/?" in r.url and "desde=" in r.url):
        page.get_by_label("Hasta", exact=True).focus()  # leaving Desde applies it
    page.get_by_label("Hasta", exact=True).fill(day)
    listing.type_filter("Receptor", "comercial del")
    expect(listing.rows()).to_have_count(1)
    expect(listing.rows().first).to_contain_text("Comercial del Norte")
    expect(page.get_by_test_id("result-count")).to_contain_text("1 comprobante")
    page.reload()
    expect(page.get_by_label("Receptor", exact=True)).to_have_value("comercial del")
    expect(listing.rows()).to_have_count(1)
    download = listing.download_csv()
    text = Path(download.path()).read_bytes().decode("utf-8")
    assert text.startswith("\ufeff")
    rows = list(csv.reader(io.StringIO(text.lstrip("\ufeff")), delimiter=";"))
    assert (
        len(rows) == 2 and rows[1][5] == "Comercial del Norte" and rows[1][0] == receipt.issue_date.strftime("%d/%m/%Y")
    )
    shell.assert_no_csp_violations()


def test_cancel_an_efactura_with_a_full_credit_note_and_see_both_linked(page: Page, service_api):
    factura = service_api.issue_receipt(bodies.request(bodies.EFACTURA), idempotency_key=uuid.uuid4().hex)
    shell, _listing, receipts = _signed_in(page)
    page.goto(f"/comprobantes/{factura.id}")
    # The button is one of the page's actions, sized as the links beside it: it was the header's compact button.
    cancel = page.get_by_role("button", name="Anular con nota de crédito").bounding_box()
    pdf = page.get_by_role("button", name="Abrir PDF").bounding_box()
    assert cancel and pdf and (cancel["height"], cancel["y"]) == (pdf["height"], pdf["y"])
    receipts.cancel_with_credit_note("Factura emitida por error")
    expect(page.get_by_role("heading", level=1)).to_have_text(
        "Nota de crédito e-Factura A-0000001, de e-Factura A-0000001"
    )
    expect(receipts.related()).to_contain_text("Factura emitida por error")
    receipts.related().get_by_role("link", name="e-Factura A-0000001").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("e-Factura A-0000001")
    expect(receipts.related()).to_contain_text("Anulado")
    expect(receipts.related().get_by_role("link", name="Nota de crédito e-Factura A-0000001")).to_be_visible()
    expect(page.get_by_role("button", name="Anular con nota de crédito")).to_have_count(0)
    shell.assert_no_csp_violations()


def test_back_after_issuing_and_submitting_again_gives_the_first_receipt(page: Page):
    shell, listing, receipts = _signed_in(page)
    receipts.open_new()
    receipts.fill_line(1, "Café", "2", "122")
    receipts.issue()
    first = receipts.receipt_id()
    page.go_back()
    expect(page).to_have_url(re.compile(r"/comprobantes/nuevo\?clave=[0-9a-f]{32}$"))
    page.get_by_role("button", name="Emitir comprobante").click()
    expect(page.get_by_test_id("receipt-id")).to_have_text(first)
    expect(page.get_by_text("no se emitió otro")).to_be_visible()
    listing.open()
    expect(listing.rows()).to_have_count(1)
    shell.assert_no_csp_violations()


def test_issue_an_eresguardo(page: Page):
    shell, _listing, receipts = _signed_in(page)
    receipts.open_new()
    receipts.choose_type("e-Resguardo")
    receipts.fill_receiver(
        doc_type="RUT",
        number="214844360018",
        name="DIRECCION GENERAL IMPOSITIVA",
        address="Fernandez Crespo 1534",
        city="Montevideo",
    )
    receipts.fill_retention(1, "2183165", "50", "22.000,00", "11.000,00")
    receipts.issue()
    expect(page.get_by_role("heading", level=1)).to_have_text("e-Resguardo A-0000001")
    expect(page.get_by_test_id("receipt-lines")).to_contain_text("2183165")
    shell.assert_no_csp_violations()


def test_list_receipt_and_new_pages_fit_a_phone_and_a_laptop(page: Page, service_api, shots):
    factura = service_api.issue_receipt(bodies.request(bodies.EFACTURA), idempotency_key=uuid.uuid4().hex)
    service_api.cancel_with_credit_note(factura.id, "Error de precio", idempotency_key=uuid.uuid4().hex)
    for _ in range(2):
        service_api.issue_receipt(bodies.request(bodies.ETICKET), idempotency_key=uuid.uuid4().hex)
    shell, listing, _receipts = _signed_in(page)
    for width, height in ((1366, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        for name, path in (
            ("list", "/comprobantes/"),
            ("receipt", f"/comprobantes/{factura.id}"),
            ("new", "/comprobantes/nuevo"),
        ):
            page.goto(path)
            settled(page)
            screenshot(page, shots / f"{name}-{width}.png")
            _no_sideways_scroll(page)
            if name == "receipt":  # every line reads whole: as a table beside the PDF, as cards on a phone
                lines = page.get_by_test_id("receipt-lines")
                assert lines.evaluate("t => t.parentElement.scrollWidth <= t.parentElement.clientWidth"), width
    shell.assert_no_csp_violations()
