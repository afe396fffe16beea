"""Enveloped XMLDSig signatures of CFEs with python-xmlsec, in the form DGI publishes.

<Signature xmlns="http://www.w3.org/2000/09/xmldsig#"> is the last child of the signed root, with one
Reference URI="" whose transforms are enveloped-signature then inclusive C14N 1.0, inclusive C14N as
CanonicalizationMethod, and KeyInfo/X509Data with X509IssuerSerial and X509Certificate. RSA-SHA256 with a
SHA-256 digest by default; RSA-SHA1 on request, as DGI's older samples use.

Create one CfeSigner per certificate and keep it (`shared_signer`): parsing a PEM key costs about 30 ms, a
signature under 1.
"""

from __future__ import annotations

import base64
import copy
from dataclasses import dataclass
from functools import lru_cache

import xmlsec
from cryptography import x509
from lxml import etree

from portal.service.cfe.errors import XmlInputError
from portal.service.cfe.xml import CFE_NS
from portal.service.cfe.xmlsafe import MAX_XML_BYTES, parse_untrusted, source_line
from portal.service.platform.certificates import CertificateInfo, certificate_info, key_matches_certificate, load_pkcs12
from portal.service.platform.i18n import _

DS_NS = "http://www.w3.org/2000/09/xmldsig#"
_DS = f"{{{DS_NS}}}"
_C = xmlsec.constants
_ALGORITHMS = {
    "sha256": (_C.TransformRsaSha256, _C.TransformSha256),
    "sha1": (_C.TransformRsaSha1, _C.TransformSha1),
}


@dataclass(frozen=True)
class SignedXml:
    """A signed document (UTF-8 bytes with an XML declaration) and its Reference DigestValue (base64)."""

    xml: bytes
    digest: str

    @property
    def security_code(self) -> str:
        """DGI's "código de seguridad": the first 6 characters of the digest."""
        return security_code(self.digest)


def security_code(digest: str) -> str:
    """The first 6 characters of a base64 DigestValue, printed under the QR."""
    return digest[:6]


@lru_cache(maxsize=64)
def shared_signer(key_pem: bytes, cert_pem: bytes, algorithm: str = "sha256") -> CfeSigner:
    """The one CfeSigner of this process for a key, certificate and algorithm. Keyed by their bytes rather than
    by a database row, so every app of the process shares it: the test suite builds thousands of apps on copies
    of one database, and each rebuilt the same signers (three key parses each). A signer keeps no state between
    signatures, so sharing it across threads and apps is safe."""
    return CfeSigner(key_pem, cert_pem, algorithm=algorithm)


class CfeSigner:
    """Signs CFEs (and CAE files) with one private key and its certificate, loaded once."""

    def __init__(
        self, key_pem: bytes, cert_pem: bytes, *, algorithm: str = "sha256", key_password: bytes | None = None
    ):
        if algorithm not in _ALGORITHMS:
            raise ValueError(f"algorithm debe ser uno de {sorted(_ALGORITHMS)}")
        if not key_matches_certificate(key_pem, cert_pem, key_password):
            raise ValueError("La clave privada no corresponde al certificado.")
        self.algorithm = algorithm
        self.cert_pem = cert_pem
        self.certificate: CertificateInfo = certificate_info(cert_pem)
        # The key alone: xmlsec copies the key into every signing context, and a copy of key + certificate
        # costs about a tenth of a signature. The certificate goes into the prepared Signature instead.
        self._key = xmlsec.Key.from_memory(key_pem, _C.KeyDataFormatPem, _as_text(key_password))
        self._template = self._prepared_signature(key_pem, cert_pem, key_password)

    def _prepared_signature(self, key_pem: bytes, cert_pem: bytes, key_password: bytes | None) -> etree._Element:
        """The Signature element every signature starts from: DGI's layout, KeyInfo already filled in by xmlsec
        (issuer, serial and certificate, written once here) and the digest and signature values left empty.
        Signing a copy of it with the bare key gives the same bytes as building the template each time."""
        sign_method, digest_method = _ALGORITHMS[self.algorithm]
        root = etree.Element("Documento")
        signature = xmlsec.template.create(root, _C.TransformInclC14N, sign_method)
        root.append(signature)
        reference = xmlsec.template.add_reference(signature, digest_method, uri="")
        xmlsec.template.add_transform(reference, _C.TransformEnveloped)
        xmlsec.template.add_transform(reference, _C.TransformInclC14N)
        x509_data = xmlsec.template.add_x509_data(xmlsec.template.ensure_key_info(signature))
        xmlsec.template.x509_data_add_issuer_serial(x509_data)
        xmlsec.template.x509_data_add_certificate(x509_data)
        key_with_certificate = xmlsec.Key.from_memory(key_pem, _C.KeyDataFormatPem, _as_text(key_password))
        key_with_certificate.load_cert_from_memory(cert_pem, _C.KeyDataFormatCertPem)
        context = xmlsec.SignatureContext()
        context.key = key_with_certificate
        context.sign(signature)
        for value in (f"{_DS}SignedInfo/{_DS}Reference/{_DS}DigestValue", f"{_DS}SignatureValue"):
            _found(signature, value).text = None
        root.remove(signature)
        return signature

    @classmethod
    def from_pkcs12(cls, data: bytes, password: bytes | None, *, algorithm: str = "sha256") -> CfeSigner:
        """A signer from a .p12/.pfx file (the form CAs deliver certificates in)."""
        key_pem, cert_pem, _info = load_pkcs12(data, password)
        return cls(key_pem, cert_pem, algorithm=algorithm)

    def sign(self, root: etree._Element) -> SignedXml:
        """Sign `root` (a standalone document's root: a CFE or a CAE) in place and serialize it.

        The Signature is appended as the last child of `root`. A CFE inside an envelope must be signed
        before it is inserted: inclusive C14N would otherwise pick up the envelope's namespaces.
        """
        if root.getparent() is not None:
            raise ValueError("Se firma el elemento raíz de un documento, no un elemento interior.")
        if root.find(f".//{_DS}Signature") is not None:
            raise ValueError("El documento ya contiene una firma.")
        signature = copy.deepcopy(self._template)
        root.append(signature)
        context = xmlsec.SignatureContext()
        context.key = self._key
        context.sign(signature)
        digest = _found(signature, f"{_DS}SignedInfo/{_DS}Reference/{_DS}DigestValue").text or ""
        digest = digest.strip()
        # The whole document, so that anything around the root that the URI="" reference covers stays.
        xml = etree.tostring(root.getroottree(), encoding="UTF-8", xml_declaration=True)
        return SignedXml(xml=xml, digest=digest)

    def sign_external_xml(self, xml_bytes: bytes, *, max_bytes: int = MAX_XML_BYTES) -> SignedXml:
        """Sign an unsigned CFE received as XML (the "sign an XML" endpoint).

        The input is parsed without DTDs, entities or network, and must be a `{http://cfe.dgi.gub.uy}CFE`
        root without any Signature. Problems raise XmlInputError(message, line, column). Schema
        validation is left to the caller (`schema.validate_cfe(result.xml)`).
        """
        root = parse_untrusted(xml_bytes, max_bytes=max_bytes).getroot()
        if root.tag != f"{{{CFE_NS}}}CFE":
            raise XmlInputError(
                _(
                    "El elemento raíz debe ser CFE del espacio de nombres {ns}; se recibió {tag}.",
                    ns=CFE_NS,
                    tag=root.tag,
                ),
                source_line(root),
                None,
            )
        existing = root.find(f".//{_DS}Signature")
        if existing is not None:
            raise XmlInputError(
                _("El CFE ya contiene una firma (ds:Signature); enviá el CFE sin firmar."), source_line(existing), None
            )
        return self.sign(root)


