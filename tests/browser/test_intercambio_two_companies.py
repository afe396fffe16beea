"""Both demo companies in a real browser, as `make run` has them: admin@demo.uy issues an e-Factura from Demo S.A.
to Comercial del Norte's RUT in the portal; the worker delivers it over the service's own exchange web service; in
Norte's "Comprobantes recibidos" it is there, acknowledged; a commercial rejection made there shows on Demo's
receipt page with the credit note offered, prefilled with the receiver's motive.

`two_company_flow` takes how to wait for the worker: here the worker's jobs are drained (as the other browser
tests do); against `make run` (scripts or by hand) the page is reloaded until the worker has delivered."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Locator, Page, expect

from portal.service.envios.consultas import ElectronicIssuer
from portal.service.intercambio.directory import upsert_issuer
from portal.service.platform import db
from tests.browser.pages import Shell, SmartIssuancePage, both_widths, settled
from tests.browser.pages.receipt import ReceiptPage
from tests.browser.pages.recibidos import ReceivedPage
from tests.support.envios import ENVIOS_CONFIG, drain
from tests.support.exchange import NORTE

DEMO = "219999830019"
WS_PATH = "/ws/aws_efactura_intercambio"


def _company(page: Page, name: str) -> None:
    """Work in `name` (the header's company switch, as a person does)."""
    settled(page)
    selected = page.locator("#company-switch option:checked")
    if selected.inner_text() != name:
        with page.expect_navigation():
            page.get_by_label("Empresa").select_option(label=name)
    expect(selected).to_have_text(name)


def reload_until(page: Page, locator: Locator, wait: Callable[[], None], attempts: int = 30) -> None:
    """Reload the page, letting the worker run between reloads, until `locator` shows."""
    for _ in range(attempts):
        wait()
        page.reload()
        settled(page)
        if locator.count():
            return
    expect(locator.first).to_be_visible()


def two_company_flow(page: Page, wait: Callable[[], None], shots=None) -> None:
    shell = Shell(page)
    shell.open_home_and_sign_in("admin@demo.uy")
    _company(page, "Demo S.A.")

    flow = SmartIssuancePage(page)
    flow.open()
    flow.set_receiver(NORTE)
    expect(flow.document_hint).to_contain_text("e-Factura")
    flow.fill_line(1, "Cajas de cartón corrugado", "10", "140")
    flow.preview()
    flow.acknowledge_warnings()
    flow.confirm()
    expect(flow.issued_receipt).to_have_text(re.compile(r"e-Factura A-\d{7}"))
    number = flow.issued_receipt.inner_text().split()[-1]  # "A-0000042"
    receipt_url = page.get_by_role("button", name="Ver el comprobante").get_attribute("href")
    assert receipt_url

    _company(page, "Comercial del Norte S.R.L.")
    page.goto("/recibidos/")
    serie, nro = number.split("-")
    row = ReceivedPage(page).row(f"e-Factura {serie}-{int(nro)}")
    reload_until(page, row, wait)
    received = row.get_by_role("link")
    expect(row).to_contain_text(DEMO)
    expect(row).to_contain_text("Recibido")  # acknowledged on arrival (AE), no decision yet
    if shots:
        both_widths(page, shots, "two-companies-received")
    received.click()
    inbox = ReceivedPage(page)
    expect(page.get_by_role("heading", name="Líneas")).to_be_visible()
    expect(page.get_by_text("Cajas de cartón corrugado")).to_be_visible()
    inbox.reject("E24", "El precio acordado era $ 120 por caja.")
    expect(inbox.decision).to_contain_text("E24")

    _company(page, "Demo S.A.")
    page.goto(receipt_url)
    receipt = ReceiptPage(page)
    rejected = receipt.exchange_state.filter(has_text="Rechazado por el receptor")
    reload_until(page, rejected, wait)
    expect(receipt.exchange_reasons).to_contain_text("E24")
    if shots:
        both_widths(page, shots, "two-companies-rejected")
    receipt.start_credit_note_for_rejection()
    expect(receipt.reference_reason).to_have_value(re.compile(r"^Rechazo comercial del receptor: E24"))
    shell.assert_no_csp_violations()


@pytest.fixture
def service_config(service_config):
    return {**service_config, **ENVIOS_CONFIG, "INTERCAMBIO_DELAY_SECONDS": 0}


def test_an_efactura_from_demo_reaches_norte_and_its_rejection_comes_back(page: Page, live_service, shots):
    with live_service.app.app_context():
        for rut, name in ((DEMO, "Demo S.A."), (NORTE, "Comercial del Norte S.R.L.")):
            upsert_issuer(db.session(), ElectronicIssuer(rut, name, None, live_service.url + WS_PATH, None, None))
        db.session().commit()
    two_company_flow(page, lambda: drain(live_service.app, rounds=40), shots)
