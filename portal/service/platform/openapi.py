"""The OpenAPI 3.1 document, built from the operations registered with `portal.service.platform.api.operation`.

pydantic writes JSON Schema 2020-12, which OpenAPI 3.1 uses as is, so request and response schemas come
straight from the models the views validate with: the document cannot drift from the code.
"""

from __future__ import annotations

import contextlib
import functools
import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from portal.domain.cfe_type_names import type_name
from portal.domain.uruguay_time import today_montevideo
from portal.service.platform.api import OPERATIONS, Operation, body_required
from portal.service.platform.auth import API_KEY, JWT

_ERROR_SCHEMA = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message", "fields", "requestId"],
            "properties": {
                "code": {
                    "type": "string",
                    "description": "Código estable, para programas.",
                    "examples": ["validation_error"],
                },
                "message": {
                    "type": "string",
                    "description": "Mensaje para personas, en el idioma de Accept-Language (español por defecto; `en`, "
                    "inglés): dice qué hacer. Puede cambiar de redacción; los programas deciden por `code`.",
                },
                "fields": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["field", "code", "message"],
                        "properties": {
                            "field": {"type": "string", "examples": ["receptor.docRecep"]},
                            "code": {"type": "string"},
                            "message": {"type": "string"},
                        },
                    },
                },
                "requestId": {"type": ["string", "null"], "description": "El X-Request-ID de la solicitud."},
            },
        }
    },
}

_ERROR_DESCRIPTIONS = {
    400: "Solicitud mal formada: `header_invalido` (un encabezado como Idempotency-Key no válido), `bad_request`.",
    401: "Falta la credencial o no es válida: `unauthorized` (ninguna), `invalid_token` (token vencido o no válido), "
    "`invalid_api_key`, `revoked_api_key`, `jwt_required` (la operación solo acepta un token Bearer).",
    403: "La credencial no permite esta operación: `rol_insuficiente`, `empresa_ajena` (X-Empresa-Id de una empresa "
    "a la que no pertenece), `sin_empresa`.",
    404: "No existe, o pertenece a otra empresa (también un registro que el cuerpo nombra): `not_found` o el código "
    "del recurso.",
    409: "Conflicto (por ejemplo, la misma Idempotency-Key en curso: `idempotency_in_progress`).",
    413: "Cuerpo demasiado grande: `payload_too_large`.",
    415: "Tipo de contenido no soportado: `unsupported_media_type`.",
    422: "Datos no válidos: `validation_error`, con `fields` (cada campo con su código); `empresa_requerida` / "
    "`empresa_invalida` (X-Empresa-Id falta o no es un número).",
    429: "Límite de solicitudes excedido: `rate_limited`; ver Retry-After y RateLimit.",
    500: "Error interno: `internal_error`; informe el requestId.",
    503: "Servicio ocupado por un momento: `base_de_datos_ocupada` o `servicio_ocupado`; reintentá tras Retry-After "
    "(con la misma Idempotency-Key, sin riesgo de emitir dos veces).",
}


_RATE_LIMIT_HEADERS = {
    "RateLimit-Policy": {
        "description": 'Política de la clave de API, p. ej. "default";q=600;w=60 (solo con X-API-Key).',
        "schema": {"type": "string"},
    },
    "RateLimit": {
        "description": 'Estado de la ventana, p. ej. "default";r=599;t=60 (solo con X-API-Key).',
        "schema": {"type": "string"},
    },
}


_REPLAYED_HEADER = {
    "description": "`true` cuando la respuesta es la guardada de una solicitud anterior con la misma Idempotency-Key.",
    "schema": {"type": "string", "enum": ["true"]},
}


@dataclass(frozen=True)
class Webhook:
    """A request the service makes to its integrators (OpenAPI 3.1's top-level `webhooks`): a POST of `body`."""

    name: str
    summary: str
    description: str
    body: type[BaseModel]
    tag: str
    headers: dict[str, dict] = field(default_factory=dict)  # name -> {"description", "schema", "required"}
    responses: dict[str, dict] = field(default_factory=dict)  # status ("2XX", "default") -> {"description"}
    examples: list[dict] = field(default_factory=list)  # bodies as the integrator receives them


