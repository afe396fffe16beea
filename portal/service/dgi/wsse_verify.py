"""Checking the WS-Security signature of a SOAP request the service receives (its exchange web service, the
local stand-ins): the Body (and whatever else the signature references) digested with Exclusive C14N, the
SignedInfo signed with the key of the BinarySecurityToken's certificate. The counterpart of `wsse.BodySignature`
(what our own calls send), with the same canonicalizer (`c14n.exclusive_c14n`) and algorithms; the tests' DGI
stand-in (tests/support/dgi_standin.py) checks the same with another canonicalizer, independently."""

from __future__ import annotations

import base64
import hmac
from dataclasses import dataclass
from typing import cast

import xmlsec
from lxml import etree
from werkzeug.wrappers import Response

from .c14n import exclusive_c14n
from .wsse import ALGORITHMS, DS, EXC_C14N, WSSE, WSU, X509_TOKEN

SOAP_ENV = "http://schemas.xmlsoap.org/soap/envelope/"
_NS = {"soap": SOAP_ENV, "wsse": WSSE, "wsu": WSU, "ds": DS}
# SignatureMethod -> xmlsec transform, DigestMethod -> hash, from the signer's own table.
_SIGNATURES = {method: transform for method, _digest, _hash, transform in ALGORITHMS.values()}
_DIGESTS = {digest: hash_function for _method, digest, hash_function, _transform in ALGORITHMS.values()}


class SignatureError(Exception):
    """The request's WS-Security signature is missing, malformed or does not verify."""


@dataclass(frozen=True)
class Verified:
    certificate_der: bytes  # who signed: the BinarySecurityToken's certificate


def _all(node: etree._Element, path: str, **variables: str) -> list[etree._Element]:
    found = node.xpath(path, namespaces=_NS, **variables)  # type: ignore[arg-type]
    return [item for item in cast(list, found) if isinstance(item, etree._Element)]


def _one(node: etree._Element, path: str, what: str, **variables: str) -> etree._Element:
    found = _all(node, path, **variables)
    if len(found) != 1:
        raise SignatureError(f"{what}: se esperaba uno y hay {len(found)}")
    return found[0]


def verify(envelope: etree._Element) -> Verified:
    """The signer of a SOAP request whose Body is signed; SignatureError with the reason otherwise."""
    security = _one(envelope, "soap:Header/wsse:Security", "wsse:Security")
    signature = _one(security, "ds:Signature", "ds:Signature")
    signed_info = _one(signature, "ds:SignedInfo", "ds:SignedInfo")
    if _one(signed_info, "ds:CanonicalizationMethod", "CanonicalizationMethod").get("Algorithm") != EXC_C14N:
        raise SignatureError("SignedInfo debe usar Exclusive C14N")
    transform = _SIGNATURES.get(_one(signed_info, "ds:SignatureMethod", "SignatureMethod").get("Algorithm") or "")
    if transform is None:
        raise SignatureError("SignatureMethod no admitido (rsa-sha256 o rsa-sha1)")
    signed: set[str] = set()
    for reference in _all(signed_info, "ds:Reference"):
        ref_id = (reference.get("URI") or "").removeprefix("#")
        target = _one(envelope, "//*[@wsu:Id=$id]", f"elemento {ref_id!r}", id=ref_id) if ref_id else None
        algorithms = [t.get("Algorithm") for t in _all(reference, "ds:Transforms/ds:Transform")]
        hash_function = _DIGESTS.get(_one(reference, "ds:DigestMethod", "DigestMethod").get("Algorithm") or "")
        if target is None or algorithms != [EXC_C14N] or hash_function is None:
            raise SignatureError("Reference no admitida")
        expected = base64.b64decode(_one(reference, "ds:DigestValue", "DigestValue").text or "")
        if not hmac.compare_digest(hash_function(exclusive_c14n(target)).digest(), expected):
            raise SignatureError(f"el digest de {ref_id} no coincide")
        signed.add(ref_id)
    body = envelope.find(f"{{{SOAP_ENV}}}Body")
    if body is None or body.get(f"{{{WSU}}}Id") not in signed:
        raise SignatureError("el Body no está firmado")
    token_reference = _one(signature, "ds:KeyInfo/wsse:SecurityTokenReference/wsse:Reference", "token reference")
    token = _one(
        security,
        "wsse:BinarySecurityToken[@wsu:Id=$id]",
        "BinarySecurityToken",
        id=(token_reference.get("URI") or "").removeprefix("#"),
    )
    if token.get("ValueType") != X509_TOKEN:
        raise SignatureError("el token no es un certificado X.509")
    try:
        certificate = base64.b64decode(token.text or "", validate=False)
        context = xmlsec.SignatureContext()
        context.key = xmlsec.Key.from_memory(certificate, xmlsec.constants.KeyDataFormatCertDer, None)
        value = base64.b64decode(_one(signature, "ds:SignatureValue", "SignatureValue").text or "")
        context.verify_binary(exclusive_c14n(signed_info), transform, value)
    except (xmlsec.Error, ValueError) as exc:
        raise SignatureError("la firma no verifica con el certificado del token") from exc
    return Verified(certificate)


def soap_envelope(body_child: etree._Element) -> bytes:
    envelope = etree.Element(f"{{{SOAP_ENV}}}Envelope", nsmap={"SOAP-ENV": SOAP_ENV})
    etree.SubElement(envelope, f"{{{SOAP_ENV}}}Body").append(body_child)
    return etree.tostring(envelope, xml_declaration=True, encoding="utf-8")


def soap_fault(message: str, code: str = "SOAP-ENV:Client") -> Response:
    """SOAP 1.1's answer to a request that cannot be served: HTTP 500 with a Fault."""
    fault = etree.Element(f"{{{SOAP_ENV}}}Fault")
    etree.SubElement(fault, "faultcode").text = code
    etree.SubElement(fault, "faultstring").text = message
    return Response(soap_envelope(fault), status=500, content_type="text/xml; charset=utf-8")
