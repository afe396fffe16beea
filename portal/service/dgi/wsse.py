"""WS-Security for DGI's lookup service: sign the SOAP Body with an X.509 BinarySecurityToken.

DGI's WSDL policy asks for one thing: `<sp:SignedParts><sp:Body/></sp:SignedParts>`, signed with the
caller's certificate. zeep's own `BinarySignature` cannot do it for this service: it lets xmlsec compute the
Body reference, and libxml2's canonicalizer refuses the relative namespace URI `DGI_Modernizacion_Consolidado`
that the Body carries (xmlsec.Error "failed to sign"). So `BodySignature` builds the same structure zeep
would, with two changes:

- the Body digest uses `c14n.exclusive_c14n`, a pure-Python Exclusive C14N that writes the URI as it is (as
  DGI's DataPower and Java's Santuario do), and so does the SignedInfo canonicalization;
- the RSA signature over the canonical SignedInfo is made by xmlsec (`sign_binary`) with the key loaded once.

The result is a standard signature (exc-c14n, rsa-sha256 or rsa-sha1, Reference URI="#<Body wsu:Id>",
KeyInfo -> SecurityTokenReference -> BinarySecurityToken) that any WS-Security verifier with a tolerant
canonicalizer checks; the local stand-in verifies it with a different canonicalizer (Python's C14N 2.0).
"""

from __future__ import annotations

import base64
import hashlib
import uuid

import xmlsec
from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding
from lxml import etree

from .c14n import exclusive_c14n

DS = "http://www.w3.org/2000/09/xmldsig#"
WSSE = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"
WSU = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd"
EXC_C14N = "http://www.w3.org/2001/10/xml-exc-c14n#"
X509_TOKEN = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509v3"  # noqa: S105
BASE64_ENCODING = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary"

# name -> (SignatureMethod, DigestMethod, hash, xmlsec transform)
ALGORITHMS = {
    "sha256": (
        "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256",
        "http://www.w3.org/2001/04/xmlenc#sha256",
        hashlib.sha256,
        xmlsec.constants.TransformRsaSha256,
    ),
    "sha1": (
        "http://www.w3.org/2000/09/xmldsig#rsa-sha1",
        "http://www.w3.org/2000/09/xmldsig#sha1",
        hashlib.sha1,
        xmlsec.constants.TransformRsaSha1,
    ),
}


def _q(ns: str, name: str) -> str:
    return f"{{{ns}}}{name}"


class BodySignature:
    """A zeep `wsse` plugin that signs the Body of every request (see the module docstring).

    `key_pem` and `cert_pem` are the company certificate's PEM; the key is parsed once, here. `digest` is
    "sha256" (default) or "sha1" (the algorithm of DGI's 2013 WS-Security example).
    """

    def __init__(self, key_pem: bytes, cert_pem: bytes, digest: str = "sha256"):
        if digest not in ALGORITHMS:
            raise ValueError(f"digest must be one of {sorted(ALGORITHMS)}, not {digest!r}")
        self.digest = digest
        try:
            self._key = xmlsec.Key.from_memory(key_pem, xmlsec.constants.KeyDataFormatPem, None)
            certificate = x509.load_pem_x509_certificate(cert_pem)
        except (xmlsec.Error, ValueError) as exc:
            raise ValueError("the signing key or certificate is not a valid PEM") from exc
        self.certificate_der = certificate.public_bytes(Encoding.DER)

    def apply(self, envelope: etree._Element, headers: dict) -> tuple[etree._Element, dict]:
        """Sign `envelope` in place (zeep calls this just before sending)."""
        sign_envelope(envelope, self._key, self.certificate_der, self.digest)
        return envelope, headers

    def verify(self, envelope: etree._Element) -> etree._Element:
        # DGI signs its answers too, but with which certificate and chain is not published; the answer
        # travels over TLS to DGI's host, so it is not checked here.
        return envelope


def sign_envelope(envelope: etree._Element, key: xmlsec.Key, certificate_der: bytes, digest: str) -> None:
    """Add wsse:Security (BinarySecurityToken + ds:Signature over the Body) to a SOAP envelope."""
    signature_method, digest_method, hash_function, transform = ALGORITHMS[digest]
    soap_ns = etree.QName(envelope).namespace
    body = envelope.find(_q(soap_ns, "Body"))
    if body is None:
        raise ValueError("the SOAP envelope has no Body")
    header = envelope.find(_q(soap_ns, "Header"))
    if header is None:
        header = etree.Element(_q(soap_ns, "Header"))
        envelope.insert(0, header)
    security = etree.SubElement(header, _q(WSSE, "Security"), nsmap={"wsse": WSSE, "wsu": WSU})
    security.set(_q(soap_ns, "mustUnderstand"), "1")

    body_id = body.get(_q(WSU, "Id")) or f"id-{uuid.uuid4()}"
    body.set(_q(WSU, "Id"), body_id)
    # Declare wsu once on the Envelope instead of the generated "ns0" lxml would put on the Body.
    etree.cleanup_namespaces(envelope, top_nsmap={"wsu": WSU})

    token_id = f"X509-{uuid.uuid4()}"
    token = etree.SubElement(
        security, _q(WSSE, "BinarySecurityToken"), {"EncodingType": BASE64_ENCODING, "ValueType": X509_TOKEN}
    )
    token.set(_q(WSU, "Id"), token_id)
    token.text = base64.b64encode(certificate_der).decode("ascii")

    signature = etree.SubElement(security, _q(DS, "Signature"), {"Id": f"SIG-{uuid.uuid4()}"}, nsmap={"ds": DS})
    signed_info = etree.SubElement(signature, _q(DS, "SignedInfo"))
    etree.SubElement(signed_info, _q(DS, "CanonicalizationMethod"), {"Algorithm": EXC_C14N})
    etree.SubElement(signed_info, _q(DS, "SignatureMethod"), {"Algorithm": signature_method})
    reference = etree.SubElement(signed_info, _q(DS, "Reference"), {"URI": f"#{body_id}"})
    transforms = etree.SubElement(reference, _q(DS, "Transforms"))
    etree.SubElement(transforms, _q(DS, "Transform"), {"Algorithm": EXC_C14N})
    etree.SubElement(reference, _q(DS, "DigestMethod"), {"Algorithm": digest_method})
    digest_value = etree.SubElement(reference, _q(DS, "DigestValue"))
    digest_value.text = base64.b64encode(hash_function(exclusive_c14n(body)).digest()).decode("ascii")

    signature_value = etree.SubElement(signature, _q(DS, "SignatureValue"))
    key_info = etree.SubElement(signature, _q(DS, "KeyInfo"))
    token_reference = etree.SubElement(key_info, _q(WSSE, "SecurityTokenReference"))
    etree.SubElement(token_reference, _q(WSSE, "Reference"), {"URI": f"#{token_id}", "ValueType": X509_TOKEN})

    context = xmlsec.SignatureContext()
    context.key = key
    raw = context.sign_binary(exclusive_c14n(signed_info), transform)
    signature_value.text = base64.b64encode(raw).decode("ascii")
