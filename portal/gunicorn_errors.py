"""The service's answer to what gunicorn refuses before the application sees it (a malformed request line or
header, a URI or headers too long, an unknown method, a bad chunked body): the API's one JSON error shape,
not gunicorn's HTML page that echoes the offending text back.

gunicorn has no setting for that page: every worker writes it through `gunicorn.util.write_error`. The
service's gunicorn settings (deploy/gunicorn.conf.py) call `install()` when a worker starts, which replaces
that function in the worker process with `write_json_error`; the portal's gunicorn keeps its HTML.
"""

from __future__ import annotations

import json
import socket
import uuid

# gunicorn's status -> the API's stable code and a Spanish message (the reason gunicorn gives, in English, is
# for the log; it may quote what the client sent).
_ERRORS = {
    400: ("bad_request", "La solicitud HTTP está mal formada (línea de pedido, método o encabezados)."),
    403: ("forbidden", "La solicitud no está permitida."),
    414: ("uri_too_long", "La dirección pedida es demasiado larga."),
    417: ("expectation_failed", "El encabezado Expect no se puede cumplir."),
    431: ("headers_too_large", "Los encabezados de la solicitud son demasiado grandes o demasiados."),
    500: ("internal_error", "Error interno del servicio. Pasale a soporte el código de solicitud."),
    501: ("not_implemented", "La codificación de transferencia pedida no está soportada."),
}


def error_bytes(status_int: int, reason: str) -> bytes:
    """The whole HTTP answer, connection closed, in the JSON error shape."""
    code, message = _ERRORS.get(status_int, ("http_error", "La solicitud no se pudo procesar."))
    request_id = uuid.uuid4().hex
    body = json.dumps(
        {"error": {"code": code, "message": message, "fields": [], "requestId": request_id}}, ensure_ascii=False
    ).encode()
    reason_ascii = reason.encode("latin-1", "replace").decode("latin-1").replace("\r", " ").replace("\n", " ")
    head = (
        f"HTTP/1.1 {status_int} {reason_ascii}\r\n"
        "Connection: close\r\n"
        "Content-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n"
        f"X-Request-ID: {request_id}\r\n"
        "X-Content-Type-Options: nosniff\r\n"
        "Cache-Control: no-store\r\n"
        "\r\n"
    )
    return head.encode("latin-1") + body


def write_json_error(sock: socket.socket, status_int: int, reason: str, mesg: str) -> None:
    """gunicorn's `util.write_error`, answering the JSON error shape (`mesg`, gunicorn's detail, is not sent)."""
    from gunicorn import util

    util.write_nonblock(sock, error_bytes(status_int, reason))


def install() -> None:
    """Make this worker process answer gunicorn's own errors with `write_json_error`."""
    from gunicorn import util

    util.write_error = write_json_error
