"""Signing a portal test client in: through the real identity provider (no mock), or, for tests about something
else, with a token the provider minted and the portal's own session start (`start_portal_session`)."""

from __future__ import annotations

import base64
import hashlib
import secrets
from urllib.parse import parse_qs, urlencode, urljoin, urlsplit

import requests
from bs4 import BeautifulSoup

DEMO_PASSWORD = "demo-password"
PORTAL_CALLBACK = "http://127.0.0.1:5000/auth/callback"  # the portal client's redirect URI in the tests' settings


# The code flow with the service's own test client (no portal, no network): for tests of what a token or a
# provider session can do. What the flow itself must refuse is tests/integration/test_identity_provider.py's.
# The same helpers take a `requests` session instead of the test client where the service is served on a real
# port (`live_service.app`, at its ISSUER).
STATE = "st4te"


def authorize_path(redirect_uri: str = PORTAL_CALLBACK, *, pkce: bool = True, **params: str) -> tuple[str, str]:
    """The provider's authorize address for the portal's client with a fresh PKCE pair: (path, verifier).

    `params` add to the query or replace what it holds (`nonce`, `ui_locales`, ...); `pkce=False` leaves the
    challenge out (the verifier is then of no use)."""
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    query = {
        "response_type": "code",
        "client_id": "cfe-portal",
        "redirect_uri": redirect_uri,
        "scope": "openid profile email cfe",
        "state": STATE,
        "nonce": secrets.token_hex(8),
    }
    if pkce:
        query.update(code_challenge=challenge, code_challenge_method="S256")
    return "/oauth/authorize?" + urlencode({**query, **params}), verifier


def authorize_url(service_app, **params: str) -> tuple[str, str]:
    """`authorize_path` at the live `service_app`'s own address, back to the portal's registered callback."""
    path, verifier = authorize_path(service_app.config["PORTAL_REDIRECT_URIS"][0], **params)
    return service_app.config["ISSUER"] + path, verifier


def sign_in_at_provider(client, path: str, email: str, password: str = DEMO_PASSWORD):
    """The provider's sign-in form at `path` (an authorize address) posted with its CSRF token: the answer."""
    page = client.get(path)
    assert page.status_code == 200, page.status_code
    csrf = BeautifulSoup(page.data, "html.parser").find("input", {"name": "csrf_token"})["value"]
    return client.post(path, data={"csrf_token": csrf, "email": email, "password": password})


def client_auth(service_app) -> tuple[str, str]:
    """The portal's client id and secret at `service_app`'s provider (HTTP basic auth)."""
    return "cfe-portal", service_app.config["PORTAL_CLIENT_SECRET"]


def token_request(client, service_app, **grant: str):
    """`service_app`'s /oauth/token asked for `grant` as the portal asks: the answer, not checked."""
    if isinstance(client, requests.Session):
        url = service_app.config["ISSUER"] + "/oauth/token"
        return client.post(url, data=grant, auth=client_auth(service_app), timeout=10)
    return client.post("/oauth/token", data=grant, auth=client_auth(service_app))


def code_grant(service_app, answer, verifier: str) -> dict[str, str]:
    """The grant of the code in `answer` (authorize's 302, back with our state) with `verifier`."""
    assert answer.status_code == 302, answer.text[:300]
    query = parse_qs(urlsplit(answer.headers["Location"]).query)
    assert query["state"] == [STATE]
    return {
        "grant_type": "authorization_code",
        "code": query["code"][0],
        "redirect_uri": service_app.config["PORTAL_REDIRECT_URIS"][0],
        "code_verifier": verifier,
    }


def exchange_code(client, service_app, answer, verifier: str) -> dict:
    """The tokens for the code of `answer` (authorize's 302), as the portal exchanges it."""
    tokens = token_request(client, service_app, **code_grant(service_app, answer, verifier))
    assert tokens.status_code == 200, tokens.text
    return tokens.json() if isinstance(tokens, requests.Response) else tokens.json


def refresh(client, service_app, refresh_token: str):
    """`refresh_token` spent at `service_app`'s /oauth/token as the portal spends it: the answer, not checked."""
    return token_request(client, service_app, grant_type="refresh_token", refresh_token=refresh_token)


def provider_tokens(client, service_app, email: str, password: str = DEMO_PASSWORD, **params: str) -> dict:
    """Signed in at the provider with `email` and `password` and the code exchanged: the portal's tokens.
    `params` go to `authorize_path`."""
    path, verifier = authorize_path(**params)
    return exchange_code(client, service_app, sign_in_at_provider(client, path, email, password), verifier)


def filled_sign_in_form(page_url: str, html: str, email: str, password: str = DEMO_PASSWORD) -> tuple[str, dict]:
    """The provider's sign-in form at `page_url` filled in: where it posts, and what (its CSRF field included)."""
    form = BeautifulSoup(html, "html.parser").find("form")
    data = {i["name"]: i.get("value", "") for i in form.find_all("input") if i.get("name")}
    data.update(email=email, password=password)
    return urljoin(page_url, form["action"]), data


def provider_sign_in(
    authorize_url: str, email: str, password: str = DEMO_PASSWORD, browser: requests.Session | None = None
) -> requests.Response:
    """Open the provider's sign-in page at `authorize_url`, post the credentials, stop at the redirect. `browser`
    keeps the provider's cookies for the caller (a new session unless given)."""
    browser = requests.Session() if browser is None else browser
    page = browser.get(authorize_url, allow_redirects=False, timeout=10)
    page.raise_for_status()
    action, data = filled_sign_in_form(authorize_url, page.text, email, password)
    return browser.post(action, data=data, allow_redirects=False, timeout=10)


def sign_in_portal_client(
    client, service_url: str, email: str, password: str = DEMO_PASSWORD, browser: requests.Session | None = None
) -> None:
    """Sign the portal's test `client` in through its /auth/login, the provider at `service_url` (its cookies in
    `browser`, when given) and the portal's callback."""
    start = client.get("/auth/login")
    assert start.status_code == 302, start.status_code
    authorize_url = start.headers["Location"]
    assert authorize_url.startswith(service_url)
    answer = provider_sign_in(authorize_url, email, password, browser)
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


def logout_confirmation(answer: requests.Response) -> tuple[str, dict]:
    """The provider's "sign out?" page (`GET /oauth/logout` without a valid hint): where its form posts, and what
    (its CSRF field and the request's parameters included)."""
    form = BeautifulSoup(answer.text, "html.parser").find("form", {"method": "post"})
    return form["action"], {i["name"]: i.get("value", "") for i in form.find_all("input") if i.get("name")}