def _signature_of(root: etree._Element) -> etree._Element | None:
    """The single enveloped Signature over the whole document, or None if the layout is anything else.

    Being strict about the layout closes signature-wrapping tricks: a valid signature over some other
    part of the document must not vouch for the receipt.
    """
    signatures = root.findall(f".//{_DS}Signature")
    if len(signatures) != 1 or signatures[0].getparent() is not root or signatures[0].getnext() is not None:
        return None
    references = signatures[0].findall(f"{_DS}SignedInfo/{_DS}Reference")
    if len(references) != 1 or references[0].get("URI") != "":
        return None
    return signatures[0]


def verify_signature(signed_bytes: bytes, cert_pem: bytes | None = None) -> bool:
    """Whether the document's enveloped signature is valid (RSA-SHA1 or RSA-SHA256).

    With `cert_pem` the signature must be that certificate's; without it, the certificate embedded in
    KeyInfo is used, which proves integrity but not who signed: pin the certificate when it matters.
    """
    root = parse_untrusted(signed_bytes).getroot()
    signature = _signature_of(root)
    if signature is None:
        return False
    if cert_pem is not None:
        key = xmlsec.Key.from_memory(cert_pem, _C.KeyDataFormatCertPem)
    else:
        embedded = signature.findtext(f"{_DS}KeyInfo/{_DS}X509Data/{_DS}X509Certificate")
        if not embedded:
            return False
        try:
            key = xmlsec.Key.from_memory(base64.b64decode("".join(embedded.split())), _C.KeyDataFormatCertDer)
        except (xmlsec.Error, ValueError):
            return False
    context = xmlsec.SignatureContext()
    context.key = key
    for transform in (
        _C.TransformEnveloped,
        _C.TransformInclC14N,
        _C.TransformExclC14N,
        _C.TransformSha1,
        _C.TransformSha256,
    ):
        context.enable_reference_transform(transform)
    for transform in (_C.TransformInclC14N, _C.TransformExclC14N, _C.TransformRsaSha1, _C.TransformRsaSha256):
        context.enable_signature_transform(transform)
    try:
        context.verify(signature)
    except xmlsec.Error:
        return False
    return True


def embedded_certificate(signed_bytes: bytes) -> x509.Certificate | None:
    """The certificate in KeyInfo of the document's single enveloped signature (None without one, or unreadable):
    who says they signed it, to check against a trust anchor once verify_signature holds."""
    signature = _signature_of(parse_untrusted(signed_bytes).getroot())
    embedded = None if signature is None else signature.findtext(f"{_DS}KeyInfo/{_DS}X509Data/{_DS}X509Certificate")
    if not embedded:
        return None
    try:
        return x509.load_der_x509_certificate(base64.b64decode("".join(embedded.split())))
    except ValueError:
        return None


def digest_of(signed_bytes: bytes) -> str:
    """The Reference DigestValue of a signed document (its security code is the first 6 characters)."""
    root = parse_untrusted(signed_bytes).getroot()
    signature = _signature_of(root)
    if signature is None:
        raise XmlInputError(_("El documento no tiene una única firma que cubra todo el documento."))
    return (_found(signature, f"{_DS}SignedInfo/{_DS}Reference/{_DS}DigestValue").text or "").strip()


def _found(element: etree._Element, path: str) -> etree._Element:
    """A part every XMLDSig Signature has (its SignedInfo's DigestValue, its SignatureValue)."""
    found = element.find(path)
    if found is None:
        raise XmlInputError(_("La firma no tiene {part}.", part=path.rpartition("}")[2]))
    return found


def _as_text(password: bytes | None) -> str | None:
    """xmlsec takes a key's password as text."""
    return None if password is None else password.decode()
