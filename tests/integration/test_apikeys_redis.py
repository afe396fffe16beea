"""Two service processes sharing one Redis enforce one limit per key, and a revocation made through one
is refused by the other. Real processes (gunicorn), a real redis-server, the same database."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from tests.support.processes import Gunicorn, redis_server

pytestmark = pytest.mark.redis

PROBE = "/api/v1/_test/quien"
APP = "tests.integration.test_apikeys_redis:service_with_probe()"


def service_with_probe():
    """The service as `make run` builds it, plus one test-only view that accepts JWT or API key (as the
    Comprobante and DGI groups do). gunicorn loads it from this module."""
    from portal.domain.roles import WRITERS
    from portal.service import create_app
    from portal.service.platform.auth import API_KEY, JWT, authenticate, require_role

    app = create_app()

    @app.get(PROBE)
    def quien():
        principal = authenticate((JWT, API_KEY))
        require_role(principal, WRITERS)
        return {"empresa": principal.company_id, "clave": principal.api_key_id, "pid": os.getpid()}

    return app


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    with redis_server(tmp_path) as url:
        yield url


@pytest.fixture
def two_services(redis_url, service_config, tmp_path) -> Iterator[tuple[str, str]]:
    """Two gunicorn processes on two ports, on the test's database, counting limits in the same Redis."""
    env = {"CFE_DATABASE_URL": service_config["DATABASE_URL"], "CFE_RATELIMIT_STORAGE_URL": redis_url}
    services = [Gunicorn(APP, env, tmp_path / f"service-{name}.log", workers=1, threads=2) for name in ("a", "b")]
    try:
        for service in services:
            service.launch()
        for service in services:
            service.wait_ready()
        yield services[0].url, services[1].url
    finally:
        for service in services:
            service.stop()


def test_two_processes_sharing_redis_enforce_one_limit_and_one_revocation(two_services, auth_headers):
    a, b = two_services
    admin = auth_headers("admin@demo.uy", 1)
    created = requests.post(
        f"{a}/api/v1/apikeys",
        headers=admin,
        timeout=10,
        json={"nombre": "dos procesos", "rateLimit": {"limite": 3, "ventanaSegundos": 60}},
    )
    assert created.status_code == 201, created.text
    key = created.json()
    as_key = {"X-API-Key": key["clave"]}

    answers = [requests.get(base + PROBE, headers=as_key, timeout=10) for base in (a, b, a, b)]
    assert [r.status_code for r in answers] == [200, 200, 200, 429]
    assert len({r.json()["pid"] for r in answers[:2]}) == 2  # really two processes
    assert [r.headers["RateLimit"].split(";")[1] for r in answers] == ["r=2", "r=1", "r=0", "r=0"]
    last = answers[3]
    assert 1 <= int(last.headers["Retry-After"]) <= 60
    assert last.headers["RateLimit-Policy"] == '"default";q=3;w=60'

    usage = requests.get(f"{b}/api/v1/apikeys", headers=admin, timeout=10).json()["items"][0]["uso"]
    assert usage["usados"] == 3 and usage["restantes"] == 0

    raised = requests.post(
        f"{b}/api/v1/apikeys/{key['id']}/rate-limit",
        headers=admin,
        timeout=10,
        json={"limite": 5, "ventanaSegundos": 60},
    )
    assert raised.status_code == 200
    assert requests.get(a + PROBE, headers=as_key, timeout=10).status_code != 429

    revoked = requests.post(f"{a}/api/v1/apikeys/{key['id']}/revocar", headers=admin, timeout=10)
    assert revoked.status_code == 200
    for base in (b, a):
        refused = requests.get(base + PROBE, headers=as_key, timeout=10)
        assert refused.status_code == 401
        assert refused.json()["error"]["code"] == "revoked_api_key"


def test_with_redis_a_changed_limit_counts_what_the_key_already_used(redis_url, service_config, auth_headers):
    from portal.service import create_app
    from tests.integration.test_apikeys_service import _add_whoami, _limit, _served, create_key

    app = create_app({**service_config, "RATELIMIT_STORAGE_URL": redis_url})
    _add_whoami(app)
    client, admin = app.test_client(), auth_headers("admin@demo.uy", 1)
    key = create_key(client, admin, limite=5, ventanaSegundos=60)
    assert _served(client, key, 6) == 5
    _limit(client, admin, key, 10)
    assert _served(client, key, 8) == 5
    _limit(client, admin, key, 3)
    assert _served(client, key, 2) == 0
    app.extensions["db_engine"].dispose()
