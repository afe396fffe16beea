"""The SOAP backend: DGI's WS_PersonaGetActEmpresarial ("Consulta de RUT") through zeep, Body signed.

What DGI offers, and so what this backend answers:

- `consulta_datos_entidad(rut)`: the service's whole answer (identity, fiscal address, activities).
- `consulta_rut(rut)`: the same call, trimmed to the identity.
- `consulta_nombre_entidad`: RUT (tipoDoc 2) only, from the same call. DGI has no web service that looks
  people up by CI or NIE, so tipoDoc 1 and 3 raise `DgiNotOffered` (501, code dgi_not_offered).
- `consulta_cva`: DGI publishes no machine-readable CVA service (only a web page for people), so it raises
  `DgiNotOffered` too, rather than scraping a page whose format is not published.
- `emisor_electronico` is None: this service does not say it (ws_consultas EFACCONSULTARRUCEMISORES does).

Per process, and shared by every `SoapRegistry`: the parsed WSDL, the HTTP session and the loaded signing
keys (one per certificate). Building a registry per request (one per company certificate) is therefore cheap.
"""

from __future__ import annotations

import logging
import threading
from functools import lru_cache
from pathlib import Path

import requests
import zeep
import zeep.exceptions
from lxml import etree
from zeep.transports import Transport
from zeep.wsdl import Document

from portal import paths
from portal.domain.identifiers import DocType
from portal.service.platform.i18n import _

from .errors import DgiNotOffered, DgiTimeout, DgiUnavailable
from .models import CvaStatus, Entity, EntityName
from .persona_xml import parse_data
from .registry import MAX_TIMEOUT_SECONDS, CertificateLoader, TaxpayerRegistry
from .wsse import BodySignature

log = logging.getLogger(__name__)

WSDL_NAME = "ws_personaGetActEmpresarialPrueba.wsdl"
NAMESPACE = "DGI_Modernizacion_Consolidado"
BINDING = f"{{{NAMESPACE}}}WS_PersonaGetActEmpresarialSoapBinding"
DGI_TEST_URL = "https://efactura.dgi.gub.uy:6470/ePrueba/ws_personaGetActEmpresarialPrueba"
# Production address as public client code uses it (not found in a DGI text).
DGI_PRODUCTION_URL = "https://efactura.dgi.gub.uy:6475/efactura/ws_personaGetActEmpresarial"
CONNECT_TIMEOUT_SECONDS = 5.0

# strict parsing, no DTD, no entities: DGI's answers are input like any other.
ZEEP_SETTINGS = zeep.Settings(strict=True, forbid_dtd=True, forbid_entities=True, forbid_external=True)
_lock = threading.Lock()
_session: requests.Session | None = None


def default_wsdl_path() -> Path:
    """DGI's WSDL for the service, from the shared samples folder (never copied into the repository)."""
    return paths.dgi_samples_dir() / "wsdl" / WSDL_NAME


@lru_cache(maxsize=4)
def _wsdl(path: str) -> Document:
    # Parsed once per process; zeep clients share a Document. Local files only: nothing is fetched.
    # zeep annotates `transport` as type[Transport] but uses (and its own Client passes) an instance
    return Document(path, Transport(timeout=10), settings=ZEEP_SETTINGS)  # type: ignore[arg-type]


@lru_cache(maxsize=32)
def body_signer(key_pem: bytes, cert_pem: bytes, digest: str) -> BodySignature:
    return BodySignature(key_pem, cert_pem, digest)


def shared_session() -> requests.Session:
    """The process's HTTP session to DGI (keep-alive across registries)."""
    global _session
    with _lock:
        if _session is None:
            _session = requests.Session()
        return _session


def close_shared_session() -> None:
    """Close the process's HTTP session (at shutdown; a later lookup opens a new one)."""
    global _session
    with _lock:
        if _session is not None:
            _session.close()
            _session = None


class DgiTransport(Transport):
    """zeep's transport, but an HTTP error whose body is not XML (a proxy's HTML page) is a transport error,
    not a SOAP fault: zeep would parse well-formed HTML and report "Unknown fault"."""

    def post_xml(self, address, envelope, headers):
        response = super().post_xml(address, envelope, headers)
        media_type = response.headers.get("Content-Type", "").partition(";")[0].strip().lower()
        if response.status_code >= 400 and not media_type.endswith("xml"):
            raise zeep.exceptions.TransportError(f"HTTP {response.status_code}", status_code=response.status_code)
        return response


