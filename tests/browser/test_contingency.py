"""DGI down and the paper book, in the browser: an admin sees the banner on every page while DGI does not
answer (since when, how many receipts wait), opens the page that tells the two situations apart, and registers
the company's printed contingency book in the Empresa area. No CSP violation; nothing scrolls sideways at
390 px. Screenshots at 1366 and 390 px with CFE_SHOTS_DIR."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from portal.service.envios import outage
from tests.browser.pages import EmpresaPage, Shell, both_widths, settled


def test_admin_sees_the_outage_banner_and_registers_a_contingency_book(page: Page, live_service, shots):
    with live_service.app.app_context():
        outage.failed("No se pudo conectar con el servicio de DGI.", 30)
    shell = Shell(page)
    shell.open_home_and_sign_in("admin@demo.uy")
    settled(page)
    banner = page.get_by_test_id("dgi-banner")
    expect(banner).to_contain_text("DGI no responde desde el")
    both_widths(page, shots, "home-dgi-down")

    banner.get_by_role("link", name="¿Qué hacer?").click()
    expect(page.get_by_role("heading", name="Si DGI no responde o no se puede emitir", level=1)).to_be_visible()
    expect(page.get_by_test_id("situation-dgi-down")).to_contain_text("Siga emitiendo")
    expect(page.get_by_test_id("situation-no-issuing")).to_contain_text("libreta de contingencia")
    both_widths(page, shots, "contingencia")

    empresa = EmpresaPage(page)
    empresa.open_from_navigation()
    empresa.tab("Contingencia")
    expect(page.get_by_role("heading", name="Empresa: Libretas de contingencia")).to_be_visible()
    empresa.register_contingency_book(
        "211 e-Factura de contingencia", "B", "1", "500", "90261234567", authorized="15/01/2026", expires="15/01/2028"
    )
    expect(page.get_by_test_id("contingency-book")).to_contain_text("211 e-Factura de contingencia")
    both_widths(page, shots, "empresa-contingencia")
    shell.assert_no_csp_violations()
