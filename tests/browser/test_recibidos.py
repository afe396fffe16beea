"""A person receives suppliers' envelopes in "Comprobantes recibidos": drops the files on the upload zone, sees
the list with its totals, opens a received CFE (lines, totals, our answers), rejects it with a motive in words
and sees the decision; on a wide screen and on a phone."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import update

from portal.service.platform import db
from portal.service.recibidos.models import FAILED, ExchangeAnswer
from tests.browser.pages import CUT_SELECTS, DESKTOP, PHONE, Shell, row_cells, screenshot, settled
from tests.browser.pages.recibidos import ReceivedPage
from tests.conftest import mint_token
from tests.support import recibidos as sup


@pytest.fixture
def envelope_file(tmp_path):
    path = tmp_path / "Sob_211003420017_20261127_1.xml"
    tampered = sup.cfe(3).replace(b"Cajas de cart", b"Cajas de CART")
    path.write_bytes(sup.envelope([sup.cfe(1), sup.cfe(2), tampered], adendas=["Orden de compra 4512", None, None]))
    return path


def _received(page: Page, envelope_file, width: int, height: int) -> tuple[Shell, ReceivedPage]:
    """usuario@demo.uy at `width` drops the envelope on the list's zone: two CFEs received, one refused."""
    page.set_viewport_size({"width": width, "height": height})
    shell = Shell(page)
    shell.sign_in("usuario@demo.uy")
    received = ReceivedPage(page)
    received.open()
    received.drop(envelope_file)
    expect(page.locator(".flash-success")).to_contain_text("2 aceptado(s) y 1 rechazado(s)")
    settled(page)
    return shell, received


@pytest.mark.parametrize("width, height", [(1366, 900), (390, 844)])
def test_receive_by_dropping_files_and_reject_commercially(page: Page, envelope_file, shots, width, height):
    shell, received = _received(page, envelope_file, width, height)
    expect(received.rows).to_have_count(3)
    expect(received.totals).to_contain_text("2 comprobantes")
    screenshot(page, shots / f"recibidos-list-{width}.png")

    received.open_cfe("e-Factura A-1")
    expect(page.get_by_text("Orden de compra 4512")).to_be_visible()
    # The lines read whole in their box (on a phone one card per line, as the issued receipt's): at 390 px they
    # scrolled sideways inside it.
    lines_box = page.get_by_role("region", name="Líneas")
    assert lines_box.evaluate("box => box.scrollWidth - box.clientWidth") <= 0
    received.fill_rejection("E24", "El precio acordado era $ 140 por caja.")
    screenshot(page, shots / f"recibidos-detail-{width}.png")
    received.send_rejection()
    expect(received.decision).to_contain_text("E24 · Diferencia de precios y/o descuentos")
    screenshot(page, shots / f"recibidos-rejected-{width}.png")
    # Our answers to the supplier: on a phone one card per answer, as the lines (at 390 px a state stood nine lines
    # tall in a column a word wide).
    if width == 390:
        states = page.locator("table.history-table tbody td:nth-child(2)")
        widths = states.evaluate_all("cells => cells.map(cell => cell.getBoundingClientRect().width)")
        assert widths and min(widths) > 300, widths
    page.goto("/")
    expect(page.get_by_test_id("received-today")).to_have_text("3")
    expect(page.get_by_test_id("received-unbooked")).to_have_text("1")  # A-1 rejected, A-3 refused on arrival
    # Booked from the list: only A-2 has a box (A-1 rejected, A-3 refused on arrival), which belongs to the form of
    # the button above the table by its form attribute.
    # On a laptop the rows are chosen; on a phone every page's unbooked ones are booked at once, asked first in a
    # dialog.
    received.open()
    expect(page.get_by_role("checkbox")).to_have_count(2)  # A-2's and "choose all"
    if width == 1366:
        page.get_by_label("Elegir todos los de esta página").check()  # the page's script: every box of the form
        expect(received.booking_box("e-Factura A-2")).to_be_checked()
        screenshot(page, shots / f"recibidos-choose-{width}.png")
        received.book_chosen()
    else:
        page.get_by_role("button", name="Marcar el 1 sin contabilizar").click()
        dialog = page.get_by_role("dialog", name="¿Marcar como contabilizado el comprobante recibido sin contabilizar")
        expect(dialog).to_be_visible()
        settled(page)
        screenshot(page, shots / f"recibidos-book-matching-{width}.png")
        dialog.get_by_role("button", name="Marcar 1 como contabilizado").click()
    expect(page.locator(".flash-success")).to_have_text("Marcaste 1 comprobante como contabilizado.")
    expect(received.row("e-Factura A-2")).to_contain_text("Contabilizado")
    page.goto("/")
    expect(page.get_by_test_id("received-unbooked")).to_have_text("0")
    screenshot(page, shots / f"recibidos-home-{width}.png")
    shell.assert_no_csp_violations()


