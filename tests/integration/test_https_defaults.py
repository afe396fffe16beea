"""Behind an https public URL, both apps send HSTS and mark their cookies Secure without being told to."""

from __future__ import annotations

import pytest

from tests.support.oidc import authorize_path


@pytest.mark.parametrize(("issuer", "secure"), [("https://cfe.example.uy", True), ("http://127.0.0.1:8000", False)])
def test_the_service_follows_its_public_url(service_config, issuer, secure):
    from portal.service import create_app

    app = create_app({**service_config, "ISSUER": issuer})
    answer = app.test_client().get("/oauth/authorize?client_id=cfe-portal&response_type=code")
    assert ("Strict-Transport-Security" in answer.headers) is secure
    assert app.config["SESSION_COOKIE_SECURE"] is secure
    sign_in = app.test_client().get(authorize_path(app.config["PORTAL_REDIRECT_URIS"][0])[0])
    assert sign_in.status_code == 200, sign_in.get_data(as_text=True)[:300]
    cookie = sign_in.headers.get("Set-Cookie", "")  # the sign-in form's CSRF secret
    assert cookie.startswith("__Host-cfe_idp_session=" if secure else "cfe_idp_session=")
    assert ("; Secure" in cookie) is secure and "Domain=" not in cookie and "Path=/;" in cookie
    page = app.test_client().get("/healthz")
    assert (page.headers.get("Strict-Transport-Security", "").startswith("max-age=31536000")) is secure
    app.extensions["db_engine"].dispose()


def test_the_service_secure_cookie_can_be_forced_off(service_config):
    from portal.service import create_app

    app = create_app({**service_config, "ISSUER": "https://cfe.example.uy", "SECURE_COOKIES": False})
    assert app.config["SESSION_COOKIE_SECURE"] is False
    app.extensions["db_engine"].dispose()


@pytest.mark.parametrize(
    ("public_url", "secure"), [("https://portal.example.uy", True), ("http://127.0.0.1:5000", False)]
)
def test_the_portal_follows_its_public_url(portal_config, public_url, secure):
    from portal.web import create_app

    app = create_app({**portal_config, "PUBLIC_URL": public_url})
    client = app.test_client()
    answer = client.get("/auth/login")  # writes the session cookie (OAuth state)
    assert ("Strict-Transport-Security" in answer.headers) is secure
    cookie = answer.headers.get("Set-Cookie", "")
    assert cookie.startswith("__Host-cfe_portal_session=" if secure else "cfe_portal_session=")
    assert ("; Secure" in cookie) is secure and "Domain=" not in cookie and "Path=/;" in cookie