WEBHOOKS: dict[str, Webhook] = {}
"""Registered by the area that sends them (webhooks/documentation.py), by name: registering again replaces."""


def webhook(entry: Webhook) -> None:
    WEBHOOKS[entry.name] = entry


def _webhook(entry: Webhook) -> dict:
    media: dict[str, Any] = {"schema": {"$ref": f"#/components/schemas/{entry.body.__name__}"}}
    if entry.examples:
        media["examples"] = _numbered(entry.examples)
    operation = {
        "tags": [entry.tag],
        "summary": entry.summary,
        "description": entry.description,
        "operationId": "evento_" + re.sub(r"\W", "_", entry.name),
        "parameters": [
            {"name": name, "in": "header", "required": spec.get("required", True), **spec}
            for name, spec in entry.headers.items()
        ],
        "requestBody": {"required": True, "content": {"application/json": media}},
        "responses": entry.responses,
    }
    return {"post": operation}


def _models() -> list[type[BaseModel]]:
    seen: dict[str, type[BaseModel]] = {entry.body.__name__: entry.body for entry in WEBHOOKS.values()}
    for op in OPERATIONS:
        candidates = [op.body, op.query, *op.responses.values()]
        # A response written out by hand (several media types) names its JSON model under "model".
        candidates += [v.get("model") for v in op.responses.values() if isinstance(v, dict)]
        for model in candidates:
            if isinstance(model, type) and issubclass(model, BaseModel):
                seen[model.__name__] = model
    return list(seen.values())


def _error_response(status: int) -> dict:
    return {
        "description": _ERROR_DESCRIPTIONS.get(status, "Error."),
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }


def _response(value: Any, status: int) -> dict:
    if isinstance(value, type) and issubclass(value, BaseModel):
        return {
            "description": (value.__doc__ or "OK").strip().splitlines()[0],
            "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{value.__name__}"}}},
        }
    if isinstance(value, dict):
        return {key: item for key, item in value.items() if key != "model"}
    return {"description": value or ("Sin contenido." if status == 204 else "OK")}


def _path_param(name: str, spec: str | dict) -> dict:
    """A path (or header) parameter; `spec` is its description, or {"description", "schema"} with a format."""
    description, schema = (spec, {"type": "string"}) if isinstance(spec, str) else (spec["description"], spec["schema"])
    return {"name": name, "in": "path", "required": True, "schema": schema, "description": description}


_ISO_DATE = re.compile(r"^(\d{4}-\d{2}-\d{2})(T.*)?$")


def _dates_in(value: Any) -> Iterator[date]:
    if isinstance(value, str) and (match := _ISO_DATE.match(value)):
        with contextlib.suppress(ValueError):
            yield date.fromisoformat(match.group(1))
    elif isinstance(value, dict):
        for item in value.values():
            yield from _dates_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from _dates_in(item)


def _shift_dates(value: Any, delta: timedelta) -> Any:
    if isinstance(value, str) and (match := _ISO_DATE.match(value)):
        try:
            return (date.fromisoformat(match.group(1)) + delta).isoformat() + (match.group(2) or "")
        except ValueError:
            return value
    if isinstance(value, dict):
        return {key: _shift_dates(item, delta) for key, item in value.items()}
    if isinstance(value, list):
        return [_shift_dates(item, delta) for item in value]
    return value


def fresh_examples(document: dict, today: date | None = None) -> dict:
    """The document with every example's dates moved together so that the latest request example's is today.

    Examples are written once with fixed dates; a receipt dated two years ago no longer numbers (its CAE
    range has expired) and a DGI lookup's answer would look stale. Shifting every date by the same number of
    days keeps each example's own intervals (issue date, due date, referenced receipt) as they were written.
    """
    request_examples = [
        media
        for methods in document.get("paths", {}).values()
        for entry in methods.values()
        for media in entry.get("requestBody", {}).get("content", {}).values()
    ]
    found = list(_dates_in(_example_values(request_examples)))
    if not found:
        return document
    delta = (today or today_montevideo()) - max(found)
    return _shift_example_dates(document, delta)


