"""Company API keys through the service: the four endpoints, `X-API-Key` authentication, rate limits and
their headers, revocation, company isolation, the audit record and bad input."""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
import socket
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select, update

from portal.domain.roles import WRITERS
from portal.service.platform.auth import API_KEY, JWT, authenticate, require_role

WHOAMI = "/api/v1/_test/quien"


@pytest.fixture
def keyed_app(service_app):
    """The service plus one test-only view that accepts a JWT or an API key, as Comprobante and DGI do."""
    _add_whoami(service_app)
    return service_app


def _add_whoami(app):
    @app.get(WHOAMI)
    def quien():
        principal = authenticate((JWT, API_KEY))
        require_role(principal, WRITERS)
        return {
            "empresa": principal.company_id,
            "rol": principal.role.value,
            "tipo": principal.kind,
            "clave": principal.api_key_id,
        }


@pytest.fixture
def client(keyed_app):
    return keyed_app.test_client()


@pytest.fixture
def admin(auth_headers):
    return auth_headers("admin@demo.uy", 1)


def create_key(client, headers, nombre="ERP de prueba", **rate_limit) -> dict:
    body = {"nombre": nombre, **({"rateLimit": rate_limit} if rate_limit else {})}
    answer = client.post("/api/v1/apikeys", json=body, headers=headers)
    assert answer.status_code == 201, answer.json
    return answer.json


def listed(client, headers) -> dict[str, dict]:
    answer = client.get("/api/v1/apikeys", headers=headers)
    assert answer.status_code == 200, answer.json
    return {k["id"]: k for k in answer.json["items"]}


def parse_ratelimit(value: str) -> dict[str, int]:
    assert value.startswith('"default";'), value
    return {k: int(v) for k, v in re.findall(r";(\w)=(\d+)", value)}


def test_create_answers_the_key_once_and_the_service_keeps_only_its_hmac(client, admin, keyed_app):
    answer = client.post("/api/v1/apikeys", json={"nombre": "  ERP  "}, headers=admin)
    assert answer.status_code == 201
    assert answer.headers["Cache-Control"] == "no-store"
    created = answer.json
    secret = created["clave"]
    assert re.fullmatch(r"cfe_live_[A-Za-z0-9_-]{43}", secret)  # 32 random bytes
    assert re.fullmatch(r"ak_[A-Za-z0-9]{12}", created["id"])
    assert created["prefijo"] == secret[:16]
    assert created["nombre"] == "ERP" and created["estado"] == "activa"
    assert created["creadaPor"] == "admin@demo.uy"
    assert created["rateLimit"] == {"limite": 600, "ventanaSegundos": 60}
    assert created["uso"]["usados"] == 0 and created["uso"]["restantes"] == 600

    listing = client.get("/api/v1/apikeys", headers=admin)
    assert secret not in listing.get_data(as_text=True)
    assert "clave" not in listing.json["items"][0]

    from portal.service.apikeys.models import ApiKey
    from portal.service.platform import db

    with keyed_app.app_context():
        row = db.session().scalar(select(ApiKey).where(ApiKey.public_id == created["id"]))
        pepper = keyed_app.config["API_KEY_PEPPER"].encode()
        assert row.key_hash == hmac.new(pepper, secret.encode(), hashlib.sha256).hexdigest()
        stored = [str(getattr(row, c.key)) for c in ApiKey.__table__.columns]
        assert not any(secret in value or secret[16:30] in value for value in stored)


def test_two_keys_never_share_a_secret_or_an_id(client, admin):
    first, second = create_key(client, admin, "uno"), create_key(client, admin, "dos")
    assert first["clave"] != second["clave"] and first["id"] != second["id"]


def test_a_key_authenticates_as_a_usuario_of_its_company_with_ratelimit_headers(client, admin):
    key = create_key(client, admin)
    answer = client.get(WHOAMI, headers={"X-API-Key": key["clave"]})
    assert answer.status_code == 200
    assert answer.json == {"empresa": 1, "rol": "usuario", "tipo": "apikey", "clave": key["id"]}
    assert answer.headers["RateLimit-Policy"] == '"default";q=600;w=60'
    state = parse_ratelimit(answer.headers["RateLimit"])
    assert state["r"] == 599 and 1 <= state["t"] <= 60
    assert "Retry-After" not in answer.headers


