"""The portal's "Enviar por correo" through the real sign-in, a live service and a real local SMTP server:
addresses prefilled, send, the history polling while a send waits and stopping when it is final, the
one-time key, roles; and the development mailbox page."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from portal.client import CfeClient
from portal.service.platform import jobs
from tests.support import cfe_bodies as bodies
from tests.support.html import soup
from tests.support.smtp import mail_config

HTMX = {"HX-Request": "true"}


def form_values(page: BeautifulSoup) -> dict[str, str]:
    return {field["name"]: field.get("value", "") for field in page.select("form.mail-form input[name]")}


@pytest.fixture
def service_config(service_config, smtp, tmp_path):
    return mail_config(service_config, smtp, tmp_path)


@pytest.fixture
def service_api(live_service):
    from tests.conftest import mint_token

    jobs.use_app(live_service.app)
    yield CfeClient(live_service.url).as_user(mint_token(live_service.app, "usuario@demo.uy"), company_id=1)
    jobs.use_app(None)


@pytest.fixture
def receipt_id(service_api) -> str:
    return service_api.issue_receipt(bodies.request(bodies.EFACTURA), idempotency_key="portal-correo").id


def test_the_receipt_page_loads_the_send_section(signed_in, receipt_id):
    page = soup(signed_in("usuario@demo.uy").get(f"/comprobantes/{receipt_id}"))
    section = page.select_one("#mail-send")
    assert section["hx-get"] == f"/correo/comprobantes/{receipt_id}" and section["hx-trigger"] == "load"


def test_send_from_the_section_and_follow_the_history(signed_in, receipt_id, service_api, smtp):
    client = signed_in("usuario@demo.uy")
    panel = client.get(f"/correo/comprobantes/{receipt_id}", headers=HTMX)
    assert panel.status_code == 200 and "<html" not in panel.get_data(as_text=True)
    page = soup(panel)
    assert page.select_one("#mail-history").get("hx-get") is None  # nothing waiting: no polling
    data = {**form_values(page), "destinatarios": "compras@cliente.com.uy; conta@cliente.com.uy"}

    answer = client.post(f"/correo/comprobantes/{receipt_id}", data=data, headers=HTMX)
    assert answer.status_code == 200
    page = soup(answer)
    assert page.select_one("[data-testid=mail-queued]") is not None
    history = page.select_one("#mail-history")
    assert history["hx-get"] == f"/correo/comprobantes/{receipt_id}/envios"  # polls while queued
    assert "En cola" in history.get_text()
    assert form_values(page)["clave"] != data["clave"]  # a new one-time key for the next send

    again = client.post(f"/correo/comprobantes/{receipt_id}", data=data, headers=HTMX)  # the same form again
    assert again.status_code == 200 and soup(again).select_one("[data-testid=mail-replayed]") is not None
    assert len(service_api.receipt_mail_sends(receipt_id).sends) == 1

    jobs.run_pending()
    history = soup(client.get(f"/correo/comprobantes/{receipt_id}/envios", headers=HTMX))
    assert history.select_one("#mail-history").get("hx-get") is None  # final: polling stops
    assert "Enviado" in history.get_text() and "compras@cliente.com.uy" in history.get_text()
    assert len(smtp.recorder.received) == 1
    # The next send suggests the same addresses.
    prefilled = form_values(soup(client.get(f"/correo/comprobantes/{receipt_id}", headers=HTMX)))
    assert prefilled["destinatarios"] == "compras@cliente.com.uy, conta@cliente.com.uy"


def test_the_receipt_page_shows_the_latest_send_from_one_call_to_the_service(
    signed_in, receipt_id, service_api, caplog
):
    client = signed_in("usuario@demo.uy")
    for _ in range(2):
        service_api.send_receipt_by_mail(receipt_id, ["compras@cliente.com.uy"])
    jobs.run_pending()
    caplog.clear()
    with caplog.at_level("INFO", logger="portal.client"):
        page = soup(client.get(f"/comprobantes/{receipt_id}"))
    # The receipt's e-mail sends come with the receipt (getByIdCfeEmitido's `correo`): the page asks once.
    calls = [r.getMessage() for r in caplog.records if r.name == "portal.client"]
    assert len(calls) == 1 and "getByIdCfeEmitido" in calls[0], calls
    cell = page.select_one("[data-testid=channel-mail]")
    assert cell.select_one("[data-testid=mail-state]").get_text(strip=True) == "Enviado"
    assert "compras@cliente.com.uy" in cell.get_text()


def test_a_bad_address_keeps_what_was_typed(signed_in, receipt_id, service_api):
    client = signed_in("usuario@demo.uy")
    data = {
        **form_values(soup(client.get(f"/correo/comprobantes/{receipt_id}"))),
        "destinatarios": "bien@cliente.com.uy, mal@",
    }
    answer = client.post(f"/correo/comprobantes/{receipt_id}", data=data, headers=HTMX)
    assert answer.status_code == 422
    page = soup(answer)
    assert page.select_one("#destinatarios")["value"] == "bien@cliente.com.uy, mal@"
    assert "mal@" in page.select_one(".field-error").get_text()
    assert service_api.receipt_mail_sends(receipt_id).sends == ()


def test_a_plain_post_returns_to_the_receipt(signed_in, receipt_id):
    client = signed_in("usuario@demo.uy")
    data = {
        **form_values(soup(client.get(f"/correo/comprobantes/{receipt_id}"))),
        "destinatarios": "compras@cliente.com.uy",
    }
    answer = client.post(f"/correo/comprobantes/{receipt_id}", data=data)
    assert answer.status_code == 303 and answer.headers["Location"].endswith(f"/comprobantes/{receipt_id}")


def test_soporte_sees_the_history_but_cannot_send(signed_in, receipt_id):
    client = signed_in("soporte@demo.uy")
    page = soup(client.get(f"/correo/comprobantes/{receipt_id}", headers=HTMX))
    assert page.select_one("#mail-history") is not None and page.select_one("form.mail-form") is None
    assert client.post(f"/correo/comprobantes/{receipt_id}", data={"destinatarios": "a@b.uy"}).status_code in (400, 403)


def test_with_smtp_there_is_no_mailbox_page(signed_in):
    assert signed_in("soporte@demo.uy").get("/correo/buzon").status_code == 404


def test_sending_as_a_receipt_is_issued(portal_app, signed_in, service_api, smtp):
    """What the issuing view calls after issuing (portal/web/correo/on_issue.py), in a signed-in request."""
    from flask import get_flashed_messages

    from portal.web.backend import api
    from portal.web.correo.on_issue import send_after_issue

    cookie = signed_in("usuario@demo.uy").get_cookie("cfe_portal_session", domain="127.0.0.1").value
    with portal_app.test_request_context(headers={"Cookie": f"cfe_portal_session={cookie}"}):
        key = "0" * 32
        receipt = api().issue_receipt(bodies.request(bodies.EFACTURA), idempotency_key=key)
        send_after_issue(receipt, "compras@cliente.com.uy; conta@cliente.com.uy", key=key)
        replayed = api().issue_receipt(bodies.request(bodies.EFACTURA), idempotency_key=key)
        send_after_issue(replayed, "compras@cliente.com.uy; conta@cliente.com.uy", key=key)  # the form again
        send_after_issue(receipt, "", key="1" * 32)  # no addresses typed: no send
        other = api().issue_receipt(bodies.request(bodies.EFACTURA), idempotency_key="2" * 32)
        send_after_issue(other, "mal@", key="2" * 32)
        messages = get_flashed_messages(with_categories=True)
    assert messages[0] == ("success", "Lo enviamos por correo a compras@cliente.com.uy, conta@cliente.com.uy.")
    assert messages[1][0] == "warning" and "mal@" in messages[1][1] and len(messages) == 2
    assert [s.state for s in service_api.receipt_mail_sends(receipt.id).sends] == ["en_cola"]
    assert service_api.receipt_mail_sends(other.id).sends == ()
    jobs.run_pending()
    assert len(smtp.recorder.received) == 1


def test_the_issuing_forms_field_renders(portal_app):
    from flask import render_template
    from flask_wtf import FlaskForm

    from portal.web.correo.on_issue import recipients_field

    class IssuingForm(FlaskForm):
        enviar_a = recipients_field()

    with portal_app.test_request_context():
        html = render_template("correo/_on_issue_field.html", form=IssuingForm(meta={"csrf": False}))
    field = BeautifulSoup(html, "html.parser").select_one("input[name=enviar_a]")
    assert field["type"] == "text" and field["autocomplete"] == "email" and field["maxlength"] == "2600"
    assert "Enviar por correo a" in html and "hasta 10" in html


def test_over_the_hourly_limit_the_form_says_so_and_keeps_what_was_typed(signed_in, receipt_id, service_api):
    for n in range(10):  # the service's limit: ten sends of one receipt an hour
        service_api.send_receipt_by_mail(receipt_id, [f"c{n}@cliente.com.uy"], idempotency_key=f"limite-{n}")
    client = signed_in("usuario@demo.uy")
    data = {
        **form_values(soup(client.get(f"/correo/comprobantes/{receipt_id}"))),
        "destinatarios": "otro@cliente.com.uy",
    }
    answer = client.post(f"/correo/comprobantes/{receipt_id}", data=data, headers=HTMX)
    assert answer.status_code == 422
    page = soup(answer)
    assert page.select_one("#destinatarios")["value"] == "otro@cliente.com.uy"
    assert "muchos correos" in page.select_one(".field-error").get_text()


def test_why_a_send_failed_is_english_on_the_english_page(signed_in, receipt_id, service_api, smtp):
    """The reason was kept as its Spanish sentence alone and shown so in the English history of sends."""
    client = signed_in("usuario@demo.uy")
    service_api.send_receipt_by_mail(receipt_id, ["rechazo@cliente.com.uy"])
    jobs.run_pending()
    history = soup(client.get(f"/correo/comprobantes/{receipt_id}/envios", headers=HTMX)).get_text()
    assert "El servidor de correo rechazó: rechazo@cliente.com.uy" in history
    token = soup(client.get("/"))("input", {"name": "csrf_token"})[0]["value"]
    client.post("/idioma", data={"lang": "en", "next": "/", "csrf_token": token})
    history = soup(client.get(f"/correo/comprobantes/{receipt_id}/envios", headers=HTMX)).get_text()
    assert "The mail server refused: rechazo@cliente.com.uy" in history and "El servidor" not in history
