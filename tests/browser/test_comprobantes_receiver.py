"""The receipts form's receiver in a real browser: typing a closed RUT fills the empty receiver fields from
DGI and shows its warnings beside the document; a past receiver picked from the suggestions (keyboard only)
fills every field. No CSP violation; nothing scrolls sideways at 390 px. Screenshots: CFE_SHOTS_DIR."""

from __future__ import annotations

import copy

import requests
from playwright.sync_api import Page, expect

from portal.service.dgi import sandbox_data as dgi_data
from tests.browser.pages import ReceiptsPage, Shell, both_widths, settled
from tests.support import cfe_bodies as bodies


def _issue_to_a_past_receiver(live_service, live_token_for) -> None:
    body = copy.deepcopy(bodies.body(bodies.EFACTURA))
    body["receptor"].update(rznSocRecep="Ñandú Servicios SRL", dirRecep="Colonia 1234", ciudadRecep="Montevideo")
    answer = requests.post(
        f"{live_service.url}/api/v1/comprobante/emitir",
        json=body,
        headers={"Authorization": f"Bearer {live_token_for('usuario@demo.uy')}"},
        timeout=30,
    )
    assert answer.status_code == 201, answer.text


def test_typing_a_rut_fills_from_dgi_and_a_past_receiver_is_picked(page: Page, live_service, live_token_for, shots):
    _issue_to_a_past_receiver(live_service, live_token_for)
    shell = Shell(page)
    shell.sign_in("usuario@demo.uy")
    receipts = ReceiptsPage(page)
    receipts.open_new()
    receipts.choose_type("e-Factura")
    page.get_by_label("Ciudad", exact=True).fill("Paso Molino")  # typed first: DGI must leave it alone

    page.get_by_label("Número de documento").fill(dgi_data.INACTIVE_RUT)

    expect(receipts.receiver_warnings().first).to_contain_text("CLAUSURADO")
    expect(receipts.receiver_warnings()).to_have_count(3)
    expect(page.get_by_label("Nombre o razón social")).to_have_value("FRIGORIFICO LA BLANQUEADA S.A.")
    expect(page.get_by_label("Dirección", exact=True)).to_have_value("AV. GENERAL RIVERA 3320")
    expect(page.get_by_label("Ciudad", exact=True)).to_have_value("Paso Molino")
    page.get_by_label("Número de documento").blur()  # a change event: asked again, it still says what it filled
    expect(page.get_by_text("Datos completados desde DGI:")).to_be_visible()
    expect(page.get_by_label("Ciudad", exact=True)).to_have_value("Paso Molino")
    both_widths(page, shots, "receiver-dgi-warning")

    name = page.get_by_label("Nombre o razón social")
    name.fill("")
    name.press_sequentially("ñan", delay=30)
    expect(receipts.receiver_suggestions()).to_have_count(1)
    expect(receipts.receiver_suggestions().first).to_contain_text("21-484436-001-8")
    both_widths(page, shots, "receiver-suggestions")
    name.press("ArrowDown")
    expect(receipts.receiver_suggestions().first).to_be_focused()
    page.keyboard.press("Enter")

    expect(page.get_by_label("Número de documento")).to_have_value("214844360018")
    expect(name).to_have_value("Ñandú Servicios SRL")
    expect(page.get_by_label("Dirección", exact=True)).to_have_value("Colonia 1234")
    expect(page.get_by_label("Ciudad", exact=True)).to_have_value("Montevideo")
    expect(receipts.receiver_hint()).to_have_text("RUT válido: 21-484436-001-8")
    expect(page.locator('#doc_recep-dgi li[data-code="receptor_inactivo"]')).to_have_count(0)
    expect(page.get_by_test_id("receiver-suggestions")).to_have_count(0)
    # Suggestions asked for as the person typed, answered after the pick, do not open the list again.
    with page.expect_response(lambda answer: "/comprobantes/nuevo/receptores" in answer.url):
        name.dispatch_event("input")
    settled(page)
    expect(page.get_by_test_id("receiver-suggestions")).to_have_count(0)
    shell.assert_no_csp_violations()
