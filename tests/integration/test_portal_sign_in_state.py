"""The portal's callback accepts only a sign-in it started: an unknown or replayed state is refused (400)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from tests.support.oidc import provider_sign_in


def test_a_callback_with_a_state_the_portal_never_issued_is_refused(portal_client):
    portal_client.get("/auth/login")
    answer = portal_client.get("/auth/callback?code=x&state=forged")
    assert answer.status_code == 400


def test_a_callback_is_good_once(portal_client):
    authorize = portal_client.get("/auth/login").headers["Location"]
    back = urlsplit(provider_sign_in(authorize, "usuario@demo.uy").headers["Location"])
    assert portal_client.get(f"{back.path}?{back.query}").status_code == 302
    assert "state" in parse_qs(back.query)
    assert portal_client.get(f"{back.path}?{back.query}").status_code == 400
