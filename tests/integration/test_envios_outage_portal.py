"""What admins and support staff see of a DGI outage: the service's `GET /api/v1/envios/dgi` (since when DGI
does not answer, what waits), the banner the base layout loads on every page, and the page that tells the
two situations apart (DGI down: keep issuing; cannot issue at all: the paper book)."""

from __future__ import annotations

import re

import pytest

from portal.service.envios import outage
from tests.support import cfe_bodies as bodies
from tests.support.envios import ENVIOS_CONFIG
from tests.support.html import csrf, soup

HTMX = {"HX-Request": "true"}


@pytest.fixture
def service_config(service_config):
    return {**service_config, **ENVIOS_CONFIG}


def test_the_service_says_since_when_dgi_does_not_answer_and_what_waits(api_client, auth_headers, service_app):
    admin = auth_headers("admin@demo.uy", 1)
    answer = api_client.get("/api/v1/envios/dgi", headers=admin)
    assert answer.status_code == 200 and answer.json["responde"] is True
    assert answer.json["comprobantesEsperando"] == 0
    bodies.issue(api_client, auth_headers("usuario@demo.uy"), bodies.body(bodies.EFACTURA))
    with service_app.app_context():
        outage.failed("No se pudo conectar con el servicio de DGI.", 30)
    body = api_client.get("/api/v1/envios/dgi", headers=admin).json
    assert body["responde"] is False and body["sinRespuestaDesde"] and body["proximoIntento"]
    assert body["ultimoError"] == "No se pudo conectar con el servicio de DGI."
    assert (body["comprobantesEsperando"], body["esperandoDesde"] is not None) == (1, True)
    assert api_client.get("/api/v1/envios/dgi", headers=auth_headers("soporte@demo.uy", 1)).status_code == 200
    refused = api_client.get("/api/v1/envios/dgi", headers=auth_headers("usuario@demo.uy"))
    assert refused.status_code == 403


def test_admins_and_support_see_the_banner_while_dgi_does_not_answer(signed_in, live_service):
    admin = signed_in("admin@demo.uy")
    assert soup(admin.get("/")).find(id="dgi-banner") is not None  # the loader, for admins
    assert soup(admin.get("/envios/dgi-aviso", headers=HTMX)).find(attrs={"data-testid": "dgi-banner"}) is None
    with live_service.app.app_context():
        outage.failed("DGI no respondió en 30 s.", 30)
    for email in ("admin@demo.uy", "soporte@demo.uy"):
        banner = soup(signed_in(email).get("/envios/dgi-aviso", headers=HTMX)).find(attrs={"data-testid": "dgi-banner"})
        assert banner is not None and "DGI no responde desde el" in banner.get_text(" ", strip=True)
        assert banner.find("a", href="/envios/contingencia") is not None
    user = signed_in("usuario@demo.uy")
    assert soup(user.get("/")).find(id="dgi-banner") is None
    assert user.get("/envios/dgi-aviso", headers=HTMX).status_code == 403


def test_one_page_tells_the_two_situations_apart(signed_in, live_service):
    page = soup(signed_in("usuario@demo.uy").get("/envios/contingencia"))
    assert page.h1.get_text(strip=True) == "Si DGI no responde o no se puede emitir"
    down = page.find(attrs={"data-testid": "situation-dgi-down"}).get_text(" ", strip=True)
    assert "Seguí emitiendo" in down
    # Every member is told of an outage (a notice on every page), not admins and support alone.
    assert "Todos en la empresa ven un aviso arriba de cada página mientras dure" in down
    assert "libreta de contingencia" in page.find(attrs={"data-testid": "situation-no-issuing"}).get_text()
    # The product speaks with "vos" (docs/VOICE.md): the page told people "Siga", "Use", "Complete", "ingrese".
    usted = re.compile(r"\b(Ver cuál es la suya|Siga|Use|Complete|entregue|ingrese|abra)\b")
    assert not usted.findall(page.main.get_text(" ", strip=True))
    assert page.find(attrs={"data-testid": "dgi-now"}) is None  # users are not shown DGI's state
    assert page.find("a", href="/envios/contingencia") is not None  # the footer link, on every page
    with live_service.app.app_context():
        outage.failed("No se pudo conectar con el servicio de DGI.", 30)
    now = soup(signed_in("admin@demo.uy").get("/envios/contingencia")).find(attrs={"data-testid": "dgi-now"})
    assert "Ahora DGI no responde" in now.get_text()


def test_every_member_may_ask_whether_dgi_answers_and_since_when_not_more(api_client, auth_headers, service_app):
    """`GET /api/v1/envios/dgi/aviso`: the fact (DGI answers, or since when not) for every role; the detail
    (last error, next try, what waits) stays in `GET /dgi`, for admin and soporte."""
    usuario = auth_headers("usuario@demo.uy")
    assert api_client.get("/api/v1/envios/dgi/aviso", headers=usuario).json == {"responde": True}
    with service_app.app_context():
        outage.failed("No se pudo conectar con el servicio de DGI.", 30)
    for email in ("usuario@demo.uy", "admin@demo.uy", "soporte@demo.uy"):
        body = api_client.get("/api/v1/envios/dgi/aviso", headers=auth_headers(email, 1)).json
        assert set(body) == {"responde", "sinRespuestaDesde"}  # no error, no next try, nothing of the queue
        assert body["responde"] is False and body["sinRespuestaDesde"]
    assert api_client.get("/api/v1/envios/dgi", headers=usuario).status_code == 403


