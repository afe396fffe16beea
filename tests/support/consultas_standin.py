"""A local stand-in for DGI's ws_consultas directory operations (a WSGI app) answering from the simulator's
data (portal.service.intercambio.simulated), and EFACCONSULTARESTADOCFE when given what to answer it with,
and the same served on a real port: the tests' endpoint for the real SOAP client, as tests.support.dgi_standin is
for the RUT lookup.

Like DGI: POST only, the SOAPAction of the operation, the WS-Security signature over the Body verified (a
missing or bad one gets HTTP 500 with a SOAP Fault, dgi_standin.verify_request), DOCTYPE refused."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from lxml import etree
from werkzeug.serving import make_server
from werkzeug.wrappers import Request, Response

from portal.service.envios import consultas
from portal.service.envios.adapter import CfeState
from portal.service.intercambio.simulated import simulated_issuers
from tests.support.dgi_standin import SignatureError, soap_fault, verify_request

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIEnvironment

_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)


class ConsultasStandIn:
    def __init__(
        self,
        config: Mapping[str, Any] | None = None,
        *,
        status: int | None = None,
        cfe_state: Callable[[str, int, str, int], CfeState] | None = None,
    ):
        self.config = dict(config or {})
        self.cfe_state = cfe_state  # answers EFACCONSULTARESTADOCFE (the simulator's memory, in the app)
        self.status = status  # set to answer every call with this HTTP status (a broken DGI)
        self.calls: list[tuple[str, str]] = []  # (operation, since) of every verified call

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        return self.handle(Request(environ))(environ, start_response)

    def handle(self, request: Request) -> Response:
        if request.method != "POST":
            return Response("SOAP endpoint: POST only", status=405, headers={"Allow": "POST"})
        if self.status is not None:
            return Response("<html>unavailable</html>", status=self.status, content_type="text/html")
        try:
            envelope = etree.fromstring(request.get_data(), _PARSER)
            if envelope.getroottree().docinfo.doctype:
                return soap_fault("DOCTYPE is not allowed")
            verify_request(envelope)
        except (etree.XMLSyntaxError, SignatureError, ValueError) as exc:
            return soap_fault(f"WS-Security: {exc}")
        state_asked = consultas.read_state_request(envelope)
        if state_asked is not None and self.cfe_state is not None:
            if request.headers.get("SOAPAction", "").strip('"') != consultas.soap_action(consultas.CFE_STATE):
                return soap_fault("Unknown SOAPAction")
            self.calls.append((consultas.CFE_STATE, "/".join(map(str, state_asked))))
            answer = consultas.build_state_answer(self.cfe_state(*state_asked))
            return Response(answer, content_type="text/xml; charset=utf-8")
        asked = consultas.read_request(envelope)
        if asked is None:
            return soap_fault("Unknown operation or missing Filtro_eFacRUCEmisorAudFchHora")
        operation, since, rut = asked
        if request.headers.get("SOAPAction", "").strip('"') != consultas.soap_action(operation):
            return soap_fault("Unknown SOAPAction")
        self.calls.append((operation, since.isoformat()))
        issuers = simulated_issuers(self.config, since, rut)
        return Response(consultas.build_answer(operation, issuers), content_type="text/xml; charset=utf-8")


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
