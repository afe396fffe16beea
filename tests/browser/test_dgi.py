"""A person runs each of the four DGI lookups in the browser, sees documents checked as they type, gets
past a DGI failure with a retry, keeps their certificate choice, and starts a receipt to a looked-up
receiver."""

from __future__ import annotations

import re
import socket
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import Page, expect

from portal.service.dgi import sandbox_data as data
from tests.browser.pages import DgiPage, Shell


def _signed_in_on_dgi(page: Page, email: str = "usuario@demo.uy") -> DgiPage:
    Shell(page).sign_in(email)
    dgi = DgiPage(page)
    dgi.open_lookups()  # test_accessibility.py reaches it from the navigation
    return dgi


def test_rut_lookup_checks_the_rut_as_typed_and_shows_the_taxpayer(page: Page):
    dgi = _signed_in_on_dgi(page)
    page.evaluate("document.title = 'marker'")
    dgi.type_document("21-999983-001-8")
    expect(dgi.hint()).to_contain_text("El dígito verificador no es correcto")
    dgi.type_document("219999830019")
    expect(dgi.hint()).to_contain_text("RUT válido: 21-999983-001-9")
    dgi.look_up()
    expect(dgi.result.get_by_test_id("entity-name")).to_have_text("DGI RUC PRUEBA NO CEDE")
    expect(dgi.result.get_by_test_id("entity-state")).to_have_text("Activo")
    expect(dgi.result.get_by_test_id("entity-state")).to_have_class(re.compile(r"\bbadge-ok\b"))
    expect(dgi.result.get_by_test_id("entity-rut")).to_have_text("21-999983-001-9")
    expect(page).to_have_url(re.compile(r"/dgi/rut\?rut=219999830019$"))
    assert page.title() == "marker"  # only the lookup block was swapped

    dgi.type_document(data.INACTIVE_RUT)
    dgi.look_up()
    expect(dgi.result.get_by_test_id("entity-state")).to_have_text("Clausurado")
    page.go_back()
    expect(page).to_have_url(re.compile(r"rut=219999830019$"))
    expect(dgi.result.get_by_test_id("entity-name")).to_have_text("DGI RUC PRUEBA NO CEDE")
    Shell(page).assert_no_csp_violations()


def test_an_invalid_rut_submitted_shows_the_error_next_to_the_field(page: Page):
    dgi = _signed_in_on_dgi(page)
    dgi.document_field().fill("2199998300")
    dgi.look_up()
    expect(dgi.hint()).to_contain_text("Un RUT tiene 12 dígitos")
    expect(dgi.document_field()).to_have_attribute("aria-invalid", "true")
    expect(dgi.document_field()).to_have_value("2199998300")
    expect(dgi.result).to_have_count(0)


def test_name_lookup_by_identity_card(page: Page):
    dgi = _signed_in_on_dgi(page)
    dgi.tab("Nombre por documento")
    dgi.choose_document_type("CI (cédula de identidad)")
    dgi.type_document("1.335.321-4")
    expect(dgi.hint()).to_contain_text("Cédula válida: 1.335.321-4")
    dgi.choose_document_type("NIE (extranjeros)")  # the same number is checked again as a NIE
    expect(dgi.hint()).to_contain_text("El dígito verificador no es correcto")
    dgi.choose_document_type("CI (cédula de identidad)")
    dgi.look_up()
    expect(dgi.result.get_by_test_id("entity-name")).to_have_text("RODRIGUEZ SILVA JUAN CARLOS")
    expect(dgi.result.get_by_test_id("entity-document")).to_have_text("CI 1.335.321-4")
    Shell(page).assert_no_csp_violations()


def test_cva_lookup_shows_a_badge_with_its_dates(page: Page):
    dgi = _signed_in_on_dgi(page)
    dgi.tab("CVA")
    dgi.type_document(data.EXPIRED_CVA_RUT)
    dgi.look_up()
    badge = dgi.result.get_by_test_id("cva-state")
    expect(badge).to_have_text("VENCIDO")
    expect(badge).to_have_class(re.compile(r"\bbadge-bad\b"))
    expect(dgi.result.get_by_test_id("cva-expires")).to_be_visible()
    dgi.type_document(data.DEMO_RUT)
    dgi.look_up()
    expect(badge).to_have_text("VIGENTE")
    expect(badge).to_have_class(re.compile(r"\bbadge-ok\b"))
    expect(dgi.result.get_by_test_id("cva-issued")).to_be_visible()
    dgi.type_document(data.NO_CVA_RUT)
    dgi.look_up()
    expect(badge).to_have_text("SIN CERTIFICADO")
    Shell(page).assert_no_csp_violations()


