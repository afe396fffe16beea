"""Receipts reaching DGI, in a real browser: the receipt page follows its DGI state by itself (the test runs
the service's queued work, as the worker would) from pending to accepted and stops asking; a rejected one
says why, that it has no fiscal validity, and leads to its corrected re-issue, linked both ways; support's
"Envíos a DGI" page. Screenshots at 1366 and 390 px wide; no horizontal scroll on a phone."""

from __future__ import annotations

import re
import uuid

import pytest
from playwright.sync_api import Page, expect

from portal.client import CfeClient
from tests.browser.pages import ReceiptsPage, Shell, both_widths, nav_link
from tests.browser.pages.envios import EnviosPage
from tests.browser.pages.receipt import ReceiptPage
from tests.support import cfe_bodies as bodies
from tests.support.envios import ENVIOS_CONFIG, REJECT_MARKER, drain


@pytest.fixture
def service_config(service_config):
    return {**service_config, **ENVIOS_CONFIG}


def issue_efactura(page: Page, receiver_name: str) -> str:
    receipts = ReceiptsPage(page)
    receipts.open_new()
    receipts.choose_type("e-Factura")
    receipts.fill_receiver(
        doc_type="RUT", number="214844360018", name=receiver_name, address="Fernandez Crespo 1534", city="Montevideo"
    )
    receipts.fill_line(1, "Consultoría", "10", "1500")
    receipts.issue()
    return receipts.receipt_id()


def dgi_requests(page: Page) -> list[str]:
    seen: list[str] = []
    page.on("request", lambda request: seen.append(request.url) if "/envios/estado/" in request.url else None)
    return seen


def test_a_receipt_follows_its_dgi_state_from_pending_to_accepted_and_stops_asking(page: Page, live_service, shots):
    shell = Shell(page)
    shell.sign_in("usuario@demo.uy")
    issue_efactura(page, "DIRECCION GENERAL IMPOSITIVA")
    receipt = ReceiptPage(page)
    panel, state = receipt.dgi_panel, receipt.dgi_state
    expect(state).to_have_text("Pendiente de envío a DGI")
    expect(panel).to_contain_text("Se actualiza sola.")
    both_widths(page, shots, "receipt-pending")

    asked = dgi_requests(page)
    drain(live_service.app)  # what the worker does in `make run`
    expect(state).to_have_text("Aceptado por DGI", timeout=30_000)
    expect(panel).not_to_contain_text("Se actualiza sola.")
    expect(panel).not_to_have_attribute("hx-trigger", re.compile(".+"))
    count = len(asked)
    page.wait_for_timeout(4_000)  # longer than the poll interval
    assert len(asked) == count, "the page kept asking after the state was final"
    both_widths(page, shots, "receipt-accepted")
    shell.assert_no_csp_violations()

    page.get_by_role("link", name="Comprobantes", exact=True).first.click()
    expect(page.locator(".receipt-list [data-testid=dgi-state]").first).to_have_attribute("data-state", "aceptado")
    both_widths(page, shots, "recent-list")


def test_a_rejected_receipt_leads_to_its_corrected_reissue_linked_both_ways(page: Page, live_service, shots):
    shell = Shell(page)
    shell.sign_in("usuario@demo.uy")
    rejected_id = issue_efactura(page, f"Cliente {REJECT_MARKER}E07")
    receipt = ReceiptPage(page)
    rejected_title = receipt.title.inner_text()
    drain(live_service.app)
    expect(receipt.dgi_state).to_have_text("Rechazado por DGI", timeout=30_000)
    expect(receipt.dgi_panel).to_contain_text("E07 Fecha Firma de CFE no se corresponde con fecha CAE")
    expect(page.get_by_test_id("dgi-no-validity")).to_contain_text("Este comprobante no tiene validez fiscal.")
    both_widths(page, shots, "receipt-rejected")

    receipt.issue_corrected()
    expect(page.get_by_test_id("correcting")).to_contain_text(rejected_id)
    name = page.get_by_label("Nombre o razón social")
    expect(name).to_have_value(f"Cliente {REJECT_MARKER}E07")
    expect(page.get_by_label("Descripción, línea 1")).to_have_value("Consultoría")
    expect(page.get_by_label("Precio unitario, línea 1")).to_have_value("1500")
    # The issuing form is the comprobantes area's; its lines table scrolls sideways on a phone (reported).
    both_widths(page, shots, "correction-form", phone_fits=False)
    name.fill("DIRECCION GENERAL IMPOSITIVA")
    ReceiptsPage(page).issue()

    corrected_title = receipt.title.inner_text()
    assert corrected_title != rejected_title and corrected_title.startswith("e-Factura A-")
    expect(page.get_by_test_id("dgi-corrects")).to_contain_text(rejected_title)
    drain(live_service.app)
    expect(receipt.dgi_state).to_have_text("Aceptado por DGI", timeout=30_000)
    both_widths(page, shots, "receipt-corrected")

    page.get_by_test_id("dgi-corrects").get_by_role("link").click()
    expect(receipt.title).to_have_text(rejected_title)
    expect(page.get_by_test_id("dgi-corrected-by")).to_be_visible()
    expect(page.get_by_role("link", name="Emitir corregido")).to_have_count(0)
    shell.assert_no_csp_violations()


