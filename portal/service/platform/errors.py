"""One JSON error shape for every error of the API, and the exceptions views raise to produce it.

    {"error": {"code": "validation_error", "message": "...", "fields": [{"field", "code", "message"}],
               "requestId": "..."}}

`code` is stable and meant for programs and never translated; `message` is for people, in the language the
request asks for (`Accept-Language`, es-UY by default, or English; `portal.service.platform.i18n`); `fields` lists
what was wrong with which input, as a dotted path ("receptor.docRecep", "items[2].cantidad").
"""

from __future__ import annotations

import io
import logging
from dataclasses import asdict, dataclass

from flask import Flask, Response, g, jsonify, request
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from portal.service.platform.i18n import Text, _, language, say, vary

log = logging.getLogger("portal.service")


@dataclass(frozen=True)
class FieldError:
    field: str  # a name; a place in a document (XmlInputError.where) may be a catalogue message, said as one
    code: str
    message: str


class ApiError(Exception):
    """An error the API answers on purpose, with its status and stable code."""

    status = 400
    code = "bad_request"

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        status: int | None = None,
        fields: list[FieldError] | None = None,
        headers: dict[str, str] | None = None,
    ):
        super().__init__(message)
        self.message = message
        self.code = code or self.code
        self.status = status or self.status
        self.fields = fields or []
        self.headers = headers or {}


class ValidationFailed(ApiError):
    status, code = 422, "validation_error"

    def __init__(self, fields: list[FieldError], message: str = _("Los datos enviados no son válidos."), **kw):
        super().__init__(message, fields=fields, **kw)


class Unauthorized(ApiError):
    status, code = 401, "unauthorized"

    def __init__(self, message: str = _("Falta una credencial válida."), **kw):
        kw.setdefault("headers", {"WWW-Authenticate": 'Bearer realm="cfe-api"'})
        super().__init__(message, **kw)


class Forbidden(ApiError):
    status, code = 403, "forbidden"


class NotFound(ApiError):
    status, code = 404, "not_found"


class Conflict(ApiError):
    status, code = 409, "conflict"


class UpstreamError(ApiError):
    status, code = 502, "upstream_error"


class UpstreamTimeout(ApiError):
    status, code = 504, "upstream_timeout"


def _field(field: str) -> str:
    # A field is a name (`receptor.documento`, `filas[3].precio`), said as it is; a place in a document given as a
    # catalogue message ("línea 3, columna 7") is said in the request's language.
    return say(field) if isinstance(field, Text) else field


def error_body(code: str, message: str, fields: list[FieldError] | None = None) -> dict:
    return {
        "error": {
            "code": code,
            "message": say(message),
            "fields": [{**asdict(f), "field": _field(f.field), "message": say(f.message)} for f in fields or []],
            "requestId": g.get("request_id"),
        }
    }


def error_response(code: str, message: str, status: int, fields=None, headers=None):
    response = jsonify(error_body(code, message, fields))
    response.status_code = status
    response.headers["Content-Language"] = language()
    response.vary.add("Accept-Language")
    response.headers.update(headers or {})
    return response


# Spanish messages for the HTTP errors werkzeug raises before a view runs.
_HTTP_MESSAGES = {
    400: ("bad_request", _("La solicitud no es válida.")),
    404: ("not_found", _("No existe ese recurso.")),
    405: ("method_not_allowed", _("Ese método no está permitido en este recurso.")),
    406: ("not_acceptable", _("No se puede responder en el formato pedido (Accept).")),
    413: ("payload_too_large", _("El cuerpo de la solicitud es demasiado grande.")),
    415: ("unsupported_media_type", _("El tipo de contenido no es el esperado.")),
}


def _wants_json() -> bool:
    return request.path.startswith("/api/") or request.path.startswith("/oauth/userinfo")


def _read_up_to(stream, limit: int) -> bytes:
    parts, size = [], 0
    while size < limit:
        part = stream.read(min(65536, limit - size))
        if not part:
            break
        parts.append(part)
        size += len(part)
    return b"".join(parts)


def refuse_oversized_streams(limit: int) -> None:
    """Read a body sent without Content-Length (chunked) up to one byte past `limit`; 413 if it goes past.

    werkzeug checks MAX_CONTENT_LENGTH against Content-Length only; a chunked body is merely cut at the cap,
    and the view would parse the first 2 MB as if they were all ("premature end"). Once read, the body is
    handed on with its length, so everything downstream sees an ordinary request.
    """
    environ = request.environ
    if request.content_length is not None or not environ.get("wsgi.input_terminated"):
        return
    body = _read_up_to(environ["wsgi.input"], limit + 1)
    if len(body) > limit:
        raise RequestEntityTooLarge()
    environ["wsgi.input"] = io.BytesIO(body)
    environ["CONTENT_LENGTH"] = str(len(body))


def init_app(app: Flask) -> None:
    # A route that takes larger bodies (received envelopes) registers its own cap, as BodyReadDeadline reads it.
    app.before_request(
        lambda: refuse_oversized_streams(
            (app.extensions.get("body_limits_by_path") or {}).get(request.path, app.config["MAX_CONTENT_LENGTH"])
        )
    )

    @app.errorhandler(ApiError)
    def _api_error(exc: ApiError):
        return error_response(exc.code, exc.message, exc.status, exc.fields, exc.headers)

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException):
        if not _wants_json():
            return exc
        code, message = _HTTP_MESSAGES.get(exc.code or 500, ("http_error", exc.description or "Error"))
        headers = dict(exc.get_headers()) if exc.code == 405 else {}
        headers.pop("Content-Type", None)
        return error_response(code, message, exc.code or 500, headers=headers)

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception):
        # Never a stack trace to the caller: log it with the request id and answer the shape.
        log.exception("unhandled error request_id=%s", g.get("request_id"))
        if not _wants_json():  # the identity provider's pages, the exchange web service: a person may read it
            message = _("Error interno. Código de solicitud: {codigo}", codigo=str(g.get("request_id")))
            return vary(Response(say(message), 500, mimetype="text/plain", headers={"Content-Language": language()}))
        return error_response(
            "internal_error", _("Error interno del servicio. Pasale a soporte el código de solicitud."), 500
        )
