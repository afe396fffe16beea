"""The link DGI's printed representation encodes in the QR: where anyone can check a receipt.

    https://www.efactura.dgi.gub.uy/consultaQR/cfe?ruc,tipoCFE,serie,nroCFE,monto,fecha,hash

DGI's text says the date is dd/mm/yyyy; receipts in circulation use YYYYMMDD, which is the default here
and configurable. `monto` has 2 decimals, except an e-Remito's, which DGI writes as a bare `0` (it carries no
amount); the hash is the full base64 DigestValue with + / = percent-encoded.
"""

from __future__ import annotations

import functools
import io
from datetime import date
from decimal import Decimal
from urllib.parse import quote

import segno

from portal.domain.cfe_types import E_REMITO
from portal.service.cfe.amounts import Totals, qr_amount
from portal.service.cfe.xml import format_decimal

DGI_QR_BASE_URL = "https://www.efactura.dgi.gub.uy/consultaQR/cfe"
_REMITOS = frozenset({E_REMITO, E_REMITO + 100})  # and its contingency type (281)


def qr_url(
    ruc: str,
    tipo_cfe: int,
    serie: str,
    nro: int,
    monto: Decimal,
    fecha: date,
    digest: str,
    *,
    base_url: str = DGI_QR_BASE_URL,
    date_format: str = "%Y%m%d",
) -> str:
    """The verification link of one receipt; `digest` is the signature's base64 DigestValue."""
    fields = (
        ruc,
        str(tipo_cfe),
        serie,
        str(nro),
        "0" if tipo_cfe in _REMITOS else format_decimal(monto, 2),
        fecha.strftime(date_format),
        quote(digest, safe=""),
    )
    return f"{base_url}?{','.join(fields)}"


def qr_url_for(
    ruc: str, tipo_cfe: int, serie: str, nro: int, totals: Totals, fecha: date, digest: str, **options: str
) -> str:
    """`qr_url` with DGI's amount for the type: MntPagar, 0 for e-Remito, MntTotRetenido for e-Resguardo."""
    return qr_url(ruc, tipo_cfe, serie, nro, qr_amount(tipo_cfe, totals), fecha, digest, **options)


@functools.lru_cache(maxsize=256)  # a receipt printed again (A4 and roll, or downloaded twice) reuses its QR
def qr_png(url: str) -> bytes:
    """The QR symbol of `url` as a tiny black-on-white PNG: one pixel a module and no quiet zone (the page
    keeps 3 mm clear around it); the PDF scales it up without interpolation, so modules stay sharp.

    Error correction M. The mask is fixed instead of scored: any of the eight masks makes a valid symbol,
    and scoring them costs four times the rest of the QR (about 8 ms). Checked with zbarimg on 200 dpi
    renderings of A4 and 57 mm receipts (docs/PRINTED-FORMAT.md).
    """
    buffer = io.BytesIO()
    segno.make(url, error="m", mask=0, boost_error=False).save(buffer, kind="png", scale=1, border=0)
    return buffer.getvalue()
