"""Numbers typed the Uruguayan way in a real browser: "1.500,50" and "1500.50" both mean fifteen hundred
and fifty cents, and "1.500" is asked about, in every number field of every form. The browser must not read
them first (an <input type=number> turned "1.500,50" into 1,50).

What each form does with 1500.50 is checked where it shows (a receipt's total); that every number field of
every form reads the three texts so is checked field by field in tests/unit/test_every_number_field.py. Here
each page's number inputs are found in the page itself, typed into, and sent."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.pages import ApiKeysPage, ReceiptsPage, Shell, SmartIssuancePage, screenshot

QUESTION = "¿Mil o uno con decimales? Escribí 1500 o 1,5."
NUMBER_INPUTS = "input[data-number]"  # portal.web.forms_common.NumberField marks its inputs


def _type_everywhere(form: Locator, typed: str) -> list[str]:
    """Types `typed` into every number input of `form`; returns their ids. A page without a browser number
    input (type=number) is the point: it would have read the text before the server did."""
    expect(form.page.locator("input[type=number]")).to_have_count(0)
    ids = [i for i in form.locator(NUMBER_INPUTS).evaluate_all("(inputs) => inputs.map((i) => i.id)") if i]
    assert ids, "no number input found"
    for input_id in ids:
        field = form.page.locator(f"#{input_id}")
        field.fill(typed)
        expect(field).to_have_value(typed)  # typed as is: nothing read it on the way
    return ids


def _asked_everywhere(page: Page, ids: list[str]) -> None:
    for input_id in ids:
        expect(page.locator(f"#{input_id}")).to_have_value("1.500")  # what was typed, kept
        expect(page.locator(f"#{input_id}-error")).to_have_text(QUESTION)


@pytest.mark.parametrize("typed", ["1.500,50", "1500.50"])
def test_the_receipts_form_reads_a_price_the_uruguayan_way(page: Page, typed):
    Shell(page).sign_in("usuario@demo.uy")
    receipts = ReceiptsPage(page)
    receipts.open_new()
    receipts.fill_line(1, "Consultoría", "2", typed)
    receipts.issue()
    assert receipts.totals()["Total a pagar"] == "$\u00a03.001,00"  # 2 × 1.500,50, prices with IVA (e-Ticket)


@pytest.mark.parametrize("kind", ["e-Ticket", "e-Resguardo"])
def test_the_receipts_form_asks_about_1500_in_every_number_field(page: Page, kind, shots):
    shell = Shell(page)
    shell.sign_in("usuario@demo.uy")
    receipts = ReceiptsPage(page)
    receipts.open_new()
    if kind != "e-Ticket":
        receipts.choose_type(kind)
    ids = _type_everywhere(page.locator("form.receipt-form"), "1.500")
    assert "tpo_cambio" in ids and ("lines-0-precio_unitario" in ids or "lines-0-valor" in ids)
    page.get_by_role("button", name="Previsualizar").click()
    _asked_everywhere(page, ids)
    screenshot(page, shots / f"numbers-{kind}.png")
    shell.assert_no_csp_violations()


@pytest.mark.parametrize("typed", ["1.500,50", "1500.50"])
def test_smart_issuance_reads_a_price_the_uruguayan_way(page: Page, typed):
    Shell(page).sign_in("usuario@demo.uy")
    flow = SmartIssuancePage(page)
    flow.open()
    flow.fill_line(1, "Consultoría", "2", typed)
    expect(flow.line_field(1, "Precio unitario")).to_have_value(typed)  # the browser kept what was typed
    flow.preview()
    expect(flow.total("to_pay")).to_have_text("$\u00a03.001,00")  # 2 × 1.500,50, prices with IVA (e-Ticket)


def test_smart_issuance_asks_about_1500_in_every_number_field(page: Page):
    Shell(page).sign_in("usuario@demo.uy")
    flow = SmartIssuancePage(page)
    flow.open()
    flow.line_field(1, "Descripción").fill("Consultoría")
    page.get_by_label("Moneda").select_option("USD")
    ids = _type_everywhere(page.locator("form.smart-form"), "1.500")
    assert {"tipo_cambio", "lineas-0-cantidad", "lineas-0-precio"} <= set(ids)
    page.get_by_role("button", name="Previsualizar", exact=True).click()
    _asked_everywhere(page, ids)


def test_the_receipt_list_reads_amount_filters_the_uruguayan_way(page: Page):
    Shell(page).sign_in("usuario@demo.uy")
    page.goto("/comprobantes/")
    page.get_by_text("Más filtros").click()
    amount = page.get_by_label("Monto desde")
    expect(amount).to_have_attribute("data-number", "")
    amount.fill("1.500")
    expect(page.get_by_test_id("filter-error")).to_have_text(f"Monto desde: {QUESTION}")
    for typed in ("1.500,50", "1500.50"):
        sent = f"monto_desde={quote(typed)}"
        with page.expect_response(lambda r, sent=sent: sent in r.url) as answer:
            amount.fill(typed)
        assert answer.value.status == 200  # read as a number: the list, not a 422
        expect(page.get_by_test_id("filter-error")).to_have_count(0)


@pytest.mark.parametrize(("typed", "message"), [("1.500", QUESTION), ("1.500,50", "número entero")])
def test_whole_number_fields_read_the_same_way_and_ask(page: Page, typed, message):
    """API key limits, a branch's DGI code, how many numbers to void: whole numbers, read as every other
    number is ("1.500,50" is 1500.50, which is not whole), and "1.500" is asked about too."""
    shell = Shell(page)
    shell.sign_in("admin@demo.uy")
    keys = ApiKeysPage(page)
    keys.open()
    page.get_by_role("button", name="Crear clave").click()
    keys.dialog.get_by_label("Nombre").fill("ERP")
    ids = _type_everywhere(keys.dialog.locator("form"), typed)
    keys.dialog.get_by_role("button", name="Crear la clave").click()
    for input_id in ids:
        expect(page.locator(f"#{input_id}")).to_have_value(typed)
        expect(page.locator(f"#{input_id}-error")).to_contain_text(message)

    page.goto("/empresa/sucursales")
    ids = _type_everywhere(page.locator("form", has=page.get_by_role("button", name="Agregar la sucursal")), typed)
    page.get_by_role("button", name="Agregar la sucursal").click()
    for input_id in ids:
        expect(page.locator(f"#{input_id}-error")).to_contain_text(message)

    page.goto("/envios/")
    void = page.locator("#void-numbers form")
    ids = _type_everywhere(void, typed)
    void.get_by_role("button", name="Anular números").click()
    for input_id in ids:
        expect(page.locator(f"#{input_id}")).to_have_value(typed)
        expect(page.locator(f"#{input_id}-error")).to_contain_text(message)
    shell.assert_no_csp_violations()
