"""DGI down and the paper book, in the browser: an admin sees the banner on every page while DGI does not
answer (since when, how many receipts wait), opens the page that tells the two situations apart, and registers
the company's printed contingency book in the Empresa area. No CSP violation; nothing scrolls sideways at
390 px. Screenshots at 1366 and 390 px with CFE_SHOTS_DIR."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from playwright.sync_api import Page, expect

from portal.client import CfeClient
from portal.domain.uruguay_time import today_montevideo
from portal.service.comprobante.models import ContingencyBook
from portal.service.envios import outage
from portal.service.platform import db
from tests.browser.pages import DESKTOP, PHONE, EmpresaPage, ReceiptsPage, Shell, both_widths, row_cells, settled
from tests.browser.pages.receipt import ReceiptPage
from tests.support import cfe_bodies as bodies
from tests.support.envios import ENVIOS_CONFIG, REJECT_MARKER, drain


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
    expect(page.get_by_test_id("situation-dgi-down")).to_contain_text("Seguí emitiendo")
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
    page.set_viewport_size(PHONE)  # one card per book, not a 620 px table with the free numbers off screen
    labels = ["Números", "Vigencia", "Usados", "Anulados", "Libres", "Registrada"]
    assert row_cells(page.get_by_test_id("contingency-book")) == [[None, True]] + [[label, True] for label in labels]
    page.set_viewport_size(DESKTOP)
    shell.assert_no_csp_violations()


@pytest.fixture
def service_config(service_config):
    return {**service_config, **ENVIOS_CONFIG}


@pytest.mark.parametrize("email", ["usuario@demo.uy", "admin@demo.uy"])
def test_a_waiting_receipt_says_on_its_page_that_dgi_does_not_answer(
    page: Page, live_service, live_token_for, shots, email
):
    """Whoever opens a receipt that waits while DGI does not answer reads it in the receipt's DGI panel: since
    when, that the receipt is valid and can be handed over, that it goes out by itself. In Spanish and English,
    at 1366 and 390 px."""
    api = CfeClient(live_service.url).as_user(live_token_for("usuario@demo.uy"), company_id=1)
    receipt = api.issue_receipt(bodies.request(bodies.EFACTURA), idempotency_key=f"outage-{email}")
    with live_service.app.app_context():
        outage.failed("No se pudo conectar con el servicio de DGI.", 30)
    shell = Shell(page)
    shell.sign_in(email)
    opened = ReceiptPage(page)
    opened.open(receipt.id)
    said = opened.dgi_panel.get_by_test_id("dgi-outage")
    expect(said).to_contain_text("DGI no responde desde el")
    expect(said).to_contain_text("podés entregárselo al cliente")
    role = email.split("@")[0]
    both_widths(page, shots, f"receipt-dgi-down-{role}-es")
    page.get_by_role("button", name="English").click()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(said).to_contain_text("you can hand it to the customer")
    both_widths(page, shots, f"receipt-dgi-down-{role}-en")
    shell.assert_no_csp_violations()


def test_a_paper_cfc_is_keyed_in_observed_corrected_and_its_book_counted(page: Page, live_service, shots):
    today = today_montevideo()
    with live_service.app.app_context(), db.write_transaction() as session:
        session.add(
            ContingencyBook(
                company_id=1,
                tipo_cfe=211,
                serie="B",
                nro_desde=1,
                nro_hasta=50,
                cae_id="90261234567",
                fecha_autorizacion=today - timedelta(days=30),
                fecha_vencimiento=today + timedelta(days=700),
                created_by="admin@demo.uy",
            )
        )
    shell = Shell(page)
    shell.sign_in("admin@demo.uy")
    receipts = ReceiptsPage(page)
    receipts.open_new()
    receipts.choose_type("e-Factura")
    receipts.fill_receiver(
        doc_type="RUT", number="214844360018", name=f"Cliente {REJECT_MARKER}E05", address="Fernandez Crespo 1534"
    )
    receipts.fill_line(1, "Consultoría", "10", "1500")
    paper = page.get_by_test_id("cfc-paper")
    paper.locator("summary").click()
    expect(paper.get_by_test_id("cfc-books")).to_contain_text("1–50")
    paper.get_by_label("Comprobante de contingencia (papel)").check()
    paper.get_by_label("Serie del papel").fill("B")
    paper.get_by_label("Número del papel").fill("7")
    page.get_by_label("Fecha", exact=True).fill(f"{today - timedelta(days=2):%d/%m/%Y}")
    both_widths(page, shots, "nuevo-contingencia")
    receipts.issue()
    receipt_id = receipts.receipt_id()
    drain(live_service.app)
    page.reload()
    panel = page.get_by_test_id("dgi-panel")
    expect(panel).to_have_attribute("data-state", "observado")
    expect(panel.get_by_test_id("dgi-observations")).to_contain_text("1 vez")
    both_widths(page, shots, "cfc-observado")
    panel.get_by_test_id("correct-contingency").click()
    expect(page.get_by_label("Número del papel")).to_have_value("7")
    page.get_by_label("Nombre o razón social").fill("DIRECCION GENERAL IMPOSITIVA")
    both_widths(page, shots, "cfc-correccion")
    page.get_by_role("button", name="Corregir y reenviar").click()
    expect(page).to_have_url(re.compile(f"/comprobantes/{receipt_id}$"))
    drain(live_service.app)
    page.reload()
    expect(page.get_by_test_id("dgi-panel")).to_have_attribute("data-state", "aceptado")
    # The paper is the fiscal document: its electronic notes (112/113) are issued from its page.
    expect(page.get_by_role("button", name="Anular con nota de crédito")).to_be_visible()
    expect(page.get_by_role("button", name="Nota de crédito parcial")).to_be_visible()
    expect(page.get_by_role("button", name="Nota de débito")).to_be_visible()
    both_widths(page, shots, "cfc-con-notas")

    page.goto(page.url.split("/comprobantes/")[0] + "/empresa/contingencia")
    expect(page.get_by_test_id("book-used")).to_have_text("1")
    page.get_by_label("Desde el número").fill("41")
    page.get_by_label("Hasta el número").fill("50")
    page.get_by_label("Motivo").fill("Papeles rotos")
    page.get_by_role("button", name="Anular los números").click()
    expect(page.get_by_test_id("book-voided")).to_have_text("10")
    expect(page.get_by_test_id("book-free")).to_have_text("39")
    both_widths(page, shots, "empresa-contingencia-uso")
    shell.assert_no_csp_violations()
