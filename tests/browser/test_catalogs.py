"""Customers and products as a keyboard user adds them: a mistake comes back beside its field, the focus on it,
the title saying "Error:", what was typed kept."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.pages import Shell, settled


def test_a_new_customer_with_a_mistake_comes_back_with_it_focused_and_error_in_the_title(page: Page):
    """The form is sent by htmx: its answer was "Algo salió mal" (a 500), and once it came back with the error
    beside the field the page's script still left "Error:" out of the title (it looked only for a summary)."""
    page.set_viewport_size({"width": 390, "height": 844})
    Shell(page).sign_in("usuario@demo.uy")
    page.goto("/clientes/nuevo")
    settled(page)
    page.get_by_label("Documento", exact=True).fill("211003420017")
    page.get_by_label("Nombre o razón social").fill("Arapey")
    email = page.get_by_label("Correo para enviarle sus comprobantes")
    email.fill("arapey")
    email.press("Enter")
    expect(email).to_be_focused()
    expect(email).to_have_attribute("aria-invalid", "true")
    expect(email).to_have_value("arapey")
    expect(page).to_have_title(re.compile(r"^Error: Nuevo cliente"))
    email.fill("pagos@arapey.com.uy")
    email.press("Enter")
    expect(page.get_by_role("heading", name="Arapey", level=1)).to_be_visible()
    expect(page).not_to_have_title(re.compile(r"^Error"))


# Whether the focused element draws an outline of 2 px or more.
_RING = """() => { const s = getComputedStyle(document.activeElement);
  return {outline: s.outlineStyle !== "none" && parseFloat(s.outlineWidth) >= 2}; }"""


@pytest.mark.parametrize("url, field", [("/productos/importar", "archivo"), ("/recibidos/", "archivos")])
def test_a_file_field_reached_by_tab_shows_a_focus_ring(page: Page, url, field):
    """The file fields of the price-list import and the envelopes' upload looked the same focused or not (Pico
    draws no ring on a file input): a keyboard user could not see they were on them."""
    Shell(page).sign_in("usuario@demo.uy")
    page.goto(url)
    settled(page)
    file_field = page.locator(f"#{field}")
    file_field.focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")  # reached from the keyboard: :focus-visible
    expect(file_field).to_be_focused()
    assert page.evaluate(_RING)["outline"], "no focus ring on the file field"


def test_what_a_search_found_is_said_in_the_pages_live_region(page: Page):
    """The results replace their own live region (htmx swaps the whole section), and a region put in the page
    anew is not read out: a screen reader user typing a search heard nothing of what it found."""
    Shell(page).sign_in("usuario@demo.uy")
    for url, found in (("/clientes/", "Ningún cliente coincide"), ("/productos/", "Ningún producto coincide")):
        page.goto(url)
        settled(page)
        page.get_by_label("Buscar por nombre o", exact=False).press_sequentially("zzz")
        expect(page.locator("#announcer")).to_contain_text(found)


def _new_product(page: Page, code: str, name: str) -> None:
    page.goto("/productos/nuevo")
    settled(page)
    page.get_by_label("Código").fill(code)
    page.get_by_label("Nombre", exact=True).fill(name)
    page.get_by_label("Precio unitario").fill("90")
    page.get_by_role("button", name="Guardar").click()
    settled(page)
    page.get_by_role("link", name=code).click()
    settled(page)


