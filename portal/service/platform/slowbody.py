"""A request body that stops arriving does not hold a server thread: under gunicorn the body is read before the
application runs, with the socket's timeout set to CFE_BODY_IDLE_SECONDS; a client that sends nothing for that
long gets a 408 in the API's error shape and the connection is closed.

gunicorn's threaded worker reads a request's body in the thread that runs it, with no timeout: twelve clients
that send their headers and then the body a byte at a time took all of `make run`'s threads, and the service
stopped answering (even /healthz). In production deploy/nginx.conf buffers bodies before they reach gunicorn
(`proxy_request_buffering on`); this is the service's own guard, for `make run` and for anyone who runs it
without a proxy. It bounds how long a silent client holds a thread, not a trickle of one byte every few
seconds: against many such clients only a buffering proxy helps (README, "Running in production").
"""

from __future__ import annotations

import io
import json
import logging
import uuid
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from portal.service.platform.errors import _read_up_to

log = logging.getLogger("portal.service")

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class BodyReadDeadline:
    """WSGI middleware: the body read up front (at most `limit` + 1 bytes, or the limit `limits_by_path` gives the
    request's path), `idle_seconds` at most between bytes."""

    def __init__(
        self, app: WsgiApp, *, idle_seconds: float, limit: int, limits_by_path: Mapping[str, int] | None = None
    ):
        self.app = app
        self.idle_seconds = idle_seconds
        self.limit = limit
        # The few routes that take more than the service's limit (received envelopes: an upload, the exchange web
        # service) set their own; a chunked body to them read only up to the service's limit came cut.
        self.limits_by_path = dict(limits_by_path or {})

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        sock = environ.get("gunicorn.socket")
        wanted = self._wanted(environ)
        if sock is None or wanted == 0:
            return self.app(environ, start_response)
        previous = sock.gettimeout()
        try:
            sock.settimeout(self.idle_seconds)
            body = _read_up_to(environ["wsgi.input"], wanted)
        except (TimeoutError, OSError) as exc:
            log.warning("request body stopped arriving (%s) from %s", type(exc).__name__, environ.get("REMOTE_ADDR"))
            return _timeout(start_response)
        finally:
            sock.settimeout(previous)
        environ["wsgi.input"] = io.BytesIO(body)
        if environ.get("CONTENT_LENGTH") is None or environ.get("wsgi.input_terminated"):
            # A chunked body, now whole: the application sees it as an ordinary one with its length.
            environ["CONTENT_LENGTH"] = str(len(body))
            environ.pop("wsgi.input_terminated", None)
            environ.pop("HTTP_TRANSFER_ENCODING", None)
        return self.app(environ, start_response)

    def _wanted(self, environ: dict[str, Any]) -> int:
        """How many bytes to read: the declared length (the application refuses one over the limit itself), or up
        to one past the limit for a chunked body."""
        limit = self.limits_by_path.get(environ.get("PATH_INFO", ""), self.limit)
        length = environ.get("CONTENT_LENGTH")
        if length:
            try:
                declared = int(length)
            except ValueError:
                return 0
            return declared if 0 < declared <= limit else 0
        if "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower():
            return limit + 1
        return 0


def _timeout(start_response: Callable[..., Any]) -> list[bytes]:
    request_id = uuid.uuid4().hex
    message = "El cuerpo de la solicitud dejó de llegar; volvé a enviarla."
    body = json.dumps(
        {"error": {"code": "request_timeout", "message": message, "fields": [], "requestId": request_id}},
        ensure_ascii=False,
    ).encode()
    start_response(
        "408 Request Timeout",
        [
            ("Content-Type", "application/json"),
            ("Content-Length", str(len(body))),
            ("Connection", "close"),
            ("X-Request-ID", request_id),
        ],
    )
    return [body]