def test_jwt_keeps_working_where_keys_are_accepted_and_carries_no_ratelimit_headers(client, auth_headers):
    answer = client.get(WHOAMI, headers=auth_headers("usuario@demo.uy"))
    assert answer.status_code == 200 and answer.json["tipo"] == "jwt"
    assert "RateLimit" not in answer.headers


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/api/v1/apikeys"),
        ("POST", "/api/v1/apikeys"),
        ("POST", "/api/v1/apikeys/{id}/revocar"),
        ("POST", "/api/v1/apikeys/{id}/rate-limit"),
    ],
)
def test_the_api_key_group_accepts_only_a_jwt(client, admin, method, path):
    key = create_key(client, admin)
    answer = client.open(
        path.format(id=key["id"]),
        method=method,
        headers={"X-API-Key": key["clave"]},
        json={"limite": 1, "ventanaSegundos": 1},
    )
    assert answer.status_code == 401
    assert answer.json["error"]["code"] == "jwt_required"


@pytest.mark.parametrize(
    ("email", "allowed"),
    [
        ("admin@demo.uy", {"list", "create", "revoke", "limit"}),
        ("soporte@demo.uy", {"list"}),
        ("usuario@demo.uy", set()),
    ],
)
def test_roles_admin_does_everything_soporte_lists_usuario_gets_403(client, admin, auth_headers, email, allowed):
    key = create_key(client, admin)
    headers = auth_headers(email, 1)
    calls = {
        "list": lambda: client.get("/api/v1/apikeys", headers=headers),
        "create": lambda: client.post("/api/v1/apikeys", json={"nombre": "x"}, headers=headers),
        "limit": lambda: client.post(
            f"/api/v1/apikeys/{key['id']}/rate-limit", headers=headers, json={"limite": 5, "ventanaSegundos": 60}
        ),
        "revoke": lambda: client.post(f"/api/v1/apikeys/{key['id']}/revocar", headers=headers),
    }
    for name, call in calls.items():
        answer = call()
        if name in allowed:
            assert answer.status_code in (200, 201), (name, answer.json)
        else:
            assert answer.status_code == 403, name
            assert answer.json["error"]["code"] == "rol_insuficiente"


def test_after_rate_limit_3_per_60s_the_4th_request_gets_429_with_retry_after(client, admin):
    key = create_key(client, admin)
    changed = client.post(
        f"/api/v1/apikeys/{key['id']}/rate-limit", headers=admin, json={"limite": 3, "ventanaSegundos": 60}
    )
    assert changed.status_code == 200
    assert changed.json["rateLimit"] == {"limite": 3, "ventanaSegundos": 60}
    headers = {"X-API-Key": key["clave"]}
    remaining = []
    for _ in range(3):
        answer = client.get(WHOAMI, headers=headers)
        assert answer.status_code == 200
        assert answer.headers["RateLimit-Policy"] == '"default";q=3;w=60'
        remaining.append(parse_ratelimit(answer.headers["RateLimit"])["r"])
    assert remaining == [2, 1, 0]

    refused = client.get(WHOAMI, headers=headers)
    assert refused.status_code == 429
    assert refused.json["error"]["code"] == "rate_limited"
    assert refused.json["error"]["requestId"] == refused.headers["X-Request-ID"]
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert refused.json["error"]["message"].endswith(f"Reintentá en {refused.headers['Retry-After']} s.")
    english = client.get(WHOAMI, headers={**headers, "Accept-Language": "en"})
    assert english.status_code == 429
    assert english.json["error"]["message"].startswith("The API key's limit was exceeded (3 requests every 60 s).")
    assert refused.headers["RateLimit-Policy"] == '"default";q=3;w=60'
    state = parse_ratelimit(refused.headers["RateLimit"])
    assert state["r"] == 0 and state["t"] == int(refused.headers["Retry-After"])

    usage = listed(client, admin)[key["id"]]["uso"]
    assert usage["usados"] == 3 and usage["restantes"] == 0
    assert datetime.fromisoformat(usage["reiniciaEn"]) > datetime.now(UTC)


