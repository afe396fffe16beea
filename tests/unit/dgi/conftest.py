"""Fixtures for the DGI lookups: a fixed date, a test certificate, the sandbox and a live DGI stand-in."""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
import requests
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID

from portal.service.dgi.sandbox import SandboxRegistry
from portal.service.dgi.soap import SoapRegistry
from tests.support.dgi_standin import RunningStandIn, StandIn

TODAY = datetime.date(2026, 11, 22)


@dataclass(frozen=True)
class Certificate:
    key_pem: bytes
    cert_pem: bytes

    @property
    def der(self) -> bytes:
        return x509.load_pem_x509_certificate(self.cert_pem).public_bytes(serialization.Encoding.DER)

    def loader(self):
        return lambda: (self.key_pem, self.cert_pem)


def make_certificate(rut: str = "219999830019", common_name: str = "DGI-RUC PRUEBA") -> Certificate:
    """A self-signed certificate shaped like a Uruguayan company's (SERIALNUMBER=RUC<rut>)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name(
        [x509.NameAttribute(NameOID.COMMON_NAME, common_name), x509.NameAttribute(NameOID.SERIAL_NUMBER, f"RUC{rut}")]
    )
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=365))
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return Certificate(key_pem, cert.public_bytes(serialization.Encoding.PEM))


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
