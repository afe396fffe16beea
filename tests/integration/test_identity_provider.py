"""The OpenID Connect provider: discovery, code flow with PKCE, JWT access tokens, refresh, revocation."""

from __future__ import annotations

import secrets
from urllib.parse import parse_qs, urlsplit

import pytest
from joserfc import jwt
from joserfc.jwk import KeySet

from tests.support.oidc import (
    PORTAL_CALLBACK,
    authorize_path,
    client_auth,
    code_grant,
    provider_tokens,
    refresh,
    sign_in_at_provider,
    token_request,
)

NONCE = "n0nce"


def _public_keys(api_client) -> KeySet:
    return KeySet.import_key_set(api_client.get("/oauth/jwks").json)


def test_discovery_document_describes_the_provider(api_client, service_app):
    doc = api_client.get("/.well-known/openid-configuration").json
    issuer = service_app.config["ISSUER"]
    assert doc["issuer"] == issuer
    assert doc["authorization_endpoint"] == f"{issuer}/oauth/authorize"
    assert doc["code_challenge_methods_supported"] == ["S256"]
    assert "RS256" in doc["id_token_signing_alg_values_supported"]
    keys = api_client.get("/oauth/jwks").json["keys"]
    assert keys[0]["kty"] == "RSA" and keys[0]["kid"] and "d" not in keys[0]


def test_code_flow_issues_rs256_jwt_access_token_with_role_and_companies(api_client, service_app):
    tokens = provider_tokens(api_client, service_app, "usuario@demo.uy", nonce=NONCE)
    access = jwt.decode(tokens["access_token"], _public_keys(api_client))
    assert access.header["alg"] == "RS256" and access.header["typ"] == "at+jwt"
    claims = access.claims
    assert claims["iss"] == service_app.config["ISSUER"]
    assert claims["aud"] == "cfe-api"
    assert claims["exp"] - claims["iat"] == service_app.config["ACCESS_TOKEN_SECONDS"]
    assert claims["email"] == "usuario@demo.uy"
    assert claims["empresas"] == [{"id": 1, "rut": "219999830019", "nombre": "Demo S.A.", "rol": "usuario"}]
    id_token = jwt.decode(tokens["id_token"], _public_keys(api_client)).claims
    assert id_token["aud"] == ["cfe-portal"] and id_token["nonce"] == NONCE
    assert tokens["refresh_token"]


@pytest.mark.parametrize("pkce", [{}, {"code_challenge": "x" * 43, "code_challenge_method": "plain"}])
def test_authorization_without_s256_pkce_is_sent_back_with_an_error(api_client, pkce):
    answer = api_client.get(authorize_path(pkce=False, **pkce)[0])
    assert answer.status_code == 302
    assert answer.headers["Location"].startswith(PORTAL_CALLBACK)
    assert parse_qs(urlsplit(answer.headers["Location"]).query)["error"] == ["invalid_request"]


def test_code_exchange_with_wrong_verifier_fails(api_client, service_app):
    answer = sign_in_at_provider(api_client, authorize_path()[0], "usuario@demo.uy")
    tokens = token_request(api_client, service_app, **code_grant(service_app, answer, secrets.token_urlsafe(48)))
    assert tokens.status_code == 400 and tokens.json["error"] == "invalid_grant"


def test_unknown_redirect_uri_shows_an_error_instead_of_redirecting(api_client):
    page = api_client.get(authorize_path("https://evil.example/cb")[0])
    assert page.status_code == 400
    assert "Location" not in page.headers


def test_refresh_token_rotates_and_the_old_one_stops_working(api_client, service_app):
    tokens = provider_tokens(api_client, service_app, "usuario@demo.uy")
    fresh = refresh(api_client, service_app, tokens["refresh_token"])
    assert fresh.status_code == 200
    assert fresh.json["refresh_token"] != tokens["refresh_token"]
    again = refresh(api_client, service_app, tokens["refresh_token"])
    assert again.status_code == 400


def test_revoked_refresh_token_cannot_be_used(api_client, service_app):
    tokens = provider_tokens(api_client, service_app, "usuario@demo.uy")
    revoked = api_client.post(
        "/oauth/revoke",
        data={"token": tokens["refresh_token"], "token_type_hint": "refresh_token"},
        auth=client_auth(service_app),
    )
    assert revoked.status_code == 200
    refreshed = refresh(api_client, service_app, tokens["refresh_token"])
    assert refreshed.status_code == 400


