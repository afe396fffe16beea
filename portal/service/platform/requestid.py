"""Request ids: accepted from `X-Request-ID` when well formed, generated otherwise, returned and logged.

The access line carries the request's path as sent: portal.logsafe's formatter escapes it (an encoded
newline in a path must not start a forged line).
"""

from __future__ import annotations

import logging
import re
import time
import uuid

from flask import Flask, g, request

_VALID_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
access_log = logging.getLogger("portal.service.access")


def init_app(app: Flask) -> None:
    @app.before_request
    def _assign_request_id():
        given = request.headers.get("X-Request-ID", "")
        g.request_id = given if _VALID_ID.match(given) else uuid.uuid4().hex
        g.request_started = time.perf_counter()

    @app.after_request
    def _return_request_id(response):
        response.headers["X-Request-ID"] = g.get("request_id", "")
        elapsed_ms = (time.perf_counter() - g.get("request_started", time.perf_counter())) * 1000
        principal = g.get("principal")
        access_log.info(
            "%s %s %s %.1fms request_id=%s who=%s",
            request.method,
            request.path,
            response.status_code,
            elapsed_ms,
            g.get("request_id"),
            principal.describe() if principal else "-",
        )
        return response