def test_a_changed_limit_takes_effect_on_the_next_request(client, admin):
    key = create_key(client, admin, limite=1, ventanaSegundos=3600)
    headers = {"X-API-Key": key["clave"]}
    assert client.get(WHOAMI, headers=headers).status_code == 200
    assert client.get(WHOAMI, headers=headers).status_code == 429
    client.post(f"/api/v1/apikeys/{key['id']}/rate-limit", headers=admin, json={"limite": 10, "ventanaSegundos": 60})
    answer = client.get(WHOAMI, headers=headers)
    assert answer.status_code == 200
    assert answer.headers["RateLimit-Policy"] == '"default";q=10;w=60'


def _limit(client, admin, key, limite, ventana=60):
    answer = client.post(
        f"/api/v1/apikeys/{key['id']}/rate-limit", headers=admin, json={"limite": limite, "ventanaSegundos": ventana}
    )
    assert answer.status_code == 200, answer.json


def _served(client, key, tries) -> int:
    return sum(client.get(WHOAMI, headers={"X-API-Key": key["clave"]}).status_code == 200 for _ in range(tries))


def test_raising_a_limit_gives_only_the_difference_in_the_same_window(client, admin):
    key = create_key(client, admin, limite=5, ventanaSegundos=60)
    assert _served(client, key, 6) == 5
    _limit(client, admin, key, 10)
    assert _served(client, key, 8) == 5
    usage = listed(client, admin)[key["id"]]["uso"]
    assert usage["usados"] == 10 and usage["restantes"] == 0


def test_lowering_a_limit_cuts_a_runaway_key_off_in_the_same_window(client, admin):
    key = create_key(client, admin, limite=5, ventanaSegundos=60)
    assert _served(client, key, 5) == 5
    _limit(client, admin, key, 3)
    refused = client.get(WHOAMI, headers={"X-API-Key": key["clave"]})
    assert refused.status_code == 429
    assert refused.headers["RateLimit-Policy"] == '"default";q=3;w=60'
    assert parse_ratelimit(refused.headers["RateLimit"])["r"] == 0
    key2 = create_key(client, admin, nombre="otra", limite=5, ventanaSegundos=60)
    assert _served(client, key2, 2) == 2
    _limit(client, admin, key2, 3)
    assert _served(client, key2, 3) == 1  # 2 already used of the new 3


def test_a_revoked_key_gets_401_on_its_next_request_and_revoking_again_changes_nothing(client, admin):
    key = create_key(client, admin)
    headers = {"X-API-Key": key["clave"]}
    assert client.get(WHOAMI, headers=headers).status_code == 200

    revoked = client.post(f"/api/v1/apikeys/{key['id']}/revocar", headers=admin)
    assert revoked.status_code == 200
    assert revoked.json["estado"] == "revocada" and revoked.json["revocadaPor"] == "admin@demo.uy"
    refused = client.get(WHOAMI, headers=headers)
    assert refused.status_code == 401
    assert refused.json["error"]["code"] == "revoked_api_key"

    again = client.post(f"/api/v1/apikeys/{key['id']}/revocar", headers=admin)
    assert again.status_code == 200 and again.json == revoked.json
    assert [e["accion"] for e in again.json["eventos"]] == ["revocar", "crear"]

    limit = client.post(
        f"/api/v1/apikeys/{key['id']}/rate-limit", headers=admin, json={"limite": 5, "ventanaSegundos": 60}
    )
    assert limit.status_code == 409 and limit.json["error"]["code"] == "clave_revocada"


