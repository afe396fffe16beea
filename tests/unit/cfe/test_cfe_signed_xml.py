"""Every supported CFE type is built, signed, valid against DGI's CFEDGI.xsd and verified by xmlsec1."""

from __future__ import annotations

import re
from datetime import datetime
from decimal import Decimal

import pytest
from lxml import etree

from portal import paths
from portal.domain.uruguay_time import MONTEVIDEO
from portal.service import cfe as engine
from portal.service.cfe import (
    CfeSchemaError,
    CfeSigner,
    XmlInputError,
    compute_totals,
    parse_cfe_input,
    verify_signature,
)
from portal.service.cfe.codes import COUNTRIES, CURRENCIES
from portal.service.cfe.schema import schema_available, validate_cfe
from portal.service.cfe.signing import digest_of
from portal.service.cfe.xml import build_cfe_xml, format_decimal
from portal.service.platform.certificates import generate_self_signed

NS = {"c": "http://cfe.dgi.gub.uy", "ds": "http://www.w3.org/2000/09/xmldsig#"}
SIGNED_AT = datetime(2024, 5, 11, 15, 56, 20, tzinfo=MONTEVIDEO)


def test_the_xsd_folder_is_there():
    # The schema tests must run in CI, never skip: a missing folder is a failure.
    assert schema_available(), f"CFEDGI.xsd not found in {paths.xsd_dir()}"


@pytest.mark.parametrize("tipo", [101, 102, 103, 111, 112, 113, 181, 182])
def test_every_type_signs_validates_and_verifies(tipo, realistic, sign, key_and_cert, xmlsec1_verify):
    signed = sign(realistic[tipo])

    assert validate_cfe(signed.xml) == []
    ok, output = xmlsec1_verify(signed.xml, f"cfe{tipo}.xml")
    assert ok, output
    assert verify_signature(signed.xml, key_and_cert[1])
    assert verify_signature(signed.xml)
    root = etree.fromstring(signed.xml)
    assert root.tag == "{http://cfe.dgi.gub.uy}CFE" and root.get("version") == "1.0"
    assert root[-1].tag == "{http://www.w3.org/2000/09/xmldsig#}Signature"
    assert int(root.findtext(".//c:TipoCFE", namespaces=NS)) == tipo
    assert root.findtext(".//ds:DigestValue", namespaces=NS) == signed.digest
    assert signed.security_code == signed.digest[:6]
    assert signed.xml.startswith(b"<?xml version='1.0' encoding='UTF-8'?>")


def test_signature_has_dgi_form(realistic, sign, signer):
    root = etree.fromstring(sign(realistic[111]).xml)
    signature = root[-1]
    assert signature.prefix is None  # <Signature xmlns="...xmldsig#">, as in DGI's samples
    algorithms = [e.get("Algorithm") for e in signature.iter() if e.get("Algorithm")]
    assert algorithms == [
        "http://www.w3.org/TR/2001/REC-xml-c14n-20010315",
        "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256",
        "http://www.w3.org/2000/09/xmldsig#enveloped-signature",
        "http://www.w3.org/TR/2001/REC-xml-c14n-20010315",
        "http://www.w3.org/2001/04/xmlenc#sha256",
    ]
    assert signature.find("ds:SignedInfo/ds:Reference", NS).get("URI") == ""
    x509 = signature.find("ds:KeyInfo/ds:X509Data", NS)
    assert x509.findtext("ds:X509IssuerSerial/ds:X509SerialNumber", namespaces=NS) == str(signer.certificate.serial)
    assert x509.findtext("ds:X509Certificate", namespaces=NS).strip()


def test_sha1_signatures_still_work(realistic, sign, key_and_cert, xmlsec1_verify):
    signed = sign(realistic[101], signer=CfeSigner(*key_and_cert, algorithm="sha1"))
    assert b"xmldsig#rsa-sha1" in signed.xml and len(signed.digest) == 28
    assert verify_signature(signed.xml, key_and_cert[1])
    assert xmlsec1_verify(signed.xml, "sha1.xml")[0]


def test_tampered_amount_fails_verification(realistic, sign, key_and_cert, xmlsec1_verify):
    signed = sign(realistic[111])
    tampered = signed.xml.replace(b"<MntPagar>29170.70</MntPagar>", b"<MntPagar>19170.70</MntPagar>")
    assert tampered != signed.xml
    assert not verify_signature(tampered, key_and_cert[1])
    assert not verify_signature(tampered)
    assert not xmlsec1_verify(tampered, "tampered.xml")[0]


