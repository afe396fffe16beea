"""A person manages API keys in the browser: an admin creates a key, sees its secret once and copies it,
changes its limit and revokes it; `soporte` reads the list without controls; `usuario` gets the 403 page."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.pages import DESKTOP, PHONE, ApiKeysPage, Shell, both_widths, nav_link


@pytest.fixture
def existing_key(live_service):
    """A key of Demo S.A. created through the service's API, as another admin would have."""
    from portal.client import CfeClient
    from portal.client.apikeys import RateLimit
    from tests.conftest import mint_token

    api = CfeClient(live_service.url).as_user(mint_token(live_service.app, "admin@demo.uy"), company_id=1)
    return api.create_api_key("Tienda web", RateLimit(120, 60)).key


def test_admin_creates_a_key_sees_it_once_changes_its_limit_and_revokes_it(page: Page, context):
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    shell = Shell(page)
    shell.open_home_and_sign_in("admin@demo.uy")
    nav_link(page, "Claves de API").click()
    keys = ApiKeysPage(page)
    expect(keys.listing).to_contain_text("todavía no tiene claves")

    keys.create("ERP central", limit=600, window=60)
    expect(keys.dialog).to_be_hidden()
    expect(keys.secret_field).to_be_visible()
    expect(keys.secret_field).to_be_focused()
    expect(page.get_by_text("Copiala ahora: no se va a mostrar nunca más.")).to_be_visible()
    secret = keys.secret_field.input_value()
    assert re.fullmatch(r"cfe_live_[A-Za-z0-9_-]{43}", secret)
    row = keys.row("ERP central")
    expect(row.get_by_test_id("apikey-prefix")).to_have_text(secret[:16] + "…")
    expect(page.get_by_role("status")).to_contain_text("Creaste la clave «ERP central».")

    page.get_by_role("button", name="Copiar").click()
    expect(page.get_by_role("button", name="Copiada")).to_be_visible()
    assert page.evaluate("navigator.clipboard.readText()") == secret

    # Never in the address bar, the page's storage or the history: the URL did not change.
    assert page.url.endswith("/apikeys/") and secret not in page.url
    stored = page.evaluate("JSON.stringify(localStorage) + JSON.stringify(sessionStorage)")
    assert secret not in stored
    page.get_by_role("button", name="Ya la guardé").click()
    expect(keys.secret_field).to_have_count(0)
    page.reload()
    expect(keys.row("ERP central")).to_be_visible()
    assert secret not in page.content()

    keys.set_limit("ERP central", 3, 60)
    row = keys.row("ERP central")
    expect(row.get_by_label("Solicitudes")).to_have_value("3")
    expect(row.get_by_test_id("apikey-usage")).to_contain_text("0 de 3")
    row.get_by_text("Historial (2)").click()
    expect(row.get_by_test_id("apikey-history")).to_contain_text("de 600 cada 60 s a 3 cada 60 s")
    expect(page.get_by_role("status")).to_contain_text("3 solicitudes cada 60 segundos")

    keys.revoke("ERP central")
    expect(row.get_by_text("Revocada", exact=True)).to_be_visible()
    expect(row.get_by_role("button")).to_have_count(0)
    page.reload()
    expect(keys.row("ERP central")).to_contain_text("Revocada")
    shell.assert_no_csp_violations()


def test_an_impossible_limit_is_refused_next_to_it_and_nothing_changes(page: Page, existing_key):
    """A text box (a browser number input would misread 1.500,50), so the portal refuses it, not the browser."""
    Shell(page).sign_in("admin@demo.uy")
    keys = ApiKeysPage(page)
    keys.open()
    keys.row("Tienda web").get_by_label("Solicitudes").fill("0")
    keys.row("Tienda web").get_by_role("button", name="Guardar").click()
    field = keys.row("Tienda web").get_by_label("Solicitudes")
    expect(field).to_have_value("0")
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(keys.row("Tienda web").get_by_text("Entre 1 y 100000.")).to_be_visible()
    page.reload()
    expect(keys.row("Tienda web").get_by_label("Solicitudes")).to_have_value("120")


def test_on_a_phone_each_key_is_a_card_with_its_controls_in_view(page: Page, existing_key, shots):
    """Kept at desktop width the list was 860 px wide on a 390 px phone: the limit's form and Revocar two screens
    to the right of a sideways scroll. Now each key is a card (stacked-table); at 1366 px the table is as it was."""
    Shell(page).sign_in("admin@demo.uy")
    keys = ApiKeysPage(page)
    keys.open()
    both_widths(page, shots, "apikeys-cards")
    page.set_viewport_size(PHONE)
    row = keys.row("Tienda web")
    assert keys.listing.locator("table").evaluate("(t) => t.scrollWidth <= t.parentElement.clientWidth")
    for control in (row.get_by_label("Solicitudes"), row.get_by_role("button", name="Revocar")):
        box = control.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    created = row.locator("tr").first.locator("td", has_text="admin@demo.uy")
    assert created.evaluate("(td) => getComputedStyle(td, '::before').content") == '"Creada"'
    page.set_viewport_size(DESKTOP)
    cells = [box["y"] for box in (c.bounding_box() for c in row.locator("tr").first.locator("td").all())]
    assert max(cells) - min(cells) < 1  # one row of cells side by side


def test_a_key_without_a_name_is_refused_by_the_portal_in_its_own_words(page: Page):
    Shell(page).sign_in("admin@demo.uy")
    keys = ApiKeysPage(page)
    keys.open()
    keys.create("")
    # Not the browser's "Please fill out this field": the portal's message, in the dialog, next to the field.
    expect(keys.dialog.get_by_label("Nombre")).to_have_attribute("aria-invalid", "true")
    expect(keys.dialog.locator(".field-error").first).to_be_visible()


def test_soporte_sees_the_list_read_only(page: Page, existing_key):
    shell = Shell(page)
    shell.sign_in("soporte@demo.uy")
    keys = ApiKeysPage(page)
    keys.open()
    row = keys.row("Tienda web")
    expect(row).to_contain_text(existing_key.prefix)
    expect(row.get_by_test_id("apikey-limit")).to_have_text("120 cada 60 s")
    expect(page.get_by_role("button", name="Crear clave")).to_have_count(0)
    expect(keys.listing.get_by_role("button")).to_have_count(0)
    expect(keys.listing.get_by_role("textbox")).to_have_count(0)
    shell.assert_no_csp_violations()


def test_usuario_gets_the_403_page(page: Page):
    shell = Shell(page)
    shell.sign_in("usuario@demo.uy")
    answer = page.goto("/apikeys/")
    assert answer is not None and answer.status == 403
    expect(page.get_by_role("heading", name="No tenés permiso para ver esto")).to_be_visible()
    shell.assert_no_csp_violations()
