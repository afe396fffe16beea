"""The service's common machinery: error shape, request ids, health, OpenAPI, security headers."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest


def test_healthz(api_client):
    assert api_client.get("/healthz").json == {"status": "ok"}


@pytest.mark.parametrize(
    ("method", "path", "status", "code"),
    [
        ("GET", "/api/v1/no-such-thing", 404, "not_found"),
        ("DELETE", "/api/v1/openapi.json", 405, "method_not_allowed"),
    ],
)
def test_http_errors_use_the_json_error_shape(api_client, method, path, status, code):
    answer = api_client.open(path, method=method)
    assert answer.status_code == status
    assert answer.mimetype == "application/json"
    error = answer.json["error"]
    assert error["code"] == code and error["message"] and error["fields"] == []
    assert error["requestId"] == answer.headers["X-Request-ID"]


def test_unexpected_exceptions_become_a_500_without_a_stack_trace(service_app):
    @service_app.get("/api/v1/_boom")
    def boom():
        raise RuntimeError("secret internals")

    answer = service_app.test_client().get("/api/v1/_boom")
    assert answer.status_code == 500
    assert answer.json["error"]["code"] == "internal_error"
    assert "secret internals" not in answer.get_data(as_text=True)
    assert "Traceback" not in answer.get_data(as_text=True)


def test_an_unexpected_exception_outside_the_api_is_said_in_the_readers_language(service_app):
    """The plain-text 500 of the pages that are not the API (the identity provider's sign-in, which a person reads)
    says it in the language asked for, with the request's code, and nothing of the exception."""

    @service_app.get("/_boom")
    def boom():
        raise RuntimeError("secret internals")

    client = service_app.test_client()
    english = client.get("/_boom", headers={"Accept-Language": "en", "X-Request-ID": "abc-123"})
    assert english.status_code == 500 and english.mimetype == "text/plain"
    assert english.get_data(as_text=True) == "Internal error. Request code: abc-123"
    assert english.headers["Content-Language"] == "en" and "Accept-Language" in english.headers["Vary"]
    spanish = client.get("/_boom", headers={"X-Request-ID": "abc-123"})
    assert spanish.get_data(as_text=True) == "Error interno. Código de solicitud: abc-123"


def test_well_formed_request_id_is_kept_and_bad_one_replaced(api_client):
    kept = api_client.get("/healthz", headers={"X-Request-ID": "erp-123.abc"})
    assert kept.headers["X-Request-ID"] == "erp-123.abc"
    replaced = api_client.get("/healthz", headers={"X-Request-ID": "bad id with spaces"})
    assert replaced.headers["X-Request-ID"] != "bad id with spaces"
    assert len(replaced.headers["X-Request-ID"]) == 32


def test_requests_without_credentials_get_401_with_www_authenticate(api_client):
    answer = api_client.get("/oauth/userinfo")
    assert answer.status_code == 401
    assert answer.headers["WWW-Authenticate"].startswith("Bearer")
    assert answer.json["error"]["code"] == "unauthorized"


def test_openapi_document_is_openapi_3_1_with_error_schema(api_client):
    doc = api_client.get("/api/v1/openapi.json").json
    assert doc["openapi"] == "3.1.0"
    assert set(doc["components"]["securitySchemes"]) == {"bearerAuth", "apiKeyAuth"}
    assert doc["components"]["schemas"]["Error"]["required"] == ["error"]


def test_openapi_document_is_built_once_per_day_not_per_request(api_client, monkeypatch):
    """Building it costs about 100 ms of CPU: anyone could keep a core busy asking for it again and again."""
    from datetime import date

    from portal.service.platform import openapi

    builds = []
    build_schemas = openapi.models_json_schema
    monkeypatch.setattr(
        openapi, "models_json_schema", lambda *args, **kw: builds.append(1) or build_schemas(*args, **kw)
    )
    openapi._document_json.cache_clear()
    first, second = api_client.get("/api/v1/openapi.json"), api_client.get("/api/v1/openapi.json")
    assert first.status_code == second.status_code == 200 and first.mimetype == "application/json"
    assert first.data == second.data and len(builds) == 1
    # The next day the examples' dates move with it (fresh_examples), so the document is built again.
    monkeypatch.setattr(openapi, "today_montevideo", lambda: date(2031, 1, 2))
    next_day = api_client.get("/api/v1/openapi.json")
    assert len(builds) == 2 and "2031-01-02" in next_day.get_data(as_text=True)
    assert "2031-01-02" not in first.get_data(as_text=True)


def test_api_reference_page_loads_only_local_assets(api_client):
    page = api_client.get("/api/v1/docs")
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert "/static/vendor/swagger-ui/swagger-ui-bundle.js?v=" in html
    assert "http" not in html.split("<body>")[1].replace('data-spec-url="/api/v1/openapi.json"', "")
    # Each asked for by its content (portal/static_files.py), kept a year: Swagger UI's bundle is 1.7 MB.
    addresses = re.findall(r'(?:href|src)="(/static/[^"]+)"', html)
    assert len(addresses) == 3
    for address in addresses:
        answer = api_client.get(address)
        answer.close()
        assert answer.status_code == 200 and answer.headers["Cache-Control"] == "public, max-age=31536000, immutable"


def test_service_pages_carry_a_strict_content_security_policy(api_client):
    csp = api_client.get("/api/v1/docs").headers["Content-Security-Policy"]
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    for directive in ("frame-ancestors 'none'", "base-uri 'none'", "object-src 'none'"):
        assert directive in csp


SEED_OPERATIONS = {
    ("post", "/api/v1/comprobante/emitir"),
    ("post", "/api/v1/comprobante/firmarXml"),
    ("get", "/api/v1/comprobante/getByIdCfeEmitido"),
    ("post", "/api/v1/comprobante/reaplicarReferencia"),
    ("get", "/api/v1/comprobante/previsualizar/{token}"),
    ("post", "/api/v1/comprobante/previsualizar"),
    ("get", "/api/v1/apikeys"),
    ("post", "/api/v1/apikeys"),
    ("post", "/api/v1/apikeys/{apikey_id}/revocar"),
    ("post", "/api/v1/apikeys/{apikey_id}/rate-limit"),
    ("get", "/api/v1/dgi/consultaRut/{rut}"),
    ("get", "/api/v1/dgi/consultaNombreEntidad"),
    ("get", "/api/v1/dgi/consultaCva/{rut}"),
    ("get", "/api/v1/dgi/consultaDatosEntidad/{rut}"),
    ("post", "/api/v1/cfe/emitir-inteligente"),
    ("post", "/api/v1/cfe/previsualizar-emision-inteligente"),
    ("post", "/api/v1/cfe/confirmar-emision-inteligente"),
    ("get", "/api/v1/cfe/emision-inteligente/{request_id}"),
}


def test_openapi_lists_the_18_operations_with_schemas_errors_and_examples(api_client):
    doc = api_client.get("/api/v1/openapi.json").json
    listed = {(method, path) for path, item in doc["paths"].items() for method in item}
    assert SEED_OPERATIONS <= listed, SEED_OPERATIONS - listed
    for method, path in SEED_OPERATIONS:
        operation = doc["paths"][path][method]
        assert operation["summary"] and operation["responses"], (method, path)
        assert "401" in operation["responses"] and "500" in operation["responses"], (method, path)
        body = operation.get("requestBody")
        if body:
            assert any("example" in m or "examples" in m for m in body["content"].values()), (method, path)


def test_openapi_names_every_operation_once(api_client):
    """A code generator names a method by operationId, which OpenAPI requires unique: `listar` of clientes and of
    productos (and six others) were the same name twice."""
    doc = api_client.get("/api/v1/openapi.json").json
    ids = Counter(op["operationId"] for item in doc["paths"].values() for op in item.values())
    assert [name for name, count in ids.items() if count > 1] == []
    assert doc["paths"]["/api/v1/clientes"]["get"]["operationId"] == "clientes_listar"
    assert doc["paths"]["/api/v1/comprobante/firmarXml"]["post"]["operationId"] == "firmar_xml"


def test_every_schema_the_openapi_document_refers_to_is_in_it(api_client):
    """The received CFEs' page and the sales and purchases books named schemas (PaginaRecibidos, FilaVentas, ...)
    the document did not hold: a client generator or validator stops at the first such $ref."""
    text = api_client.get("/api/v1/openapi.json").get_data(as_text=True)
    schemas = json.loads(text)["components"]["schemas"]
    referred = set(re.findall(r'"\$ref":\s*"#/components/schemas/([^"]+)"', text))
    assert referred - schemas.keys() == set()
    listar = json.loads(text)["paths"]["/api/v1/recibidos"]["get"]["responses"]["200"]["content"]
    assert listar["application/json"]["schema"] == {"$ref": "#/components/schemas/PaginaRecibidos"}


def test_every_operation_that_takes_an_idempotency_key_says_what_a_retry_gets(api_client):
    """The header's description said only "the same key gives the same receipt": not that another body with it is a
    422 `idempotency_key_reused`, how long a key is kept, nor the `Idempotent-Replayed` header of a replay."""
    doc = api_client.get("/api/v1/openapi.json").json
    taking = [
        (path, operation)
        for path, item in doc["paths"].items()
        for operation in item.values()
        if any(p["name"] == "Idempotency-Key" for p in operation["parameters"])
    ]
    assert len(taking) >= 6
    for path, operation in taking:
        header = next(p for p in operation["parameters"] if p["name"] == "Idempotency-Key")
        assert "`idempotency_key_reused`" in header["description"] and "24 horas" in header["description"], path
        success = next(r for status, r in operation["responses"].items() if status.startswith("2"))
        assert "Idempotent-Replayed" in success["headers"], path


def test_each_receipt_example_is_named_by_its_type(api_client):
    """emitir offered 21 examples named ejemplo1 to ejemplo21: which one is the export e-Factura was found by
    opening each."""
    doc = api_client.get("/api/v1/openapi.json").json
    for path in ("/api/v1/comprobante/emitir", "/api/v1/comprobante/previsualizar"):
        examples = doc["paths"][path]["post"]["requestBody"]["content"]["application/json"]["examples"]
        for example in examples.values():
            assert example["summary"].startswith(f"{example['value']['tipoCFE']} "), example["summary"]
        assert {e["summary"] for e in examples.values()} >= {"101 e-Ticket", "121 e-Factura de exportación"}


def test_the_document_says_the_error_codes_and_the_language_of_messages(api_client):
    """An integrator read "Mensaje para personas (español)" and never learnt that Accept-Language: en gives English,
    nor which codes a 401, 403, 429 or 503 carries."""
    doc = api_client.get("/api/v1/openapi.json").json
    error = doc["components"]["schemas"]["Error"]["properties"]["error"]["properties"]
    assert "Accept-Language" in error["message"]["description"] and "code" in error["message"]["description"]
    assert "Accept-Language" in doc["info"]["description"]
    responses = doc["paths"]["/api/v1/comprobante/buscar"]["get"]["responses"]
    expected = {
        "401": ("unauthorized", "invalid_token", "invalid_api_key", "revoked_api_key", "jwt_required"),
        "403": ("rol_insuficiente", "empresa_ajena"),
        "422": ("validation_error", "empresa_invalida"),
        "429": ("rate_limited",),
        "500": ("internal_error",),
        "503": ("base_de_datos_ocupada",),
    }
    for status, codes in expected.items():
        assert all(f"`{code}`" in responses[status]["description"] for code in codes), status


def test_api_key_operations_document_the_rate_limit_headers(api_client):
    emitir = api_client.get("/api/v1/openapi.json").json["paths"]["/api/v1/comprobante/emitir"]["post"]
    assert "RateLimit" in emitir["responses"]["201"]["headers"]
    assert "Retry-After" in emitir["responses"]["429"]["headers"]