@pytest.mark.parametrize("width, height", [(1366, 900), (390, 844)])
def test_the_chosen_ones_are_rejected_with_one_motive_asked_in_a_dialog(
    page: Page, envelope_file, shots, width, height
):
    """The rows' boxes belong to the list's form by their form attribute: the question, brought into the dialog by
    htmx, counts the chosen ones, and each is rejected and its supplier told."""
    shell, received = _received(page, envelope_file, width, height)
    received.booking_box("e-Factura A-1").check()
    received.booking_box("e-Factura A-2").check()
    dialog = received.ask_to_reject_chosen()
    expect(dialog.get_by_role("heading")).to_have_text("¿Rechazar los 2 comprobantes elegidos?")
    settled(page)
    screenshot(page, shots / f"recibidos-reject-many-{width}.png")
    received.reject_chosen(dialog, "E21", "Llegaron mojadas.", 2)
    expect(page.locator(".flash-success")).to_contain_text("Rechazaste 2 comprobantes")
    settled(page)
    screenshot(page, shots / f"recibidos-rejected-many-{width}.png")
    expect(page.get_by_role("checkbox")).to_have_count(0)  # rejected: neither booked nor rejected again
    received.open_cfe("e-Factura A-2")
    expect(received.decision).to_contain_text("E21 · Mercadería en mal estado — Llegaron mojadas.")
    shell.assert_no_csp_violations()


def test_a_rejection_sent_without_its_detail_opens_at_the_detail_saying_error(page: Page, envelope_file):
    """On a phone the reject form is at the foot of a long page: sent back with "write the detail" beside the field
    (and no summary), the page opened at its top with the error out of sight, and the title the server gave it
    ("Error: ...") was taken off by the page's script. Now the page opens at the field, the title says so, and
    the motive chosen is kept."""
    page.set_viewport_size({"width": 390, "height": 844})
    Shell(page).sign_in("usuario@demo.uy")
    received = ReceivedPage(page)
    received.open()
    received.drop(envelope_file)
    expect(page.locator(".flash-success")).to_contain_text("2 aceptado(s)")
    settled(page)
    received.open_cfe("e-Factura A-1")
    # Every motive whole in its box at 390 px: "E27 · otro motivo acordado (escribilo)" and "E22 · Proveedor
    # inhabilitado por organismo de contralor" were cut.
    motives = page.get_by_label("Motivo")
    for code in ("E20", "E21", "E22", "E23", "E24", "E25", "E26", "E27"):
        motives.select_option(code)
        assert page.evaluate(CUT_SELECTS) == [], code
    page.get_by_role("button", name="Rechazar", exact=True).focus()
    page.keyboard.press("Enter")
    detail = page.get_by_label("Detalle para el proveedor")
    expect(detail).to_be_focused()
    expect(detail).to_be_in_viewport()
    expect(page).to_have_title(re.compile(r"^Error: e-Factura A-1"))
    expect(page.get_by_label("Motivo")).to_have_value("E27")


# Each total's amount on one line, and each label clear of its value, in the list's two columns.
_TOTALS_LAYOUT = """() => {
  const lists = "[aria-labelledby=totals-heading] dl, [aria-labelledby=supplier-heading] dl";
  const list = [...document.querySelectorAll(lists)];
  const out = [];
  for (const dl of list) {
    for (const dd of dl.querySelectorAll("dd")) {
      const dt = dd.previousElementSibling, value = dd.getBoundingClientRect(), label = dt.getBoundingClientRect();
      const text = document.createRange();  // the text's lines, not the box (as tall as its row's label)
      text.selectNodeContents(dd);
      const lines = new Set([...text.getClientRects()].map((line) => Math.round(line.top)));
      if (dd.classList.contains("num") && lines.size > 1) { out.push(dd.textContent + " wraps"); }
      if (value.top < label.bottom && value.left - label.right < 8) { out.push(dt.textContent + " touches its value"); }
    }
  }
  return out;
}"""


def test_a_received_cfes_totals_read_whole_on_a_phone_in_english(page: Page, envelope_file, shots):
    """At 390 px in English the totals' long labels ("Net at the minimum VAT rate") pushed the amounts into a
    sliver where they broke mid-number ("$ 1,500" over ".00"), and a label as wide as its column touched its
    value ("Series and numberA-1")."""
    shell = Shell(page)
    shell.open_home_and_sign_in("usuario@demo.uy")
    page.get_by_role("button", name="English").click()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    page.set_viewport_size({"width": 390, "height": 844})
    received = ReceivedPage(page)
    page.goto("/recibidos/")
    received.drop(envelope_file)
    settled(page)
    page.get_by_role("link", name="e-Factura A-1").click()
    expect(page.get_by_role("heading", name="Totals")).to_be_visible()
    settled(page)
    screenshot(page, shots / "recibidos-detail-en-390.png")
    assert page.evaluate(_TOTALS_LAYOUT) == []