def test_a_key_of_company_a_cannot_touch_company_b(client, auth_headers):
    admin_a, admin_b = auth_headers("admin@demo.uy", 1), auth_headers("admin@demo.uy", 2)
    key_a = create_key(client, admin_a, "de A")
    key_b = create_key(client, admin_b, "de B")

    assert set(listed(client, admin_b)) == {key_b["id"]}
    for path in (f"/api/v1/apikeys/{key_a['id']}/revocar", f"/api/v1/apikeys/{key_a['id']}/rate-limit"):
        answer = client.post(path, headers=admin_b, json={"limite": 1, "ventanaSegundos": 1})
        assert answer.status_code == 404
        assert answer.json["error"]["code"] == "apikey_not_found"
    assert listed(client, admin_a)[key_a["id"]]["estado"] == "activa"

    as_a = {"X-API-Key": key_a["clave"]}
    assert client.get(WHOAMI, headers=as_a).json["empresa"] == 1
    for asks_for_b in ({**as_a, "X-Empresa-Id": "2"}, as_a):
        query = "" if "X-Empresa-Id" in asks_for_b else "?idEmpresa=2"
        answer = client.get(WHOAMI + query, headers=asks_for_b)
        assert answer.status_code == 403
        assert answer.json["error"]["code"] == "empresa_ajena"
    assert client.get(WHOAMI + "?idEmpresa=1", headers=as_a).status_code == 200


@pytest.mark.parametrize(
    "raw",
    [
        "nonsense",
        "cfe_live_",
        "cfe_live_" + "A" * 43,
        "cfe_live_" + "A" * 200,
        "cfe_live_ñandú",
    ],
)
def test_unknown_or_malformed_keys_get_401(client, raw):
    answer = client.get(WHOAMI, headers={"X-API-Key": raw})
    assert answer.status_code == 401
    assert answer.json["error"]["code"] == "invalid_api_key"


@pytest.mark.parametrize(
    ("body", "field", "code"),
    [
        ({"limite": 0, "ventanaSegundos": 60}, "limite", "greater_than_equal"),
        ({"limite": 100_001, "ventanaSegundos": 60}, "limite", "less_than_equal"),
        ({"limite": 10, "ventanaSegundos": 0}, "ventanaSegundos", "greater_than_equal"),
        ({"limite": 10, "ventanaSegundos": 86_401}, "ventanaSegundos", "less_than_equal"),
        ({"limite": "10", "ventanaSegundos": 60}, "limite", "int_type"),
        ({"limite": True, "ventanaSegundos": 60}, "limite", "int_type"),
        ({"limite": 2.5, "ventanaSegundos": 60}, "limite", "int_type"),
        ({"limite": None, "ventanaSegundos": 60}, "limite", "int_type"),
        ({"ventanaSegundos": 60}, "limite", "missing"),
        ({"limite": 10, "ventanaSegundos": 60, "ventana": 5}, "ventana", "extra_forbidden"),
        ([10, 60], "body", "model_type"),
    ],
)
def test_bad_rate_limits_get_422_naming_the_field(client, admin, body, field, code):
    key = create_key(client, admin)
    answer = client.post(f"/api/v1/apikeys/{key['id']}/rate-limit", json=body, headers=admin)
    assert answer.status_code == 422
    error = answer.json["error"]
    assert error["code"] == "validation_error"
    assert (field, code) in {(f["field"], f["code"]) for f in error["fields"]}
    assert listed(client, admin)[key["id"]]["rateLimit"] == {"limite": 600, "ventanaSegundos": 60}


@pytest.mark.parametrize(
    ("body", "field", "code"),
    [
        ({"nombre": ""}, "nombre", "string_too_short"),
        ({"nombre": "   "}, "nombre", "string_too_short"),
        ({"nombre": "x" * 81}, "nombre", "string_too_long"),
        ({"nombre": 5}, "nombre", "string_type"),
        ({"nombre": "a\x00b"}, "nombre", "value_error"),
        ({}, "nombre", "missing"),
        ({"nombre": "x", "rateLimit": {"limite": 0, "ventanaSegundos": 60}}, "rateLimit.limite", "greater_than_equal"),
        ({"nombre": "x", "clave": "cfe_live_mine"}, "clave", "extra_forbidden"),
    ],
)
def test_bad_create_bodies_get_422_and_create_nothing(client, admin, body, field, code):
    answer = client.post("/api/v1/apikeys", json=body, headers=admin)
    assert answer.status_code == 422
    assert (field, code) in {(f["field"], f["code"]) for f in answer.json["error"]["fields"]}
    assert listed(client, admin) == {}