def _as_bytes(value: bytes | str) -> bytes:
    return value.encode("ascii") if isinstance(value, str) else value


class SoapRegistry(TaxpayerRegistry):
    """DGI's lookup service over SOAP 1.1 with a WS-Security signed Body.

    `certificate` returns (key_pem, cert_pem) of the company certificate and is called on the first lookup.
    `url` overrides the WSDL's address (DGI's test host). `timeout` bounds connect and read, in seconds.
    `session` replaces the process-wide HTTP session (tests pass their own and close it).
    """

    def __init__(
        self,
        certificate: CertificateLoader,
        *,
        url: str | None = None,
        timeout: float = 10.0,
        wsdl_path: str | Path | None = None,
        digest: str = "sha256",
        session: requests.Session | None = None,
    ):
        self._certificate = certificate
        self.url = url
        self.timeout = min(float(timeout), MAX_TIMEOUT_SECONDS)
        self.wsdl_path = str(wsdl_path or default_wsdl_path())
        self.digest = digest
        self._session = session
        self._service = None
        self._lock = threading.Lock()

    def _proxy(self):
        with self._lock:
            if self._service is None:
                key_pem, cert_pem = self._certificate()
                signer = body_signer(_as_bytes(key_pem), _as_bytes(cert_pem), self.digest)
                timeouts = (min(CONNECT_TIMEOUT_SECONDS, self.timeout), self.timeout)
                transport = DgiTransport(
                    session=self._session or shared_session(), timeout=self.timeout, operation_timeout=timeouts
                )
                client = zeep.Client(_wsdl(self.wsdl_path), wsse=signer, transport=transport, settings=ZEEP_SETTINGS)
                self._service = client.create_service(BINDING, self.url) if self.url else client.service
            return self._service

    def _execute(self, rut: str) -> str:
        """The `<Data>` string DGI answers for `rut`, or the DgiError that explains why there is none."""
        try:
            result = self._proxy().Execute(Rut=rut)
        except requests.Timeout as exc:
            raise DgiTimeout(_("DGI no respondió en {segundos} s.", segundos=f"{self.timeout:g}")) from exc
        except requests.RequestException as exc:
            raise DgiUnavailable(_("No se pudo conectar con el servicio de DGI.")) from exc
        except zeep.exceptions.Fault as exc:
            raise DgiUnavailable(_("DGI rechazó la consulta: {reason}", reason=exc.message), code="dgi_fault") from exc
        except zeep.exceptions.TransportError as exc:
            raise DgiUnavailable(
                _("DGI respondió HTTP {estado}.", estado=exc.status_code), code="dgi_http_error"
            ) from exc
        except (zeep.exceptions.Error, etree.XMLSyntaxError) as exc:
            raise DgiUnavailable(_("DGI respondió algo que no se puede leer."), code="dgi_bad_answer") from exc
        data = getattr(result, "Data", result)
        if not isinstance(data, str) or not data.strip():
            raise DgiUnavailable(_("DGI respondió sin datos."), code="dgi_bad_answer")
        return data

    def _consulta_datos_entidad(self, rut: str) -> Entity:
        try:
            entity = parse_data(self._execute(rut))
            if entity.rut != rut:
                raise DgiUnavailable(_("DGI respondió por otro RUT ({rut}).", rut=entity.rut), code="dgi_bad_answer")
        except (DgiUnavailable, DgiTimeout) as exc:
            log.warning("DGI lookup of RUT %s failed: %s (%s)", rut, exc.code, exc.__cause__ or exc.message)
            raise
        return entity

    def _consulta_nombre_entidad(self, doc_type: DocType, number: str) -> EntityName:
        if doc_type != DocType.RUT:
            raise DgiNotOffered(_("El servicio web de DGI solo consulta por RUT."))
        return EntityName(int(doc_type), number, self._consulta_datos_entidad(number).denominacion)

    def _consulta_cva(self, rut: str) -> CvaStatus:
        raise DgiNotOffered(_("DGI no ofrece un servicio web para el CVA; se consulta en servicios.dgi.gub.uy."))