def test_support_follows_submissions_and_an_admin_voids_numbers(page: Page, live_service, shots):
    shell = Shell(page)
    shell.sign_in("usuario@demo.uy")
    issue_efactura(page, f"Cliente {REJECT_MARKER}E09")
    drain(live_service.app)
    issue_efactura(page, "DIRECCION GENERAL IMPOSITIVA")  # left waiting
    live_service.app.config["ENVIOS_OVERDUE_MINUTES"] = 0
    shell.sign_out()

    shell.open_home_and_sign_in("admin@demo.uy")
    nav_link(page, "Envíos a DGI").click()
    envios = EnviosPage(page)
    expect(page.get_by_role("heading", level=1)).to_have_text("Envíos a DGI")
    expect(envios.overdue).to_be_visible()
    expect(envios.envelopes).to_contain_text("AS")
    expect(envios.voided).to_contain_text("Rechazado por DGI")

    envios.void_numbers("e-Remito", "5", understood=False)
    expect(envios.void_reason_error).to_have_text("Indicá el motivo.")
    expect(envios.void_count).to_have_value("5")
    envios.void_numbers(reason="Talonario de remitos dañado")
    expect(page.get_by_text("Anulaste los números 1 a 5 (serie A) de e-Remito.")).to_be_visible()
    expect(envios.voided).to_contain_text("Talonario de remitos dañado")
    with page.expect_download() as download:  # DGI's acknowledgement of the first envelope, as it came
        envios.envelopes.get_by_role("link", name="Acuse XML").first.click()
    assert download.value.suggested_filename.startswith("ACKSobre_Sob_219999830019_")
    both_widths(page, shots, "envios-page")
    shell.assert_no_csp_violations()


# How many lines an element's text is laid out on (its text's own boxes: an inline element's box around a number
# sits a pixel or two off the line's text).
_LINES = """(el) => {
  const tops = new Set();
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const range = document.createRange();
    range.selectNodeContents(walker.currentNode);
    for (const r of range.getClientRects()) { if (r.width > 0) tops.add(Math.round(r.bottom)); }
  }
  return tops.size;
}"""


# How far a voided range's numbers ("A 1–2") sit from its type's name when they share a line (0 when they do not).
_GAP_AFTER_TYPE = """(td) => {
  const type = td.querySelector('.cfe-type');
  const rects = (node) => {
    const range = document.createRange();
    range.selectNodeContents(node);
    return [...range.getClientRects()].filter(r => r.width > 0);
  };
  const name = rects(type).at(-1);
  const numbers = rects(type.nextSibling)[0];
  return Math.abs(numbers.bottom - name.bottom) < 2 ? numbers.left - name.right : 0;
}"""


def test_on_a_phone_each_row_is_a_card_where_a_notes_name_reads_in_one_or_two_lines(
    page: Page, live_service, live_token_for, shots
):
    """Kept at desktop width and scrolled sideways, the tables left their first column a few letters wide: a
    credit note's name took four lines. On a phone each row is a card, each value beside its column's name; at
    1366 px a note's name takes two lines at most."""
    api = CfeClient(live_service.url).as_user(live_token_for("admin@demo.uy"), company_id=1)
    factura = api.issue_receipt(bodies.request(bodies.EFACTURA), idempotency_key=uuid.uuid4().hex)
    note = api.cancel_with_credit_note(factura.id, "Error", idempotency_key=uuid.uuid4().hex)  # left waiting
    voided = api.void_numbers(note.tipo_cfe, reason="Talonario dañado", count=2, idempotency_key=uuid.uuid4().hex)
    short = api.void_numbers(factura.tipo_cfe, reason="Papel roto", count=1, idempotency_key=uuid.uuid4().hex)
    live_service.app.config["ENVIOS_OVERDUE_MINUTES"] = 0  # both waiting: a state and "Demorado" side by side
    Shell(page).sign_in("admin@demo.uy")
    EnviosPage(page).open()
    both_widths(page, shots, "envios-cards")  # nothing scrolls sideways at 390 px
    page.set_viewport_size({"width": 390, "height": 844})
    # Each card whole in its box: a cell of several parts (a state and "Demorado", a text and its line break) laid
    # its parts side by side, and an overdue receipt's card stuck out of its box, its values cut at the right.
    boxes = page.locator(".table-scroll").evaluate_all("boxes => boxes.map(box => box.scrollWidth - box.clientWidth)")
    assert boxes and max(boxes) <= 0, boxes
    waiting = page.get_by_test_id("waiting").locator(f"a[href$='/comprobantes/{note.id}']")
    voided_row = page.get_by_test_id("voided").locator("tr", has_text=f"{voided.first}–{voided.last}")
    assert waiting.evaluate(_LINES) <= 2
    assert voided_row.locator("td").first.evaluate(_LINES) <= 2
    # The type and its numbers read as one value: laid out as two items of the card's row, the type sat in the
    # middle and "A 1–2" at the right edge.
    short_cell = (
        page.get_by_test_id("voided").locator("td").filter(has_text=re.compile(rf"^e-Factura\s+A {short.first}$"))
    )
    assert short_cell.evaluate(_GAP_AFTER_TYPE) < 12
    assert waiting.locator("xpath=..").evaluate("(td) => getComputedStyle(td, '::before').content") == '"Comprobante"'
    page.set_viewport_size({"width": 1366, "height": 900})
    cells = [box["y"] for box in (c.bounding_box() for c in voided_row.locator("td").all())]
    assert max(cells) - min(cells) < 1  # one row of cells side by side
    # At 1366 px the columns share the width by what they hold: "Nota de crédito de e-Factura" took three lines
    # of a first column squeezed by the others' long headers.
    assert waiting.evaluate(_LINES) <= 2
    assert voided_row.locator("td").first.evaluate(_LINES) <= 2
