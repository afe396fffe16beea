"""The receipt page's three channels side by side (DGI, electronic receiver, e-mail), with a live service whose
queued work the tests run: the receiver's state and motives, the prefilled credit note offered after a
commercial rejection and the link to the note once issued; and "receptor electrónico" on the receipt form."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from bs4 import BeautifulSoup

from portal.service.envios import acks
from portal.service.intercambio import answers, transport
from portal.service.intercambio.models import ExchangeCfe, ExchangeEnvelope
from portal.service.platform import db
from tests.conftest import mint_token
from tests.support import cfe_bodies as bodies
from tests.support.envios import ENVIOS_CONFIG, drain
from tests.support.exchange import (
    BUSY,
    NORTE,
    REFUSED,
    RecordingTransport,
    receiver_ack_cfe,
    receiver_ack_sobre,
    to_norte,
)
from tests.support.html import csrf


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


# --- the way forward when the delivery failed for good ---------------------------------------------------------


@pytest.fixture
def refused_wire(live_service, monkeypatch):
    """The receiver's channel refuses the first delivery for good (550: no such mailbox), then takes it."""
    wire = RecordingTransport(outcomes=[REFUSED])
    monkeypatch.setattr(transport, "deliver", wire)
    return wire


def _issue_refused(live_service) -> str:
    client = live_service.app.test_client()
    token = mint_token(live_service.app, "usuario@demo.uy")
    cfe = bodies.issue(client, {"Authorization": f"Bearer {token}"}, to_norte())
    drain(live_service.app)
    return cfe["idCfeEmitido"]


def _retry_form(page: BeautifulSoup):
    button = page.select_one("[data-testid=exchange-retry]")
    return None if button is None else button.find_parent("form")


def test_a_delivery_in_error_shows_why_and_a_writer_retries_it(signed_in, live_service, refused_wire):
    receipt_id = _issue_refused(live_service)
    client = signed_in()
    page = soup(client.get(f"/comprobantes/{receipt_id}"))
    exchange = page.select_one("[data-testid=channel-exchange]")
    assert exchange.select_one("[data-testid=exchange-state]").get_text(strip=True) == "No se pudo entregar al receptor"
    assert "550 buzón inexistente" in exchange.select_one("[data-testid=exchange-error-reason]").get_text()
    form = _retry_form(page)
    assert form is not None and form["method"] == "post" and form.get("hx-post") == form["action"]
    fields = {i["name"]: i.get("value", "") for i in form.select("input[type=hidden]")}
    assert fields["csrf_token"] and fields["idempotency_key"]
    # Without JavaScript: a plain POST, 303 back to the receipt with the message.
    answer = client.post(form["action"], data=fields)
    assert answer.status_code == 303 and answer.headers["Location"].endswith(f"/comprobantes/{receipt_id}")
    again = client.post(form["action"], data=fields)  # a double click: the same key, the same retry
    assert again.status_code == 303
    page = soup(client.get(f"/comprobantes/{receipt_id}"))
    assert "Se vuelve a entregar el comprobante al receptor electrónico" in page.get_text()
    drain(live_service.app)
    assert len(refused_wire.of("SOBRE")) == 2  # the refused attempt and one retry
    page = soup(client.get(f"/comprobantes/{receipt_id}"))
    exchange = page.select_one("[data-testid=channel-exchange]")
    assert exchange.select_one("[data-testid=exchange-state]").get_text(strip=True) == "Entregado, esperando acuse"
    assert _retry_form(page) is None and exchange.select_one("[data-testid=exchange-error]") is None


def _envelope_of(live_service, receipt_id: str, **changes) -> ExchangeEnvelope:
    """The receipt's exchange envelope, with `changes` written to it first."""
    with live_service.app.app_context(), db.write_transaction() as session:
        envelope_id = session.get_one(ExchangeCfe, receipt_id).envelope_id
        sobre = session.get_one(ExchangeEnvelope, envelope_id)
        for name, value in changes.items():
            setattr(sobre, name, value)
        session.flush()
        session.expunge(sobre)
        return sobre


def test_a_delivery_in_error_says_when_it_was_last_tried_on_uruguays_clock(signed_in, live_service, refused_wire):
    """It said that the delivery failed and why, never when: 02:30 UTC on the 27th is the 26th at 23:30 in Uruguay."""
    receipt_id = _issue_refused(live_service)
    tried = _envelope_of(live_service, receipt_id).last_attempt_at
    assert tried is not None  # the delivery job kept it with the failure
    _envelope_of(live_service, receipt_id, last_attempt_at=datetime(2026, 11, 27, 2, 30, tzinfo=UTC))
    client = signed_in()
    failed = soup(client.get(f"/comprobantes/{receipt_id}")).select_one("[data-testid=exchange-error]")
    assert failed.select_one("[data-testid=exchange-last-attempt]").get_text(" ", strip=True) == (
        "Último intento: 26/11/2026 23:30 (1 intento)"
    )
    client.post("/idioma", data={"lang": "en", "next": "/", "csrf_token": csrf(client)})
    failed = soup(client.get(f"/comprobantes/{receipt_id}")).select_one("[data-testid=exchange-error]")
    assert failed.select_one("[data-testid=exchange-last-attempt]").get_text(" ", strip=True) == (
        "Last attempt: 26/11/2026 23:30 (1 attempt)"
    )


