"""What gunicorn refuses before the application sees it (a bad request line, header or method, a URI too long)
answers the service's JSON error shape, tested against the real gunicorn with deploy/gunicorn.conf.py and raw
requests on a socket (no HTTP client would send them)."""

from __future__ import annotations

import json
import socket

import pytest


def _raw(url: str, request: bytes) -> tuple[int, dict[str, str], bytes]:
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(request)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), {k.lower(): v for k, v in headers.items()}, body


@pytest.fixture(scope="module")
def service(service_db_template, tmp_path_factory):
    from tests.support.processes import Gunicorn

    target = tmp_path_factory.mktemp("gunicorn-errors")
    database = target / "service.db"
    database.write_bytes(service_db_template.read_bytes())
    server = Gunicorn(
        "portal.service:create_app()", {"CFE_DATABASE_URL": f"sqlite:///{database}"}, target / "log", threads=2
    )
    from portal.service import create_app
    from tests.conftest import mint_token

    app = create_app({"DATABASE_URL": f"sqlite:///{database}", "TESTING": True})
    server.token = mint_token(app, "usuario@demo.uy")
    app.extensions["db_engine"].dispose()
    yield server.start()
    server.stop()


@pytest.mark.parametrize(
    ("request_bytes", "status", "code"),
    [
        (b"GARBAGE\r\n\r\n", 400, "bad_request"),
        (b"G@T /healthz HTTP/1.1\r\nHost: x\r\n\r\n", 400, "bad_request"),
        (b"GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header<script>: y\r\n\r\n", 400, "bad_request"),
        (b"GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n", 400, "bad_request"),
        (b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "uri_too_long"),
        (b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + b"X-A: b\r\n" * 200 + b"\r\n", 431, "headers_too_large"),
    ],
)
def test_gunicorns_own_refusals_answer_the_json_error_shape(service, request_bytes, status, code):
    got, headers, body = _raw(service.url, request_bytes)
    assert got == status, body[:300]
    assert headers["content-type"] == "application/json"
    error = json.loads(body)["error"]
    assert error["code"] == code and error["fields"] == [] and error["requestId"] == headers["x-request-id"]
    assert "<" not in body.decode() and "script" not in body.decode()  # nothing the client sent is echoed


def test_an_ordinary_request_still_reaches_the_service(service):
    status, headers, _ = _raw(service.url, b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert status == 200


def _chunked(path: str, body: bytes, token: str) -> bytes:
    chunks = b"".join(
        b"%x\r\n%s\r\n" % (len(body[i : i + 65536]), body[i : i + 65536]) for i in range(0, len(body), 65536)
    )
    return (
        (
            f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
            f"Authorization: Bearer {token}\r\nConnection: close\r\n\r\n"
        ).encode()
        + chunks
        + b"0\r\n\r\n"
    )


def test_chunked_bodies_under_gunicorn_are_read_whole_or_refused_whole(service):
    # The body is read before the application runs (portal/service/platform/slowbody.py): a chunked one is handed on
    # with its length, so the size cap and the JSON parser see it as any other.
    status, _, body = _raw(
        service.url, _chunked("/api/v1/comprobante/emitir", b"[" + b" " * (3 * 1024 * 1024) + b"]", service.token)
    )
    assert status == 413 and json.loads(body)["error"]["code"] == "payload_too_large"
    status, _, body = _raw(service.url, _chunked("/api/v1/comprobante/emitir", b'{"tipoCFE": 101}', service.token))
    assert status == 422 and json.loads(body)["error"]["code"] == "validation_error"  # read whole, then parsed
