"""Fixtures for the DGI lookups: a fixed date, a test certificate, the sandbox and a live DGI stand-in."""

from __future__ import annotations

import datetime
from collections.abc import Iterator

import pytest
import requests

from portal.service.dgi.sandbox import SandboxRegistry
from portal.service.dgi.soap import SoapRegistry
from tests.support.certificates import Certificate, make_certificate
from tests.support.dgi_standin import RunningStandIn, StandIn

TODAY = datetime.date(2026, 11, 22)


@pytest.fixture(scope="session")
def certificate() -> Certificate:
    return make_certificate()


@pytest.fixture(scope="session")
def other_certificate() -> Certificate:
    """A second company's certificate (not the one the stand-in may trust)."""
    return make_certificate("211003420017", "OTRA EMPRESA")


@pytest.fixture
def today() -> datetime.date:
    return TODAY


@pytest.fixture
def sandbox() -> SandboxRegistry:
    return SandboxRegistry(today=TODAY)


@pytest.fixture
def standin() -> Iterator[RunningStandIn]:
    """The DGI stand-in served on 127.0.0.1, port 0, in a thread."""
    running = RunningStandIn(StandIn(SandboxRegistry(today=TODAY)))
    yield running
    running.stop()


@pytest.fixture
def http_session() -> Iterator[requests.Session]:
    session = requests.Session()
    yield session
    session.close()


@pytest.fixture
def soap_registry(standin, certificate, http_session) -> SoapRegistry:
    return SoapRegistry(certificate.loader(), url=standin.url, timeout=5, session=http_session)
