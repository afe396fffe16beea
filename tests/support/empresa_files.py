"""Files an admin uploads on the Empresa pages, made to measure: .p12 certificates, signed CAE files, logos."""

from __future__ import annotations

import datetime as dt
import io
from functools import cache

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import NameOID
from PIL import Image

from portal.domain.uruguay_time import today_montevideo
from portal.service.cfe.cae import CaeRange, build_cae_xml
from portal.service.cfe.signing import CfeSigner
from portal.service.platform.certificates import to_pkcs12

DEMO_RUT = "219999830019"
OTHER_RUT = "211003420017"


@cache
def _key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def certificate_pem(
    rut: str | None,
    *,
    valid_from_days: int = -1,
    valid_to_days: int = 365,
    valid_to: dt.datetime | None = None,
    name: str = "Empresa de prueba",
    key: rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey | None = None,
) -> tuple[bytes, bytes]:
    """(key PEM, certificate PEM) valid from/to that many days from now (or to the instant `valid_to`),
    SERIALNUMBER=RUC<rut>; with the shared RSA key unless `key` is given."""
    key = key or _key()
    attributes = [x509.NameAttribute(NameOID.COMMON_NAME, name)]
    if rut:
        attributes.append(x509.NameAttribute(NameOID.SERIAL_NUMBER, f"RUC{rut}"))
    subject = x509.Name(attributes)
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now + dt.timedelta(days=valid_from_days))
        .not_valid_after(valid_to or now + dt.timedelta(days=valid_to_days))
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return key_pem, cert.public_bytes(serialization.Encoding.PEM)


def ec_p12(password: str = "clave-p12") -> bytes:
    """A .p12 of the demo company that opens but cannot sign CFEs: a SECP256R1 key and its certificate."""
    key_pem, cert_pem = certificate_pem(DEMO_RUT, key=ec.generate_private_key(ec.SECP256R1()))
    return to_pkcs12(key_pem, cert_pem, password.encode())


def p12(rut: str | None = DEMO_RUT, password: str = "clave-p12", **validity) -> bytes:
    key_pem, cert_pem = certificate_pem(rut, **validity)
    return to_pkcs12(key_pem, cert_pem, password.encode() or None)


@cache
def _dgi_signer() -> CfeSigner:
    key_pem, cert_pem = certificate_pem(None, name="DGI (prueba)")
    return CfeSigner(key_pem, cert_pem)


def cae_xml(
    *,
    rut: str = DEMO_RUT,
    tipo: int = 101,
    serie: str = "B",
    dnro: int = 1,
    hnro: int = 5000,
    cae_id: int = 90260000017,
    expires_in_days: int = 700,
    authorized_days_ago: int = 30,
    signer: CfeSigner | None = None,
) -> bytes:
    """A CAE file signed as DGI signs them (valid against CAE.xsd), authorized and expiring that many days from
    today (a negative `authorized_days_ago`: valid only from a future day); by a self-signed "DGI (prueba)"
    unless `signer` is given."""
    today = today_montevideo()
    cae = CaeRange(
        rut=rut,
        tipo_cfe=tipo,
        serie=serie,
        dnro=dnro,
        hnro=hnro,
        cae_id=cae_id,
        fecha_autorizacion=today - dt.timedelta(days=authorized_days_ago),
        vencimiento=today + dt.timedelta(days=expires_in_days),
    )
    return build_cae_xml(cae, signer or _dgi_signer())


def image(fmt: str = "PNG", size: tuple[int, int] = (300, 120)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, (20, 80, 160)).save(buffer, format=fmt)
    return buffer.getvalue()


def _der(data: bytes, i: int = 0) -> tuple[list, int]:
    """One DER element at `i` as [tag, content] (content: bytes, or the list of children when constructed)."""
    tag, first = data[i], data[i + 1]
    i += 2
    if first & 0x80:
        size = first & 0x7F
        length, i = int.from_bytes(data[i : i + size], "big"), i + size
    else:
        length = first
    end = i + length
    if not tag & 0x20:
        return [tag, data[i:end]], end
    children = []
    while i < end:
        child, i = _der(data, i)
        children.append(child)
    return [tag, children], end


def _encoded(element: list) -> bytes:
    tag, content = element
    body = content if isinstance(content, bytes) else b"".join(_encoded(child) for child in content)
    size = len(body)
    length = (
        bytes([size])
        if size < 0x80
        else bytes([0x80 | (size.bit_length() + 7) // 8]) + size.to_bytes((size.bit_length() + 7) // 8, "big")
    )
    return bytes([tag]) + length + body


def costly_p12(rounds: int, password: str = "clave-p12") -> bytes:
    """A .p12 whose encrypted parts say they take `rounds` iterations to open, without a MAC (PKCS#12 makes it
    optional and OpenSSL opens such a file), made in milliseconds: only the counts are rewritten, so the parts no
    longer decrypt, but whoever opens it does the rounds first."""

    def rewrite(element: list, inside_octets: bool = False) -> list:
        tag, content = element
        if isinstance(content, bytes):
            if tag == 0x04:  # an OCTET STRING holding DER (the authenticated safe, a safe's contents)
                try:
                    nested, end = _der(content)
                except IndexError:
                    return element
                if end == len(content) and nested[0] == 0x30:
                    return [tag, _encoded(rewrite(nested))]
            return element
        children = [rewrite(child) for child in content]
        for n in range(1, len(children)):
            if children[n - 1][0] == 0x04 and children[n][0] == 0x02:  # salt, iteration count
                children[n] = [0x02, rounds.to_bytes((rounds.bit_length() + 8) // 8, "big")]
        return [tag, children]

    pfx, _end = _der(p12(password=password))
    version, auth_safe = pfx[1][:2]  # the MacData left out
    return _encoded(rewrite([0x30, [version, auth_safe]]))
