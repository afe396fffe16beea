"""The taxpayer-registry adapter: one interface and its cache. The backends (sandbox.py, soap.py) implement it;
factory.py builds the one the configuration asks for.

Every backend inherits `TaxpayerRegistry`, whose public methods validate and normalise the input (raising
`DgiInvalidInput` before any lookup) and then call the backend's `_consulta_*` with clean values.

Configuration read by `factory.make_registry(config)`:

    DGI_BACKEND          "sandbox" (default) | "soap"
    DGI_CACHE_SECONDS    time to keep a successful answer (default 300; 0 turns the cache off)
    DGI_CACHE            a cachelib cache to use (default: one process-wide SimpleCache; RedisCache works)
    DGI_TIMEOUT_SECONDS  SOAP timeout, default 10, capped at 30 so a web request never hangs longer
    DGI_SOAP_URL         SOAP endpoint (default: the WSDL's address, DGI's test host)
    DGI_WSDL_PATH        the WSDL (default: dgi_samples_dir()/wsdl/ws_personaGetActEmpresarialPrueba.wsdl)
    DGI_SIGNATURE_DIGEST "sha256" (default) | "sha1" for the WS-Security signature
    DGI_CERTIFICATE      callable () -> (key_pem, cert_pem): the certificate that signs SOAP requests
    DGI_TODAY            callable () -> date for the sandbox's clock (default: today in Montevideo)
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cachelib import BaseCache, SimpleCache

from portal.domain.identifiers import URUGUAYAN_DOC_TYPES, DocType, document_error
from portal.service.platform.i18n import _

from .errors import DgiError, DgiInvalidInput, DgiNotOffered, DgiTimeout, DgiUnavailable, TaxpayerNotFound
from .models import CvaStatus, Entity, EntityName

__all__ = [
    "CachedRegistry",
    "CertificateLoader",
    "DgiError",
    "DgiInvalidInput",
    "DgiNotOffered",
    "DgiTimeout",
    "DgiUnavailable",
    "TaxpayerNotFound",
    "TaxpayerRegistry",
    "normalize_document",
    "normalize_rut",
]

log = logging.getLogger(__name__)

CertificateLoader = Callable[[], tuple[bytes | str, bytes | str]]

DEFAULT_TIMEOUT_SECONDS = 10.0
MAX_TIMEOUT_SECONDS = 30.0
DEFAULT_CACHE_SECONDS = 300
NOT_FOUND_CACHE_SECONDS = 60

# Catalogue messages (said in the reader's language), one set for a document and one for a RUT.
_MESSAGES = {
    "required": _("Falta el número de documento."),
    "format": _("El número de documento no tiene el formato correcto."),
    "check_digit": _("El dígito verificador no es correcto."),
}
_RUT_MESSAGES = {
    "required": _("Falta el número de RUT."),
    "format": _("El número de RUT no tiene el formato correcto."),
    "check_digit": _("El dígito verificador no es correcto."),
}
_SEPARATORS = str.maketrans("", "", ".- ")


def normalize_rut(rut: object) -> str:
    """The 12 digits of a RUT typed with or without separators (21-999983-001-9), or DgiInvalidInput."""
    value = str(rut or "").strip().translate(_SEPARATORS)
    error = document_error(DocType.RUT, value)
    if error:
        raise DgiInvalidInput("rut", error, _RUT_MESSAGES[error])
    return value


def normalize_document(tipo_doc: object, nro_doc: object) -> tuple[DocType, str]:
    """A (DocType, number) pair DGI keeps a registry of: NIE, RUT or CI. Otherwise DgiInvalidInput."""
    try:
        doc_type = DocType(int(str(tipo_doc).strip()))
    except ValueError:
        raise DgiInvalidInput("tipoDoc", "invalid", _("Tipo de documento desconocido (1 a 7).")) from None
    if doc_type not in URUGUAYAN_DOC_TYPES:
        raise DgiInvalidInput(
            "tipoDoc", "unsupported", _("DGI solo registra documentos uruguayos: NIE (1), RUT (2) o CI (3).")
        )
    value = str(nro_doc or "").strip().translate(_SEPARATORS)
    error = document_error(doc_type, value)
    if error:
        raise DgiInvalidInput("nroDoc", error, _MESSAGES[error])
    return doc_type, value


class TaxpayerRegistry(ABC):
    """DGI's taxpayer registry. Public methods validate; backends implement the `_consulta_*` methods."""

    def consulta_rut(self, rut: str) -> Entity:
        """Identity of a RUT (no address, no activities). Raises DgiError subclasses."""
        return self._consulta_rut(normalize_rut(rut))

    def consulta_nombre_entidad(self, tipo_doc: int | str, nro_doc: str) -> EntityName:
        """The name registered for a NIE (1), RUT (2) or CI (3)."""
        doc_type, number = normalize_document(tipo_doc, nro_doc)
        return self._consulta_nombre_entidad(doc_type, number)

    def consulta_cva(self, rut: str) -> CvaStatus:
        """The annual tax-compliance certificate (CVA) of a RUT."""
        return self._consulta_cva(normalize_rut(rut))

    def consulta_datos_entidad(self, rut: str) -> Entity:
        """Everything DGI registers about a RUT: identity, fiscal address with contacts, activities."""
        return self._consulta_datos_entidad(normalize_rut(rut))

    def close(self) -> None:  # noqa: B027 - an optional hook, not every backend holds resources
        """Release network resources, if the backend holds any."""

    def _consulta_rut(self, rut: str) -> Entity:
        return self._consulta_datos_entidad(rut).identity()

    @abstractmethod
    def _consulta_nombre_entidad(self, doc_type: DocType, number: str) -> EntityName: ...

    @abstractmethod
    def _consulta_cva(self, rut: str) -> CvaStatus: ...

    @abstractmethod
    def _consulta_datos_entidad(self, rut: str) -> Entity: ...


