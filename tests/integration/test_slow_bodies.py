"""Twelve clients that send a request's headers and then stop sending its body do not stop the service as
`make run` runs it: other requests are answered while those twelve are still held, and each of them gets a 408
in the error shape once its body has paused for CFE_BODY_IDLE_SECONDS (portal/service/platform/slowbody.py)."""

from __future__ import annotations

import io
import json
import socket

import pytest
import requests
from werkzeug.test import EnvironBuilder

from portal import devserver
from portal.service.platform.slowbody import BodyReadDeadline
from tests.support.processes import Gunicorn

SLOW_CLIENTS = 12
STALLED = (
    b"POST /api/v1/comprobante/emitir HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    b"Content-Length: 100000\r\n\r\n{"
)


@pytest.fixture
def dev_service(service_config, tmp_path):
    """The service started with `make run`'s command (portal.devserver.service_command)."""
    server = Gunicorn(
        "portal.service:create_app()",
        {"CFE_DATABASE_URL": service_config["DATABASE_URL"], "CFE_BODY_IDLE_SECONDS": "30"},
        tmp_path / "service.log",
    )
    server._command = devserver.service_command(server.port)
    yield server.start()
    server.stop()


def test_a_dozen_stalled_bodies_leave_the_service_answering(dev_service):
    stalled = []
    try:
        for _ in range(SLOW_CLIENTS):
            sock = socket.create_connection(("127.0.0.1", dev_service.port), timeout=10)
            sock.sendall(STALLED)
            stalled.append(sock)
        for _ in range(3 * SLOW_CLIENTS):  # more requests than the twelve could leave threads for, if they did
            assert requests.get(dev_service.url + "/healthz", timeout=20).status_code == 200
        for sock in stalled:  # ... answered while every stalled request was still held, none answered yet
            sock.setblocking(False)
            with pytest.raises(BlockingIOError):
                sock.recv(1)
    finally:
        for sock in stalled:
            sock.close()


class _StalledStream:
    def read(self, size: int = -1) -> bytes:
        raise TimeoutError("timed out")


class _Socket:
    def __init__(self) -> None:
        self.timeouts: list[float | None] = []

    def gettimeout(self) -> float | None:
        return None

    def settimeout(self, value: float | None) -> None:
        self.timeouts.append(value)


def _call(environ: dict) -> tuple[str, dict[str, str], bytes, list]:
    seen: list = []

    def app(env, start_response):
        seen.append(env["wsgi.input"].read())
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"ok"]

    answer: dict = {}

    def start_response(status, headers):
        answer.update(status=status, headers=dict(headers))

    body = b"".join(BodyReadDeadline(app, idle_seconds=1.5, limit=100)(environ, start_response))
    return answer["status"], answer["headers"], body, seen


def test_a_body_that_stops_arriving_is_a_408_in_the_error_shape_and_the_app_never_runs():
    sock = _Socket()
    environ = {"gunicorn.socket": sock, "CONTENT_LENGTH": "50", "wsgi.input": _StalledStream()}
    status, headers, body, seen = _call(environ)
    assert status.startswith("408") and headers["Connection"] == "close" and seen == []
    error = json.loads(body)["error"]
    assert error["code"] == "request_timeout" and error["requestId"] == headers["X-Request-ID"]
    assert sock.timeouts == [1.5, None]  # the pause allowed while reading, then the socket as it was


def test_a_whole_body_reaches_the_app_unchanged_and_without_gunicorn_nothing_is_read_early():
    environ = {"gunicorn.socket": _Socket(), "CONTENT_LENGTH": "5", "wsgi.input": io.BytesIO(b"hello")}
    assert _call(environ)[3] == [b"hello"]
    chunked = {"gunicorn.socket": _Socket(), "HTTP_TRANSFER_ENCODING": "chunked", "wsgi.input": io.BytesIO(b"x" * 7)}
    status, _, _, seen = _call(chunked)
    assert seen == [b"x" * 7] and chunked["CONTENT_LENGTH"] == "7"
    plain = {"CONTENT_LENGTH": "5", "wsgi.input": _StalledStream()}  # werkzeug's server: left to the app
    with pytest.raises(TimeoutError):
        _call(plain)


def _chunked(path: str, body: bytes) -> dict:
    environ = EnvironBuilder(path=path, method="POST", data=body, content_type="text/xml").get_environ()
    environ.pop("CONTENT_LENGTH")
    environ.update({"HTTP_TRANSFER_ENCODING": "chunked", "gunicorn.socket": _Socket(), "wsgi.input": io.BytesIO(body)})
    return environ


def test_a_chunked_body_to_a_route_that_takes_more_than_the_usual_limit_reaches_it_whole(service_app):
    """The exchange web service takes envelopes up to 6 MB: a chunked one of 3 MB was read up front only to the
    service's usual 2 MB, and the route saw it cut (an unreadable SOAP message). Other routes still stop at 2 MB."""
    from portal.service.recibidos import ws

    spaces = b" " * (3 * 1024 * 1024)  # an envelope's size, as whitespace XML allows between elements
    body = (
        b'<?xml version="1.0"?><SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/">'
        b"<SOAP-ENV:Body><Nada/></SOAP-ENV:Body>" + spaces + b"</SOAP-ENV:Envelope>"
    )
    read = b"".join(service_app.wsgi_app(_chunked(ws.URL_PATH, body), lambda status, headers: None))
    assert "Operación desconocida".encode() in read, read[:300]  # read whole, then judged on what it asks
    seen: list[bytes] = []

    def app(environ, start_response):
        seen.append(environ["wsgi.input"].read())
        start_response("200 OK", [])
        return [b""]

    reader = BodyReadDeadline(app, idle_seconds=1.5, limit=100, limits_by_path={"/grande": 1000})
    for path in ("/grande", "/otra"):
        reader(_chunked(path, b"x" * 500), lambda status, headers: None)
    assert [len(body) for body in seen] == [500, 101]  # whole; elsewhere one byte past the limit, which a route refuses