def test_a_signature_moved_away_from_the_root_is_rejected(realistic, sign, key_and_cert):
    root = etree.fromstring(sign(realistic[101]).xml)
    root[0].append(root[-1])  # the Signature now sits inside eTck: not an enveloped signature of the CFE
    assert not verify_signature(etree.tostring(root), key_and_cert[1])


def test_another_certificate_does_not_verify(realistic, sign):
    other = generate_self_signed("219999830019", "Otro")[1]
    assert not verify_signature(sign(realistic[101]).xml, other)


def test_decimals_have_exactly_the_xsd_fraction_digits(realistic, sign):
    root = etree.fromstring(sign(realistic[111]).xml)
    assert root.findtext(".//c:MntTotal", namespaces=NS) == "23120.70"
    assert root.findtext(".//c:MntPagar", namespaces=NS) == "29170.70"
    assert root.findtext(".//c:MntTotRetenido", namespaces=NS) == "1050.00"
    assert root.findtext(".//c:MontoNF", namespaces=NS) == "5000.00"
    assert root.findtext(".//c:IVATasaBasica", namespaces=NS) == "22.000"
    assert root.findtext(".//c:IVATasaMin", namespaces=NS) == "10.000"
    assert root.findtext(".//c:Item/c:Cantidad", namespaces=NS) == "10.000"
    assert root.findtext(".//c:Item/c:PrecioUnitario", namespaces=NS) == "1000.000000"
    assert not re.search(rb">-?\d+(\.\d+)?E[+-]?\d+<", etree.tostring(root))
    assert format_decimal(Decimal("1E+5"), 2) == "100000.00"
    assert format_decimal(Decimal("-0"), 2) == "0.00"


def test_receiver_document_goes_where_the_type_says(realistic, sign):
    ticket = dict(realistic[102], receptor={"tipoDocRecep": 5, "codPaisRecep": "AR", "docRecep": "AB123456"})
    root = etree.fromstring(sign(ticket).xml)
    assert root.findtext(".//c:DocRecepExt", namespaces=NS) == "AB123456"
    assert root.find(".//c:DocRecep", NS) is None
    uruguayan = etree.fromstring(sign(realistic[101]).xml)
    assert uruguayan.findtext(".//c:DocRecep", namespaces=NS) == "13353214"  # dots and dash removed
    assert uruguayan.findtext(".//c:CodPaisRecep", namespaces=NS) == "UY"  # implied for a C.I.


def test_an_unsigned_cfe_fails_the_schema(realistic, issuer, numbering):
    cfe = parse_cfe_input(realistic[101])
    root = build_cfe_xml(cfe, issuer, numbering, compute_totals(cfe), SIGNED_AT)
    errors = validate_cfe(root)
    assert errors and "Signature" in errors[0] and errors[0].startswith("línea ")


def test_schema_errors_are_reported_with_line_numbers(realistic, sign):
    bad = sign(realistic[101]).xml.replace(b"<MntTotal>168816.00<", b"<MntTotal>1.234<")
    errors = validate_cfe(bad)
    assert len(errors) == 1 and "MntTotal" in errors[0] and re.match(r"línea \d+: ", errors[0])


def test_build_raises_schema_error_instead_of_returning_invalid_xml(realistic, sign, monkeypatch):
    monkeypatch.setattr(engine, "validate_cfe", lambda xml: ["línea 1: roto"])
    with pytest.raises(CfeSchemaError):
        sign(realistic[101])


def test_sign_external_xml_signs_an_unsigned_cfe(realistic, issuer, numbering, signer, key_and_cert, xmlsec1_verify):
    cfe = parse_cfe_input(realistic[112])
    unsigned = etree.tostring(
        build_cfe_xml(cfe, issuer, numbering, compute_totals(cfe), SIGNED_AT), encoding="UTF-8", xml_declaration=True
    )
    signed = signer.sign_external_xml(unsigned)
    assert validate_cfe(signed.xml) == []
    assert verify_signature(signed.xml, key_and_cert[1])
    assert xmlsec1_verify(signed.xml, "external.xml")[0]
    assert digest_of(signed.xml) == signed.digest


