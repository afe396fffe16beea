"""The `operation` decorator: one place that authenticates, validates input and records the OpenAPI entry.

    @operation(bp, "POST", "/emitir", tag="Comprobante", summary="Emitir un comprobante",
               auth=(JWT, API_KEY), roles=WRITERS, body=CfeInput, responses={201: CfeEmitido})
    def emitir(body: CfeInput, principal: Principal): ...

Views receive the parsed `body` / `query` models and the `principal`; they return a pydantic model, a
dict, or a Flask response. Every operation declared this way appears in /api/v1/openapi.json.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict

from flask import Blueprint, Response, jsonify, request
from pydantic import BaseModel, ValidationError
from werkzeug.datastructures import MIMEAccept
from werkzeug.exceptions import NotFound
from werkzeug.routing import IntegerConverter

from portal.domain.roles import ALL
from portal.service.platform import pydantic_errors
from portal.service.platform.auth import JWT, authenticate, require_role
from portal.service.platform.errors import ApiError, FieldError, ValidationFailed
from portal.service.platform.i18n import _
from portal.service.platform.responses import dump_json

_CONVERTER = re.compile(r"<(?:[^<>]*:)?(\w+)>")
_INTEGER_VARIABLE = re.compile(r"<int(?:\([^)]*\))?:(\w+)>")

# What a path's integer (a row's id, an attachment's position) may be: what the database's integer columns hold.
# A larger number names nothing, and compared in SQL it overflowed SQLite's INTEGER (a 500).
MAX_PATH_INTEGER = 2**31 - 1


class PathInteger(IntegerConverter):
    """The service's `<int:...>`: werkzeug's, and a number past MAX_PATH_INTEGER is the 404 in the error shape, as
    any record that is not there (the OpenAPI document says the range: `operation`). Not through werkzeug's `max`,
    which makes the route not match: a path whose other methods have routes then answered 405. Registered by
    create_app before any route."""

    def to_python(self, value: str) -> int:
        number = super().to_python(value)
        if number > MAX_PATH_INTEGER:
            raise NotFound()
        return number


def _path_integer(spec: str | dict[str, Any]) -> str | dict[str, Any]:
    """A path parameter's entry for an `<int:...>` variable: its description with the integers the route takes."""
    if not isinstance(spec, str):
        return spec
    return {"description": spec, "schema": {"type": "integer", "minimum": 0, "maximum": MAX_PATH_INTEGER}}


@dataclass
class Operation:
    method: str
    path: str
    tag: str
    summary: str
    description: str
    operation_id: str
    auth: tuple[str, ...]
    roles: tuple[str, ...] | None  # portal.domain.roles
    body: type[BaseModel] | None
    body_content_type: str
    query: type[BaseModel] | None
    responses: dict[int, Any]
    path_params: dict[str, str | dict] = field(default_factory=dict)
    extra_headers: dict[str, str | dict] = field(default_factory=dict)
    raw_body: dict[str, Any] | None = None
    area: str = ""  # the blueprint's name: what tells apart two areas' views of the same name in operationId


OPERATIONS: list[Operation] = []


# Pydantic's types whose API code is the CFE engine's: a list over its cap (701 lines) is `too_many`, as
# docs/DGI-RULES.md documents and the engine answers, not pydantic's `too_long` (which reads as a string's).
_ENGINE_CODES = frozenset({"too_long"})


def validation_fields(exc: ValidationError, parameters: type[BaseModel] | None = None) -> list[FieldError]:
    """Pydantic's errors as the API's field errors: pydantic's type (or a validator's own) is the `code` (a list's
    length excepted, see _ENGINE_CODES), the message comes from the catalogue (pydantic_errors); a query's shared
    parameters answer their own code."""
    return [
        FieldError(p.field, p.code if p.type in _ENGINE_CODES else p.type, p.message)
        for p in pydantic_errors.problems(exc, parameters)
    ]


@functools.cache
def body_required(model: type[BaseModel]) -> bool:
    """Whether an operation's JSON body must be sent. It may be left out only where the model says so
    (`BODY_MAY_BE_LEFT_OUT = True`, e.g. a send by e-mail to the last recipients) and `{}` would do (no field is
    required); the OpenAPI document then says so (requestBody `required: false`) and an empty request is the
    same as `{}`. A change whose every field is optional (a PATCH) still takes a body: `{}` at least."""
    if not getattr(model, "BODY_MAY_BE_LEFT_OUT", False):
        return True
    try:
        model.model_validate({})
    except ValidationError:
        return True
    return False


def parse_json_body(model: type[BaseModel]) -> BaseModel:
    raw = request.get_data(cache=True)
    if not raw and not body_required(model):
        return model.model_validate({}, by_alias=True, by_name=False)
    if not request.mimetype == "application/json":
        raise ApiError(
            _("El cuerpo debe ser JSON (Content-Type: application/json)."), code="unsupported_media_type", status=415
        )
    try:
        # An empty required body is refused field by field, as `{}` would be. Only the names the OpenAPI document
        # gives (a field's alias): a model may take its Python names too, for the service's own code, not a body's.
        return model.model_validate_json(raw or b"{}", by_alias=True, by_name=False)
    except ValidationError as exc:
        raise ValidationFailed(validation_fields(exc)) from exc