def test_entity_data_lookup_shows_address_and_activities(page: Page):
    dgi = _signed_in_on_dgi(page)
    dgi.tab("Datos de la entidad")
    dgi.type_document(data.DGI_CEDE_RUT)
    dgi.look_up()
    expect(dgi.result.get_by_test_id("entity-address")).to_contain_text("12 METROS 6855")
    expect(dgi.result.get_by_test_id("entity-address")).to_contain_text("CASUPA, LAVALLEJA")
    expect(dgi.result.get_by_test_id("entity-contacts")).to_contain_text("planprod@dgi.gub.uy")
    table = dgi.result.get_by_role("table")
    expect(table.get_by_role("row")).to_have_count(3)  # header + two activities
    expect(table).to_contain_text("COMERCIO AL POR MENOR REALIZADO POR LOS FREE SHOPS")
    Shell(page).assert_no_csp_violations()


def test_entity_data_values_keep_their_lines_on_a_phone(page: Page):
    page.set_viewport_size({"width": 390, "height": 844})
    dgi = _signed_in_on_dgi(page)
    dgi.tab("Datos de la entidad")
    dgi.type_document(data.DGI_CEDE_RUT)
    dgi.look_up()
    expect(dgi.result.get_by_test_id("entity-address")).to_contain_text("12 METROS 6855")
    # The values get the width: a RUT or a date is never broken over lines by a wide label column.
    lines = dgi.result.locator("dl.facts dd").evaluate_all(
        "(values) => values.filter(v => /^[0-9][0-9/-]+$/.test(v.textContent.trim()))"
        ".map(v => [v.textContent.trim(), v.getBoundingClientRect().height / "
        "parseFloat(getComputedStyle(v).lineHeight)])"
    )
    assert lines and all(height < 1.5 for _text, height in lines), lines


def _assert_receipt_page_with_receiver(page: Page) -> None:
    expect(page).to_have_url(re.compile(r"/comprobantes/nuevo\?"))
    query = parse_qs(urlsplit(page.url).query)
    assert query.pop("clave")  # the form's one-time key (never issuing twice) rides in its URL
    assert query == {
        "tipoCFE": ["111"],
        "tipoDocRecep": ["2"],
        "docRecep": [data.DGI_CEDE_RUT],
        "rznSocRecep": ["DGI RUC PRUEBA CEDE"],
        "dirRecep": ["12 METROS 6855"],
        "ciudadRecep": ["CASUPA"],
        "deptoRecep": ["LAVALLEJA"],
    }
    # The receipts page reads those parameters: the receiver's fields arrive filled in.
    values = page.locator("form input, form select").evaluate_all("(fields) => fields.map(f => f.value)")
    for value in (data.DGI_CEDE_RUT, "DGI RUC PRUEBA CEDE", "12 METROS 6855", "CASUPA", "111"):
        assert value in values, (value, values)
    Shell(page).assert_no_csp_violations()


def test_use_as_receiver_from_a_rut_result_starts_a_receipt(page: Page):
    dgi = _signed_in_on_dgi(page)
    dgi.type_document(data.DGI_CEDE_RUT)
    dgi.look_up()
    expect(dgi.result.get_by_test_id("entity-name")).to_have_text("DGI RUC PRUEBA CEDE")
    dgi.use_as_receiver()
    _assert_receipt_page_with_receiver(page)


def test_use_as_receiver_from_entity_data(page: Page):
    dgi = _signed_in_on_dgi(page)
    dgi.open(f"/dgi/datos?rut={data.DGI_CEDE_RUT}")
    dgi.use_as_receiver()
    _assert_receipt_page_with_receiver(page)


def test_a_dgi_failure_offers_a_retry_that_works(page: Page, live_service):
    dgi = _signed_in_on_dgi(page)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    live_service.app.config.update(DGI_BACKEND="soap", DGI_SOAP_URL=f"http://127.0.0.1:{port}/x")
    dgi.type_document(data.DEMO_RUT)
    dgi.look_up()
    expect(dgi.problem).to_contain_text("DGI no responde")
    expect(dgi.document_field()).to_have_value(data.DEMO_RUT)
    live_service.app.config["DGI_BACKEND"] = "sandbox"  # DGI is back
    dgi.problem.get_by_role("button", name="Reintentar").click()
    expect(dgi.result.get_by_test_id("entity-name")).to_have_text("DGI RUC PRUEBA NO CEDE")
    Shell(page).assert_no_csp_violations()


def test_the_chosen_certificate_is_remembered(page: Page):
    dgi = _signed_in_on_dgi(page, "admin@demo.uy")
    dgi.choose_certificate("Comercial del Norte", "Comercial del Norte S.R.L. · vence")
    expect(dgi.certificate_picker()).to_have_value("2:2")  # submitted on change, back on the page
    dgi.open("/dgi/cva")
    expect(dgi.certificate_picker()).to_have_value("2:2")
    dgi.type_document(data.DEMO_RUT)
    dgi.look_up()
    expect(dgi.result.get_by_test_id("cva-state")).to_have_text("VIGENTE")
    Shell(page).assert_no_csp_violations()