def test_sign_external_xml_refuses_an_already_signed_cfe(realistic, sign, signer):
    signed = sign(realistic[101]).xml
    with pytest.raises(XmlInputError) as caught:
        signer.sign_external_xml(signed)
    assert "ya contiene una firma" in caught.value.message
    assert caught.value.line == 2 and str(caught.value).endswith("sin firmar (línea 2).")  # line 1 is the declaration


@pytest.mark.parametrize(
    "payload, fragment",
    [
        (
            b'<?xml version="1.0"?>\n<!DOCTYPE CFE [<!ENTITY x "boom">]>\n<CFE xmlns="http://cfe.dgi.gub.uy" '
            b'version="1.0">&x;</CFE>',
            "DOCTYPE",
        ),
        (b'<!doctype CFE SYSTEM "http://example.com/evil.dtd"><CFE/>', "DOCTYPE"),
        (b'<CFE xmlns="urn:other" version="1.0"/>', "CFE"),
        (b"", "vacío"),
        (b'<CFE xmlns="http://cfe.dgi.gub.uy" version="1.0"><eTck>\n<unclosed></CFE>', "mal formado"),
    ],
)
def test_sign_external_xml_refuses_bad_input(signer, payload, fragment):
    with pytest.raises(XmlInputError) as caught:
        signer.sign_external_xml(payload)
    assert fragment in caught.value.message


def test_utf16_is_refused_before_parsing_so_a_doctype_cannot_hide_in_it(signer):
    payload = '<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE CFE><CFE xmlns="http://cfe.dgi.gub.uy"/>'
    with pytest.raises(XmlInputError, match="UTF-8"):
        signer.sign_external_xml(payload.encode("utf-16"))


def test_malformed_xml_reports_line_and_column(signer):
    with pytest.raises(XmlInputError) as caught:
        signer.sign_external_xml(b'<CFE xmlns="http://cfe.dgi.gub.uy" version="1.0">\n  <eTck>\n</CFE>')
    assert caught.value.line == 3 and caught.value.column is not None


def test_oversized_xml_is_refused_before_parsing(signer):
    with pytest.raises(XmlInputError, match="supera"):
        signer.sign_external_xml(b"<CFE>" + b" " * (2 * 1024 * 1024) + b"</CFE>")


def test_signer_refuses_a_key_of_another_certificate(key_and_cert):
    other_key, _ = generate_self_signed("219999830019", "Otro")
    with pytest.raises(ValueError, match="no corresponde"):
        CfeSigner(other_key, key_and_cert[1])
    with pytest.raises(ValueError, match="algorithm"):
        CfeSigner(*key_and_cert, algorithm="md5")


def test_code_tables_match_the_xsd():
    xsd = etree.parse(str(paths.xsd_dir() / "DGITypes.xsd"))
    xs = {"xs": "http://www.w3.org/2001/XMLSchema"}

    def enumeration(name):
        return {e.get("value") for e in xsd.findall(f"xs:simpleType[@name='{name}']//xs:enumeration", xs)}

    assert enumeration("TipMonType") == CURRENCIES
    assert enumeration("CodPaisType") == COUNTRIES


def test_one_signer_serves_many_threads(realistic, sign, key_and_cert):
    from concurrent.futures import ThreadPoolExecutor

    bodies = [realistic[tipo] for tipo in (101, 111, 112, 181, 182)] * 8
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(sign, bodies))
    assert all(verify_signature(result.xml, key_and_cert[1]) for result in results)
    assert all(validate_cfe(result.xml) == [] for result in results)


def test_the_signature_time_kept_is_the_one_signed(realistic, issuer, numbering, signer):
    # TmstFirma carries whole seconds; the time the receipt keeps (and the API answers) must be that one.
    signed = engine.build_signed_cfe(
        parse_cfe_input(realistic[101]),
        issuer,
        numbering,
        signer,
        Decimal("6.1"),
        datetime(2024, 5, 11, 15, 56, 20, 419432, tzinfo=MONTEVIDEO),
    )
    stamp = etree.fromstring(signed.xml).findtext(".//{http://cfe.dgi.gub.uy}TmstFirma")
    assert datetime.fromisoformat(stamp) == signed.tmst_firma
