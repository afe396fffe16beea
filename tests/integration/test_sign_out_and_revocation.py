"""Sign-out and deactivation take effect at the API at once; the provider's session ends at logout."""

from __future__ import annotations

import time
from urllib.parse import parse_qs, urlsplit

import requests
from sqlalchemy import update

from portal.service.platform import db
from portal.service.platform.models import User
from tests.support.html import csrf as _csrf
from tests.support.oidc import (
    authorize_url,
    client_auth,
    code_grant,
    exchange_code,
    logout_confirmation,
    provider_sign_in,
    refresh,
    token_request,
)

USERINFO = "/oauth/userinfo"
API = "/api/v1/comprobante/getByIdCfeEmitido?idCfeEmitido=999999"  # any role; 404 means "token accepted"


def _api(service_url: str, token: str, path: str = API) -> int:
    return requests.get(service_url + path, headers={"Authorization": f"Bearer {token}"}, timeout=10).status_code


def _set_active(app, email: str, active: bool) -> None:
    with app.app_context():
        db.session().execute(update(User).where(User.email == email).values(active=active))
        db.session().commit()


def test_after_signing_out_of_the_portal_its_access_token_is_refused_by_the_api(
    signed_in_through_provider, live_service
):
    client = signed_in_through_provider("usuario@demo.uy")
    with client.session_transaction() as session:
        token = session["tokens"]["access_token"]
    assert _api(live_service.url, token) == 404 and _api(live_service.url, token, USERINFO) == 200
    assert client.post("/auth/logout", data={"csrf_token": _csrf(client)}).status_code == 303
    answer = requests.get(live_service.url + API, headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert answer.status_code == 401 and answer.json()["error"]["code"] == "invalid_token"
    assert _api(live_service.url, token, USERINFO) == 401


def test_a_deactivated_users_token_stops_working_at_once(live_service, live_token_for):
    token = live_token_for("usuario@demo.uy")
    assert _api(live_service.url, token) == 404
    _set_active(live_service.app, "usuario@demo.uy", False)
    assert _api(live_service.url, token) == 401
    assert _api(live_service.url, token, USERINFO) == 401
    _set_active(live_service.app, "usuario@demo.uy", True)
    assert _api(live_service.url, token) == 404


def test_revoking_an_access_token_at_the_provider_refuses_it(live_service):
    url, verifier = authorize_url(live_service.app)
    tokens = exchange_code(requests.Session(), live_service.app, provider_sign_in(url, "usuario@demo.uy"), verifier)
    assert _api(live_service.url, tokens["access_token"]) == 404
    revoked = requests.post(
        live_service.url + "/oauth/revoke",
        timeout=10,
        data={"token": tokens["access_token"], "token_type_hint": "access_token"},
        auth=client_auth(live_service.app),
    )
    assert revoked.status_code == 200
    assert _api(live_service.url, tokens["access_token"]) == 401


def test_the_provider_session_cookie_is_useless_after_logout(live_service, live_urls):
    browser = requests.Session()
    signed = provider_sign_in(authorize_url(live_service.app)[0], "usuario@demo.uy", browser=browser)
    assert signed.status_code == 302 and "code" in parse_qs(urlsplit(signed.headers["Location"]).query)
    cookie = browser.cookies.get("cfe_idp_session")
    assert cookie and "idp_user_id" not in cookie  # the cookie names a session, not a user

    # Signed in: the provider hands out codes without asking again.
    again = browser.get(authorize_url(live_service.app)[0], allow_redirects=False, timeout=10)
    assert again.status_code == 302 and "code=" in again.headers["Location"]

    asked = browser.get(live_service.url + "/oauth/logout", timeout=10)  # no id_token_hint: asked first
    action, fields = logout_confirmation(asked)
    assert browser.post(live_service.url + action, data=fields, timeout=10).status_code == 200
    replay = requests.Session()
    replay.cookies.set("cfe_idp_session", cookie)
    answer = replay.get(authorize_url(live_service.app)[0], allow_redirects=False, timeout=10)
    assert answer.status_code == 200 and "password" in answer.text  # the sign-in page, no code


def test_the_provider_session_ends_when_the_user_is_deactivated(live_service):
    browser = requests.Session()
    assert provider_sign_in(authorize_url(live_service.app)[0], "usuario@demo.uy", browser=browser).status_code == 302
    _set_active(live_service.app, "usuario@demo.uy", False)
    answer = browser.get(authorize_url(live_service.app)[0], allow_redirects=False, timeout=10)
    assert answer.status_code == 200 and "password" in answer.text


def test_signing_out_without_a_refresh_token_revokes_the_access_token(signed_in_through_provider, live_service):
    client = signed_in_through_provider("usuario@demo.uy")
    with client.session_transaction() as session:
        token = session["tokens"]["access_token"]
        session["tokens"] = {**session["tokens"], "refresh_token": None}
    assert client.post("/auth/logout", data={"csrf_token": _csrf(client)}).status_code == 303
    assert _api(live_service.url, token) == 401


def test_a_token_verified_once_is_still_refused_once_it_expires(api_client, token_for):
    token = token_for("usuario@demo.uy", lifetime=2)
    expires_by = int(time.time()) + 2  # exp is the whole second of minting plus the lifetime
    headers = {"Authorization": f"Bearer {token}"}
    assert api_client.get(API, headers=headers).status_code == 404  # accepted (and its claims remembered)
    time.sleep(expires_by - time.time() + 0.05)
    refused = api_client.get(API, headers=headers)
    assert refused.status_code == 401 and refused.json["error"]["code"] == "invalid_token"


def test_a_remembered_token_is_refused_at_its_next_request_once_its_user_is_deactivated(
    api_client, token_for, service_app
):
    token = token_for("usuario@demo.uy")
    headers = {"Authorization": f"Bearer {token}"}
    assert api_client.get(API, headers=headers).status_code == 404
    _set_active(service_app, "usuario@demo.uy", False)
    assert api_client.get(API, headers=headers).status_code == 401


def _signed_in_at_provider(live_service) -> tuple[requests.Response, str]:
    """Signed in at the live provider as usuario@demo.uy: authorize's answer (its code) and the verifier."""
    url, verifier = authorize_url(live_service.app)
    return provider_sign_in(url, "usuario@demo.uy"), verifier


def test_a_deactivated_users_refresh_and_code_are_invalid_grants(live_service):
    service, http = live_service.app, requests.Session()
    tokens = exchange_code(http, service, *_signed_in_at_provider(live_service))
    pending = code_grant(service, *_signed_in_at_provider(live_service))
    _set_active(service, "usuario@demo.uy", False)

    refreshed = refresh(http, service, tokens["refresh_token"])
    assert refreshed.status_code == 400 and refreshed.json()["error"] == "invalid_grant"
    late = token_request(http, service, **pending)
    assert late.status_code == 400 and late.json()["error"] == "invalid_grant"

    _set_active(service, "usuario@demo.uy", True)
    again = refresh(http, service, tokens["refresh_token"])
    assert again.status_code == 200 and again.json()["refresh_token"] != tokens["refresh_token"]
