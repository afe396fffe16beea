"""CAE files (generated and DGI's 2012 samples) and certificate handling."""

from __future__ import annotations

import datetime as dt
from datetime import date

import pytest

from portal import paths
from portal.service.cfe import CaeError, CfeSigner, verify_signature
from portal.service.cfe.cae import CaeRange, build_cae_xml, parse_cae
from portal.service.platform.certificates import (
    UnusableSigningKey,
    certificate_info,
    generate_self_signed,
    load_pkcs12,
    to_pkcs12,
)

RANGE = CaeRange(
    rut="219999830019",
    tipo_cfe=111,
    serie="A",
    dnro=1,
    hnro=1000,
    cae_id=90240000208,
    fecha_autorizacion=date(2024, 1, 2),
    vencimiento=date(2026, 1, 2),
)


def test_generated_signed_cae_round_trips_strictly(signer, key_and_cert):
    xml = build_cae_xml(RANGE, signer)
    assert verify_signature(xml, key_and_cert[1])
    parsed = parse_cae(xml)
    assert parsed == CaeRange(**{**RANGE.__dict__, "tmst_firma": parsed.tmst_firma})
    assert parsed.tipo_autorizacion == "E" and parsed.tmst_firma.utcoffset() == dt.timedelta(hours=-3)
    numbering = parsed.numbering(17)
    assert (numbering.serie, numbering.nro, numbering.cae_id, numbering.fec_venc) == (
        "A",
        17,
        90240000208,
        date(2026, 1, 2),
    )
    with pytest.raises(ValueError):
        parsed.numbering(1001)


def test_unsigned_cae_is_only_accepted_leniently():
    xml = build_cae_xml(RANGE)
    with pytest.raises(CaeError, match="CAE.xsd"):
        parse_cae(xml)
    assert parse_cae(xml, strict=False).hnro == 1000


@pytest.mark.parametrize("name", sorted(p.name for p in (paths.dgi_samples_dir() / "cae").glob("*.xml")))
def test_dgi_2012_samples_parse_leniently_and_fail_strictly(name):
    data = (paths.dgi_samples_dir() / "cae" / name).read_bytes()
    cae = parse_cae(data, strict=False)
    assert cae.rut == "219999830019" and cae.tipo_autorizacion is None  # CAE v1.1 had no <TA>
    assert cae.fecha_autorizacion == date(2012, 8, 24) and cae.vencimiento == date(2014, 8, 24)
    assert str(cae.cae_id) in name
    with pytest.raises(CaeError, match="TA"):
        parse_cae(data)


def test_dgi_eticket_sample_values():
    cae = parse_cae(
        (paths.dgi_samples_dir() / "cae" / "CAE_219999830019_90120000194_e-Ticket.xml").read_bytes(), strict=False
    )
    assert (cae.tipo_cfe, cae.serie, cae.dnro, cae.hnro) == (101, "B", 1, 145778)


@pytest.mark.parametrize(
    "payload, fragment",
    [
        (b'<!DOCTYPE CAE [<!ENTITY a "b">]><CAE xmlns="http://cfe.dgi.gub.uy"/>', "DOCTYPE"),
        (b'<CFE xmlns="http://cfe.dgi.gub.uy"/>', "raíz"),
        (
            b'<CAE xmlns="http://cfe.dgi.gub.uy" version="1.0"><TmstFrma>2024-01-01T00:00:00-03:00</TmstFrma></CAE>',
            "DA",
        ),
        (b"<CAE", r"no se puede leer\. El XML está mal formado: .* \(línea 1, columna 5\)\.$"),
    ],
)
def test_bad_cae_files(payload, fragment):
    with pytest.raises(CaeError, match=fragment):
        parse_cae(payload, strict=False)


def test_self_signed_certificate_carries_the_rut(key_and_cert):
    info = certificate_info(key_and_cert[1])
    assert info.rut == "219999830019"
    assert "SERIALNUMBER=RUC219999830019" in info.subject
    assert info.issuer == info.subject
    assert (info.not_after - info.not_before).days >= 729
    assert info.is_valid_at(dt.datetime.now(dt.UTC))
    assert len(info.sha256_fingerprint.split(":")) == 32


@pytest.mark.parametrize("password", [b"secreto", None])
def test_pkcs12_round_trip(key_and_cert, password):
    data = to_pkcs12(*key_and_cert, password)
    key_pem, cert_pem, info = load_pkcs12(data, password)
    assert cert_pem == key_and_cert[1] and info.rut == "219999830019"
    signer = CfeSigner.from_pkcs12(data, password)
    assert signer.certificate == info
    assert CfeSigner(key_pem, cert_pem).certificate.serial == info.serial


def test_pkcs12_wrong_password(key_and_cert):
    with pytest.raises(ValueError):
        load_pkcs12(to_pkcs12(*key_and_cert, b"secreto"), b"otra")


def test_pkcs12_whose_key_is_not_the_certificates_is_refused(key_and_cert, monkeypatch):
    # cryptography will not write such a file, and OpenSSL pairs a key with its own certificate when it
    # reads one; the check stands guard should a reader ever hand over another pair.
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.serialization import pkcs12

    key_pem, _ = key_and_cert
    _, other_cert_pem = generate_self_signed("219999830019", "Otra clave")
    pair = (serialization.load_pem_private_key(key_pem, None), x509.load_pem_x509_certificate(other_cert_pem), [])
    monkeypatch.setattr(pkcs12, "load_key_and_certificates", lambda data, password: pair)
    with pytest.raises(UnusableSigningKey, match="no corresponde a su certificado") as refused:
        load_pkcs12(b"p12", None)
    assert refused.value.code == "clave_no_corresponde"


def test_certificate_without_rut():
    _key, cert = generate_self_signed("not-a-rut", "Sin RUT", days=1)
    assert certificate_info(cert).rut is None
