"""Smart issuance in a real browser: a clerk walks input -> preview -> confirm (acknowledging a warning,
going back to edit, clicking twice), and support staff look the request up and copy its details."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import func, select

from portal.client import CfeClient
from portal.client.inteligente import SmartIssueRequest, SmartLine, SmartReceiver
from portal.service.comprobante.models import IssuedCfe
from portal.service.platform import db
from tests.browser.pages import RequestStatusPage, Shell, SmartIssuancePage, answer_held, both_widths, screenshot

NOT_ELECTRONIC_RUT = "215550030019"  # DGI sandbox: warns receptor_no_emisor_electronico
LINE = SmartLine("Consultoría", Decimal("2"), Decimal("1000"))


def _receipts(live_service) -> int:
    with live_service.app.app_context():
        return db.session().scalar(select(func.count()).select_from(IssuedCfe))


@pytest.fixture
def service_api(live_service, live_token_for):
    """The service as usuario@demo.uy, to prepare requests the way an ERP would."""
    return CfeClient(live_service.url).as_user(live_token_for("usuario@demo.uy"), company_id=1)


def test_usuario_previews_goes_back_acknowledges_the_warning_and_issues_once(page: Page, live_service, shots):
    shell = Shell(page)
    shell.open_home_and_sign_in("usuario@demo.uy")
    flow = SmartIssuancePage(page)
    flow.open_from_navigation()

    flow.set_receiver(NOT_ELECTRONIC_RUT)
    expect(flow.document_hint).to_contain_text("RUT válido: se emitirá una e-Factura")
    flow.fill_line(1, "Consultoría", "10", "1500")
    flow.add_line()
    expect(flow.line_field(2, "Descripción")).to_be_focused()
    flow.fill_line(2, "Libro técnico", "1", "900", category="Libros y diarios")
    flow.add_line()
    flow.fill_line(3, "Por error", "1", "1")
    flow.remove_line(3)
    expect(flow.line_field(2, "Descripción")).to_have_value("Libro técnico")  # typed text survives the swaps
    screenshot(page, shots / "inteligente-step1.png")
    with page.expect_response(re.compile(r"/previsualizacion\.pdf$")) as pdf:  # the iframe's PDF
        flow.preview()
    assert pdf.value.status == 200 and pdf.value.headers["content-type"] == "application/pdf"

    expect(flow.cfe_type).to_have_text("e-Factura")
    expect(flow.receiver).to_contain_text("PANADERIA EL HORNERO")
    expect(flow.receiver).to_contain_text("de DGI")
    expect(flow.total("to_pay")).to_have_text("$ 15.900,00")
    expect(page.locator("iframe.pdf-frame")).to_be_visible()
    screenshot(page, shots / "inteligente-step2.png")

    flow.go_back_and_edit()
    expect(flow.line_field(2, "Descripción")).to_have_value("Libro técnico")
    expect(flow.line_field(2, "Categoría")).to_have_value("libros")
    expect(page.get_by_label("Documento del receptor")).to_have_value(NOT_ELECTRONIC_RUT)
    flow.line_field(1, "Cantidad").fill("5")
    flow.preview()
    expect(flow.total("to_pay")).to_have_text("$ 8.400,00")

    before = _receipts(live_service)
    flow.confirm()  # the warning is not acknowledged yet
    expect(flow.confirm_error).to_contain_text("Marcá «Leí y acepto»")
    assert _receipts(live_service) == before
    flow.acknowledge_warnings()
    flow.confirm_button.dblclick()
    expect(flow.issued_receipt).to_have_text(re.compile(r"e-Factura A-\d{7}"))
    assert _receipts(live_service) == before + 1
    receipt_link = page.get_by_role("button", name="Ver el comprobante")  # a link styled as a button
    expect(receipt_link).to_have_attribute("href", re.compile(r"^/comprobantes/"))

    page.get_by_role("button", name="Ver la solicitud").click()
    status = RequestStatusPage(page)
    expect(status.state).to_have_text("Emitida")
    assert status.timeline_states() == ["preview", "confirmed", "issued"]
    shell.assert_no_csp_violations()


def test_an_empty_line_is_refused_by_the_portal_in_its_own_words(page: Page):
    Shell(page).sign_in("usuario@demo.uy")
    flow = SmartIssuancePage(page)
    flow.open()
    page.get_by_role("button", name="Previsualizar", exact=True).click()
    # Not the browser's "Please fill out this field": the portal's message, next to the field.
    expect(page.locator("#lineas-0-descripcion-error")).to_contain_text("Indicá qué se vende")
    expect(flow.line_field(1, "Descripción")).to_have_attribute("aria-invalid", "true")


def test_text_typed_while_a_line_is_added_or_removed_stays_where_it_was_typed(page: Page):
    """The lines are re-rendered by the service's answer (~100 ms): what is typed meanwhile is carried into the
    new lines by name, except after a removal, which numbers the lines again (a name then means another line)."""
    Shell(page).sign_in("usuario@demo.uy")
    flow = SmartIssuancePage(page)
    flow.open()
    flow.fill_line(1, "Consultoría", "10", "1500")
    with answer_held(page, "**/inteligente/nueva/lineas", "#lineas"):
        page.get_by_role("button", name="Agregar línea").click()
        flow.line_field(1, "Cantidad").fill("12")
    expect(flow.lines).to_have_count(2)
    expect(flow.line_field(1, "Cantidad")).to_have_value("12")
    expect(flow.line_field(1, "Descripción")).to_have_value("Consultoría")

    flow.fill_line(2, "Libro", "1", "900")
    flow.add_line()
    flow.fill_line(3, "Mapa", "2", "300")
    with answer_held(page, "**/inteligente/nueva/lineas", "#lineas"):
        flow.page.get_by_role("button", name="Quitar la línea 1").click()
        flow.line_field(2, "Descripción").fill("Libro usado")
    expect(flow.lines).to_have_count(2)
    expect(flow.line_field(1, "Descripción")).to_have_value("Libro")
    expect(flow.line_field(2, "Descripción")).to_have_value("Mapa")
    Shell(page).assert_no_csp_violations()


def test_soporte_looks_the_request_up_and_copies_the_support_details(page: Page, context, service_api, shots):
    issued = service_api.smart_issue(
        SmartIssueRequest(lines=(LINE,), receiver=SmartReceiver("219999830019")), idempotency_key="browser-soporte-1"
    )
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    shell = Shell(page)
    shell.open_home_and_sign_in("soporte@demo.uy")
    page.get_by_role("navigation", name="Principal").get_by_role("link", name="Emisión inteligente").click()
    expect(page.get_by_role("heading", name="Solicitudes de emisión")).to_be_visible()
    expect(page.get_by_role("link", name="Nueva emisión")).to_have_count(0)

    status = RequestStatusPage(page)
    status.search("ei_no_existe")
    expect(page.locator("#q-error")).to_have_text("No existe esa solicitud en tu empresa.")
    expect(status.search_box).to_have_value("ei_no_existe")

    status.search(issued.id)
    expect(status.state).to_have_text("Emitida")
    assert status.timeline_states() == ["confirmed", "issued"]
    expect(page.get_by_test_id("dgi-state")).to_have_attribute("data-state", "pendiente")
    receipt_id = issued.receipt_ids[0]
    expect(page.get_by_role("link", name=receipt_id)).to_have_attribute("href", f"/comprobantes/{receipt_id}")
    screenshot(page, shots / "inteligente-status.png")

    copied = status.copy_support_details()
    assert issued.id in copied and receipt_id in copied and "Emitida (issued) · final" in copied
    assert "Línea de tiempo:" in copied
    shell.assert_no_csp_violations()


def test_a_request_and_its_result_fit_a_phone(page: Page, service_api, shots):
    issued = service_api.smart_issue(SmartIssueRequest(lines=(LINE,)), idempotency_key="browser-phone-width")
    Shell(page).sign_in("usuario@demo.uy")
    page.goto(f"/inteligente/nueva/{issued.id}/resultado")
    both_widths(page, shots, "inteligente-resultado")  # the request's id and the DGI badge wrap
    page.goto(f"/inteligente/solicitudes?request_id={issued.id}")
    both_widths(page, shots, "inteligente-solicitud")


def test_on_a_phone_each_previewed_line_shows_its_iva_and_amount_without_scrolling_sideways(page: Page):
    """The review's lines were a five-column table scrolled sideways in its box at 390 px: the IVA and the amount
    of each line, what the page asks to check before issuing, were out of sight. Now each line is a card."""
    Shell(page).sign_in("usuario@demo.uy")
    page.set_viewport_size({"width": 390, "height": 844})
    flow = SmartIssuancePage(page)
    flow.open()
    flow.fill_line(1, "Consultoría", "2", "1000")
    flow.preview()
    box = page.get_by_role("region", name="Líneas")
    assert box.evaluate("e => e.scrollWidth - e.clientWidth") <= 0
    lines = page.get_by_test_id("draft-lines")
    for column in ("IVA", "Importe"):
        cell = lines.locator(f"td[data-label='{column}']").first
        expect(cell).to_be_visible()
        place = cell.bounding_box()
        assert place is not None and place["x"] + place["width"] <= 390, column
    expect(lines.locator("td[data-label='Importe']").first).to_have_text(re.compile(r"2\.000,00"))


def test_the_status_page_refreshes_itself_until_the_request_is_final(page: Page, service_api):
    preview = service_api.smart_preview(SmartIssueRequest(lines=(LINE,)))
    shell = Shell(page)
    shell.sign_in("soporte@demo.uy")
    status = RequestStatusPage(page)
    status.open(preview.id)
    expect(status.state).to_have_text("Previsualizada")
    expect(status.section).to_have_attribute("hx-trigger", "every 2s")

    service_api.smart_confirm(preview.id, preview.draft_hash, [])
    expect(status.state).to_have_text("Emitida", timeout=30_000)  # no reload: the block polled itself
    expect(status.section).not_to_have_attribute("hx-trigger", re.compile(".*"))
    assert status.timeline_states() == ["preview", "confirmed", "issued"]
    shell.assert_no_csp_violations()


def test_soporte_finds_a_request_by_its_receipt_number_as_people_type_it(page: Page, service_api):
    wanted = service_api.smart_issue(SmartIssueRequest(lines=(LINE,)), idempotency_key="browser-soporte-number")
    other = service_api.smart_issue(SmartIssueRequest(lines=(LINE,)), idempotency_key="browser-soporte-other")
    previewed = service_api.smart_preview(SmartIssueRequest(lines=(LINE,)))
    shell = Shell(page)
    shell.sign_in("soporte@demo.uy")
    status = RequestStatusPage(page)
    page.set_viewport_size({"width": 1366, "height": 900})
    status.open()
    expect(status.rows).to_have_count(3)  # the company's recent requests, newest first
    expect(status.rows.first).to_have_attribute("data-request-id", previewed.id)
    shots = Path("/tmp/shots-craft")
    shots.mkdir(exist_ok=True)
    screenshot(page, shots / "solicitudes-1366.png")

    receipt = wanted.receipt
    status.search_box.fill(f"{receipt.serie} {receipt.nro:07d}")  # no Enter: the list filters as you type
    expect(status.rows).to_have_count(1)
    expect(status.rows.first).to_have_attribute("data-request-id", wanted.id)
    expect(status.rows.first.get_by_test_id("request-receipt")).to_have_text(f"e-Ticket {receipt.number}")
    expect(page).to_have_url(re.compile(rf"[?&]q=A(\+|%20)0*{receipt.nro}(&|$)"))  # the URL keeps the search
    assert other.id not in page.content()

    page.get_by_role("link", name=wanted.id).click()
    expect(status.state).to_have_text("Emitida")
    page.go_back()
    expect(status.search_box).to_have_value(f"{receipt.serie} {receipt.nro:07d}")
    expect(status.rows).to_have_count(1)
    page.reload()
    expect(status.rows).to_have_count(1)

    page.set_viewport_size({"width": 390, "height": 844})
    status.search_box.fill("")
    expect(status.rows).to_have_count(3)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, shots / "solicitudes-390.png")
    shell.assert_no_csp_violations()