def test_userinfo_lists_companies_roles_and_certificates(api_client, service_app):
    tokens = provider_tokens(api_client, service_app, "admin@demo.uy")
    info = api_client.get("/oauth/userinfo", headers={"Authorization": f"Bearer {tokens['access_token']}"}).json
    assert info["email"] == "admin@demo.uy"
    assert [(c["rut"], c["rol"]) for c in info["empresas"]] == [("219999830019", "admin"), ("211003420017", "admin")]
    assert info["empresas"][0]["certificados"][0]["id"] >= 1


def test_wrong_password_is_refused_then_locked_after_repeated_failures(api_client):
    path = authorize_path()[0]
    first = sign_in_at_provider(api_client, path, "soporte@demo.uy", "wrong")
    assert first.status_code == 422
    assert "incorrectos" in first.get_data(as_text=True)
    assert 'value="soporte@demo.uy"' in first.get_data(as_text=True)  # what the user typed is kept
    for _ in range(4):
        sign_in_at_provider(api_client, path, "soporte@demo.uy", "wrong")
    locked = sign_in_at_provider(api_client, path, "soporte@demo.uy", "demo-password")
    assert locked.status_code == 429


def test_sign_in_page_speaks_english_when_asked(api_client):
    page = api_client.get(authorize_path(ui_locales="en")[0])
    assert "Sign in to your account" in page.get_data(as_text=True)


def test_token_cli_prints_a_token_the_api_accepts(service_app, service_config, monkeypatch):
    from click.testing import CliRunner

    from portal.service.__main__ import cli

    monkeypatch.setenv("CFE_DATABASE_URL", service_config["DATABASE_URL"])
    result = CliRunner().invoke(cli, ["token", "soporte@demo.uy"])
    assert result.exit_code == 0, result.output
    token = result.output.strip()
    info = service_app.test_client().get("/oauth/userinfo", headers={"Authorization": f"Bearer {token}"})
    assert info.status_code == 200 and info.json["email"] == "soporte@demo.uy"


@pytest.mark.parametrize("mutate", ["expired", "foreign_key", "garbage"])
def test_bad_access_tokens_get_401_in_the_error_shape(api_client, token_for, mutate):
    if mutate == "expired":
        token = token_for("usuario@demo.uy", lifetime=-10)
    elif mutate == "foreign_key":
        from joserfc.jwk import RSAKey

        key = RSAKey.generate_key(2048)
        token = jwt.encode({"alg": "RS256", "typ": "at+jwt"}, {"sub": "1", "aud": "cfe-api"}, key)
    else:
        token = "not-a-token"
    answer = api_client.get("/oauth/userinfo", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 401
    assert answer.json["error"]["code"] == "invalid_token"
    assert answer.json["error"]["requestId"] == answer.headers["X-Request-ID"]


@pytest.mark.parametrize("ui_locales", ["en", "es-UY"])
def test_signing_in_in_a_language_makes_it_the_one_the_service_writes_to_the_user_in(
    api_client, service_app, ui_locales
):
    from portal.service.platform import db
    from portal.service.platform.models import User

    answer = sign_in_at_provider(api_client, authorize_path(ui_locales=ui_locales)[0], "admin@demo.uy")
    assert answer.status_code == 302
    with service_app.app_context():
        user = db.session().query(User).filter_by(email="admin@demo.uy").one()
        assert user.locale == ui_locales[:2]


def test_the_users_language_is_kept_when_they_change_it_after_signing_in(api_client, service_app, auth_headers):
    """The portal's language switch keeps it (PUT /api/v1/usuario/idioma): the admins' e-mails follow it."""
    from portal.service.eventos.admin_mail import admin_addresses
    from portal.service.platform import db

    admin = auth_headers("admin@demo.uy", 1)
    answer = api_client.put("/api/v1/usuario/idioma", json={"idioma": "en"}, headers=admin)
    assert answer.status_code == 204
    with service_app.app_context():
        said = admin_addresses(db.session(), 1)
    assert "admin@demo.uy" in said["en"] and "admin@demo.uy" not in said.get("es", [])
    refused = api_client.put("/api/v1/usuario/idioma", json={"idioma": "fr"}, headers=admin)
    assert refused.status_code == 422 and refused.json["error"]["fields"][0]["field"] == "idioma"
    assert api_client.put("/api/v1/usuario/idioma", json={"idioma": "es"}).status_code == 401
    claims = api_client.get("/oauth/userinfo", headers=admin).json
    assert claims["locale"] == "en"
