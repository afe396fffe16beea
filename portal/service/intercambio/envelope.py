"""Building an EnvioCFE_entreEmpresas (EnvioCFE_entreEmpresas.xsd) for one electronic receiver.

As for DGI's envelope (envios.envelope), each CFE's signed bytes go in unchanged (a string splice, never a
re-serialisation, CFE-URUGUAY.md §4), each inside its `CFE_Adenda` with the receipt's adenda after it, outside
the signature. The envelope has the same limits as DGI's: 1..250 CFEs, 2 MB."""

from __future__ import annotations

from datetime import datetime
from xml.sax.saxutils import escape

from portal.service.envios.envelope import MAX_BYTES, MAX_CFES, certificate_base64, cfe_body

__all__ = ["MAX_BYTES", "MAX_CFES", "OVERHEAD", "build", "file_name", "item_size"]

_HEAD = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n'
    b'<DGICFE:EnvioCFE_entreEmpresas xmlns:DGICFE="http://cfe.dgi.gub.uy" version="1.0">'
)
_TAIL = b"</DGICFE:EnvioCFE_entreEmpresas>"
OVERHEAD = len(_HEAD) + len(_TAIL) + 8192  # the Caratula with a 4 kB certificate in base64


def file_name(rut: str, moment: datetime, idemisor: int) -> str:
    return f"Sob_{rut}_{moment:%Y%m%d}_{idemisor}.xml"


def _adenda(text: str | None) -> bytes:
    return f"<DGICFE:Adenda>{escape(text)}</DGICFE:Adenda>".encode() if text else b""


def item_size(signed_xml: bytes, adenda: str | None) -> int:
    """What one receipt adds to the envelope (for the 2 MB limit)."""
    return len(signed_xml) + len(_adenda(adenda)) + 40


def build(
    items: list[tuple[bytes, str | None]],
    *,
    rut_receptor: str,
    rut_emisor: str,
    idemisor: int,
    moment: datetime,
    cert_pem: bytes,
) -> bytes:
    """The envelope for 1..250 (signed CFE, adenda) pairs."""
    if not 1 <= len(items) <= MAX_CFES:
        raise ValueError(f"Un sobre lleva de 1 a {MAX_CFES} comprobantes.")
    fields = (
        ("RutReceptor", rut_receptor),
        ("RUCEmisor", rut_emisor),
        ("Idemisor", str(idemisor)),
        ("CantCFE", str(len(items))),
        ("Fecha", moment.isoformat(timespec="seconds")),
        ("X509Certificate", certificate_base64(cert_pem)),
    )
    caratula = "".join(f"<DGICFE:{name}>{value}</DGICFE:{name}>" for name, value in fields)
    parts = [_HEAD, f'<DGICFE:Caratula version="1.0">{caratula}</DGICFE:Caratula>'.encode()]
    for signed, adenda in items:
        parts += [b"<DGICFE:CFE_Adenda>", cfe_body(signed), _adenda(adenda), b"</DGICFE:CFE_Adenda>"]
    parts.append(_TAIL)
    xml = b"".join(parts)
    if len(xml) > MAX_BYTES:
        raise ValueError("El sobre supera los 2 MB.")
    return xml
