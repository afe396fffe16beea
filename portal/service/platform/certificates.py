"""X.509 certificates for signing CFEs: reading PKCS#12 files, describing certificates, and self-signed
certificates for development and tests.

Uruguayan signing certificates (Correo Uruguayo CA, Abitab ID digital) carry the company's RUT in the
subject as SERIALNUMBER=RUC<12 digits>; `CertificateInfo.rut` reads it from there.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import subprocess
import sys
from dataclasses import dataclass

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import dsa, ec, ed448, ed25519, rsa
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import NameOID

from portal.service.platform.i18n import _


@dataclass(frozen=True)
class CertificateInfo:
    """What a person or a log needs to know about a certificate."""

    serial: int
    issuer: str
    subject: str
    not_before: dt.datetime
    not_after: dt.datetime
    rut: str | None
    sha256_fingerprint: str

    def is_valid_at(self, moment: dt.datetime) -> bool:
        """Whether `moment` (timezone-aware) falls inside the validity period."""
        return self.not_before <= moment <= self.not_after


def _rut_from_subject(cert: x509.Certificate) -> str | None:
    for attribute in cert.subject.get_attributes_for_oid(NameOID.SERIAL_NUMBER):
        value = str(attribute.value).strip().upper()
        digits = value.removeprefix("RUC").removeprefix("RUT").strip()
        if len(digits) == 12 and digits.isdigit():
            return digits
    return None


# RFC 4514 has no short name for serialNumber (2.5.4.5): call it what DGI's instructions do.
_NAMES = {NameOID.SERIAL_NUMBER: "SERIALNUMBER"}


def _info(cert: x509.Certificate) -> CertificateInfo:
    fingerprint = cert.fingerprint(hashes.SHA256()).hex().upper()
    return CertificateInfo(
        serial=cert.serial_number,
        issuer=cert.issuer.rfc4514_string(_NAMES),
        subject=cert.subject.rfc4514_string(_NAMES),
        not_before=cert.not_valid_before_utc,
        not_after=cert.not_valid_after_utc,
        rut=_rut_from_subject(cert),
        sha256_fingerprint=":".join(fingerprint[i : i + 2] for i in range(0, len(fingerprint), 2)),
    )


def certificate_info(cert_pem: bytes) -> CertificateInfo:
    """Serial, issuer, subject, validity, RUT and SHA-256 fingerprint of a PEM certificate."""
    return _info(x509.load_pem_x509_certificate(cert_pem))


def generate_self_signed(rut: str, common_name: str, days: int = 730) -> tuple[bytes, bytes]:
    """A new RSA-2048 key and a self-signed certificate for `rut`, both PEM (key unencrypted PKCS#8).

    For development and tests only: DGI accepts certificates from its authorised CAs.
    """
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name(
        [
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
            x509.NameAttribute(NameOID.SERIAL_NUMBER, f"RUC{rut}"),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, common_name),
            x509.NameAttribute(NameOID.COUNTRY_NAME, "UY"),
        ]
    )
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=days))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=True,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=False,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return key_pem, cert.public_bytes(serialization.Encoding.PEM)


class UnusableSigningKey(ValueError):
    """The file opens, but its key cannot sign CFEs; the message says why, for the person who uploaded it."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.message, self.code = message, code  # the catalogue message itself: str(self) would lose it


def load_pkcs12(data: bytes, password: bytes | None) -> tuple[bytes, bytes, CertificateInfo]:
    """The key and certificate of a .p12/.pfx file as PEM, plus the certificate's description. For a file this
    process trusts (the operator's command, tests); a file from a request goes through `load_untrusted_pkcs12`.

    ValueError when the password is wrong or the file lacks a key or a certificate; UnusableSigningKey when the key
    is not RSA (CFEs are signed RSA-SHA256: an EC key stored here made every signing a 500) or is not the
    certificate's.
    """
    key, cert, _chain = pkcs12.load_key_and_certificates(data, password)
    if key is None or cert is None:
        raise ValueError("El archivo PKCS#12 no contiene clave privada y certificado.")
    return _checked(key, cert)


def _checked(key: object, cert: x509.Certificate) -> tuple[bytes, bytes, CertificateInfo]:
    if not isinstance(key, rsa.RSAPrivateKey):
        raise UnusableSigningKey(
            _(
                "La clave del certificado no es RSA: DGI pide firmar con RSA-SHA256. "
                "Pedile a la autoridad certificadora un certificado con clave RSA."
            ),
            "clave_no_rsa",
        )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    cert_pem = cert.public_bytes(serialization.Encoding.PEM)
    if not key_matches_certificate(key_pem, cert_pem):
        raise UnusableSigningKey(
            _(
                "La clave privada del archivo no corresponde a su certificado: exportá de nuevo el .p12 "
                "con la clave y el certificado juntos."
            ),
            "clave_no_corresponde",
        )
    return key_pem, cert_pem, _info(cert)


# A .p12 names its own key derivations (each part's iteration count and the MAC's), and OpenSSL does what the file
# says while cryptography holds the GIL: a 2.5 KB file asking for 2^31 rounds stopped every thread of the service
# process for many minutes, and a key bag inside an encrypted part hides its count until that part is decrypted,
# so no reading of the file beforehand can tell. A file from a request is therefore opened in a child process with
# a CPU limit; real files (2,000 to 10,000 rounds from Windows, OpenSSL, macOS, Java) open in milliseconds. The
# child answers the key (unencrypted PKCS#8) and the certificate as PEM on its stdout, a pipe to this process only.
UNTRUSTED_OPEN_CPU_SECONDS = 5
_OPEN_IN_CHILD = """
import json, resource, sys
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 1))
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import pkcs12
raw = sys.stdin.buffer.read()
size = int.from_bytes(raw[:4], "big")
data, password = raw[4 : 4 + size], raw[4 + size :]
try:
    key, cert, _chain = pkcs12.load_key_and_certificates(data, password or None)
except Exception as exc:  # a wrong password, or not PKCS#12: cryptography says the same of both
    json.dump({"refused": type(exc).__name__}, sys.stdout)
    sys.exit(0)
pem = serialization.Encoding.PEM
json.dump({
    "key": key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    if key is not None else None,
    "cert": cert.public_bytes(pem).decode() if cert is not None else None,
}, sys.stdout)
"""


def load_untrusted_pkcs12(data: bytes, password: bytes | None) -> tuple[bytes, bytes, CertificateInfo]:
    """load_pkcs12 for a file from a request, opened in a child process that may spend at most
    UNTRUSTED_OPEN_CPU_SECONDS of CPU (UnusableSigningKey `archivo_costoso` past it): this process never runs the
    key derivations a file asks for."""
    limit = UNTRUSTED_OPEN_CPU_SECONDS
    message = len(data).to_bytes(4, "big") + data + (password or b"")
    try:
        child = subprocess.run(  # noqa: S603 - this interpreter and our code; the file goes in on stdin
            [sys.executable, "-I", "-c", _OPEN_IN_CHILD, str(limit)],
            input=message,
            capture_output=True,
            timeout=limit * 4 + 5,  # CPU the child did not get on a busy machine still ends it
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise _costly() from None
    if child.returncode < 0:  # SIGXCPU at the limit, or SIGKILL past its hard limit
        raise _costly()
    if child.returncode != 0:
        raise RuntimeError(f"opening a .p12 in a child process failed: {child.stderr.decode(errors='replace')}")
    answer = json.loads(child.stdout)
    if "refused" in answer:
        raise ValueError(f"PKCS#12 refused: {answer['refused']}")
    if not answer["key"] or not answer["cert"]:
        raise ValueError("El archivo PKCS#12 no contiene clave privada y certificado.")
    key = serialization.load_pem_private_key(answer["key"].encode(), password=None)
    return _checked(key, x509.load_pem_x509_certificate(answer["cert"].encode()))


def _costly() -> UnusableSigningKey:
    return UnusableSigningKey(
        _(
            "El archivo pide demasiado trabajo para abrirse (más que el de cualquier autoridad certificadora): "
            "exportalo de nuevo como .p12 con las opciones habituales."
        ),
        "archivo_costoso",
    )


# The key types PKCS#12 holds (tests also make EC ones, to see them refused as DGI certificates).
PKCS12_KEYS = (
    rsa.RSAPrivateKey,
    dsa.DSAPrivateKey,
    ec.EllipticCurvePrivateKey,
    ed25519.Ed25519PrivateKey,
    ed448.Ed448PrivateKey,
)


def to_pkcs12(key_pem: bytes, cert_pem: bytes, password: bytes | None, name: str = "cfe") -> bytes:
    """A PKCS#12 file holding the key and certificate (for tests and for handing a certificate around)."""
    key = serialization.load_pem_private_key(key_pem, password=None)
    if not isinstance(key, PKCS12_KEYS):
        raise ValueError(f"PKCS#12 cannot hold a {type(key).__name__}.")
    cert = x509.load_pem_x509_certificate(cert_pem)
    encryption = serialization.BestAvailableEncryption(password) if password else serialization.NoEncryption()
    return pkcs12.serialize_key_and_certificates(name.encode(), key, cert, None, encryption)


@functools.lru_cache(maxsize=64)
def key_matches_certificate(key_pem: bytes, cert_pem: bytes, password: bytes | None = None) -> bool:
    """Whether the private key is the one whose public half the certificate certifies.

    Loading the key checks it whole (OpenSSL's RSA key check, about 30 ms): a malformed key's signatures
    could give its factors away, so the check stays, but once per process for a given key and certificate (every
    signer built for it, in every app of the process, asks the same question)."""
    key = serialization.load_pem_private_key(key_pem, password=password)
    cert = x509.load_pem_x509_certificate(cert_pem)
    public = cert.public_key()
    return key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    ) == public.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
