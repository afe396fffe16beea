"""CachedRegistry (what it keeps, for how long, and that a broken cache does not break lookups) and
make_registry (backend choice and bounded settings)."""

from __future__ import annotations

from datetime import date

import pytest
from cachelib import SimpleCache

from portal.service.dgi import CachedRegistry, DgiInvalidInput, DgiTimeout, DgiUnavailable, TaxpayerNotFound
from portal.service.dgi import sandbox_data as data
from portal.service.dgi.factory import make_registry, timeout_seconds
from portal.service.dgi.sandbox import SandboxRegistry
from portal.service.dgi.soap import SoapRegistry


class CountingRegistry(SandboxRegistry):
    """The sandbox, counting lookups that reach it; `fail_with` makes them raise instead."""

    def __init__(self):
        super().__init__(today=date(2026, 11, 22))
        self.calls: list[str] = []
        self.fail_with: Exception | None = None

    def _count(self, what):
        self.calls.append(what)
        if self.fail_with is not None:
            raise self.fail_with

    def _consulta_datos_entidad(self, rut):
        self._count(f"datos:{rut}")
        return super()._consulta_datos_entidad(rut)

    def _consulta_cva(self, rut):
        self._count(f"cva:{rut}")
        return super()._consulta_cva(rut)

    def _consulta_nombre_entidad(self, doc_type, number):
        self._count(f"nombre:{number}")
        return super()._consulta_nombre_entidad(doc_type, number)


class RecordingCache(SimpleCache):
    def __init__(self):
        super().__init__()
        self.timeouts: dict[str, int] = {}

    def set(self, key, value, timeout=None):
        self.timeouts[key] = timeout
        return super().set(key, value, timeout)


class BrokenCache(SimpleCache):
    def get(self, key):
        raise ConnectionError("redis is down")

    def set(self, key, value, timeout=None):
        raise ConnectionError("redis is down")


@pytest.fixture
def inner():
    return CountingRegistry()


def test_a_second_call_is_answered_from_the_cache(inner):
    registry = CachedRegistry(inner, ttl_seconds=300)
    first = registry.consulta_datos_entidad(data.DEMO_RUT)
    assert registry.consulta_datos_entidad(data.DEMO_RUT) == first
    assert registry.consulta_cva(data.DEMO_RUT) == registry.consulta_cva(data.DEMO_RUT)
    assert registry.consulta_nombre_entidad(3, data.INDIVIDUAL_CI) == registry.consulta_nombre_entidad(
        "3", "1.234.567-2"
    )
    assert inner.calls == [f"datos:{data.DEMO_RUT}", f"cva:{data.DEMO_RUT}", f"nombre:{data.INDIVIDUAL_CI}"]


def test_each_lookup_has_its_own_entry(inner):
    registry = CachedRegistry(inner, ttl_seconds=300)
    identity = registry.consulta_rut(data.DEMO_RUT)
    full = registry.consulta_datos_entidad(data.DEMO_RUT)
    assert identity.domicilio_fiscal is None and full.domicilio_fiscal is not None
    assert len(inner.calls) == 2


def test_not_found_is_cached_briefly(inner):
    cache = RecordingCache()
    registry = CachedRegistry(inner, ttl_seconds=3600, cache=cache, not_found_seconds=60)
    for _ in range(2):
        with pytest.raises(TaxpayerNotFound):
            registry.consulta_rut(data.UNKNOWN_RUT)
    assert inner.calls == [f"datos:{data.UNKNOWN_RUT}"]
    registry.consulta_rut(data.DEMO_RUT)
    assert cache.timeouts == {f"dgi:rut:{data.UNKNOWN_RUT}": 60, f"dgi:rut:{data.DEMO_RUT}": 3600}


