"""The provider's logout follows OpenID Connect RP-Initiated Logout 1.0: a valid id_token_hint of the signed-in
user and a registered post_logout_redirect_uri sign out at once; anything less asks first, with a form that
carries a CSRF token, so a bare link or image (`GET /oauth/logout`) cannot sign anyone out."""

from __future__ import annotations

import time
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
import requests
from bs4 import BeautifulSoup

from tests.support.oidc import (
    authorize_url,
    exchange_code,
    logout_confirmation,
    provider_sign_in,
    sign_in_portal_client,
)

LOGOUT = "/oauth/logout"


class Browser:
    """A browser's cookies at the provider, signed in as `email` through the code flow."""

    def __init__(self, live_service, email: str = "usuario@demo.uy"):
        self.service = live_service
        self.session = requests.Session()
        url, verifier = authorize_url(live_service.app)
        signed = provider_sign_in(url, email, browser=self.session)
        self.tokens = exchange_code(requests.Session(), live_service.app, signed, verifier)

    def signed_in(self) -> bool:
        """Whether the provider still hands out a code without asking for the password."""
        url, _ = authorize_url(self.service.app)
        answer = self.session.get(url, allow_redirects=False, timeout=10)
        return answer.status_code == 302 and "code=" in answer.headers["Location"]

    def logout(self, method: str = "GET", **params: str) -> requests.Response:
        url = self.service.url + LOGOUT
        if method == "GET":
            return self.session.get(f"{url}?{urlencode(params)}", allow_redirects=False, timeout=10)
        return self.session.post(url, data=params, allow_redirects=False, timeout=10)


@pytest.fixture
def after(live_service) -> str:
    return live_service.app.config["PORTAL_POST_LOGOUT_URIS"][0]


def test_a_bare_get_asks_first_and_signs_nobody_out(live_service):
    browser = Browser(live_service)
    answer = browser.logout()
    assert answer.status_code == 200 and 'name="csrf_token"' in answer.text and 'name="confirm"' in answer.text
    assert browser.signed_in()
    forged = requests.post(
        live_service.url + LOGOUT, data={"confirm": "1"}, cookies=browser.session.cookies, timeout=10
    )
    assert forged.status_code == 400 and browser.signed_in()


def test_confirming_signs_out_and_returns_to_the_registered_uri_with_the_state(live_service, after):
    browser = Browser(live_service)
    asked = browser.logout(client_id="cfe-portal", post_logout_redirect_uri=after, state="xyz")
    assert asked.status_code == 200 and browser.signed_in()
    action, data = logout_confirmation(asked)
    done = browser.session.post(live_service.url + action, data=data, allow_redirects=False, timeout=10)
    assert done.status_code == 303 and done.headers["Location"] == f"{after}?state=xyz"
    assert not browser.signed_in()


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_a_valid_hint_of_the_signed_in_user_signs_out_at_once(live_service, after, method):
    browser = Browser(live_service)
    answer = browser.logout(method, id_token_hint=browser.tokens["id_token"], post_logout_redirect_uri=after)
    assert answer.status_code == 303 and answer.headers["Location"] == after
    assert not browser.signed_in()


def test_an_expired_hint_is_still_a_hint(live_service, after, monkeypatch):
    browser = Browser(live_service)
    monkeypatch.setattr(time, "time", lambda real=time.time: real() + 7200)  # the ID token lives an hour
    answer = browser.logout(id_token_hint=browser.tokens["id_token"], post_logout_redirect_uri=after)
    monkeypatch.undo()
    assert answer.status_code == 303 and not browser.signed_in()


def test_a_session_without_an_id_token_gets_the_confirmation_in_its_language(signed_in, live_service):
    client = signed_in()  # started with an access token only: no ID token to give as hint
    client.get("/idioma/en")
    csrf = BeautifulSoup(client.get("/").data, "html.parser").find("input", {"name": "csrf_token"})["value"]
    out = client.post("/auth/logout", data={"csrf_token": csrf})
    query = parse_qs(urlsplit(out.headers["Location"]).query)
    assert "id_token_hint" not in query and query["client_id"] == ["cfe-portal"]
    assert query["ui_locales"] == ["en"]
    nobody = requests.get(out.headers["Location"], allow_redirects=False, timeout=10)  # no provider session
    assert nobody.status_code == 303 and nobody.headers["Location"] == query["post_logout_redirect_uri"][0]
    browser = Browser(live_service)
    asked = browser.session.get(out.headers["Location"], allow_redirects=False, timeout=10)
    assert asked.status_code == 200 and "Sign out" in asked.text and browser.signed_in()


def test_a_hint_of_another_user_asks_first(live_service, after):
    victim, attacker = Browser(live_service, "usuario@demo.uy"), Browser(live_service, "admin@demo.uy")
    answer = victim.logout(id_token_hint=attacker.tokens["id_token"], post_logout_redirect_uri=after)
    assert answer.status_code == 200 and 'name="confirm"' in answer.text
    assert victim.signed_in()


@pytest.mark.parametrize(
    "params",
    [
        {"post_logout_redirect_uri": "https://evil.example/"},
        {"client_id": "cfe-portal", "post_logout_redirect_uri": "https://evil.example/"},
        {"id_token_hint": "not-a-token"},
        {"client_id": "cfe-portal"},  # with the hint of another client: below
    ],
)
def test_a_bad_request_is_refused_never_redirected(live_service, params):
    browser = Browser(live_service)
    if params == {"client_id": "cfe-portal"}:
        params = {"client_id": "another-client", "id_token_hint": browser.tokens["id_token"]}
    answer = browser.logout(**params)
    assert answer.status_code == 400 and "Location" not in answer.headers
    assert browser.signed_in()


def test_an_access_token_is_not_an_id_token_hint(live_service, after):
    browser = Browser(live_service)
    answer = browser.logout(id_token_hint=browser.tokens["access_token"], post_logout_redirect_uri=after)
    assert answer.status_code == 400 and browser.signed_in()


def test_the_portals_sign_out_ends_the_provider_session_without_asking(portal_app, live_service):
    client = portal_app.test_client()
    browser = requests.Session()
    sign_in_portal_client(client, live_service.url, "usuario@demo.uy", browser=browser)
    with client.session_transaction() as session:
        assert session["tokens"]["id_token"]
    csrf = BeautifulSoup(client.get("/").data, "html.parser").find("input", {"name": "csrf_token"})["value"]
    out = client.post("/auth/logout", data={"csrf_token": csrf})
    assert out.status_code == 303 and out.headers["Location"].startswith(live_service.url + LOGOUT)
    assert parse_qs(urlsplit(out.headers["Location"]).query)["ui_locales"] == ["es"]
    at_provider = browser.get(out.headers["Location"], allow_redirects=False, timeout=10)
    assert at_provider.status_code == 303
    assert at_provider.headers["Location"] == live_service.app.config["PORTAL_POST_LOGOUT_URIS"][0]
    again = browser.get(client.get("/auth/login").headers["Location"], allow_redirects=False, timeout=10)
    assert again.status_code == 200 and "password" in again.text
