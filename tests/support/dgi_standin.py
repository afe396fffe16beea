"""A local stand-in for DGI's WS_PersonaGetActEmpresarial: a WSGI app (werkzeug) for the tests, and
`RunningStandIn`, the same served on a real port.

It behaves as DGI does as far as it is known: SOAP 1.1 POST with the WSDL's SOAPAction; the WS-Security
signature over the Body is verified and a missing or invalid one gets HTTP 500 with a SOAP Fault; the RUT
is looked up in the sandbox data and answered in `<Data>` as escaped WS_PersonaActEmpresarial XML, or as
`<Respuesta><Codigo>14</Codigo>...` ("RUT no disponible para pruebas") when unknown.

Verification is independent of the client's code: references are canonicalized with Python's own C14N 2.0
(xml.etree.ElementTree.canonicalize, which accepts the relative namespace URI; for these documents it gives
the same bytes as Exclusive C14N 1.0) and the RSA signature is checked by xmlsec (`verify_binary`) with the
key of the BinarySecurityToken certificate.

    app = StandIn(delay=0)                 # set app.delay (seconds) to simulate a slow DGI
    server = tests.support.servers.LiveServer().start(app)   # or RunningStandIn(app), below
"""

from __future__ import annotations

import base64
import hashlib
import threading
import xml.etree.ElementTree as ET  # noqa: N817 - the stdlib's usual alias
from dataclasses import dataclass

import xmlsec
from lxml import etree
from werkzeug.wrappers import Request, Response

from portal.service.dgi.errors import DgiError
from portal.service.dgi.persona_xml import build_error_xml, build_persona_xml
from portal.service.dgi.sandbox import SandboxRegistry
from portal.service.dgi.wsse import DS, EXC_C14N, WSSE, WSU, X509_TOKEN
from portal.service.dgi.wsse_verify import soap_envelope, soap_fault  # the answers; the check below is our own
from tests.support.servers import LiveServer

SOAP_ENV = "http://schemas.xmlsoap.org/soap/envelope/"
NAMESPACE = "DGI_Modernizacion_Consolidado"
SOAP_ACTION = "DGI_Modernizacion_Consolidadoaction/AWS_PERSONAGETACTEMPRESARIAL.Execute"
_ALGORITHMS = {
    "http://www.w3.org/2000/09/xmldsig#rsa-sha1": xmlsec.Transform.RSA_SHA1,
    "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256": xmlsec.Transform.RSA_SHA256,
}
_DIGESTS = {
    "http://www.w3.org/2000/09/xmldsig#sha1": hashlib.sha1,
    "http://www.w3.org/2001/04/xmlenc#sha256": hashlib.sha256,
}
_NS = {"soap": SOAP_ENV, "wsse": WSSE, "wsu": WSU, "ds": DS}
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)


class SignatureError(Exception):
    """The request's WS-Security signature is missing or does not verify."""


@dataclass
class Verified:
    certificate_der: bytes
    signed_ids: tuple[str, ...]


def _c14n(element: etree._Element) -> bytes:
    return ET.canonicalize(etree.tostring(element, encoding="unicode")).encode("utf-8")


def _one(node: etree._Element, path: str, what: str, **variables: str) -> etree._Element:
    found = node.xpath(path, namespaces=_NS, **variables)
    if len(found) != 1:
        raise SignatureError(f"{what}: expected one, found {len(found)}")
    return found[0]


