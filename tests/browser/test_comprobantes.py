"""A person issues receipts through the portal: preview first, then issue, open the PDF, find the receipt
again by its id; an invalid receiver is refused next to the field with what was typed kept."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.pages import ReceiptsPage, Shell, answer_held, answers_held_in_order
from tests.browser.pages.issuing import IssuingForm


def _signed_in(page: Page, email: str = "usuario@demo.uy") -> tuple[Shell, IssuingForm]:
    shell = Shell(page)
    shell.sign_in(email)
    return shell, IssuingForm(page)


def _open_pdf_and_find_again(page: Page, shell: Shell, receipts: ReceiptsPage, title: str) -> None:
    receipt_id = receipts.receipt_id()
    url, status, content_type = receipts.open_pdf()
    assert url.endswith(f"/comprobantes/{receipt_id}/pdf")
    assert status == 200 and content_type == "application/pdf"
    receipts.find_by_id(receipt_id)
    expect(page).to_have_url(re.compile(f"/comprobantes/{receipt_id}$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(title)
    shell.assert_no_csp_violations()


def test_issue_an_eticket_preview_first_open_the_pdf_and_find_it_again(page: Page):
    shell, receipts = _signed_in(page)
    page.goto("/")
    receipts.open_new_from_navigation()  # as a person gets there; the other tests open the form by its address
    receipts.fill_line(1, "Café", "2", "122")
    receipts.add_line()
    receipts.fill_line(2, "Medialuna", "3", "44", indicator="IVA mínima (10\u00a0%)")
    pdf = receipts.preview()
    assert pdf.status == 200 and pdf.header_value("content-type") == "application/pdf"
    shell.assert_no_csp_violations()

    receipts.issue()
    expect(page.get_by_role("heading", level=1)).to_have_text("e-Ticket A-0000001")
    expect(page.get_by_text("Emitiste e-Ticket A-0000001.")).to_be_visible()
    totals = receipts.totals()
    assert totals["IVA tasa básica (22\u00a0%)"] == "$\u00a044,00" and totals["Total a pagar"] == "$\u00a0376,00"
    expect(page.get_by_test_id("security-code")).to_have_text(re.compile(r"^[A-Za-z0-9+/=]{6}$"))
    expect(page.get_by_role("img", name="Código QR de verificación")).to_be_visible()
    frame = page.get_by_title("Representación impresa del comprobante (PDF)")
    expect(frame).to_be_visible()
    # Reached by the keyboard, the PDF's frame shows that it has the focus (it showed nothing).
    page.get_by_role("link", name="Verificar en DGI").focus()
    page.keyboard.press("Tab")
    expect(frame).to_be_focused()
    expect(frame).to_have_css("outline-style", "solid", timeout=3000)
    expect(frame).to_have_css("outline-width", "2px")
    _open_pdf_and_find_again(page, shell, receipts, "e-Ticket A-0000001")


def test_issue_an_efactura_in_dollars_with_the_receiver_checked_as_typed(page: Page):
    shell, receipts = _signed_in(page)
    receipts.open_new()
    receipts.choose_type("e-Factura")
    # Choosing the document type and typing the number each ask for the hint. The type's answer is held until the
    # number's question is out, then let through first: as on a slow connection, where it used to land after the
    # number's question had picked its target, and the hint stayed blank.
    with answers_held_in_order(page, "**/comprobantes/nuevo/documento?*", until="doc_recep=21-484436-001-8"):
        receipts.fill_receiver(
            doc_type="RUT",
            number="21-484436-001-8",
            name="DIRECCION GENERAL IMPOSITIVA",
            address="Fernandez Crespo 1534",
            city="Montevideo",
        )
    expect(receipts.receiver_hint()).to_have_text("RUT válido: 21-484436-001-8")
    receipts.set_terms(payment="Crédito", currency="USD", rate="39,250", prices_include_tax=False)
    receipts.fill_line(1, "Consultoría", "10", "85,50")
    receipts.preview()
    shell.assert_no_csp_violations()

    receipts.issue()
    expect(page.get_by_role("heading", level=1)).to_have_text("e-Factura A-0000001")
    totals = receipts.totals()
    assert totals["Neto gravado a tasa básica (22\u00a0%)"] == "U$S\u00a0855,00"
    assert totals["Total a pagar"] == "U$S\u00a01.043,10"
    expect(page.get_by_text("21-484436-001-8")).to_be_visible()
    _open_pdf_and_find_again(page, shell, receipts, "e-Factura A-0000001")


def test_an_invalid_receiver_shows_the_error_next_to_the_field_with_the_input_kept(page: Page):
    shell, receipts = _signed_in(page)
    receipts.open_new()
    receipts.choose_type("e-Factura")
    receipts.fill_receiver(
        doc_type="RUT",
        number="214844360019",
        name="Cliente con RUT mal escrito",
        address="Av. 18 de Julio 1000",
        city="Montevideo",
    )
    expect(receipts.receiver_hint()).to_have_text("Dígito verificador incorrecto.")  # as typed, before sending
    receipts.fill_line(1, "Servicio", "1", "1000")
    page.get_by_role("button", name="Previsualizar").click()

    document = page.get_by_label("Número de documento")
    expect(document).to_have_attribute("aria-invalid", "true")
    expect(document).to_have_value("214844360019")
    expect(receipts.receiver_hint()).to_have_text("Dígito verificador incorrecto.")
    expect(page.get_by_role("alert")).to_contain_text("Revisá los campos marcados")
    expect(page.get_by_label("Nombre o razón social")).to_have_value("Cliente con RUT mal escrito")
    expect(page.get_by_label("Descripción, línea 1")).to_have_value("Servicio")
    expect(page.get_by_title("Previsualización del comprobante (PDF)")).to_have_count(0)
    expect(page).to_have_url(re.compile(r"/comprobantes/nuevo\?clave=[0-9a-f]{32}$"))

    document.fill("214844360018")
    expect(receipts.receiver_hint()).to_have_text("RUT válido: 21-484436-001-8")
    receipts.preview()
    receipts.issue()
    expect(page.get_by_role("heading", level=1)).to_have_text("e-Factura A-0000001")
    shell.assert_no_csp_violations()


def test_lines_are_added_and_removed_in_place(page: Page):
    shell, receipts = _signed_in(page)
    receipts.open_new()
    page.evaluate("document.title = 'marker'")
    receipts.fill_line(1, "Uno", "1", "10")
    receipts.add_line()
    receipts.fill_line(2, "Dos", "2", "20")
    receipts.add_line()
    receipts.fill_line(3, "Tres", "3", "30")
    receipts.remove_line(2)
    expect(page.get_by_label("Descripción, línea 2")).to_have_value("Tres")
    expect(page.get_by_label("Descripción, línea 3")).to_have_count(0)
    expect(page.get_by_label("Descripción, línea 1")).to_have_value("Uno")
    assert page.title() == "marker"  # swapped in place, no page load
    shell.assert_no_csp_violations()


def test_soporte_sees_the_area_without_issuing_buttons(page: Page):
    shell, _receipts = _signed_in(page, "soporte@demo.uy")
    page.goto("/")
    page.get_by_role("link", name="Comprobantes", exact=True).first.click()
    expect(page.get_by_role("heading", name="Comprobantes", level=1)).to_be_visible()
    expect(page.get_by_role("button", name="Nuevo comprobante")).to_have_count(0)
    expect(page.get_by_label("Número", exact=True)).to_be_visible()
    shell.assert_no_csp_violations()


def test_enter_in_a_field_previews_and_a_double_click_issues_one_receipt(page: Page):
    shell, receipts = _signed_in(page)
    receipts.open_new()
    receipts.fill_line(1, "Café", "2", "122")
    with page.expect_response(lambda r: "/comprobantes/previsualizacion/" in r.url):
        page.get_by_label("Precio unitario, línea 1").press("Enter")
    expect(page.get_by_title("Previsualización del comprobante (PDF)")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/comprobantes/nuevo\?clave=[0-9a-f]{32}$"))

    page.get_by_role("button", name="Emitir comprobante").dblclick()
    expect(page.get_by_role("heading", level=1)).to_have_text("e-Ticket A-0000001")
    page.get_by_role("link", name="Comprobantes", exact=True).first.click()
    expect(page.locator(".receipt-list tbody tr")).to_have_count(1)
    shell.assert_no_csp_violations()


def test_text_typed_while_the_form_changes_type_is_kept(page: Page):
    """Choosing another type re-renders the whole form; what the person types before the new form arrives
    goes into the old one and must be carried over. The answer is held back until the typing is done, so
    the window is there on every run."""
    shell, receipts = _signed_in(page)
    receipts.open_new()
    with answer_held(page, "**/comprobantes/nuevo/tipo", "#receipt-editor form"):
        page.get_by_label("Tipo de comprobante").select_option(label="e-Factura")
        page.get_by_label("Descripción, línea 1").press_sequentially("Pan flauta", delay=5)
        page.get_by_label("Dirección", exact=True).fill("Av. 18 de Julio 1234")
        page.get_by_label("Cantidad, línea 1").fill("")  # emptied on purpose is typed too
    expect(page.get_by_label("Tipo de comprobante")).to_have_value("111")
    expect(page.get_by_label("Descripción, línea 1")).to_have_value("Pan flauta")
    expect(page.get_by_label("Dirección", exact=True)).to_have_value("Av. 18 de Julio 1234")
    expect(page.get_by_label("Cantidad, línea 1")).to_have_value("")
    expect(page.get_by_label("Cantidad, línea 1")).to_be_focused()  # the next keystroke goes where the last did
    shell.assert_no_csp_violations()


def test_text_typed_while_a_line_is_removed_never_lands_on_another_line(page: Page):
    """Removing a line numbers the others again: a field's name then means another line, so what was typed
    meanwhile is not carried over by name (it would overwrite the next line)."""
    shell, receipts = _signed_in(page)
    receipts.open_new()
    receipts.fill_line(1, "Uno", "1", "10")
    receipts.add_line()
    receipts.fill_line(2, "Dos", "2", "20")
    receipts.add_line()
    receipts.fill_line(3, "Tres", "3", "30")
    with answer_held(page, "**/comprobantes/nuevo/lineas/quitar", "#lines"):
        receipts.remove_line(1)
        page.get_by_label("Descripción, línea 2").fill("Dos bis")
    expect(page.get_by_label("Descripción, línea 1")).to_have_value("Dos")
    expect(page.get_by_label("Descripción, línea 2")).to_have_value("Tres")
    shell.assert_no_csp_violations()
