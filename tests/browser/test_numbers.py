"""Numbers typed the Uruguayan way in a real browser: "1.500,50" and "1500.50" both mean fifteen hundred
and fifty cents, and "1.500" is asked about, in the smart-issuance form as in the receipts form. The browser
must not read them first (an <input type=number> turned "1.500,50" into 1,50)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.pages import Shell, SmartIssuancePage


@pytest.mark.parametrize("typed", ["1.500,50", "1500.50"])
def test_smart_issuance_reads_a_price_the_uruguayan_way(page: Page, typed):
    Shell(page).open_home_and_sign_in("usuario@demo.uy")
    flow = SmartIssuancePage(page)
    flow.open()
    flow.fill_line(1, "Consultoría", "2", typed)
    expect(flow.line_field(1, "Precio unitario")).to_have_value(typed)  # the browser kept what was typed
    flow.preview()
    expect(flow.total("mntPagar")).to_have_text("$ 3.001,00")  # 2 × 1.500,50, prices with IVA (e-Ticket)


def test_smart_issuance_asks_about_an_ambiguous_thousand(page: Page):
    Shell(page).open_home_and_sign_in("usuario@demo.uy")
    flow = SmartIssuancePage(page)
    flow.open()
    flow.fill_line(1, "Consultoría", "1", "1.500")
    page.get_by_role("button", name="Previsualizar", exact=True).click()
    expect(page.get_by_text("¿Mil o uno con decimales? Escribí 1500 o 1,5.")).to_be_visible()
    expect(flow.line_field(1, "Precio unitario")).to_have_value("1.500")