def verify_request(envelope: etree._Element) -> Verified:
    """Check the Body signature of a SOAP request; raise SignatureError with the reason otherwise."""
    security = _one(envelope, "soap:Header/wsse:Security", "wsse:Security")
    signature = _one(security, "ds:Signature", "ds:Signature")
    signed_info = _one(signature, "ds:SignedInfo", "ds:SignedInfo")
    if _one(signed_info, "ds:CanonicalizationMethod", "c14n").get("Algorithm") != EXC_C14N:
        raise SignatureError("SignedInfo must use exclusive c14n")
    transform = _ALGORITHMS.get(_one(signed_info, "ds:SignatureMethod", "SignatureMethod").get("Algorithm"))
    if transform is None:
        raise SignatureError("unsupported SignatureMethod")
    signed_ids = []
    for reference in signed_info.xpath("ds:Reference", namespaces=_NS):
        ref_id = (reference.get("URI") or "").removeprefix("#")
        target = _one(envelope, "//*[@wsu:Id=$id]", f"element {ref_id!r}", id=ref_id) if ref_id else None
        transforms = reference.xpath("ds:Transforms/ds:Transform", namespaces=_NS)
        algorithms = [t.get("Algorithm") for t in transforms]
        digest = _DIGESTS.get(_one(reference, "ds:DigestMethod", "DigestMethod").get("Algorithm"))
        if target is None or algorithms != [EXC_C14N] or digest is None:
            raise SignatureError("unsupported Reference")
        expected = base64.b64decode(_one(reference, "ds:DigestValue", "DigestValue").text or "")
        if digest(_c14n(target)).digest() != expected:
            raise SignatureError(f"digest mismatch for {ref_id}")
        signed_ids.append(ref_id)
    body = envelope.find(f"{{{SOAP_ENV}}}Body")
    if body is None or body.get(f"{{{WSU}}}Id") not in signed_ids:
        raise SignatureError("the Body is not signed")
    token_ref = _one(signature, "ds:KeyInfo/wsse:SecurityTokenReference/wsse:Reference", "token reference")
    token = _one(
        security,
        "wsse:BinarySecurityToken[@wsu:Id=$id]",
        "BinarySecurityToken",
        id=token_ref.get("URI", "").removeprefix("#"),
    )
    if token.get("ValueType") != X509_TOKEN:
        raise SignatureError("the token is not an X.509 certificate")
    certificate = base64.b64decode(token.text or "")
    try:
        context = xmlsec.SignatureContext()
        context.key = xmlsec.Key.from_memory(certificate, xmlsec.KeyFormat.CERT_DER, None)
        value = base64.b64decode(_one(signature, "ds:SignatureValue", "SignatureValue").text or "")
        context.verify_binary(_c14n(signed_info), transform, value)
    except xmlsec.Error as exc:
        raise SignatureError("the signature value does not verify") from exc
    return Verified(certificate, tuple(signed_ids))


class StandIn:
    """The WSGI app. Records the last request (`last_request`, `last_verified`) for tests to inspect.

    `trusted` (DER certificates), when given, limits who may call, like DGI's registered certificates.
    """

    def __init__(
        self, registry: SandboxRegistry | None = None, *, delay: float = 0.0, trusted: set[bytes] | None = None
    ):
        self.registry = registry or SandboxRegistry()
        self.delay = delay
        self.trusted = trusted
        self.last_request: bytes | None = None
        self.last_verified: Verified | None = None
        self.released = threading.Event()  # set it to cut a delay short (test teardown)

    def __call__(self, environ, start_response):
        return self.handle(Request(environ))(environ, start_response)

    def handle(self, request: Request) -> Response:
        if request.method != "POST":
            return Response("SOAP endpoint: POST only", status=405, headers={"Allow": "POST"})
        self.last_request, self.last_verified = request.get_data(), None
        if request.headers.get("SOAPAction", "").strip('"') != SOAP_ACTION:
            return soap_fault("Unknown SOAPAction")
        try:
            envelope = etree.fromstring(self.last_request, _PARSER)
            if envelope.getroottree().docinfo.doctype:
                return soap_fault("DOCTYPE is not allowed")
            self.last_verified = verify_request(envelope)
        except (etree.XMLSyntaxError, SignatureError, ValueError) as exc:
            return soap_fault(f"WS-Security: {exc}")
        if self.trusted is not None and self.last_verified.certificate_der not in self.trusted:
            return soap_fault("WS-Security: certificate not registered")
        if self.delay:
            self.released.wait(self.delay)
        rut = (
            envelope.findtext(
                f"{{{SOAP_ENV}}}Body/{{{NAMESPACE}}}WS_PersonaGetActEmpresarial.Execute/{{{NAMESPACE}}}Rut"
            )
            or ""
        )
        try:
            data = build_persona_xml(self.registry.consulta_datos_entidad(rut.strip()))
        except DgiError:
            data = build_error_xml("14", "Error al consumir el Servicio Web", "RUT no disponible para pruebas")
        answer = etree.Element(f"{{{NAMESPACE}}}WS_PersonaGetActEmpresarial.ExecuteResponse", nsmap={None: NAMESPACE})
        etree.SubElement(answer, f"{{{NAMESPACE}}}Data").text = data
        return Response(soap_envelope(answer), content_type="text/xml; charset=utf-8")


class RunningStandIn:
    """The stand-in on 127.0.0.1; it verifies the WS-Security signature of every request."""

    def __init__(self, app: StandIn | None = None):
        self.app = app or StandIn(SandboxRegistry())
        self.server = LiveServer().start(self.app)
        self.url = f"{self.server.url}/ePrueba/ws_personaGetActEmpresarialPrueba"

    def stop(self) -> None:
        self.app.released.set()  # a test that made it slow must not hold the shutdown
        self.server.stop()