@dataclass(frozen=True)
class _NotFound:
    message: str


class CachedRegistry(TaxpayerRegistry):
    """Keeps answers of `inner` in a cachelib cache: successes for `ttl_seconds`, "not found" for at most
    a minute (a RUT registered today must show up soon), errors never.

    The cache is an optimisation: if it fails (Redis down), the lookup goes to `inner` and is logged.
    """

    def __init__(
        self,
        inner: TaxpayerRegistry,
        ttl_seconds: int = DEFAULT_CACHE_SECONDS,
        cache: BaseCache | None = None,
        *,
        not_found_seconds: int = NOT_FOUND_CACHE_SECONDS,
        key_prefix: str = "dgi:",
    ):
        if ttl_seconds <= 0:
            raise ValueError("ttl_seconds must be positive (cachelib reads 0 as 'never expires')")
        self.inner = inner
        self.ttl_seconds = int(ttl_seconds)
        self.not_found_seconds = max(1, min(int(not_found_seconds), self.ttl_seconds))
        self.cache = cache if cache is not None else SimpleCache(threshold=5000)
        self.key_prefix = key_prefix

    def _cached(self, key: str, lookup: Callable[[], Any]) -> Any:
        key = self.key_prefix + key
        try:
            hit = self.cache.get(key)
        except Exception:
            log.warning("DGI cache read failed; asking the registry", exc_info=True)
            hit = None
        if isinstance(hit, _NotFound):
            raise TaxpayerNotFound(hit.message)
        if hit is not None:
            return hit
        try:
            value = lookup()
        except TaxpayerNotFound as exc:
            self._store(key, _NotFound(exc.message), self.not_found_seconds)
            raise
        self._store(key, value, self.ttl_seconds)
        return value

    def _store(self, key: str, value: Any, seconds: int) -> None:
        try:
            self.cache.set(key, value, timeout=seconds)
        except Exception:
            log.warning("DGI cache write failed", exc_info=True)

    def _consulta_rut(self, rut: str) -> Entity:
        return self._cached(f"rut:{rut}", lambda: self.inner.consulta_rut(rut))

    def _consulta_nombre_entidad(self, doc_type: DocType, number: str) -> EntityName:
        return self._cached(
            f"nombre:{int(doc_type)}:{number}", lambda: self.inner.consulta_nombre_entidad(doc_type, number)
        )

    def _consulta_cva(self, rut: str) -> CvaStatus:
        return self._cached(f"cva:{rut}", lambda: self.inner.consulta_cva(rut))

    def _consulta_datos_entidad(self, rut: str) -> Entity:
        return self._cached(f"datos:{rut}", lambda: self.inner.consulta_datos_entidad(rut))

    def close(self) -> None:
        self.inner.close()
