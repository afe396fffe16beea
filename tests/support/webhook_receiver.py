"""A real HTTP receiver for webhook tests: http.server on 127.0.0.1, port 0, in a thread. It keeps every request
(path, headers, body) and answers from a script: a list of statuses used in turn (the last one repeats), or a
redirect, or a delay longer than the sender's timeout, or headers sent a line at a time (`trickle`: each line
within the sender's timeout, the whole answer far past it). With `tls` (a server context) it speaks HTTPS, and keeps
the names clients asked for by SNI."""

from __future__ import annotations

import ssl
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Script:
    statuses: list[int] = field(default_factory=lambda: [200])
    redirect_to: str | None = None
    delay: float = 0.0
    answer: bytes = b'{"recibido": true}'
    trickle: float = 0.0  # seconds between header lines
    trickle_lines: int = 0


class WebhookReceiver:
    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.received: list[Received] = []
        self.server_names: list[str | None] = []  # SNI, with `tls`
        self.script = Script()
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("content-length", 0))
                body = self.rfile.read(length)
                with receiver._lock:
                    receiver.received.append(Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                    script = receiver.script
                    status = script.statuses.pop(0) if len(script.statuses) > 1 else script.statuses[0]
                if script.delay:
                    time.sleep(script.delay)
                if script.trickle:
                    self._trickle(script)
                    return
                if script.redirect_to:
                    self.send_response(302)
                    self.send_header("Location", script.redirect_to)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(script.answer)))
                self.end_headers()
                self.wfile.write(script.answer)

            def _trickle(self, script: Script) -> None:
                try:
                    self.wfile.write(b"HTTP/1.1 200 OK\r\n")
                    for _ in range(script.trickle_lines):
                        time.sleep(script.trickle)
                        self.wfile.write(b"X-Slow: 1\r\n")
                    self.wfile.write(b"Content-Length: 0\r\n\r\n")
                except OSError:  # the sender hung up
                    self.close_connection = True

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - quiet
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        if tls is not None:
            tls.sni_callback = lambda _sock, name, _context: self.server_names.append(name)
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
            self.url = f"https://127.0.0.1:{self.server.server_address[1]}"
        # shutdown() waits up to one poll interval: the default 0.5 s was most of a webhook test's teardown.
        self._thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)

    def start(self) -> WebhookReceiver:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def of_path(self, path: str) -> list[Received]:
        return [r for r in self.received if r.path == path]
