"""The real client's API key methods against a live service: typed results and mapped errors."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from portal.client import CfeClient, Forbidden, NotFound, RateLimited, Unauthorized, ValidationError
from portal.client.apikeys import ApiKey, NewApiKey, RateLimit, WindowUsage
from portal.service.platform.auth import API_KEY, JWT, authenticate

PROBE = "/api/v1/_test/quien"


@pytest.fixture
def service(live_urls, service_config):
    """A live service with one test-only view that accepts API keys (as Comprobante and DGI do)."""
    from portal.service import create_app

    app = create_app(service_config)

    @app.get(PROBE)
    def quien():
        principal = authenticate((JWT, API_KEY))
        return {"empresa": principal.company_id, "clave": principal.api_key_id}

    server = live_urls[0].start(app)
    yield server
    app.extensions["db_engine"].dispose()


@pytest.fixture
def as_user(service):
    from tests.conftest import mint_token

    client = CfeClient(service.url)
    return lambda email, company_id=1: client.as_user(mint_token(service.app, email), company_id=company_id)


def test_create_list_change_limit_and_revoke_are_typed(as_user):
    admin = as_user("admin@demo.uy")
    created = admin.create_api_key("ERP", RateLimit(limit=10, window_seconds=30))
    assert isinstance(created, NewApiKey) and isinstance(created.key, ApiKey)
    assert created.secret.startswith(created.key.prefix) and created.key.prefix.startswith("cfe_live_")
    assert created.secret not in repr(created)
    assert created.key.active and created.key.rate_limit == RateLimit(10, 30)
    assert created.key.created_by == "admin@demo.uy" and created.key.created_at.tzinfo is not None
    assert isinstance(created.key.usage, WindowUsage) and created.key.usage.remaining == 10

    (listed,) = admin.list_api_keys().items
    assert listed.id == created.key.id and listed.last_used_at is None
    assert [e.action for e in listed.events] == ["crear"]
    assert (listed.events[0].name, listed.events[0].rate_limit_after) == ("ERP", RateLimit(10, 30))

    changed = admin.set_api_key_rate_limit(listed.id, RateLimit(limit=3, window_seconds=60))
    assert changed.rate_limit == RateLimit(3, 60)
    assert changed.events[0].action == "rate-limit"
    assert changed.events[0].rate_limit_before == RateLimit(10, 30)
    assert changed.events[0].rate_limit_after == RateLimit(3, 60)

    revoked = admin.revoke_api_key(listed.id)
    assert revoked.status == "revocada" and not revoked.active
    assert revoked.revoked_by == "admin@demo.uy" and revoked.revoked_at <= datetime.now(UTC)


def test_errors_map_to_the_client_hierarchy_with_fields(as_user):
    admin = as_user("admin@demo.uy")
    with pytest.raises(ValidationError) as caught:
        admin.create_api_key("ERP", RateLimit(limit=0, window_seconds=90_000))
    assert set(caught.value.field_messages()) == {"rateLimit.limite", "rateLimit.ventanaSegundos"}
    with pytest.raises(NotFound):
        admin.revoke_api_key("ak_nope/../../x")
    with pytest.raises(Forbidden):
        as_user("soporte@demo.uy").create_api_key("no")
    assert as_user("soporte@demo.uy").list_api_keys().items == ()
    with pytest.raises(Forbidden):
        as_user("usuario@demo.uy").list_api_keys()


def test_a_key_used_by_the_client_sees_401_after_revocation_and_429_over_its_limit(service, as_user):
    admin = as_user("admin@demo.uy")
    created = admin.create_api_key("cliente", RateLimit(limit=1, window_seconds=60))
    as_key = CfeClient(service.url, retries=0).as_user(api_key=created.secret)
    assert as_key._json("GET", PROBE) == {"empresa": 1, "clave": created.key.id}
    with pytest.raises(RateLimited) as caught:
        as_key._json("GET", PROBE)
    assert caught.value.status == 429 and 1 <= caught.value.retry_after <= 60
    assert caught.value.code == "rate_limited"

    admin.revoke_api_key(created.key.id)
    with pytest.raises(Unauthorized) as refused:
        as_key._json("GET", PROBE)
    assert refused.value.code == "revoked_api_key"
