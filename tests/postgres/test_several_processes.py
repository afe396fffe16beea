"""Two service processes and two portal processes behind one PostgreSQL and one Redis, as production runs
them (gunicorn with deploy/'s settings): numbering stays gapless, Idempotency-Keys, rate limits and
revocations hold across processes, and portal sessions are shared and survive a portal restart."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from urllib.parse import urlsplit

import pytest
import requests
from lxml import etree

from tests.conftest import mint_token
from tests.support import cfe_bodies as bodies
from tests.support.oidc import provider_sign_in
from tests.support.processes import Gunicorn, redis_server

# No assertion here is about time (a restart is waited for, never timed; the rate limit is a moving window of 60 s
# that four requests stay inside however loaded the machine is): these run with the parallel suite, and make
# test's serial phase, one core's worth of wall time, is 9 s shorter.

EMITIR = "/api/v1/comprobante/emitir"


@dataclass
class Cluster:
    services: list[Gunicorn]
    portals: list[Gunicorn]
    service_app: object  # the same configuration in-process, to mint tokens with

    def headers(self, email: str, company_id: int | None = None) -> dict[str, str]:
        headers = {"Authorization": f"Bearer {mint_token(self.service_app, email)}"}
        return headers if company_id is None else {**headers, "X-Empresa-Id": str(company_id)}


@pytest.fixture(scope="module")
def cluster(postgres_server, pg_template, tmp_path_factory) -> Iterator[Cluster]:
    """Started once for this module's tests (four gunicorns take a while); each test leaves the others'
    assertions intact (only the first issues receipts, and it reads numbers relative to what it found)."""
    from portal.service import create_app
    from portal.service.platform import db as service_db
    from portal.service.seed import sync_portal_client
    from portal.web.activity import upgrade as upgrade_portal_db

    tmp_path = tmp_path_factory.mktemp("several")
    service_database, portal_db = (f"{kind}_{uuid.uuid4().hex[:12]}" for kind in ("service", "portal"))
    with postgres_server.admin() as admin:
        admin.execute(f"CREATE DATABASE {service_database} TEMPLATE {pg_template}")
        admin.execute(f"CREATE DATABASE {portal_db}")
    pg_url = postgres_server.url(service_database)
    portal_url = postgres_server.url(portal_db)
    upgrade_portal_db(portal_url)
    services = [Gunicorn("portal.service:create_app()", {}, tmp_path / f"service-{n}.log", threads=8) for n in "ab"]
    portals = [
        Gunicorn(
            "portal.web:create_app()", {}, tmp_path / f"portal-{n}.log", config="gunicorn-portal.conf.py", threads=4
        )
        for n in "ab"
    ]
    callbacks = " ".join(f"{p.url}/auth/callback" for p in portals)
    logouts = " ".join(f"{p.url}/" for p in portals)
    issuer = services[0].url  # one OpenID provider identity, whichever process answers
    app = create_app(
        {
            "DATABASE_URL": pg_url,
            "ISSUER": issuer,
            "PORTAL_REDIRECT_URIS": callbacks.split(),
            "PORTAL_POST_LOGOUT_URIS": logouts.split(),
        }
    )
    with service_db.command_context(app):
        sync_portal_client(service_db.session())
        service_db.session().commit()
    try:
        with redis_server(tmp_path) as redis_url:
            for service in services:
                service.env.update(
                    CFE_DATABASE_URL=pg_url,
                    CFE_RATELIMIT_STORAGE_URL=redis_url,
                    CFE_ISSUER_URL=issuer,
                    CFE_PORTAL_REDIRECT_URIS=callbacks,
                    CFE_PORTAL_POST_LOGOUT_URIS=logouts,
                )
            for portal, service in zip(portals, services, strict=True):
                portal.env.update(
                    CFE_SERVICE_URL=service.url,
                    CFE_ISSUER_URL=issuer,
                    PORTAL_DATABASE_URL=portal_url,
                    PORTAL_SESSION_REDIS_URL=redis_url,
                    PORTAL_PUBLIC_URL=portal.url,
                )
            for server in [*services, *portals]:
                server.launch()
            for server in services:
                server.wait_ready()
            for server in portals:
                server.wait_ready(health="/")
            yield Cluster(services, portals, app)
    finally:
        for server in [*portals, *services]:
            server.stop()
        app.extensions["db_engine"].dispose()
        with postgres_server.admin() as admin:
            for name in (service_database, portal_db):
                admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def test_issuing_through_both_processes_is_gapless_and_one_key_gives_one_receipt(cluster):
    a, b = (s.url for s in cluster.services)
    headers = cluster.headers("usuario@demo.uy")
    start = threading.Barrier(16)

    def issue_many(index: int) -> list[dict]:
        start.wait()
        base = a if index % 2 else b
        answers = []
        for n in range(8):
            answer = requests.post(
                base + EMITIR,
                json=bodies.body(bodies.ETICKET),
                timeout=60,
                headers={**headers, "Idempotency-Key": f"p{index}-{n}"},
            )
            assert answer.status_code == 201, answer.text
            answers.append(answer.json())
        return answers

    def same_key_at_both(index: int) -> list[requests.Response]:
        pair = threading.Barrier(2)

        def post(base: str) -> requests.Response:
            pair.wait()
            return requests.post(
                base + EMITIR,
                json=bodies.body(bodies.ETICKET),
                timeout=60,
                headers={**headers, "Idempotency-Key": f"shared-{index}"},
            )

        with ThreadPoolExecutor(max_workers=2) as pool:
            return list(pool.map(post, (a, b)))

    with ThreadPoolExecutor(max_workers=16) as pool:
        issued = [r for answers in pool.map(issue_many, range(16)) for r in answers]
    with ThreadPoolExecutor(max_workers=4) as pool:
        pairs = list(pool.map(same_key_at_both, range(8)))

    for first, second in pairs:
        assert first.status_code == second.status_code == 201, (first.text, second.text)
        assert first.json()["idCfeEmitido"] == second.json()["idCfeEmitido"]
        assert "true" in (first.headers.get("Idempotent-Replayed"), second.headers.get("Idempotent-Replayed"))
    numbers = sorted([r["nro"] for r in issued] + [p[0].json()["nro"] for p in pairs])
    assert numbers == list(range(numbers[0], numbers[0] + 16 * 8 + 8))


def test_rate_limits_and_revocation_hold_across_service_processes(cluster):
    a, b = (s.url for s in cluster.services)
    admin = cluster.headers("admin@demo.uy", 1)
    created = requests.post(
        f"{a}/api/v1/apikeys",
        headers=admin,
        timeout=10,
        json={"nombre": "dos procesos", "rateLimit": {"limite": 3, "ventanaSegundos": 60}},
    )
    assert created.status_code == 201, created.text
    key = created.json()
    as_key = {"X-API-Key": key["clave"]}
    probe = "/api/v1/comprobante/getByIdCfeEmitido?idCfeEmitido=no-existe"
    answers = [requests.get(base + probe, headers=as_key, timeout=10) for base in (a, b, a, b)]
    assert [r.status_code for r in answers] == [404, 404, 404, 429]

    revoked = requests.post(f"{b}/api/v1/apikeys/{key['id']}/revocar", headers=admin, timeout=10)
    assert revoked.status_code == 200
    for base in (a, b):
        assert requests.get(base + probe, headers=as_key, timeout=10).json()["error"]["code"] == "revoked_api_key"


def test_a_settings_change_through_one_process_signs_the_other_ones_next_receipt(cluster):
    # Each process keeps the issuer until the company's cache generation moves (readcache.py; migration 0290's
    # triggers bump it in the change's own transaction): the other process's next receipt uses the change.
    a, b = (s.url for s in cluster.services)
    admin = cluster.headers("admin@demo.uy", 1)

    def iva_al_dia_flag_issued_at(base: str) -> str | None:
        answer = requests.post(base + EMITIR, json=bodies.body(bodies.ETICKET), headers=admin, timeout=60)
        assert answer.status_code == 201, answer.text
        xml = requests.get(
            f"{base}/api/v1/comprobante/getByIdCfeEmitido",
            params={"idCfeEmitido": answer.json()["idCfeEmitido"]},
            headers={**admin, "Accept": "application/xml"},
            timeout=30,
        ).content
        return etree.fromstring(xml).findtext(".//{http://cfe.dgi.gub.uy}IVAalDia")

    settings = {"regimen": "general", "resolucion": "1516/2021", "ivaAlDia": True, "formatoPapel": "a4"}
    assert iva_al_dia_flag_issued_at(b) is None  # b now keeps the issuer
    changed = requests.put(
        f"{a}/api/v1/empresa/configuracion", json={**settings, "ivaAlDia": False}, headers=admin, timeout=10
    )
    assert changed.status_code == 200, changed.text
    try:
        assert iva_al_dia_flag_issued_at(b) == "1"
    finally:
        requests.put(f"{a}/api/v1/empresa/configuracion", json=settings, headers=admin, timeout=10)


def _sign_in(browser: requests.Session, portal: str, email: str) -> None:
    start = browser.get(f"{portal}/auth/login", allow_redirects=False, timeout=10)
    assert start.status_code == 302
    answer = provider_sign_in(start.headers["Location"], email)
    assert answer.status_code == 302, answer.text[:300]
    callback = urlsplit(answer.headers["Location"])
    done = browser.get(f"{portal}{callback.path}?{callback.query}", allow_redirects=False, timeout=10)
    assert done.status_code == 302, done.text[:300]


def _signed_in(browser: requests.Session, portal: str) -> bool:
    page = browser.get(f"{portal}/comprobantes/", allow_redirects=False, timeout=20)
    assert page.status_code in (200, 302), page.status_code
    return page.status_code == 200


def test_portal_sessions_are_shared_by_both_portals_and_survive_a_restart(cluster):
    a, b = cluster.portals
    browser = requests.Session()
    assert not _signed_in(browser, a.url)
    _sign_in(browser, a.url, "usuario@demo.uy")
    assert _signed_in(browser, a.url)
    assert _signed_in(browser, b.url)  # the other process reads the same session from Redis

    a.stop()
    a.start(health="/")
    assert _signed_in(browser, a.url)  # nothing of the session lived in the process
