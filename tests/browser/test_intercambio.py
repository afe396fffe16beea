"""The receipt page's three delivery channels in a real browser: DGI, the electronic receiver and e-mail side by
side at 1366 px, stacked at 390 px without sideways scroll; a commercial rejection shows the receiver's motive and
offers the credit note. Screenshots at both widths (CFE_SHOTS_DIR)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from portal.service.intercambio import answers, transport
from portal.service.platform import db
from tests.browser.pages import Shell, both_widths
from tests.browser.pages.receipt import ReceiptPage
from tests.conftest import mint_token
from tests.support import cfe_bodies as bodies
from tests.support.envios import ENVIOS_CONFIG, drain
from tests.support.exchange import RecordingTransport, receiver_ack_cfe, receiver_ack_sobre, to_norte


@pytest.fixture
def service_config(service_config):
    return {**service_config, **ENVIOS_CONFIG, "INTERCAMBIO_DELAY_SECONDS": 0}


def test_the_three_channels_side_by_side_and_a_commercial_rejection(page: Page, live_service, shots, monkeypatch):
    monkeypatch.setattr(transport, "deliver", RecordingTransport())
    api = live_service.app.test_client()
    headers = {"Authorization": f"Bearer {mint_token(live_service.app, 'usuario@demo.uy')}"}
    first = bodies.issue(api, headers, to_norte())
    second = bodies.issue(api, headers, to_norte(adenda=None))
    drain(live_service.app)
    commercial = [{"codigo": "E24", "glosa": "Diferencia de precios y/o descuentos", "detalle": "Lista de octubre"}]
    with live_service.app.app_context(), db.write_transaction() as session:
        answers.record_answer(session, 1, receiver_ack_sobre(live_service.app), "correo")
        answers.record_answer(
            session, 1, receiver_ack_cfe(live_service.app, [first, second], [("AE", []), ("BE", commercial)]), "correo"
        )

    Shell(page).sign_in("usuario@demo.uy")
    receipt = ReceiptPage(page)
    receipt.open(second["idCfeEmitido"])
    channels = receipt.channels
    expect(channels.get_by_test_id("dgi-state")).to_have_text("Aceptado por DGI")
    expect(channels.get_by_test_id("exchange-state")).to_have_text("Rechazado por el receptor")
    expect(channels.get_by_test_id("exchange-reasons")).to_contain_text("E24")
    expect(receipt.credit_note_offer).to_be_visible()
    # Side by side on a desktop: the three cells share one row.
    tops = [
        page.get_by_test_id(name).bounding_box()["y"] for name in ("channel-dgi", "channel-exchange", "channel-mail")
    ]
    assert max(tops) - min(tops) < 2, tops
    both_widths(page, shots, "receipt-channels-rejected")

    receipt.open(first["idCfeEmitido"])
    expect(receipt.exchange_state).to_have_text("Aceptado por el receptor")
    both_widths(page, shots, "receipt-channels-accepted")

    receipt.open(second["idCfeEmitido"])
    receipt.start_credit_note_for_rejection()
    expect(receipt.reference_reason).to_have_value(
        "Rechazo comercial del receptor: E24 Diferencia de precios y/o descuentos"
    )
