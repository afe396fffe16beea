"""The factory of taxpayer registries: the backend DGI_BACKEND names (registry.py lists the settings), wrapped in
the cache. Kept apart from registry.py so that the backends, which build on registry.py, are not imported by it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cachelib import BaseCache, SimpleCache

from .registry import (
    DEFAULT_CACHE_SECONDS,
    DEFAULT_TIMEOUT_SECONDS,
    MAX_TIMEOUT_SECONDS,
    CachedRegistry,
    CertificateLoader,
    TaxpayerRegistry,
)
from .sandbox import SandboxRegistry

_process_cache: BaseCache | None = None


def _default_cache() -> BaseCache:
    # One per process, so registries built per request (one per company certificate) share their answers.
    global _process_cache
    if _process_cache is None:
        _process_cache = SimpleCache(threshold=5000)
    return _process_cache


def timeout_seconds(config: Mapping[str, Any]) -> float:
    """DGI_TIMEOUT_SECONDS as a positive float, capped at MAX_TIMEOUT_SECONDS."""
    raw = config.get("DGI_TIMEOUT_SECONDS")
    value = DEFAULT_TIMEOUT_SECONDS if raw in (None, "") else float(raw)
    if not value > 0:
        raise ValueError(f"DGI_TIMEOUT_SECONDS must be positive, not {value!r}")
    return min(value, MAX_TIMEOUT_SECONDS)


def make_registry(config: Mapping[str, Any], certificate: CertificateLoader | None = None) -> TaxpayerRegistry:
    """The registry the configuration asks for, wrapped in the cache unless DGI_CACHE_SECONDS is 0.

    `certificate` overrides DGI_CERTIFICATE: the endpoint passes the loader of the company certificate the
    request names (idEmpresa, idCertificado). Building a registry per request is cheap: the WSDL, the HTTP
    session, the loaded signing keys and the default cache are kept per process.
    """
    backend = str(config.get("DGI_BACKEND") or "sandbox").strip().lower()
    inner: TaxpayerRegistry
    if backend == "sandbox":
        inner = SandboxRegistry(today=config.get("DGI_TODAY"))
    elif backend == "soap":
        from .soap import SoapRegistry

        loader = certificate or config.get("DGI_CERTIFICATE")
        if loader is None:
            raise ValueError("DGI_BACKEND=soap needs a certificate loader (DGI_CERTIFICATE)")
        inner = SoapRegistry(
            loader,
            url=config.get("DGI_SOAP_URL"),
            timeout=timeout_seconds(config),
            wsdl_path=config.get("DGI_WSDL_PATH"),
            digest=str(config.get("DGI_SIGNATURE_DIGEST") or "sha256"),
        )
    else:
        raise ValueError(f"DGI_BACKEND must be 'sandbox' or 'soap', not {backend!r}")
    ttl = int(config.get("DGI_CACHE_SECONDS", DEFAULT_CACHE_SECONDS))
    if ttl <= 0:
        return inner
    cache = config.get("DGI_CACHE")
    return CachedRegistry(inner, ttl, cache if cache is not None else _default_cache(), key_prefix=f"dgi:{backend}:")
