"""One way to serve a WSGI app on a real port in a test: werkzeug in a thread on 127.0.0.1, the port chosen by
the OS. `LiveServer` binds at once (so two servers know each other's URL before either starts); `serving(app)`
is the same as a context manager."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from werkzeug.serving import make_server


class LiveServer:
    """A WSGI app served by werkzeug in a thread on 127.0.0.1, port chosen by the OS."""

    def __init__(self):
        self.app = None
        self.server = make_server("127.0.0.1", 0, self._dispatch, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        # A short poll interval: shutdown() waits up to one interval, and the default 0.5 s per live server
        # was almost half of the suite's non-browser time.
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)

    def _dispatch(self, environ, start_response):
        return self.app(environ, start_response)

    def start(self, app) -> LiveServer:
        self.app = app
        self.thread.start()
        return self

    def stop(self) -> None:
        if self.thread.is_alive():
            self.server.shutdown()
            self.thread.join(timeout=5)
        self.server.server_close()


@contextmanager
def serving(app) -> Iterator[LiveServer]:
    """`app` on a real port for the block: `with serving(app) as server: ... server.url ...`."""
    server = LiveServer().start(app)
    try:
        yield server
    finally:
        server.stop()
