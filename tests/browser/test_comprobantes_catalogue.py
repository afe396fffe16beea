"""The issuing form filled from the catalogues in a real browser, keyboard only: the customer's document fills the
receiver, the e-mail, the currency (and with it the day's BCU rate) and the terms; a product picked from the
suggestions under a line's description fills that line (its price in pesos converted to the receipt's dollars,
said beside it); the receipt issued carries all of it. axe and the CSP
watch every step. Screenshots (CFE_SHOTS_DIR): the suggestions open with the rate filled, at 1366 and 390 px."""

from __future__ import annotations

import random
import re
import uuid
from decimal import ROUND_HALF_UP, Decimal

from playwright.sync_api import Page, expect

from portal.client import CfeClient
from portal.client.clientes import CustomerChanges, NewCustomer
from portal.client.productos import ProductFields
from portal.domain.identifiers import ci_check_digit
from portal.web.comprobantes.catalogue import form_number
from tests.browser.pages import ReceiptListPage, Shell, both_widths, settled
from tests.browser.pages.issuing import IssuingForm


def test_a_customer_and_a_product_picked_with_the_keyboard_are_issued(page: Page, live_service, live_token_for, shots):
    api = CfeClient(live_service.url).as_user(live_token_for("usuario@demo.uy"), company_id=1)
    word = "Termo" + uuid.uuid4().hex[:5]
    api.create_product(
        ProductFields(
            code="T-" + word[-5:], name=f"{word} acero", price=Decimal("244"), unit="u", price_includes_tax=True
        )
    )
    body = f"{random.randint(1_000_000, 9_999_999)}"
    ci = body + str(ci_check_digit(body))
    details = CustomerChanges(
        address="Sarandí 500", city="Montevideo", department="Montevideo", email="ana@cliente.uy", currency="USD"
    )
    api.create_customer(NewCustomer(doc_type=3, document=ci, name="Ana Catálogo", details=details))

    shell = Shell(page)
    shell.sign_in("usuario@demo.uy")
    receipts = IssuingForm(page)
    receipts.open_new()
    receipts.type_customer_document("3", ci)

    expect(receipts.receiver_name).to_have_value("Ana Catálogo")
    expect(receipts.address).to_have_value("Sarandí 500")
    expect(receipts.mail_to).to_have_value("ana@cliente.uy")
    expect(receipts.currency).to_have_value("USD")
    rate = receipts.rate
    expect(rate).to_have_value(re.compile(r"^\d+(,\d+)?$"))
    expect(receipts.rate_note).to_contain_text(
        re.compile(r"Cotización del simulador del BCU \(no oficial\) del \d\d/\d\d/\d{4}")
    )
    expect(receipts.customer_filled).to_contain_text("Ana Catálogo")
    filled_rate = rate.input_value()

    receipts.type_description(1, word[:8])
    expect(receipts.suggestions().filter(has_text=word)).to_have_count(1)
    settled(page)
    both_widths(page, shots, "issuing-product-suggestions")
    page.set_viewport_size({"width": 1366, "height": 900})
    receipts.pick_suggestion_with_keyboard(1, word)
    # Suggestions asked for as the person typed (the field waits 250 ms after a key) and answered after the pick
    # do not open the list again over the picked product.
    with page.expect_response(lambda answer: "/comprobantes/nuevo/productos" in answer.url):
        receipts.line_field(1, "Descripción").dispatch_event("input")
    settled(page)
    expect(receipts.product_suggestions).to_have_count(0)

    expect(receipts.line_field(1, "Descripción")).to_have_value(f"{word} acero")
    expect(receipts.line_field(1, "Unidad")).to_have_value("u")
    # A product in pesos on a receipt in dollars: at the form's rate, and the line says how.
    price = (Decimal(244) / Decimal(filled_rate.replace(",", "."))).quantize(Decimal("0.01"), ROUND_HALF_UP)
    expect(receipts.line_field(1, "Precio unitario")).to_have_value(form_number(price))
    expect(page.get_by_test_id("price-note").first).to_have_text(re.compile(r"^\$\s244,00 a [\d.,]+ = U\$S\s[\d.,]+$"))
    quantity = receipts.line_field(1, "Cantidad")
    expect(quantity).to_be_focused()
    page.keyboard.type("2")
    expect(receipts.product_suggestions).to_have_count(0)
    both_widths(page, shots, "issuing-product-converted")
    page.set_viewport_size({"width": 1366, "height": 900})
    rate.fill("1")  # another rate: the note no longer says how the price beside it was converted
    rate.dispatch_event("change")
    expect(page.get_by_test_id("price-note").first).to_have_text("")
    rate.fill(filled_rate)
    receipts.preview()  # the form comes back: the rate it filled and whose it is stay
    expect(receipts.rate_note).to_contain_text("Cotización del simulador del BCU (no oficial) del")
    expect(rate).to_have_value(filled_rate)

    receipts.issue()
    issued = api.get_receipt(receipts.receipt_id())
    assert issued.currency == "USD" and issued.exchange_rate == Decimal(filled_rate.replace(",", "."))
    assert issued.receiver is not None and issued.receiver.name == "Ana Catálogo"
    line = issued.lines[0]
    assert (line.name, line.quantity, line.unit_price, line.unit) == (f"{word} acero", 2, price, "u")
    assert [(c.kind, c.code) for c in line.codes] == [("INT1", "T-" + word[-5:])]
    assert issued.totals.total == 2 * price
    shell.assert_no_csp_violations()


def test_the_list_shows_a_credit_note_negative_and_the_cancelled_receipt(
    page: Page, live_service, live_token_for, shots
):
    from tests.support import cfe_bodies as bodies

    api = CfeClient(live_service.url).as_user(live_token_for("usuario@demo.uy"), company_id=1)
    original = api.issue_receipt(bodies.request(bodies.ETICKET), idempotency_key=uuid.uuid4().hex)
    api.issue_receipt(bodies.request(bodies.ETICKET), idempotency_key=uuid.uuid4().hex)
    note = api.cancel_with_credit_note(original.id, "Error de precio", idempotency_key=uuid.uuid4().hex)

    shell = Shell(page)
    shell.sign_in("usuario@demo.uy")
    listing = ReceiptListPage(page)
    listing.open()

    row = listing.rows().filter(has=page.get_by_test_id("cancelled"))
    expect(row).to_have_count(1)
    expect(row.get_by_role("link", name=f"Nota de crédito de e-Ticket {note.number}")).to_be_visible()
    note_row = listing.rows().filter(has_not=page.get_by_test_id("cancelled"))
    note_row = note_row.filter(has=page.get_by_role("link", name=f"Nota de crédito de e-Ticket {note.number}"))
    expect(note_row.get_by_test_id("row-total")).to_contain_text("-")
    expect(page.get_by_test_id("xlsx-download")).to_be_visible()  # beside the CSV
    both_widths(page, shots, "receipt-list-cancelled")
    shell.assert_no_csp_violations()
