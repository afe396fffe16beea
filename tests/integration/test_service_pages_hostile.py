"""The service's routes outside the API (the identity provider's pages and endpoints, the exchange web service,
the health checks), each asked with every parameter they read given a value that once reached a 500: never a 500,
except the SOAP Fault that SOAP 1.1 answers with one.

`/oauth/authorize?response_type=²` was a 500: authlib puts an unknown response_type in its error's description
and refuses to build one with characters OAuth does not allow."""

from __future__ import annotations

from tests.support.html import soup

# What the identity provider's routes read (RFC 6749, OpenID Connect, our own sign-in and password pages).
_NAMES = (
    "client_id redirect_uri response_type scope state nonce code_challenge code_challenge_method prompt max_age "
    "login_hint ui_locales lang return_to id_token_hint post_logout_redirect_uri email password current_password "
    "new_password confirm_password grant_type code refresh_token token token_type_hint code_verifier"
).split()
_SOAP_FAULT = b"SOAP-ENV:Fault"


def test_every_route_outside_the_api_with_hostile_values_is_never_a_500(service_app, api_client):
    failed = []
    for rule in service_app.url_map.iter_rules():
        if rule.endpoint == "static" or rule.rule.startswith("/api/v1/"):
            continue
        path = rule.build(dict.fromkeys(rule.arguments, "1"), append_unknown=False)[1]
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            for value in ("²", "\x00"):
                values = dict.fromkeys(_NAMES, value)
                answer = api_client.open(
                    path,
                    method=method,
                    query_string=values if method == "GET" else None,
                    data=None if method == "GET" else values,
                )
                if answer.status_code >= 500 and _SOAP_FAULT not in answer.data:
                    failed.append(f"{method} {path} {value!r}: {answer.status_code}")
    assert not failed, failed


def test_an_authorization_request_with_characters_oauth_does_not_allow_gets_the_error_page(api_client):
    answer = api_client.get("/oauth/authorize", query_string={"response_type": "code²", "client_id": "cfe-portal"})
    assert answer.status_code == 400
    said = soup(answer).get_text(" ", strip=True)
    assert "invalid_request" in said and "response_type" in said and "caracteres que OAuth no admite" in said
    english = api_client.get("/oauth/authorize", query_string={"state": "\x00", "ui_locales": "en"})
    assert english.status_code == 400 and "state parameter has characters OAuth does not allow" in english.text
