"""The ws_consultas stand-in (tests.support.consultas_standin_app) served on a real port."""

from __future__ import annotations

import threading

from werkzeug.serving import make_server

from tests.support.consultas_standin_app import ConsultasStandIn


class RunningConsultas:
    def __init__(self, app: ConsultasStandIn):
        self.app = app
        self.server = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}/ePrueba/ws_consultasPrueba"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.thread.join(timeout=5)
        self.server.server_close()
