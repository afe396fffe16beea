"""Sign-in failures are throttled per account and source, per source, and (more loosely) per account, without
locking the owner out: a few wrong passwords do not refuse the right one, and failures from other sources do not
keep the owner out from the source they usually sign in from."""

from __future__ import annotations

from tests.support.oidc import authorize_path, sign_in_at_provider

OWNER_HOME, ATTACKER, NEW_PLACE = "198.51.100.7", "203.0.113.9", "192.0.2.44"


def _client(service_app, address: str):
    client = service_app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def _try(service_app, address: str, password: str, email: str = "soporte@demo.uy") -> int:
    path = authorize_path()[0]  # a nonce used once, as a client does
    return sign_in_at_provider(_client(service_app, address), path, email, password).status_code


def test_four_wrong_passwords_then_the_right_one_signs_in(service_app):
    assert [_try(service_app, OWNER_HOME, "wrong") for _ in range(4)] == [422] * 4
    assert _try(service_app, OWNER_HOME, "demo-password") == 302


def test_a_source_guessing_one_account_is_stopped_after_five_and_the_owner_elsewhere_is_not(service_app):
    assert _try(service_app, OWNER_HOME, "demo-password") == 302  # the owner's usual source
    assert [_try(service_app, ATTACKER, "wrong") for _ in range(5)] == [422] * 5
    assert _try(service_app, ATTACKER, "demo-password") == 429  # even with the right password, from there
    assert _try(service_app, OWNER_HOME, "demo-password") == 302
    assert _try(service_app, NEW_PLACE, "demo-password") == 302


def test_a_distributed_guess_refuses_new_sources_but_not_the_owners_usual_one(service_app):
    assert _try(service_app, OWNER_HOME, "demo-password") == 302
    for n in range(50):  # 50 failures from 10 sources, 5 each: each source just under its own limit
        assert _try(service_app, f"10.0.{n // 5}.1", "wrong") == 422
    assert _try(service_app, NEW_PLACE, "demo-password") == 429
    assert _try(service_app, OWNER_HOME, "demo-password") == 302
    assert _try(service_app, NEW_PLACE, "demo-password", email="usuario@demo.uy") == 302  # other accounts unaffected


def test_a_source_spraying_many_accounts_is_stopped(service_app):
    emails = [f"nadie{n}@demo.uy" for n in range(30)]
    assert all(_try(service_app, ATTACKER, "wrong", email=email) == 422 for email in emails)
    assert _try(service_app, ATTACKER, "demo-password") == 429
    assert _try(service_app, OWNER_HOME, "demo-password") == 302