def test_removing_a_product_asks_first_in_a_real_modal_and_without_javascript_on_a_page(
    page: Page, browser, live_portal
):
    """The button "Quitar del catálogo" removed at one click; it now asks first, as deleting a webhook does."""
    Shell(page).sign_in("usuario@demo.uy")
    _new_product(page, "TE-1", "Té verde")
    edit_page = page.url
    page.get_by_role("button", name="Quitar del catálogo").focus()
    page.keyboard.press("Enter")  # a keyboard user opens it
    dialog = page.get_by_role("dialog", name="¿Quitar «Té verde» del catálogo?")
    expect(dialog).to_be_visible()
    assert page.evaluate("document.querySelector('#remove-product').matches(':modal')")
    assert page.url == edit_page  # the opener's form was not sent
    for _ in range(3):  # the page behind is inert: Tab stays in the dialog
        page.keyboard.press("Tab")
        assert page.evaluate("document.querySelector('#remove-product').contains(document.activeElement)")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(page.get_by_role("button", name="Quitar del catálogo")).to_be_focused()  # back where it was
    page.get_by_role("button", name="Quitar del catálogo").click()
    dialog.get_by_role("button", name="Cancelar").click()
    expect(dialog).to_be_hidden()
    page.goto("/productos/")
    expect(page.get_by_role("link", name="TE-1")).to_be_visible()  # asking removed nothing
    page.get_by_role("link", name="TE-1").click()
    settled(page)
    page.get_by_role("button", name="Quitar del catálogo").click()
    dialog.get_by_role("button", name="Quitar del catálogo").click()
    settled(page)
    expect(page.get_by_text("Producto quitado del catálogo.")).to_be_visible()
    expect(page.get_by_role("link", name="TE-1")).to_have_count(0)

    context = browser.new_context(java_script_enabled=False, base_url=live_portal.url)
    try:
        plain = context.new_page()
        Shell(plain).sign_in("usuario@demo.uy")
        _new_product(plain, "TE-2", "Té negro")
        plain.get_by_role("button", name="Quitar del catálogo").click()
        expect(plain.get_by_role("heading", level=1)).to_have_text("¿Quitar «Té negro» del catálogo?")
        plain.get_by_role("button", name="Quitar del catálogo").click()
        expect(plain.get_by_text("Producto quitado del catálogo.")).to_be_visible()
        expect(plain.get_by_role("link", name="TE-2")).to_have_count(0)
    finally:
        context.close()


# Each cell of the product's row: its label (data-label), and whether it lies whole inside the 390 px window.
_PRODUCT_CELLS = """(code) => {
  const link = [...document.querySelectorAll('main table a')].find((a) => a.textContent.trim() === code);
  return [...link.closest('tr').cells].map((cell) => {
    const box = cell.getBoundingClientRect();
    return [cell.dataset.label, box.left >= 0 && box.right <= window.innerWidth];
  });
}"""


def test_the_product_list_on_a_phone_is_one_card_per_product_with_its_price_in_sight(page: Page):
    """At 390 px the list was a five-column table scrolled sideways: the price and the IVA were off screen and
    a long name stood nine lines tall in a column a few words wide. Each product is now a card, each value beside
    its column's name."""
    Shell(page).sign_in("usuario@demo.uy")
    _new_product(page, "CAF-1", "Café en grano tostado medio, bolsa de un kilogramo, origen Brasil")
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto("/productos/")
    settled(page)
    cells = page.evaluate(_PRODUCT_CELLS, "CAF-1")
    assert cells == [["Código", True], ["Nombre", True], ["Unidad", True], ["Precio", True], ["IVA", True]]
    price = page.get_by_role("cell", name=re.compile(r"\$ 90,00"))
    expect(price).to_be_in_viewport()


# Each cell of the customer's row: its label (data-label), and whether it lies whole inside the window.
_CUSTOMER_CELLS = """(name) => {
  const link = [...document.querySelectorAll('main table a')].find((a) => a.textContent.trim() === name);
  return [...link.closest('tr').cells].map((cell) => {
    const box = cell.getBoundingClientRect();
    return [cell.dataset.label, box.left >= 0 && box.right <= window.innerWidth];
  });
}"""


def test_the_customer_list_on_a_phone_is_one_card_per_customer(page: Page):
    """At 390 px the list was a five-column table 630 px wide scrolled sideways: the terms and the last receipt
    were off screen. Each customer is now a card, each value beside its column's name, as the products are."""
    Shell(page).sign_in("usuario@demo.uy")
    page.goto("/clientes/nuevo")
    page.get_by_label("Documento", exact=True).fill("211003420017")
    page.get_by_label("Nombre o razón social").fill("Arapey")
    page.get_by_label("Correo para enviarle sus comprobantes").fill("cuentas.a.pagar@arapey-agropecuaria.com.uy")
    page.get_by_label("Correo para enviarle sus comprobantes").press("Enter")
    expect(page.get_by_role("heading", name="Arapey", level=1)).to_be_visible()
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto("/clientes/")
    settled(page)
    cells = page.evaluate(_CUSTOMER_CELLS, "Arapey")
    assert cells == [
        ["Nombre", True],
        ["Documento", True],
        ["Correo", True],
        ["Pago", True],
        ["Último comprobante", True],
    ]
