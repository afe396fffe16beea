"""The site's header and footer are kept per user, area and language (portal/web/shell.py): the pages are the
same text as when both are rendered for the request, each page's own address and the session's CSRF token are
filled per request, and a change of language or company draws another header."""

from __future__ import annotations

import hashlib
import re

import pytest
from bs4 import BeautifulSoup

from portal.web import shell
from tests.conftest import mint_token
from tests.support import cfe_bodies as bodies
from tests.support.cfe_bodies import body, issue
from tests.support.html import csrf

# New on every drawing: a form's idempotency key, the CSRF token's signature (it carries the second it was signed
# at; the next test checks the tokens themselves), the home page's "data as of" time.
_PER_DRAWING = re.compile(r'((?:csrf_token|idempotency_key)"[^>]*value="|"X-CSRFToken": ")[^"]+"|\d\d:\d\d:\d\d')
PAGES = ("/", "/comprobantes/", "/comprobantes/?q=a%26b%22c&pagina=1", "/clientes/", "/informes/")


def _pages(client, paths, language: str) -> list[str]:
    texts = []
    for path in paths:
        answer = client.get(path, headers={"Accept-Language": language})
        assert answer.status_code == 200, (path, answer.status_code)
        texts.append(_PER_DRAWING.sub(lambda m: m.group(1) or "", answer.get_data(as_text=True)))
    return texts


@pytest.mark.parametrize("email", ["admin@demo.uy", "usuario@demo.uy"])
@pytest.mark.parametrize("language", ["es", "en"])
def test_kept_header_and_footer_give_the_same_pages(signed_in, live_service, portal_app, monkeypatch, email, language):
    api = live_service.app.test_client()
    headers = {"Authorization": f"Bearer {mint_token(live_service.app, 'usuario@demo.uy')}"}
    receipt = issue(api, headers, body(bodies.ETICKET))["idCfeEmitido"]
    paths = (*PAGES, f"/comprobantes/{receipt}", *(("/envios/", "/empresa/") if email == "admin@demo.uy" else ()))
    client = signed_in(email)
    portal_app.extensions.pop("receipt_pages", None)
    kept_first = _pages(client, paths, language)
    kept_again = _pages(client, paths, language)  # each part now read from what was kept
    assert portal_app.extensions["site_parts"].get(("header", language, "comprobantes", _who(client))) is not None

    monkeypatch.setattr(shell, "_kept_here", lambda: False)
    portal_app.extensions.pop("receipt_pages", None)
    drawn = _pages(client, paths, language)
    assert kept_first == drawn and kept_again == drawn


def _who(client) -> str:
    with client.session_transaction() as session:
        who = repr((session.get("user"), session.get("company_id"))).encode()
    return hashlib.blake2b(who, digest_size=16).hexdigest()


def _session_part(token: str) -> str:
    """A CSRF token's part that is the session's own: Flask-WTF signs it with the second it was written in, so two
    requests a second apart write one session's token differently."""
    return token.split(".", 1)[0]


def test_each_page_gets_its_own_address_and_its_sessions_token(signed_in):
    admin, other = signed_in("admin@demo.uy"), signed_in("admin@demo.uy")
    for client in (admin, other):
        for path in ("/comprobantes/", "/comprobantes/?q=a%26b%22c&pagina=1"):
            page = BeautifulSoup(client.get(path).get_data(as_text=True), "html.parser")
            header = page.select_one("header.site-header")
            # Flask's full path: "?" even without a query.
            assert {i["value"] for i in header.select('input[name="next"]')} == {path if "?" in path else path + "?"}
            tokens = {i["value"] for i in header.select('input[name="csrf_token"]')}
            assert {_session_part(t) for t in tokens} == {_session_part(csrf(client, "/comprobantes/"))}
            main_token = re.search(r'"X-CSRFToken": "([^"]+)"', str(page.select_one("main")["hx-headers"]))
            assert main_token is not None and tokens == {main_token.group(1)}
    # Two sessions of one user share the kept text, never each other's token.
    assert _session_part(csrf(admin, "/comprobantes/")) != _session_part(csrf(other, "/comprobantes/"))


def test_a_new_language_or_company_draws_its_own_header(signed_in):
    client = signed_in("admin@demo.uy")  # a member of both demo companies

    def header() -> BeautifulSoup:
        return BeautifulSoup(client.get("/comprobantes/").get_data(as_text=True), "html.parser").select_one("header")

    assert header().select_one("#company-switch option[selected]")["value"] == "1"
    assert client.post("/empresa", data={"company_id": "2", "csrf_token": csrf(client)}).status_code == 303
    assert header().select_one("#company-switch option[selected]")["value"] == "2"

    assert "Salir" in header().get_text()
    assert client.post("/idioma", data={"lang": "en", "next": "/", "csrf_token": csrf(client)}).status_code == 303
    assert "Sign out" in header().get_text() and "Salir" not in header().get_text()


def test_an_address_that_spells_a_slot_stays_itself(signed_in):
    # The path is decoded: "%00csrf%00" spells the token's slot, and must never bring the token into the address
    # the switches come back to.
    client = signed_in("admin@demo.uy")
    client.get("/comprobantes/")
    page = client.get("/comprobantes/%00csrf%00")
    token = csrf(client, "/comprobantes/")
    nexts = [i["value"] for i in BeautifulSoup(page.get_data(as_text=True), "html.parser").select('input[name="next"]')]
    assert nexts and not any(token in value for value in nexts), nexts