def _example_values(value: Any) -> list:
    if isinstance(value, dict):
        return [item if key in ("example", "examples") else _example_values(item) for key, item in value.items()]
    if isinstance(value, list):
        return [_example_values(item) for item in value]
    return []


def _shift_example_dates(value: Any, delta: timedelta) -> Any:
    if isinstance(value, dict):
        return {
            key: _shift_dates(item, delta) if key in ("example", "examples") else _shift_example_dates(item, delta)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_shift_example_dates(item, delta) for item in value]
    return value


def _examples(model: type[BaseModel]) -> dict:
    extra = model.model_config.get("json_schema_extra") or {}
    examples = extra.get("examples", []) if isinstance(extra, dict) else []
    if not isinstance(examples, list):
        examples = []
    return _numbered(examples)


def _numbered(examples: list) -> dict:
    return {f"ejemplo{i + 1}": _named(ex) for i, ex in enumerate(examples)}


def _named(example: Any) -> dict:
    """An example, with a summary that names it where its body says what it is: a receipt's type (101 e-Ticket)."""
    tipo = example.get("tipoCFE") if isinstance(example, dict) else None
    if isinstance(tipo, int):
        return {"summary": f"{tipo} {type_name(tipo)}", "value": example}
    return {"value": example}


def _operation_ids(operations: list[Operation]) -> dict[int, str]:
    """Each operation's operationId, unique in the document as OpenAPI requires (code generators name methods by
    it): the view's name, or `<area>_<view>` where two areas' views share a name (`listar` of clientes and of
    productos: `clientes_listar`, `productos_listar`)."""
    counts = Counter(op.operation_id for op in operations)
    return {
        id(op): op.operation_id if counts[op.operation_id] == 1 else f"{op.area}_{op.operation_id}" for op in operations
    }


def _operation(op: Operation, operation_id: str) -> dict:
    entry: dict[str, Any] = {"tags": [op.tag], "summary": op.summary, "operationId": operation_id}
    if op.description:
        entry["description"] = op.description
    entry["security"] = [{"bearerAuth": []} if a == JWT else {"apiKeyAuth": []} for a in op.auth]
    params = [_path_param(name, desc) for name, desc in op.path_params.items()]
    params += [
        {**_path_param(name, desc), "in": "header", "required": False} for name, desc in op.extra_headers.items()
    ]
    if op.query is not None:
        schema = op.query.model_json_schema()
        required = set(schema.get("required", []))
        for name, prop in schema.get("properties", {}).items():
            params.append(
                {
                    "name": name,
                    "in": "query",
                    "required": name in required,
                    "schema": {k: v for k, v in prop.items() if k != "description"},
                    "description": prop.get("description", ""),
                }
            )
    params.append(
        {
            "name": "X-Request-ID",
            "in": "header",
            "required": False,
            "schema": {"type": "string"},
            "description": "Identificador de la solicitud; se devuelve y se registra.",
        }
    )
    if JWT in op.auth:
        params.append(
            {
                "name": "X-Empresa-Id",
                "in": "header",
                "required": False,
                "schema": {"type": "integer"},
                "description": "Empresa por la que actúa un usuario con varias (JWT).",
            }
        )
    entry["parameters"] = params
    if op.body is not None:
        media: dict[str, Any] = {"schema": {"$ref": f"#/components/schemas/{op.body.__name__}"}}
        examples = _examples(op.body)
        if examples:
            media["examples"] = examples
        entry["requestBody"] = {"required": body_required(op.body), "content": {op.body_content_type: media}}
    elif op.raw_body is not None:
        entry["requestBody"] = {"required": True, "content": op.raw_body}
    responses = {str(status): _response(value, status) for status, value in op.responses.items()}
    # What any operation may answer: a malformed header (400), no or a bad credential (401), a role or
    # company refused (403), a record that is not there or not the caller's (404), a bad parameter such as
    # X-Empresa-Id (422), a fault (500), a busy moment (503); with a body, also too large (413) and the wrong
    # type (415). Listed for every operation so that the document says what the service does.
    error_statuses = {400, 401, 403, 404, 422, 500, 503}
    if op.body is not None or op.raw_body is not None:
        error_statuses |= {413, 415}
    if API_KEY in op.auth:
        error_statuses.add(429)
    for status in sorted(error_statuses):
        responses.setdefault(str(status), _error_response(status))
    if "Idempotency-Key" in op.extra_headers:
        for status_text, response in responses.items():
            if status_text.startswith("2"):
                response.setdefault("headers", {})["Idempotent-Replayed"] = _REPLAYED_HEADER
    if API_KEY in op.auth:
        # Requests made with an API key report where they stand in the key's rate-limit window.
        for status_text, response in responses.items():
            response.setdefault("headers", {}).update(_RATE_LIMIT_HEADERS)
            if status_text == "429":
                response["headers"]["Retry-After"] = {
                    "description": "Segundos a esperar.",
                    "schema": {"type": "integer"},
                }
    entry["responses"] = responses
    return entry


