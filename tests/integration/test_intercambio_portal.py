"""The receipt page's three channels side by side (DGI, electronic receiver, e-mail), with a live service whose
queued work the tests run: the receiver's state and motives, the prefilled credit note offered after a
commercial rejection and the link to the note once issued; and "receptor electrónico" on the receipt form."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from portal.service.intercambio import answers, transport
from portal.service.platform import db
from tests.support import cfe_bodies as bodies
from tests.support.envios import ENVIOS_CONFIG, drain
from tests.support.exchange import NORTE, RecordingTransport, receiver_ack_cfe, to_norte


@pytest.fixture
def service_config(service_config):
    return {**service_config, **ENVIOS_CONFIG, "INTERCAMBIO_DELAY_SECONDS": 0}


@pytest.fixture
def issue_api(live_service, live_token_for, monkeypatch):
    monkeypatch.setattr(transport, "deliver", RecordingTransport())
    client = live_service.app.test_client()

    def issue(body: dict) -> dict:
        return bodies.issue(client, {"Authorization": f"Bearer {live_token_for('usuario@demo.uy')}"}, body)

    return issue


def soup(response) -> BeautifulSoup:
    assert response.status_code == 200, response.status_code
    return BeautifulSoup(response.get_data(as_text=True), "html.parser")


def test_the_receipt_page_shows_dgi_receiver_and_mail_side_by_side(signed_in, issue_api, live_service):
    cfe = issue_api(to_norte())
    drain(live_service.app)
    page = soup(signed_in().get(f"/comprobantes/{cfe['idCfeEmitido']}"))
    channels = page.select_one("[data-testid=channels]")
    cells = [c["data-testid"] for c in channels.select(".channel")]
    assert cells == ["channel-dgi", "channel-exchange", "channel-mail"]
    assert channels.select_one("[data-testid=channel-dgi] [data-testid=dgi-panel]") is not None
    exchange = channels.select_one("[data-testid=channel-exchange]")
    assert exchange.select_one("[data-testid=exchange-state]").get_text(strip=True) == "Entregado, esperando acuse"
    assert NORTE in exchange.get_text()
    assert "Todavía no se envió por correo." in channels.select_one("[data-testid=channel-mail]").get_text()


def test_a_receipt_to_a_consumer_says_no_exchange(signed_in, issue_api, live_service):
    cfe = issue_api(bodies.body(bodies.ETICKET))
    page = soup(signed_in().get(f"/comprobantes/{cfe['idCfeEmitido']}"))
    assert page.select_one("[data-testid=exchange-none]") is not None


def test_a_commercial_rejection_offers_the_note_then_links_it(signed_in, issue_api, live_service):
    first, second = issue_api(to_norte()), issue_api(to_norte(adenda=None))
    drain(live_service.app)
    commercial = [{"codigo": "E24", "glosa": "Diferencia de precios y/o descuentos"}]
    document = receiver_ack_cfe(live_service.app, [first, second], [("AE", []), ("BE", commercial)])
    with live_service.app.app_context(), db.write_transaction() as session:
        answers.record_answer(session, 1, document, "correo")
    client = signed_in()
    page = soup(client.get(f"/comprobantes/{second['idCfeEmitido']}"))
    exchange = page.select_one("[data-testid=channel-exchange]")
    assert exchange.select_one("[data-testid=exchange-state]").get_text(strip=True) == "Rechazado por el receptor"
    assert "E24" in exchange.select_one("[data-testid=exchange-reasons]").get_text()
    offer = exchange.select_one("[data-testid=exchange-credit-note]")
    note_page = soup(client.get(offer["href"], follow_redirects=True))
    reason = note_page.select_one("[name=ref_razon]")
    assert reason is not None and reason.get("value", "").startswith("Rechazo comercial del receptor: E24")
    # Read-only roles see the state but not the offer.
    support = soup(signed_in("soporte@demo.uy").get(f"/comprobantes/{second['idCfeEmitido']}"))
    assert support.select_one("[data-testid=exchange-credit-note]") is None
    # Once the note is issued (from the same draft), the receipt links to it.
    note = issue_api(_note_body(live_service, second["idCfeEmitido"]))
    page = soup(client.get(f"/comprobantes/{second['idCfeEmitido']}"))
    link = page.select_one("[data-testid=exchange-note] a")
    assert link["href"].endswith(note["idCfeEmitido"])
    back = soup(client.get(f"/comprobantes/{note['idCfeEmitido']}")).select_one("[data-testid=exchange-corrects] a")
    assert back["href"].endswith(second["idCfeEmitido"])


def _note_body(live_service, receipt_id: str) -> dict:
    from tests.conftest import mint_token

    token = mint_token(live_service.app, "usuario@demo.uy")
    answer = live_service.app.test_client().get(
        "/api/v1/comprobante/borradorNota",
        query_string={"idCfeEmitido": receipt_id, "tipo": "credito"},
        headers={"Authorization": f"Bearer {token}"},
    )
    return answer.json["borrador"]


def test_the_receipt_form_says_receptor_electronico(signed_in, live_service):
    client = signed_in()
    page = client.get(
        "/comprobantes/nuevo/documento",
        query_string={"tipo_doc_recep": "2", "doc_recep": NORTE},
        headers={"HX-Request": "true"},
    )
    text = page.get_data(as_text=True)
    assert page.status_code == 200, text[:300]
    assert 'data-testid="receiver-electronic"' in text and "Receptor electrónico" in text


def test_an_acknowledged_receipt_says_the_receiver_may_still_reject_it_commercially(signed_in, issue_api, live_service):
    """The receiver's AE comes on arrival, before its accountant decides: "Aceptado" alone reads as a final yes."""
    cfe = issue_api(to_norte())
    drain(live_service.app)
    document = receiver_ack_cfe(live_service.app, [cfe], [("AE", [])])
    with live_service.app.app_context(), db.write_transaction() as session:
        answers.record_answer(session, 1, document, "correo")
    exchange = soup(signed_in().get(f"/comprobantes/{cfe['idCfeEmitido']}")).select_one(
        "[data-testid=channel-exchange]"
    )
    assert exchange.select_one("[data-testid=exchange-state]").get_text(strip=True) == "Aceptado por el receptor"
    assert "todavía puede rechazarlo comercialmente" in exchange.get_text()