def parse_query(model: type[BaseModel]) -> BaseModel:
    # Every query parameter is one value: one given twice reaches the model as a list and is refused (422), not
    # read as its first value (the OpenAPI document says each is a scalar).
    given = {name: values[0] if len(values) == 1 else values for name, values in request.args.lists()}
    try:
        return model.model_validate(given, by_alias=True, by_name=False)  # the documented names only, as a body's
    except ValidationError as exc:
        raise ValidationFailed(validation_fields(exc, model)) from exc


def to_response(result: Any, status: int = 200) -> Response:
    if isinstance(result, Response):
        return result
    if isinstance(result, tuple):
        result, status = result
    if isinstance(result, BaseModel):
        response = Response(dump_json(result), mimetype="application/json")
    else:
        response = jsonify(result)
    response.status_code = status
    return response


IDEMPOTENCY_RULES = (
    " La misma clave con otro cuerpo es un 422 `idempotency_key_reused`; la respuesta repetida lleva el encabezado "
    "`Idempotent-Replayed: true`. Cada clave se guarda al menos 24 horas."
)


def idempotency_header(description: str) -> dict:
    """The `Idempotency-Key` header of an operation: its description, what every such key does (IDEMPOTENCY_RULES)
    and the schema the decorator enforces."""
    return {
        "description": description + IDEMPOTENCY_RULES,
        "schema": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": r"^[!-~][ -~]*$"},
    }


def check_headers(declared: dict[str, str | dict]) -> None:
    """400 for a declared header, present, whose value breaks its documented schema."""
    for name, spec in declared.items():
        value = request.headers.get(name)
        schema = spec.get("schema", {}) if isinstance(spec, dict) else {}
        if value is None or not schema:
            continue
        fits = (
            schema.get("minLength", 0) <= len(value) <= schema.get("maxLength", len(value))
            and re.fullmatch(schema.get("pattern", ".*"), value) is not None
        )
        if not fits:
            raise ApiError(
                _(
                    "El encabezado {name} no es válido (hasta {limit} caracteres imprimibles).",
                    name=name,
                    limit=schema.get("maxLength"),
                ),
                code="header_invalido",
                status=400,
            )


class OperationDefaults(TypedDict, total=False):
    """Arguments of `operation` an area shares between its endpoints (`**_COMMON`), typed."""

    tag: str
    auth: tuple[str, ...]
    roles: Iterable[str] | None


def operation(
    bp: Blueprint,
    method: str,
    rule: str,
    *,
    tag: str,
    summary: str,
    description: str = "",
    auth: tuple[str, ...] = (JWT,),
    roles: Iterable[str] | None = ALL,
    body: type[BaseModel] | None = None,
    body_content_type: str = "application/json",
    query: type[BaseModel] | None = None,
    responses: dict[int, Any] | None = None,
    path_params: Mapping[str, str | dict[str, Any]] | None = None,
    extra_headers: Mapping[str, str | dict[str, Any]] | None = None,
    raw_body: dict[str, Any] | None = None,
) -> Callable:
    """Register `view` on `bp` at `rule` and in the OpenAPI registry (see the module docstring).

    `raw_body` documents a non-JSON body the view reads itself: an OpenAPI requestBody `content` mapping,
    e.g. {"application/xml": {"schema": {"type": "string"}, "example": "<CFE .../>"}}.
    """
    roles = tuple(roles) if roles is not None else None

    def decorator(view: Callable) -> Callable:
        @functools.wraps(view)
        def wrapper(**kwargs):
            principal = authenticate(auth)
            require_role(principal, roles)
            check_headers(extra_headers or {})
            if body is not None and body_content_type == "application/json":
                kwargs["body"] = parse_json_body(body)
            if query is not None:
                kwargs["query"] = parse_query(query)
            return to_response(view(principal=principal, **kwargs))

        bp.add_url_rule(rule, endpoint=view.__name__, view_func=wrapper, methods=[method])
        # <int:id> and <any(sobre, acuse):documento> are {id} and {documento} (choices: the parameter schema).
        openapi_path = _CONVERTER.sub(r"{\1}", (bp.url_prefix or "") + rule)
        OPERATIONS.append(
            Operation(
                method=method.lower(),
                path=openapi_path,
                tag=tag,
                summary=summary,
                description=description or (view.__doc__ or "").strip(),
                operation_id=view.__name__,
                area=bp.name,
                auth=auth,
                roles=roles,
                body=body,
                body_content_type=body_content_type,
                query=query,
                responses=responses or {200: None},
                path_params={
                    name: _path_integer(spec) if name in _INTEGER_VARIABLE.findall(rule) else spec
                    for name, spec in (path_params or {}).items()
                },
                extra_headers=dict(extra_headers or {}),
                raw_body=raw_body,
            )
        )
        return wrapper

    return decorator


def dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False)


def negotiate(*offers: str) -> str:
    """The best of `offers` for the Accept header (the first when Accept says nothing); 406 otherwise."""
    if not request.headers.get("Accept") or request.accept_mimetypes.provided is False:
        return offers[0]
    # Werkzeug matches parameters too: "application/json; charset=utf-8" would match no offer. Only the
    # type (and q) decides here.
    accept = MIMEAccept([(value.split(";", 1)[0].strip(), q) for value, q in request.accept_mimetypes])
    best = accept.best_match(offers)
    if best is None:
        raise ApiError(
            _("Formato no disponible; pedí uno de estos con Accept: {formatos}.", formatos=", ".join(offers)),
            code="not_acceptable",
            status=406,
        )
    return best
