"""The WS-Security signature of the SOAP Body: its structure, and that independent verifiers accept it."""

from __future__ import annotations

import base64

import pytest
import xmlsec
import zeep
from lxml import etree

from portal.service.dgi.soap import _wsdl, default_wsdl_path
from portal.service.dgi.wsse import DS, EXC_C14N, WSSE, WSU, X509_TOKEN, BodySignature
from tests.support.dgi_standin import SignatureError, verify_request

SOAP = "http://schemas.xmlsoap.org/soap/envelope/"
NS = {"soap": SOAP, "wsse": WSSE, "wsu": WSU, "ds": DS, "dgi": "DGI_Modernizacion_Consolidado"}


def unsigned_envelope(rut: str = "219000090011") -> etree._Element:
    client = zeep.Client(_wsdl(str(default_wsdl_path())))
    return client.create_message(client.service, "Execute", Rut=rut)


def signed(certificate, digest: str = "sha256") -> etree._Element:
    envelope, _ = BodySignature(certificate.key_pem, certificate.cert_pem, digest).apply(unsigned_envelope(), {})
    return etree.fromstring(etree.tostring(envelope))  # what travels, re-read as the receiver would


def one(node, path):
    (found,) = node.xpath(path, namespaces=NS)
    return found


def test_the_signature_follows_the_x509_token_profile(certificate):
    envelope = signed(certificate)
    security = one(envelope, "soap:Header/wsse:Security")
    assert security.get(f"{{{SOAP}}}mustUnderstand") == "1"
    token = one(security, "wsse:BinarySecurityToken")
    assert token.get("ValueType") == X509_TOKEN
    assert base64.b64decode(token.text) == certificate.der
    signed_info = one(security, "ds:Signature/ds:SignedInfo")
    assert one(signed_info, "ds:CanonicalizationMethod/@Algorithm") == EXC_C14N
    assert one(signed_info, "ds:SignatureMethod/@Algorithm").endswith("rsa-sha256")
    body_id = one(envelope, "soap:Body/@wsu:Id")
    assert one(signed_info, "ds:Reference/@URI") == f"#{body_id}"
    assert one(signed_info, "ds:Reference/ds:Transforms/ds:Transform/@Algorithm") == EXC_C14N
    token_ref = one(security, "ds:Signature/ds:KeyInfo/wsse:SecurityTokenReference/wsse:Reference/@URI")
    assert token_ref == "#" + token.get(f"{{{WSU}}}Id")
    assert one(envelope, "soap:Body/dgi:WS_PersonaGetActEmpresarial.Execute/dgi:Rut/text()") == "219000090011"


@pytest.mark.parametrize("digest", ["sha256", "sha1"])
def test_the_stand_in_verifier_accepts_it(certificate, digest):
    verified = verify_request(signed(certificate, digest))
    assert verified.certificate_der == certificate.der
    assert len(verified.signed_ids) == 1


def test_xmlsec_verifies_the_same_signature_when_the_payload_namespace_is_absolute(certificate):
    """With an absolute URI libxml2 can canonicalize, xmlsec's own XML-DSig processing (references,
    transforms, SignedInfo) accepts what BodySignature produced: it is a standard signature."""
    source = etree.tostring(unsigned_envelope()).replace(b'"DGI_Modernizacion_Consolidado"', b'"urn:dgi:modernizacion"')
    envelope, _ = BodySignature(certificate.key_pem, certificate.cert_pem).apply(etree.fromstring(source), {})
    envelope = etree.fromstring(etree.tostring(envelope))
    context = xmlsec.SignatureContext()
    context.register_id(one(envelope, "soap:Body"), "Id", WSU)
    context.key = xmlsec.Key.from_memory(certificate.cert_pem, xmlsec.KeyFormat.CERT_PEM, None)
    context.verify(one(envelope, "soap:Header/wsse:Security/ds:Signature"))  # raises if invalid


def test_a_changed_body_no_longer_verifies(certificate):
    envelope = signed(certificate)
    one(envelope, "soap:Body/dgi:WS_PersonaGetActEmpresarial.Execute/dgi:Rut").text = "214844360018"
    with pytest.raises(SignatureError, match="digest mismatch"):
        verify_request(envelope)


def test_a_changed_signed_info_no_longer_verifies(certificate):
    envelope = signed(certificate)
    one(envelope, "//ds:SignatureMethod").getparent().append(etree.Element(f"{{{DS}}}Extra"))
    with pytest.raises(SignatureError, match="does not verify"):
        verify_request(envelope)


def test_a_token_swapped_for_another_certificate_no_longer_verifies(certificate, other_certificate):
    envelope = signed(certificate)
    one(envelope, "//wsse:BinarySecurityToken").text = base64.b64encode(other_certificate.der).decode()
    with pytest.raises(SignatureError, match="does not verify"):
        verify_request(envelope)


def test_an_unsigned_request_is_refused():
    with pytest.raises(SignatureError, match="wsse:Security"):
        verify_request(unsigned_envelope())


def test_bad_key_material_and_unknown_digests_are_refused(certificate):
    with pytest.raises(ValueError, match="PEM"):
        BodySignature(b"not a key", certificate.cert_pem)
    with pytest.raises(ValueError, match="PEM"):
        BodySignature(certificate.key_pem, b"not a certificate")
    with pytest.raises(ValueError, match="digest"):
        BodySignature(certificate.key_pem, certificate.cert_pem, "md5")