def test_a_delivery_that_failed_before_its_attempts_were_timed_says_so(signed_in, live_service, refused_wire):
    receipt_id = _issue_refused(live_service)
    _envelope_of(live_service, receipt_id, last_attempt_at=None, attempts=5)  # as migration 0470 leaves them
    failed = soup(signed_in().get(f"/comprobantes/{receipt_id}")).select_one("[data-testid=exchange-error]")
    assert failed.select_one("[data-testid=exchange-last-attempt]").get_text(" ", strip=True) == (
        "5 intentos; no quedó registrado cuándo fue el último."
    )


def test_a_delivery_that_will_be_tried_again_says_when(signed_in, live_service, monkeypatch):
    """A failure the job retries by itself (the receiver's service busy): the receipt read "Entregándose" and no
    more, for as long as the retries took."""
    monkeypatch.setattr(transport, "deliver", RecordingTransport(outcomes=[BUSY]))
    receipt_id = _issue_refused(live_service)
    _envelope_of(
        live_service,
        receipt_id,
        last_attempt_at=datetime(2026, 11, 27, 2, 30, tzinfo=UTC),
        next_attempt_at=datetime(2026, 11, 27, 2, 40, tzinfo=UTC),
    )
    client = signed_in()
    page = soup(client.get(f"/comprobantes/{receipt_id}"))
    assert page.select_one("[data-testid=exchange-error]") is None and _retry_form(page) is None
    retrying = page.select_one("[data-testid=exchange-retrying]")
    assert " ".join(retrying.get_text(" ", strip=True).split()) == (
        "El último intento falló el 26/11/2026 23:30: HTTP 503. Se vuelve a intentar solo el 26/11/2026 23:40."
    )
    client.post("/idioma", data={"lang": "en", "next": "/", "csrf_token": csrf(client)})
    retrying = soup(client.get(f"/comprobantes/{receipt_id}")).select_one("[data-testid=exchange-retrying]")
    assert " ".join(retrying.get_text(" ", strip=True).split()) == (
        "The last attempt failed on 26/11/2026 23:30: HTTP 503. "
        "It will be tried again automatically on 26/11/2026 23:40."
    )


def test_with_htmx_the_retry_answers_a_redirect_to_the_receipt(signed_in, live_service, refused_wire):
    receipt_id = _issue_refused(live_service)
    client = signed_in()
    form = _retry_form(soup(client.get(f"/comprobantes/{receipt_id}")))
    fields = {i["name"]: i.get("value", "") for i in form.select("input[type=hidden]")}
    answer = client.post(form["hx-post"], data=fields, headers={"HX-Request": "true"})
    assert answer.status_code == 200 and answer.headers["HX-Redirect"].endswith(f"/comprobantes/{receipt_id}")
    drain(live_service.app)
    assert len(refused_wire.of("SOBRE")) == 2


def test_only_writers_get_the_retry_and_readers_cannot_post_it(signed_in, live_service, refused_wire):
    receipt_id = _issue_refused(live_service)
    support = signed_in("soporte@demo.uy")
    page = soup(support.get(f"/comprobantes/{receipt_id}"))
    assert page.select_one("[data-testid=exchange-error-reason]") is not None  # the reason, for everyone
    assert _retry_form(page) is None
    refused = support.post(
        f"/comprobantes/{receipt_id}/intercambio/reintentar",
        data={"csrf_token": csrf(support), "idempotency_key": "k"},
    )
    assert refused.status_code == 403
    drain(live_service.app)
    assert len(refused_wire.of("SOBRE")) == 1
    # A delivery that is not in error offers no retry, even to a writer.
    delivered_id = _issue_refused(live_service)  # the wire refused only its first delivery: this one goes
    delivered = soup(signed_in().get(f"/comprobantes/{delivered_id}"))
    assert _retry_form(delivered) is None and delivered.select_one("[data-testid=exchange-error]") is None


def test_the_retry_in_english(signed_in, live_service, refused_wire):
    receipt_id = _issue_refused(live_service)
    client = signed_in()
    client.post("/idioma", data={"lang": "en", "next": "/", "csrf_token": csrf(client)})
    page = soup(client.get(f"/comprobantes/{receipt_id}"))
    exchange = page.select_one("[data-testid=channel-exchange]")
    assert exchange.select_one("[data-testid=exchange-state]").get_text(strip=True) == (
        "Could not be delivered to the receiver"
    )
    assert exchange.select_one("[data-testid=exchange-retry]").get_text(strip=True) == "Retry the delivery"
    assert "Reason:" in exchange.select_one("[data-testid=exchange-error]").get_text()
    form = _retry_form(page)
    fields = {i["name"]: i.get("value", "") for i in form.select("input[type=hidden]")}
    client.post(form["action"], data=fields)
    page = soup(client.get(f"/comprobantes/{receipt_id}"))
    assert "The receipt is being delivered to the electronic receiver again" in page.get_text()


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