def test_malformed_bodies_and_unknown_ids_get_clear_4xx(client, admin):
    not_json = client.post(
        "/api/v1/apikeys", data="nombre=x", headers=admin, content_type="application/x-www-form-urlencoded"
    )
    assert not_json.status_code == 415 and not_json.json["error"]["code"] == "unsupported_media_type"
    broken = client.post("/api/v1/apikeys", data="{nombre", headers=admin, content_type="application/json")
    assert broken.status_code == 422 and broken.json["error"]["fields"][0]["code"] == "json_invalid"
    for path in ("/api/v1/apikeys/ak_doesnotexist/revocar", "/api/v1/apikeys/ak_doesnotexist/rate-limit"):
        answer = client.post(path, headers=admin, json={"limite": 1, "ventanaSegundos": 1})
        assert answer.status_code == 404 and answer.json["error"]["code"] == "apikey_not_found"


def test_every_create_revoke_and_limit_change_is_recorded_with_who_when_old_and_new(client, admin):
    key = create_key(client, admin, "ERP", limite=100, ventanaSegundos=60)
    client.post(f"/api/v1/apikeys/{key['id']}/rate-limit", headers=admin, json={"limite": 3, "ventanaSegundos": 30})
    # The same value again is not a change: nothing new to record.
    client.post(f"/api/v1/apikeys/{key['id']}/rate-limit", headers=admin, json={"limite": 3, "ventanaSegundos": 30})
    client.post(f"/api/v1/apikeys/{key['id']}/revocar", headers=admin)
    events = listed(client, admin)[key["id"]]["eventos"]
    assert [(e["accion"], e.get("anterior"), e.get("nuevo")) for e in events] == [
        ("revocar", {"estado": "activa"}, {"estado": "revocada"}),
        ("rate-limit", {"limite": 100, "ventanaSegundos": 60}, {"limite": 3, "ventanaSegundos": 30}),
        ("crear", None, {"nombre": "ERP", "rateLimit": {"limite": 100, "ventanaSegundos": 60}}),
    ]
    assert {e["actor"] for e in events} == {"admin@demo.uy"}
    moments = [datetime.fromisoformat(e["fecha"]) for e in events]
    assert moments == sorted(moments, reverse=True)
    assert datetime.now(UTC) - moments[-1] < timedelta(minutes=1)


def test_last_use_is_recorded_at_most_once_a_minute(client, admin, keyed_app):
    from portal.service.apikeys.models import ApiKey
    from portal.service.platform import db

    key = create_key(client, admin)
    assert "ultimoUso" not in listed(client, admin)[key["id"]]
    client.get(WHOAMI, headers={"X-API-Key": key["clave"]})
    first = listed(client, admin)[key["id"]]["ultimoUso"]
    client.get(WHOAMI, headers={"X-API-Key": key["clave"]})
    assert listed(client, admin)[key["id"]]["ultimoUso"] == first

    with keyed_app.app_context():
        session = db.session()
        session.execute(
            update(ApiKey)
            .where(ApiKey.public_id == key["id"])
            .values(last_used_at=datetime.now(UTC) - timedelta(minutes=2))
        )
        session.commit()
    client.get(WHOAMI, headers={"X-API-Key": key["clave"]})
    assert datetime.fromisoformat(listed(client, admin)[key["id"]]["ultimoUso"]) > datetime.fromisoformat(first)


