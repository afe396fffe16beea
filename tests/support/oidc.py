"""Signing a portal test client in: through the real identity provider (no mock), or, for tests about something
else, with a token the provider minted and the portal's own session start (`start_portal_session`)."""

from __future__ import annotations

from urllib.parse import parse_qs, urljoin, urlsplit

import requests
from bs4 import BeautifulSoup

DEMO_PASSWORD = "demo-password"


def filled_sign_in_form(page_url: str, html: str, email: str, password: str = DEMO_PASSWORD) -> tuple[str, dict]:
    """The provider's sign-in form at `page_url` filled in: where it posts, and what (its CSRF field included)."""
    form = BeautifulSoup(html, "html.parser").find("form")
    data = {i["name"]: i.get("value", "") for i in form.find_all("input") if i.get("name")}
    data.update(email=email, password=password)
    return urljoin(page_url, form["action"]), data


def provider_sign_in(authorize_url: str, email: str, password: str = DEMO_PASSWORD) -> requests.Response:
    """Open the provider's sign-in page at `authorize_url`, post the credentials, stop at the redirect."""
    browser = requests.Session()
    page = browser.get(authorize_url, allow_redirects=False, timeout=10)
    page.raise_for_status()
    action, data = filled_sign_in_form(authorize_url, page.text, email, password)
    return browser.post(action, data=data, allow_redirects=False, timeout=10)


def sign_in_portal_client(client, service_url: str, email: str, password: str = DEMO_PASSWORD) -> None:
    start = client.get("/auth/login")
    assert start.status_code == 302, start.status_code
    authorize_url = start.headers["Location"]
    assert authorize_url.startswith(service_url)
    answer = provider_sign_in(authorize_url, email, password)
    assert answer.status_code == 302, answer.text[:500]
    callback = urlsplit(answer.headers["Location"])
    assert "code" in parse_qs(callback.query)
    done = client.get(f"{callback.path}?{callback.query}")
    assert done.status_code == 302, done.get_data(as_text=True)[:500]


def start_portal_session(client, portal_app, access_token: str, expires_in: int) -> None:
    """Sign `client` in with an access token minted in-process (`mint_token`, as the `token` CLI does) instead of
    the code flow: the portal's /auth/callback once it holds the provider's tokens (`begin_session`), run in a
    request of the portal app, then its session cookie handed to the client. The code flow itself is the subject
    of the tests that use `sign_in_portal_client` (sign-in, sign-out, refresh, the provider's pages); for the
    hundreds of others it was 30 ms of CPU per test.

    The session has no refresh token (as the callback stores it when the provider gives none), so a test about
    refreshing or about what sign-in stores must go through `sign_in_portal_client`."""
    from flask import session

    from portal.client.oidc import Tokens
    from portal.web.auth.routes import begin_session

    with portal_app.test_request_context("/auth/callback"):
        begin_session(Tokens.from_json({"access_token": access_token, "expires_in": expires_in}))
        response = portal_app.response_class()
        portal_app.session_interface.save_session(portal_app, session._get_current_object(), response)
    name = portal_app.config["SESSION_COOKIE_NAME"]
    cookie = next(c for c in response.headers.getlist("Set-Cookie") if c.startswith(f"{name}="))
    client.set_cookie(name, cookie.split(";", 1)[0].split("=", 1)[1], domain=portal_app.config["SERVER_NAME"])
