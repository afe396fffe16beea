"""The client's OpenID Connect module against the live provider: the code flow with PKCE, the ID token checked,
refresh, revocation, RP-initiated logout's URL, and failures as the client's own errors."""

from __future__ import annotations

import socket
from urllib.parse import parse_qs, urlsplit

import pytest

from portal.client import ServiceUnavailable, SignInRefused
from portal.client.oidc import OidcClient, Tokens
from tests.support.oidc import provider_sign_in


@pytest.fixture
def provider(live_service) -> OidcClient:
    return OidcClient(live_service.url, "cfe-portal", live_service.app.config["PORTAL_CLIENT_SECRET"])


@pytest.fixture
def redirect_uri(live_service) -> str:
    return live_service.app.config["PORTAL_REDIRECT_URIS"][0]


def _code(provider: OidcClient, redirect_uri: str, email: str = "usuario@demo.uy"):
    start = provider.authorization(redirect_uri, ui_locales="en")
    query = parse_qs(urlsplit(start.url).query)
    assert query["code_challenge_method"] == ["S256"] and query["ui_locales"] == ["en"]
    assert query["state"] == [start.state] and query["nonce"] == [start.nonce]
    answer = provider_sign_in(start.url, email)
    back = parse_qs(urlsplit(answer.headers["Location"]).query)
    assert back["state"] == [start.state]
    return start, back["code"][0]


def test_the_code_flow_gives_checked_typed_tokens_that_refresh_and_revoke(provider, redirect_uri):
    start, code = _code(provider, redirect_uri)
    tokens = provider.exchange_code(
        code, redirect_uri=redirect_uri, code_verifier=start.code_verifier, nonce=start.nonce
    )
    assert isinstance(tokens, Tokens) and tokens.subject and tokens.id_token and tokens.refresh_token
    fresh = provider.refresh(tokens.refresh_token)
    assert fresh.access_token != tokens.access_token and fresh.refresh_token != tokens.refresh_token
    provider.revoke(fresh.refresh_token, token_type_hint="refresh_token")
    with pytest.raises(SignInRefused) as caught:
        provider.refresh(fresh.refresh_token)
    assert caught.value.code == "invalid_grant"


def test_an_id_token_for_another_sign_in_is_refused(provider, redirect_uri):
    start, code = _code(provider, redirect_uri)
    with pytest.raises(SignInRefused) as caught:
        provider.exchange_code(code, redirect_uri=redirect_uri, code_verifier=start.code_verifier, nonce="another")
    assert caught.value.code == "invalid_token"


def test_a_code_without_its_verifier_is_refused(provider, redirect_uri):
    start, code = _code(provider, redirect_uri)
    with pytest.raises(SignInRefused) as caught:
        provider.exchange_code(code, redirect_uri=redirect_uri, code_verifier="x" * 64, nonce=start.nonce)
    assert caught.value.code == "invalid_grant"


def test_the_logout_url_names_the_client_the_way_back_and_the_id_token(provider):
    url = provider.end_session_url(post_logout_redirect_uri="http://portal.test/", id_token_hint="the-id-token")
    query = parse_qs(urlsplit(url).query)
    assert query == {
        "client_id": ["cfe-portal"],
        "post_logout_redirect_uri": ["http://portal.test/"],
        "id_token_hint": ["the-id-token"],
    }


def test_a_provider_that_does_not_answer_is_service_unavailable():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ServiceUnavailable):
        OidcClient(f"http://127.0.0.1:{port}", "cfe-portal", "secret", timeout=0.5).authorization("http://x/cb")