def test_what_the_filters_found_is_said_in_the_pages_live_region(page: Page, envelope_file):
    """The results replace their own live region (htmx swaps the whole section), and a region put in the page
    anew is not read out: a screen reader user filtering heard nothing of what was found."""
    Shell(page).sign_in("usuario@demo.uy")
    received = ReceivedPage(page)
    received.open()
    received.drop(envelope_file)
    settled(page)
    page.get_by_label("Proveedor").fill("Comercial")
    page.get_by_label("Proveedor").press("Enter")
    expect(page.locator("#announcer")).to_contain_text("2 comprobantes")
    page.get_by_label("Proveedor").fill("nadie")
    page.get_by_label("Proveedor").press("Enter")
    expect(page.locator("#announcer")).to_contain_text("Ningún comprobante recibido cumple estos filtros.")


# An answer that could not be sent, as the transport words it: long, and with words longer than a phone's card.
_UNREACHABLE = (
    "HTTPSConnectionPool(host='ws.proveedor-de-cajas.com.uy', port=443): Max retries exceeded with url: "
    "/ws/intercambio/RespuestaCFE (Caused by ConnectTimeoutError('Connection to ws.proveedor-de-cajas.com.uy timed "
    "out. (connect timeout=10)'))"
)

# Each answer's state on a line of its own, its error under it, inside the box that holds the answers.
_ANSWERS_LAYOUT = """(box) => {
  const out = [], edge = box.getBoundingClientRect();
  if (box.scrollWidth > box.clientWidth) out.push(`scrolls sideways by ${box.scrollWidth - box.clientWidth}px`);
  for (const cell of box.querySelectorAll("td[data-label=Estado]")) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    while (walker.nextNode() && !walker.currentNode.data.includes("no se pudo enviar"));
    const words = document.createRange();
    words.selectNodeContents(walker.currentNode);
    const lines = new Set([...words.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
    if (lines.size > 1) out.push(`the state takes ${lines.size} lines`);
    const error = cell.querySelector("small").getBoundingClientRect(), state = words.getBoundingClientRect();
    if (error.top < state.bottom - 1) out.push("the error stands beside the state, not under it");
    if (error.left < edge.left - 1 || error.right > edge.right + 1) out.push("the error sticks out of its box");
  }
  return out;
}"""


def test_an_answer_that_could_not_be_sent_reads_whole_with_its_error_under_it(
    page: Page, live_service, tmp_path, shots
):
    """At 390 px a failed answer's cell laid its label, "no se pudo enviar" (three lines tall in a sliver) and the
    transport's error side by side, the error cut off at the card's edge and the answers' box scrolled sideways;
    at 1366 px the error's long words pushed the date out of the box."""
    envelope = tmp_path / "Sob_211003420017_20261127_1.xml"
    envelope.write_bytes(sup.envelope([sup.cfe(1)]))
    Shell(page).sign_in("usuario@demo.uy")
    received = ReceivedPage(page)
    received.open()
    received.drop(envelope)
    expect(page.locator(".flash-success")).to_contain_text("1 aceptado(s)")
    with live_service.app.app_context(), db.write_transaction() as session:
        session.execute(update(ExchangeAnswer).values(state=FAILED, last_error=_UNREACHABLE, last_error_texts=None))
    received.open_cfe("e-Factura A-1")
    answers = page.get_by_role("region", name="Nuestras respuestas al proveedor")
    expect(answers.locator(".badge-bad").first).to_have_text("no se pudo enviar")  # it stands out, not plain text
    for size, name in ((DESKTOP, "1366"), (PHONE, "390")):
        page.set_viewport_size(size)
        settled(page)
        screenshot(page, shots / f"recibidos-answer-failed-{name}.png")
        assert answers.evaluate(_ANSWERS_LAYOUT) == [], name
    assert row_cells(answers.locator("tbody tr").first) == [
        [label, True] for label in ("Documento", "Estado", "Cuándo")
    ]


def test_a_download_the_service_refuses_says_why_instead_of_vanishing(page: Page, envelope_file, live_service):
    """The download links carried the `download` attribute: an answer that was not the file (the company's other
    downloads still running, filters the service refused) was dropped by the browser as a cancelled download, and
    the person saw nothing at all. The page now says why, and the file still downloads when it can."""
    Shell(page).sign_in("usuario@demo.uy")
    received = ReceivedPage(page)
    received.open()
    received.drop(envelope_file)
    settled(page)
    with page.expect_download() as downloaded:
        page.get_by_test_id("csv-download").click()
    assert downloaded.value.failure() is None and downloaded.value.suggested_filename == "recibidos.csv"

    live_service.app.config.update(DOWNLOADS_PER_COMPANY=1)
    token = mint_token(live_service.app, "usuario@demo.uy")
    holding = live_service.app.test_client().get(  # another tab's year of receipts, still downloading
        "/api/v1/comprobante/buscar", headers={"Authorization": f"Bearer {token}", "Accept": "text/csv"}, buffered=False
    )
    try:
        page.get_by_test_id("csv-download").click()
        expect(page.get_by_text("Ya hay otras descargas de tu empresa en curso")).to_be_visible()
    finally:
        holding.close()
