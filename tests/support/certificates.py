"""Test certificates shaped like a Uruguayan company's (SERIALNUMBER=RUC<rut>), self-signed, with the validity
window a test asks for. (portal.service.platform.certificates.generate_self_signed makes the development one.)"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID

from portal.domain.uruguay_time import MONTEVIDEO, today_montevideo


@dataclass(frozen=True)
class Certificate:
    key_pem: bytes
    cert_pem: bytes

    @property
    def der(self) -> bytes:
        return x509.load_pem_x509_certificate(self.cert_pem).public_bytes(serialization.Encoding.DER)

    def loader(self) -> Callable[[], tuple[bytes, bytes]]:
        return lambda: (self.key_pem, self.cert_pem)


def make_certificate(
    rut: str = "219999830019",
    common_name: str = "DGI-RUC PRUEBA",
    *,
    not_before: datetime.datetime | None = None,
    not_after: datetime.datetime | None = None,
    issued_by: Certificate | None = None,
) -> Certificate:
    """A new RSA-2048 key and its certificate; valid from yesterday for a year unless the window is given;
    self-signed unless `issued_by` names the authority (make_authority) that signs it."""
    name = x509.Name(
        [x509.NameAttribute(NameOID.COMMON_NAME, common_name), x509.NameAttribute(NameOID.SERIAL_NUMBER, f"RUC{rut}")]
    )
    return _issue(name, not_before, not_after, issued_by, authority=False)


def make_authority(common_name: str = "Autoridad Certificadora de prueba") -> Certificate:
    """A certification authority's key and self-signed certificate (CA: true), valid from yesterday for 5 years."""
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    now = datetime.datetime.now(datetime.UTC)
    return _issue(name, None, now + datetime.timedelta(days=5 * 365), None, authority=True)


def make_tls_certificate(dns_name: str, issued_by: Certificate) -> Certificate:
    """A TLS server's key and certificate for `dns_name` (subjectAltName), issued by `issued_by`, valid a year."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, dns_name)]))
        .issuer_name(x509.load_pem_x509_certificate(issued_by.cert_pem).subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=365))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(dns_name)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .sign(serialization.load_pem_private_key(issued_by.key_pem, password=None), hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return Certificate(key_pem, cert.public_bytes(serialization.Encoding.PEM))


def _issue(
    name: x509.Name,
    not_before: datetime.datetime | None,
    not_after: datetime.datetime | None,
    issued_by: Certificate | None,
    *,
    authority: bool,
) -> Certificate:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    signing_key, issuer = key, name
    if issued_by is not None:
        signing_key = serialization.load_pem_private_key(issued_by.key_pem, password=None)
        issuer = x509.load_pem_x509_certificate(issued_by.cert_pem).subject
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(issuer)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_before or now - datetime.timedelta(days=1))
        .not_valid_after(not_after or now + datetime.timedelta(days=365))
        .add_extension(x509.BasicConstraints(ca=authority, path_length=None), critical=True)
        .sign(signing_key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return Certificate(key_pem, cert.public_bytes(serialization.Encoding.PEM))


def expiring_in(days: int) -> datetime.datetime:
    """A certificate's not_after `days` Montevideo days from today, at noon there: the compliance watch counts
    days by Montevideo's calendar, so a moment `days` x 24 h (+ 12 h) from now is a day more after 15:00 UTC."""
    day = today_montevideo() + datetime.timedelta(days=days)
    return datetime.datetime.combine(day, datetime.time(12), tzinfo=MONTEVIDEO)
