"""An admin uploads DGI's CAE file and the company's certificate in the browser and sees its range and the
certificate listed (another RUT's refused next to the field); every Empresa page fits a phone; support reads the
audit from the navigation, without the settings' tabs."""

from __future__ import annotations

from dataclasses import replace

import pytest
from playwright.sync_api import Page, expect

from portal.client import CfeClient
from tests.browser.pages import EmpresaPage, Shell, both_widths, nav_link
from tests.support.empresa_files import OTHER_RUT, cae_xml, p12

TABS = ("Datos fiscales", "Sucursales", "Logo", "Certificados", "CAE", "Correo al cliente", "Personas", "Auditoría")


def test_admin_uploads_a_cae_file_and_sees_its_range(page: Page, tmp_path):
    Shell(page).open_home_and_sign_in("admin@demo.uy")
    empresa = EmpresaPage(page)
    empresa.open_from_navigation()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Datos fiscales")
    empresa.tab("CAE")

    foreign = tmp_path / "CAE_otro.xml"
    foreign.write_bytes(cae_xml(rut=OTHER_RUT, cae_id=90260000041))
    empresa.upload_cae(foreign)
    expect(page.get_by_text("El CAE es del RUT 211003420017")).to_be_visible()
    expect(page.get_by_label("Archivo de CAE de DGI (.xml)")).to_have_attribute("aria-invalid", "true")

    mine = tmp_path / "CAE_219999830019_e-Factura.xml"
    mine.write_bytes(cae_xml(tipo=111, serie="M", dnro=1001, hnro=1500, cae_id=90260000058, expires_in_days=20))
    empresa.upload_cae(mine)
    expect(page.get_by_text("Cargaste el CAE 90260000058")).to_be_visible()
    row = empresa.cae_row(90260000058)
    expect(row).to_contain_text("e-Factura")
    expect(row).to_contain_text("1.001–1.500")
    expect(row).to_contain_text("500")
    expect(row).to_contain_text("Vence en 20 días")

    empresa.tab("Auditoría")
    expect(page.get_by_test_id("audit")).to_contain_text("Cargó un CAE")
    Shell(page).assert_no_csp_violations()


def test_admin_uploads_a_certificate_and_sees_it_listed(page: Page, tmp_path):
    Shell(page).open_home_and_sign_in("admin@demo.uy")
    empresa = EmpresaPage(page)
    empresa.open_from_navigation()
    empresa.tab("Certificados")

    foreign = tmp_path / "otro.p12"
    foreign.write_bytes(p12(OTHER_RUT))
    empresa.upload_certificate(foreign, "clave-p12")
    expect(page.locator("#archivo-error")).to_contain_text("RUT 211003420017")
    expect(page.get_by_label("Archivo del certificado (.p12 o .pfx)")).to_have_attribute("aria-invalid", "true")

    mine = tmp_path / "firma.p12"
    mine.write_bytes(p12(valid_to_days=40))
    before = empresa.certificates().count()
    empresa.upload_certificate(mine, "clave-p12", name="Firma de la caja 2")
    expect(empresa.certificates()).to_have_count(before + 1)
    expect(empresa.certificates().filter(has_text="Firma de la caja 2")).to_contain_text("Quedan")
    Shell(page).assert_no_csp_violations()


# The "e-Ticket", "e-Factura"... in the elements `selector` finds, laid out on more than one line ("de e-" above
# "Ticket" in a CAE row's type, "(e-" above "Factura A-0000015)" in the mail's placeholders).
_SPLIT_TYPE_WORDS = """(selector) => {
  const split = [];
  for (const th of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const node = walker.currentNode;
      for (const match of node.data.matchAll(/e-[^\\s]+/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (tops.size > 1) split.push(th.textContent.trim());
      }
    }
  }
  return split;
}"""


@pytest.mark.parametrize("width", [390, 1366])
def test_every_empresa_page_fits_the_screen(page: Page, width):
    page.set_viewport_size({"width": width, "height": 900})
    Shell(page).sign_in("admin@demo.uy")
    empresa = EmpresaPage(page)
    page.goto("/empresa/")
    for name in TABS:
        empresa.tab(name)
        expect(page.get_by_role("link", name=name, exact=True).first).to_have_attribute("aria-current", "page")
        assert not empresa.has_horizontal_scroll(), name
        if name == "CAE":  # at 390 px "Nota de débito de e-Ticket" read "de e-" above "Ticket"
            assert page.evaluate(_SPLIT_TYPE_WORDS, "[data-testid=cae-range] th") == []
        if name == "Correo al cliente":  # at 390 px "(e-" above "Factura A-0000015)"
            assert page.evaluate(_SPLIT_TYPE_WORDS, "[data-testid=mail-placeholders] dd") == []


def test_support_opens_the_audit_from_the_navigation_and_reads_it_without_the_settings(
    page: Page, live_service, live_token_for, shots
):
    admin = CfeClient(live_service.url).as_user(live_token_for("admin@demo.uy"), company_id=1)
    settings = admin.get_fiscal_settings()
    admin.update_fiscal_settings(replace(settings, resolution="77/2024"))
    Shell(page).open_home_and_sign_in("soporte@demo.uy")
    nav_link(page, "Auditoría", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Empresa: Auditoría")
    expect(page.get_by_test_id("audit")).to_contain_text("Cambió los datos fiscales")
    # A screen reader hears the change in words, not "1516/2021 flecha derecha 77/2024".
    change = page.get_by_test_id("audit").get_by_role("definition").first
    expect(change).to_match_aria_snapshot(r"- definition: /^Antes:\s\S+\s?;\sahora:\s77\/2024$/")
    expect(page.get_by_role("navigation", name="Configuración de la empresa")).to_have_count(0)
    both_widths(page, shots, "audit-soporte")