def test_the_person_who_issues_is_told_on_every_page_that_dgi_does_not_answer(signed_in, live_service):
    """The banner with the detail is for admin and soporte; every other member gets the fact on every page (the
    shell loads it), and the receipt page keeps its one call to the service."""
    user = signed_in("usuario@demo.uy")
    assert soup(user.get("/")).find(id="dgi-notice") is not None  # the loader of the members' notice
    assert soup(user.get("/envios/dgi-aviso-breve", headers=HTMX)).find(attrs={"data-testid": "dgi-notice"}) is None
    with live_service.app.app_context():
        outage.failed("DGI no respondió en 30 s.", 30)
    notice = soup(user.get("/envios/dgi-aviso-breve", headers=HTMX)).find(attrs={"data-testid": "dgi-notice"})
    said = notice.get_text(" ", strip=True)
    assert "DGI no responde desde el" in said and "no se pierde ninguno" in said
    assert "30 s" not in said and "esperan" not in said  # the fact, not the error nor the queue
    user.post("/idioma", data={"lang": "en", "next": "/", "csrf_token": csrf(user)})
    notice = soup(user.get("/envios/dgi-aviso-breve", headers=HTMX)).find(attrs={"data-testid": "dgi-notice"})
    assert "receipts go out by themselves" in notice.get_text(" ", strip=True)


def _calls(caplog) -> list[str]:
    """The portal's calls to the service since the last look ("GET /api/v1/... -> 304 ...")."""
    calls = [r.getMessage() for r in caplog.records if r.name == "portal.client"]
    caplog.clear()
    return calls


def test_a_receipt_that_waits_says_on_its_own_page_that_dgi_does_not_answer(signed_in, live_service, caplog):
    """The receipt's DGI panel says it to every role, in Spanish and English, from the page's one call to the
    service; when DGI answers again the same page stops saying it, through the portal's caches (a new ETag)."""
    from portal.client import CfeClient
    from tests.conftest import mint_token

    token = mint_token(live_service.app, "usuario@demo.uy")
    receipt = (
        CfeClient(live_service.url)
        .as_user(token, company_id=1)
        .issue_receipt(bodies.request(bodies.EFACTURA), idempotency_key="outage-panel")
    )
    path = f"/comprobantes/{receipt.id}"
    user = signed_in("usuario@demo.uy")
    assert soup(user.get(path)).find(attrs={"data-testid": "dgi-outage"}) is None  # DGI answers: nothing said
    with live_service.app.app_context():
        outage.failed("No se pudo conectar con el servicio de DGI.", 30)
    caplog.set_level("INFO", logger="portal.client")
    for email in ("usuario@demo.uy", "admin@demo.uy", "soporte@demo.uy"):
        member = signed_in(email)
        caplog.clear()
        panel = soup(member.get(path)).find(attrs={"data-testid": "dgi-panel"})
        calls = _calls(caplog)
        assert len(calls) == 1 and "getByIdCfeEmitido" in calls[0], calls
        said = panel.find(attrs={"data-testid": "dgi-outage"}).get_text(" ", strip=True)
        assert "DGI no responde desde el" in said and "podés entregárselo al cliente" in said, email
        assert "No tenés que hacer nada" in said and "no se pierde" in said
    user.post("/idioma", data={"lang": "en", "next": path, "csrf_token": csrf(user)})
    said = soup(user.get(path)).find(attrs={"data-testid": "dgi-outage"}).get_text(" ", strip=True)
    assert "DGI has not answered since" in said and "you can hand it to the customer" in said
    user.post("/idioma", data={"lang": "es", "next": path, "csrf_token": csrf(user)})
    assert soup(user.get(path)).find(attrs={"data-testid": "dgi-outage"}) is not None
    _calls(caplog)
    assert soup(user.get(path)).find(attrs={"data-testid": "dgi-outage"}) is not None  # the kept page
    assert [" -> 304 " in c for c in _calls(caplog)] == [True]

    with live_service.app.app_context():
        assert outage.answered() is True  # DGI answers again; the receipt has not moved
    page = soup(user.get(path))
    assert [" -> 200 " in c for c in _calls(caplog)] == [True]  # the tag changed: the answer anew
    assert page.find(attrs={"data-testid": "dgi-outage"}) is None
    assert page.find(attrs={"data-testid": "dgi-panel"})["data-state"] == "pendiente"
    assert soup(user.get(path)).find(attrs={"data-testid": "dgi-outage"}) is None
    assert [" -> 304 " in c for c in _calls(caplog)] == [True]