def test_the_secret_is_never_logged(client, admin, caplog):
    caplog.set_level(logging.DEBUG)
    key = create_key(client, admin)
    client.get(WHOAMI, headers={"X-API-Key": key["clave"]})
    client.post(f"/api/v1/apikeys/{key['id']}/revocar", headers=admin)
    client.get(WHOAMI, headers={"X-API-Key": key["clave"]})
    assert caplog.records, "the access log should have recorded the requests"
    assert all(key["clave"][9:] not in r.getMessage() for r in caplog.records)


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_redis_down_fails_open_the_limit_but_never_the_key_checks(service_config, auth_headers, caplog):
    """With the limits storage unreachable, valid keys still work (no limit, no RateLimit headers, one
    warning); revoked and unknown keys are still refused, since those checks live in the database."""
    from portal.service import create_app

    app = create_app({**service_config, "RATELIMIT_STORAGE_URL": f"redis://127.0.0.1:{_closed_port()}/0"})
    _add_whoami(app)
    client, admin = app.test_client(), auth_headers("admin@demo.uy", 1)
    caplog.set_level(logging.WARNING, logger="portal.service.apikeys")
    try:
        key = create_key(client, admin, limite=1, ventanaSegundos=60)
        assert "uso" not in key
        for _ in range(3):
            answer = client.get(WHOAMI, headers={"X-API-Key": key["clave"]})
            assert answer.status_code == 200
            assert "RateLimit" not in answer.headers
        warnings = [r for r in caplog.records if "fail open" in r.getMessage()]
        assert len(warnings) == 1
        assert "uso" not in listed(client, admin)[key["id"]]
        client.post(f"/api/v1/apikeys/{key['id']}/revocar", headers=admin)
        assert client.get(WHOAMI, headers={"X-API-Key": key["clave"]}).status_code == 401
        assert client.get(WHOAMI, headers={"X-API-Key": "cfe_live_" + "B" * 43}).status_code == 401
    finally:
        app.extensions["db_engine"].dispose()


def test_the_four_operations_are_documented_as_jwt_only(client):
    doc = client.get("/api/v1/openapi.json").json
    operations = {
        (m, p): doc["paths"][p][m] for p in doc["paths"] if p.startswith("/api/v1/apikeys") for m in doc["paths"][p]
    }
    assert set(operations) == {
        ("get", "/api/v1/apikeys"),
        ("post", "/api/v1/apikeys"),
        ("post", "/api/v1/apikeys/{apikey_id}/revocar"),
        ("post", "/api/v1/apikeys/{apikey_id}/rate-limit"),
    }
    for op in operations.values():
        assert op["tags"] == ["Empresa API Key"]
        assert op["security"] == [{"bearerAuth": []}]
    create = operations[("post", "/api/v1/apikeys")]
    assert create["responses"]["201"]["content"]["application/json"]["schema"]["$ref"].endswith("/ApiKeyCreated")
    limit_schema = doc["components"]["schemas"]["RateLimit"]["properties"]["limite"]
    assert limit_schema["minimum"] == 1 and limit_schema["maximum"] == 100_000


def test_the_limit_is_enforced_again_as_soon_as_the_storage_answers(client, admin, keyed_app, monkeypatch, caplog):
    from redis.exceptions import ConnectionError as RedisConnectionError

    key = create_key(client, admin, limite=2, ventanaSegundos=60)
    headers = {"X-API-Key": key["clave"]}
    limiter = keyed_app.extensions["ratelimiter"]

    def broken(*_args, **_kwargs):
        raise RedisConnectionError("connection refused")

    caplog.set_level(logging.WARNING, logger="portal.service.apikeys")
    monkeypatch.setattr(limiter, "hit", broken)
    down = client.get(WHOAMI, headers=headers)
    assert down.status_code == 200 and "RateLimit" not in down.headers
    monkeypatch.undo()
    # Within the pause after a failure the storage is not asked at all...
    assert "RateLimit" not in client.get(WHOAMI, headers=headers).headers
    # ...and once it is over (here: made to be over), the limit holds again.
    keyed_app.extensions["apikey_limit_breaker"]._down_until = 1.0
    assert [client.get(WHOAMI, headers=headers).status_code for _ in range(3)] == [200, 200, 429]
    messages = [r.getMessage() for r in caplog.records]
    assert sum("fail open" in m for m in messages) == 1 and sum("reachable again" in m for m in messages) == 1
