"""The portal's webhooks pages and notification centre through the Flask test client, against a live service:
the secret shown once and never cached, a test event's attempt listed, roles, notices read per person and the
bell's count, the home's view of the watch."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from sqlalchemy import update

from portal.service.platform import db
from portal.service.platform.models import Certificate
from portal.service.salud import watch
from tests.support.certificates import expiring_in
from tests.support.envios import drain
from tests.support.webhook_receiver import WebhookReceiver


def _soup(answer) -> BeautifulSoup:
    return BeautifulSoup(answer.get_data(as_text=True), "html.parser")


def _csrf(client, path: str) -> str:
    return _soup(client.get(path)).find("input", {"name": "csrf_token"})["value"]


@pytest.fixture
def admin(signed_in):
    return signed_in("admin@demo.uy")


@pytest.fixture
def receiver():
    server = WebhookReceiver().start()
    yield server
    server.stop()


def test_an_admin_registers_a_webhook_sees_the_secret_once_and_tests_it(admin, live_service, receiver):
    data = {
        "url": f"{receiver.url}/hook",
        "descripcion": "ERP",
        "eventos": ["comprobante.emitido", "comprobante.aceptado"],
        "csrf_token": _csrf(admin, "/webhooks/"),
    }
    created = admin.post("/webhooks/", data=data)
    assert created.status_code == 201 and created.headers["Cache-Control"] == "no-store"
    secret = _soup(created).find("input", id="new-secret")["value"]
    assert secret.startswith("whsec_")
    listing = admin.get("/webhooks/")
    assert secret not in listing.get_data(as_text=True)
    link = _soup(listing).find("a", class_="webhook-url")["href"]

    detail = admin.get(link)
    assert detail.status_code == 200 and "Todavía no hubo intentos" in detail.get_data(as_text=True)
    sent = admin.post(f"{link}/prueba", data={"csrf_token": _csrf(admin, link)})
    assert sent.status_code == 303
    drain(live_service.app)
    rows = _soup(admin.get(link)).find_all(attrs={"data-testid": "attempt-row"})
    assert len(rows) == 1 and "200" in rows[0].get_text() and "Entregada" in rows[0].get_text()
    assert receiver.of_path("/hook")[0].headers["webhook-signature"].startswith("v1,")

    rotated = admin.post(f"{link}/rotar", data={"horas": "2", "csrf_token": _csrf(admin, link)})
    new_secret = _soup(rotated).find("input", id="new-secret")["value"]
    assert new_secret != secret and rotated.headers["Cache-Control"] == "no-store"


def test_the_form_offers_every_event_a_webhook_can_hear_in_words(admin, live_service, receiver):
    """Each event the service lets a webhook hear is a choice of the form, said in the page's language (a confirmed
    acceptance was published and no one could choose it in the portal)."""
    from portal.service.eventos.catalogue import SUBSCRIBABLE

    choices = _soup(admin.get("/webhooks/")).select("input[name=eventos]")
    assert [c["value"] for c in choices] == list(SUBSCRIBABLE)
    label = _soup(admin.get("/webhooks/")).find("label", attrs={"for": _choice_id(choices)})
    assert label.get_text(strip=True) == "Aceptación confirmada por otra empresa"
    data = {"url": f"{receiver.url}/hook", "eventos": ["intercambio.aceptacion_confirmada"]}
    created = admin.post("/webhooks/", data={**data, "csrf_token": _csrf(admin, "/webhooks/")})
    assert created.status_code == 201
    admin.post("/idioma", data={"lang": "en", "next": "/", "csrf_token": _csrf(admin, "/webhooks/")})
    english = _soup(admin.get("/webhooks/"))
    label = english.find("label", attrs={"for": _choice_id(english.select("input[name=eventos]"))})
    assert label.get_text(strip=True) == "Acceptance confirmed by another company"


def _choice_id(choices) -> str:
    return next(c["id"] for c in choices if c["value"] == "intercambio.aceptacion_confirmada")


def test_a_url_the_service_refuses_comes_back_next_to_the_field(admin, live_service):
    live_service.app.config["WEBHOOKS_ALLOW_PRIVATE"] = False
    data = {"url": "http://127.0.0.1:9/x", "eventos": ["comprobante.emitido"], "csrf_token": _csrf(admin, "/webhooks/")}
    answer = admin.post("/webhooks/", data=data)
    assert answer.status_code == 422
    error = _soup(answer).find(id="url-error")
    assert error is not None and "interna" in error.get_text()
    assert _soup(answer).find("input", id="url")["value"] == "http://127.0.0.1:9/x"


def test_only_admins_reach_the_webhooks_pages(signed_in):
    assert signed_in("usuario@demo.uy").get("/webhooks/").status_code == 403


def _certificate_expires_in(app, days: int) -> None:
    with app.app_context(), db.write_transaction() as session:
        session.execute(update(Certificate).where(Certificate.company_id == 1).values(not_after=expiring_in(days)))


def test_notices_the_bell_and_the_homes_watch(admin, signed_in, live_service):
    _certificate_expires_in(live_service.app, 5)
    with live_service.app.app_context():
        watch.run(1)
    bell = admin.get("/avisos/campana", headers={"HX-Request": "true"})
    count = int(_soup(bell).find(attrs={"data-testid": "notice-count"}).get_text())
    assert count >= 1

    page = _soup(admin.get("/avisos/"))
    notice = next(n for n in page.find_all(attrs={"data-testid": "notice"}) if "certificado" in n.get_text())
    assert notice.find("a", href="/empresa/certificados") is not None
    form = notice.find("form")
    answer = admin.post(form["action"], data={"csrf_token": form.find("input", {"name": "csrf_token"})["value"]})
    assert answer.status_code == 303
    after = _soup(admin.get("/avisos/campana", headers={"HX-Request": "true"}))
    counted = after.find(attrs={"data-testid": "notice-count"})
    assert (int(counted.get_text()) if counted else 0) == count - 1
    other = _soup(signed_in("usuario@demo.uy").get("/avisos/campana", headers={"HX-Request": "true"}))
    assert int(other.find(attrs={"data-testid": "notice-count"}).get_text()) == count  # read per person

    home = _soup(admin.get("/"))
    loader = home.find(id="watch-summary")
    assert loader is not None and loader["hx-get"] == "/avisos/salud"
    summary = _soup(admin.get("/avisos/salud", headers={"HX-Request": "true"}))
    assert "vence en 5 días" in summary.get_text() and summary.find("a", href="/empresa/certificados")


def test_a_rotation_refused_keeps_what_was_typed_with_its_error_and_the_description(admin, live_service, receiver):
    data = {
        "url": f"{receiver.url}/hook",
        "descripcion": "ERP",
        "eventos": ["comprobante.emitido"],
        "csrf_token": _csrf(admin, "/webhooks/"),
    }
    admin.post("/webhooks/", data=data)
    link = _soup(admin.get("/webhooks/")).find("a", class_="webhook-url")["href"]

    refused = admin.post(f"{link}/rotar", data={"horas": "500", "csrf_token": _csrf(admin, link)})
    assert refused.status_code == 422
    page = _soup(refused)
    assert page.find(id="horas-error") is not None and page.find("input", id="horas")["value"] == "500"
    assert page.find("input", id="descripcion")["value"] == "ERP"  # saving the edit form next keeps it
    assert page.find("input", id="new-secret") is None


def test_testing_a_webhook_that_is_off_says_so(admin, live_service, receiver):
    data = {"url": f"{receiver.url}/off", "eventos": ["comprobante.emitido"], "csrf_token": _csrf(admin, "/webhooks/")}
    admin.post("/webhooks/", data=data)
    link = _soup(admin.get("/webhooks/")).find("a", class_="webhook-url")["href"]
    admin.post(f"{link}/estado", data={"csrf_token": _csrf(admin, link)})
    sent = admin.post(f"{link}/prueba", data={"csrf_token": _csrf(admin, link)}, follow_redirects=True)
    text = sent.get_data(as_text=True)
    assert "activalo para probarlo" in text and "Enviamos un evento de prueba" not in text


def test_deleting_a_webhook_asks_first_and_without_javascript_on_a_page_of_its_own(admin, live_service, receiver):
    """The "Borrar" button only opened a dialog by script: without it, it did nothing. It is now a GET form's
    button to the same question on a page of its own (with script, the dialog opens instead)."""
    data = {"url": f"{receiver.url}/gone", "eventos": ["comprobante.emitido"], "csrf_token": _csrf(admin, "/webhooks/")}
    assert admin.post("/webhooks/", data=data).status_code == 201
    link = _soup(admin.get("/webhooks/")).find("a", class_="webhook-url")["href"]
    page = _soup(admin.get(link))
    opener = page.find("button", string="Borrar")
    assert opener["type"] == "submit" and opener["data-open-dialog"] == "delete-webhook"
    form = opener.find_parent("form")
    assert form["method"].lower() == "get"
    asked = admin.get(form["action"])
    assert asked.status_code == 200 and asked.headers["Cache-Control"] == "no-store"
    question = _soup(asked)
    assert question.h1.get_text(strip=True) == "¿Borrar este webhook?"
    assert question.find("a", string="Cancelar")["href"] == link
    assert admin.get(link).status_code == 200  # asking deleted nothing
    action = question.find("button", string="Borrar el webhook").find_parent("form")
    token = action.find("input", attrs={"name": "csrf_token"})["value"]
    assert admin.post(action["action"], data={"csrf_token": token}).status_code == 303
    assert _soup(admin.get("/webhooks/")).find("a", class_="webhook-url") is None


def test_turning_a_webhook_off_asks_first_and_says_its_events_are_lost_meanwhile(admin, live_service, receiver):
    """Its "Desactivar" turned the webhook off at one click, and the events of the time it is off never reach it. It now
    asks, in a dialog with script and on a page of its own without, saying so; turning it back on asks nothing."""
    data = {"url": f"{receiver.url}/off", "eventos": ["comprobante.emitido"], "csrf_token": _csrf(admin, "/webhooks/")}
    assert admin.post("/webhooks/", data=data).status_code == 201
    link = _soup(admin.get("/webhooks/")).find("a", class_="webhook-url")["href"]
    page = _soup(admin.get(link))
    opener = page.find("button", string="Desactivar")
    assert opener["type"] == "submit" and opener["data-open-dialog"] == "deactivate-webhook"
    assert page.find("dialog", id="deactivate-webhook").find("button", string="Desactivar el webhook")
    form = opener.find_parent("form")
    assert form["method"].lower() == "get"
    asked = admin.get(form["action"])
    assert asked.status_code == 200
    question = _soup(asked)
    assert question.h1.get_text(strip=True) == "¿Desactivar este webhook?"
    assert "los eventos de ese tiempo no le llegan" in question.get_text()
    assert question.find("a", string="Cancelar")["href"] == link
    assert _soup(admin.get(link)).find("button", string="Desactivar")  # asking turned nothing off
    action = question.find("button", string="Desactivar el webhook").find_parent("form")
    token = action.find("input", attrs={"name": "csrf_token"})["value"]
    assert admin.post(action["action"], data={"csrf_token": token}).status_code == 303
    back_on = _soup(admin.get(link)).find("button", string="Activar")
    assert back_on.get("data-open-dialog") is None and back_on.find_parent("form")["method"].lower() == "post"


def test_after_a_test_event_the_page_asks_for_its_result_until_it_is_listed(admin, live_service, receiver):
    """The page after "Enviar evento de prueba" asks every 2 s for the part beside the badge (the attempts out of
    band) until the test's attempt is listed, then stops and reads the result out; a minute at most; an id that
    is no event's starts nothing."""
    receiver.script.statuses = [500]
    data = {"url": f"{receiver.url}/poll", "eventos": ["comprobante.emitido"], "csrf_token": _csrf(admin, "/webhooks/")}
    admin.post("/webhooks/", data=data)
    link = _soup(admin.get("/webhooks/")).find("a", class_="webhook-url")["href"]
    sent = admin.post(f"{link}/prueba", data={"csrf_token": _csrf(admin, link)})
    assert sent.status_code == 303 and "?prueba=evt_" in sent.headers["Location"]
    waiting = _soup(admin.get(sent.headers["Location"])).find(id="webhook-delivery")
    poll = waiting["hx-get"]
    assert poll.startswith(f"{link}/entregas?prueba=evt_") and "vez=1" in poll and "Esperando" in waiting.get_text()
    assert "Activo" in waiting.get_text()  # the worker has not sent it yet: nothing failed so far
    assert "hx-get" not in str(_soup(admin.get(f"{link}?prueba=evt_x")).find(id="webhook-delivery"))
    tired = admin.get(poll.replace("vez=1", "vez=30"), headers={"HX-Request": "true"})
    assert "hx-get" not in tired.get_data(as_text=True) and "recargá la página" in tired.get_data(as_text=True)

    drain(live_service.app)
    answer = admin.get(poll, headers={"HX-Request": "true"})
    assert answer.headers["Cache-Control"] == "no-store" and "HX-Request" in answer.headers["Vary"]
    part = _soup(answer)
    delivery = part.find(id="webhook-delivery")
    assert not delivery.has_attr("hx-get") and "Fallando desde" in delivery.get_text()
    failed = delivery.find(attrs={"data-testid": "last-delivery"})
    assert failed.has_attr("data-announce") and "respondió HTTP 500" in failed.get_text()
    assert (
        part.find(id="attempts")["hx-swap-oob"] == "true"
        and len(part.find_all(attrs={"data-testid": "attempt-row"})) == 1
    )