@pytest.mark.parametrize("error", [DgiUnavailable("down"), DgiTimeout("slow")])
def test_errors_are_never_cached(inner, error):
    registry = CachedRegistry(inner, ttl_seconds=300)
    inner.fail_with = error
    for _ in range(2):
        with pytest.raises(type(error)):
            registry.consulta_rut(data.DEMO_RUT)
    inner.fail_with = None
    assert registry.consulta_rut(data.DEMO_RUT).rut == data.DEMO_RUT
    assert len(inner.calls) == 3


def test_invalid_input_never_reaches_the_cache_or_the_registry(inner):
    cache = RecordingCache()
    registry = CachedRegistry(inner, ttl_seconds=300, cache=cache)
    with pytest.raises(DgiInvalidInput):
        registry.consulta_rut("219999830018")
    assert inner.calls == [] and cache.timeouts == {}


def test_a_broken_cache_does_not_break_lookups(inner, caplog):
    registry = CachedRegistry(inner, ttl_seconds=300, cache=BrokenCache())
    assert registry.consulta_rut(data.DEMO_RUT).rut == data.DEMO_RUT
    assert registry.consulta_rut(data.DEMO_RUT).rut == data.DEMO_RUT
    assert len(inner.calls) == 2
    assert "DGI cache read failed" in caplog.text


def test_a_zero_ttl_is_refused_because_cachelib_reads_it_as_forever(inner):
    with pytest.raises(ValueError, match="positive"):
        CachedRegistry(inner, ttl_seconds=0)


def test_make_registry_defaults_to_a_cached_sandbox():
    cache = SimpleCache()
    registry = make_registry({"DGI_CACHE": cache, "DGI_TODAY": lambda: date(2026, 11, 22)})
    assert isinstance(registry, CachedRegistry) and isinstance(registry.inner, SandboxRegistry)
    assert registry.ttl_seconds == 300
    assert registry.consulta_cva(data.DEMO_RUT).vigente
    assert cache.get(f"dgi:sandbox:cva:{data.DEMO_RUT}") is not None


def test_make_registry_without_cache():
    registry = make_registry({"DGI_BACKEND": "SANDBOX", "DGI_CACHE_SECONDS": 0})
    assert isinstance(registry, SandboxRegistry)


def test_make_registry_soap_reads_its_settings(certificate):
    registry = make_registry(
        {
            "DGI_BACKEND": "soap",
            "DGI_CACHE_SECONDS": "30",
            "DGI_TIMEOUT_SECONDS": "4.5",
            "DGI_SOAP_URL": "http://127.0.0.1:9/ws",
            "DGI_SIGNATURE_DIGEST": "sha1",
        },
        certificate=certificate.loader(),
    )
    assert isinstance(registry, CachedRegistry) and registry.ttl_seconds == 30
    soap = registry.inner
    assert isinstance(soap, SoapRegistry)
    assert (soap.url, soap.timeout, soap.digest) == ("http://127.0.0.1:9/ws", 4.5, "sha1")
    assert soap.wsdl_path.endswith("dgi-samples/wsdl/ws_personaGetActEmpresarialPrueba.wsdl")


def test_make_registry_soap_needs_a_certificate():
    with pytest.raises(ValueError, match="DGI_CERTIFICATE"):
        make_registry({"DGI_BACKEND": "soap"})


def test_make_registry_refuses_an_unknown_backend():
    with pytest.raises(ValueError, match="sandbox"):
        make_registry({"DGI_BACKEND": "rest"})


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, 10.0), ("", 10.0), (1, 1.0), ("2.5", 2.5), (30, 30.0), (120, 30.0), (float("inf"), 30.0)],
)
def test_the_timeout_is_bounded(value, expected):
    assert timeout_seconds({"DGI_TIMEOUT_SECONDS": value}) == expected


@pytest.mark.parametrize("value", [0, "0", -1, "nan", "abc"])
def test_a_nonsense_timeout_is_refused(value):
    with pytest.raises(ValueError):
        timeout_seconds({"DGI_TIMEOUT_SECONDS": value})