def test_an_acceptance_the_receiver_confirmed_no_longer_says_it_may_still_be_rejected(
    signed_in, issue_api, live_service
):
    """The receiver's accountant accepted it (a second AE): the page kept saying it could still be rejected."""
    cfe = issue_api(to_norte())
    drain(live_service.app)
    with live_service.app.app_context(), db.write_transaction() as session:
        for id_respuesta in (8, 9):  # on arrival, then its decision
            document = receiver_ack_cfe(live_service.app, [cfe], [("AE", [])], id_respuesta=id_respuesta)
            answers.record_answer(session, 1, document, "ws")
    client = signed_in()
    exchange = soup(client.get(f"/comprobantes/{cfe['idCfeEmitido']}")).select_one("[data-testid=channel-exchange]")
    assert exchange.select_one("[data-testid=exchange-state]").get_text(strip=True) == "Aceptado por el receptor"
    note = exchange.select_one("[data-testid=exchange-accepted-note]").get_text(strip=True)
    assert note == "El receptor lo revisó y confirmó que lo acepta."
    assert "Aceptación confirmada:" in exchange.select_one("[data-testid=exchange-moments]").get_text()
    client.post("/idioma", data={"lang": "en", "next": "/", "csrf_token": csrf(client)})
    exchange = soup(client.get(f"/comprobantes/{cfe['idCfeEmitido']}")).select_one("[data-testid=channel-exchange]")
    note = exchange.select_one("[data-testid=exchange-accepted-note]").get_text(strip=True)
    assert note == "The receiver reviewed it and confirmed that it accepts it."
    assert "Acceptance confirmed:" in exchange.select_one("[data-testid=exchange-moments]").get_text()


def test_an_envelope_the_receiver_rejected_says_what_it_means_and_offers_the_mail(signed_in, issue_api, live_service):
    """A BS (here S03) showed the badge and the code alone: no word that the receiver has nothing, nor a way on."""
    cfe = issue_api(to_norte())
    drain(live_service.app)
    document = receiver_ack_sobre(live_service.app, "BS", [acks.motive("S03")])
    with live_service.app.app_context(), db.write_transaction() as session:
        answers.record_answer(session, 1, document, "ws")
    client = signed_in()
    page = soup(client.get(f"/comprobantes/{cfe['idCfeEmitido']}"))
    exchange = page.select_one("[data-testid=channel-exchange]")
    assert exchange.select_one("[data-testid=exchange-state]").get_text(strip=True) == "Sobre rechazado por el receptor"
    advice = exchange.select_one("[data-testid=exchange-envelope-rejected]")
    assert advice is not None and "no tiene el comprobante" in advice.get_text()
    assert page.select_one(advice.a["href"]) is not None  # the page's own "Enviar por correo" form
    client.post("/idioma", data={"lang": "en", "next": "/", "csrf_token": csrf(client)})
    page = soup(client.get(f"/comprobantes/{cfe['idCfeEmitido']}"))
    advice = page.select_one("[data-testid=exchange-envelope-rejected]")
    assert "does not have the receipt" in advice.get_text() and advice.a.get_text() == "send it by e-mail"


def test_in_english_the_receivers_commercial_motive_is_english_and_the_notes_reason_stays_spanish(
    signed_in, issue_api, live_service
):
    """A receiver's motive is said by its code in the reader's language (E24 "Price or discount difference"), on the
    page and in the API's `texto`; its glosa and the credit note's reason, which goes in a signed CFE, stay Spanish."""
    receipt = issue_api(to_norte())
    drain(live_service.app)
    commercial = [{"codigo": "E24", "glosa": "Diferencia de precios y/o descuentos"}]
    document = receiver_ack_cfe(live_service.app, [receipt], [("BE", commercial)])
    with live_service.app.app_context(), db.write_transaction() as session:
        answers.record_answer(session, 1, document, "correo")
    client = signed_in()
    client.post("/idioma", data={"lang": "en", "next": "/", "csrf_token": csrf(client, "/")})
    page = soup(client.get(f"/comprobantes/{receipt['idCfeEmitido']}"))
    reasons = page.select_one("[data-testid=exchange-reasons]").get_text()
    assert "E24" in reasons and "Price or discount difference" in reasons and "Diferencia" not in reasons
    note_page = soup(client.get(page.select_one("[data-testid=exchange-credit-note]")["href"], follow_redirects=True))
    reason = note_page.select_one("[name=ref_razon]").get("value", "")
    assert reason.startswith("Rechazo comercial del receptor: E24 Diferencia de precios y/o descuentos")
