"""Building an EnvioCFE ("sobre") from signed CFEs, their bytes spliced in unchanged.

Each CFE was signed as a standalone document. Re-serialising it inside the envelope would be harmless to a
parser but not to its signature's inclusive C14N (CFE-URUGUAY.md §4), so the envelope is assembled as text:
the Caratula from lxml, then each CFE's own bytes without their XML declaration. The layout (prefix DGICFE,
Caratula version 1.0) follows DGI's sample Sob_219999830019_Ej_Mod_19072016.xml.
"""

from __future__ import annotations

import base64
import re
from datetime import datetime

from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding

MAX_CFES = 250
MAX_BYTES = 2 * 1024 * 1024
_DECLARATION = re.compile(rb"^\s*<\?xml[^>]*\?>\s*")
_HEAD = b'<?xml version="1.0" encoding="UTF-8"?>\n<DGICFE:EnvioCFE xmlns:DGICFE="http://cfe.dgi.gub.uy" version="1.0">'
_TAIL = b"</DGICFE:EnvioCFE>"
# Room for the envelope's head, tail and Caratula (a 4 kB certificate in base64 included).
OVERHEAD = len(_HEAD) + len(_TAIL) + 8192


def file_name(rut: str, moment: datetime, idemisor: int) -> str:
    """DGI's name for an envelope: Sob_<RUC>_<AAAAMMDD>_<Idemisor>.xml."""
    return f"Sob_{rut}_{moment:%Y%m%d}_{idemisor}.xml"


def certificate_base64(cert_pem: bytes) -> str:
    """The certificate's DER in base64, as Caratula/X509Certificate carries it."""
    der = x509.load_pem_x509_certificate(cert_pem).public_bytes(Encoding.DER)
    return base64.b64encode(der).decode()


def cfe_body(signed_xml: bytes) -> bytes:
    """A signed CFE's bytes as they go in the envelope: exactly as signed, minus the XML declaration."""
    return _DECLARATION.sub(b"", signed_xml, count=1).rstrip()


def caratula(
    *, rut_receptor: str, rut_emisor: str, idemisor: int, count: int, moment: datetime, cert_pem: bytes
) -> bytes:
    fields = (
        ("RutReceptor", rut_receptor),
        ("RUCEmisor", rut_emisor),
        ("Idemisor", str(idemisor)),
        ("CantCFE", str(count)),
        ("Fecha", moment.isoformat(timespec="seconds")),
        ("X509Certificate", certificate_base64(cert_pem)),
    )
    inner = "".join(f"<DGICFE:{name}>{value}</DGICFE:{name}>" for name, value in fields)
    return f'<DGICFE:Caratula version="1.0">{inner}</DGICFE:Caratula>'.encode()


def build_envelope(
    cfes: list[bytes], *, rut_receptor: str, rut_emisor: str, idemisor: int, moment: datetime, cert_pem: bytes
) -> bytes:
    """The EnvioCFE document for 1..250 signed CFEs (values are digits, dates and base64: nothing to escape)."""
    if not 1 <= len(cfes) <= MAX_CFES:
        raise ValueError(f"Un sobre lleva de 1 a {MAX_CFES} comprobantes.")
    head = caratula(
        rut_receptor=rut_receptor,
        rut_emisor=rut_emisor,
        idemisor=idemisor,
        count=len(cfes),
        moment=moment,
        cert_pem=cert_pem,
    )
    return b"".join([_HEAD, head, *(cfe_body(xml) for xml in cfes), _TAIL])
