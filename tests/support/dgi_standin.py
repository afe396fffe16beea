"""DGI's stand-in (portal.service.dgi.standin) served on a real port for the tests that need it."""

from __future__ import annotations

import threading

from werkzeug.serving import make_server

from portal.service.dgi.sandbox import SandboxRegistry
from portal.service.dgi.standin import StandIn


class RunningStandIn:
    """The stand-in on 127.0.0.1; it verifies the WS-Security signature of every request."""

    def __init__(self, app: StandIn | None = None):
        self.app = app or StandIn(SandboxRegistry())
        self.server = make_server("127.0.0.1", 0, self.app, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}/ePrueba/ws_personaGetActEmpresarialPrueba"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.app.released.set()
        self.server.shutdown()
        self.thread.join(timeout=5)
        self.server.server_close()