def build_document(server_url: str) -> dict:
    """The whole OpenAPI 3.1 document, a new dict that the caller may change."""
    return json.loads(document_json(server_url))


def document_json(server_url: str) -> str:
    """The whole OpenAPI 3.1 document as JSON, built once per process for each server URL and day.

    Building it costs about 100 ms of CPU (pydantic writes every model's schema): rebuilt on every request, the
    anonymous `GET /api/v1/openapi.json` let anyone keep a core busy with ten requests a second. The day is
    part of the key because the examples' dates follow it (`fresh_examples`); the number of operations is,
    because they register as their modules are imported.
    """
    return _document_json(server_url, today_montevideo(), len(OPERATIONS), len(WEBHOOKS))


@functools.lru_cache(maxsize=8)
def _document_json(server_url: str, today: date, operation_count: int, webhook_count: int) -> str:
    return json.dumps(_document(server_url, today), ensure_ascii=False, separators=(",", ":"))


def _document(server_url: str, today: date) -> dict:
    _, definitions = models_json_schema(
        [(m, "validation") for m in _models()], ref_template="#/components/schemas/{model}"
    )
    schemas = definitions.get("$defs", {})
    schemas["Error"] = _ERROR_SCHEMA
    paths: dict[str, dict] = {}
    operation_ids = _operation_ids(OPERATIONS)
    for op in sorted(OPERATIONS, key=lambda o: (o.tag, o.path)):
        paths.setdefault(op.path, {})[op.method] = _operation(op, operation_ids[id(op)])
    return fresh_examples(
        {
            "openapi": "3.1.0",
            "info": {
                "title": "Servicio CFE",
                "version": "1.0.0",
                "description": "Emisión y gestión de Comprobantes Fiscales Electrónicos (DGI, Uruguay). Todo error "
                'responde `{"error": {code, message, fields, requestId}}`: `code` es estable; `message` se dice en el '
                "idioma de Accept-Language (español por defecto, `en` para inglés). Las listas paginan con `cursor` y "
                "`limite` y responden `items` y `siguienteCursor` (null en la última página).",
            },
            "servers": [{"url": server_url}],
            "tags": [{"name": t} for t in ("Comprobante", "Empresa API Key", "DGI", "Emision Inteligente", "Empresa")],
            "paths": paths,
            "webhooks": {name: _webhook(WEBHOOKS[name]) for name in WEBHOOKS},
            "components": {
                "schemas": schemas,
                "securitySchemes": {
                    "bearerAuth": {
                        "type": "http",
                        "scheme": "bearer",
                        "bearerFormat": "JWT",
                        "description": "Token de acceso del proveedor de identidad del servicio.",
                    },
                    "apiKeyAuth": {
                        "type": "apiKey",
                        "in": "header",
                        "name": "X-API-Key",
                        "description": "Clave de API de la empresa (grupos Comprobante y DGI).",
                    },
                },
            },
        },
        today,
    )
