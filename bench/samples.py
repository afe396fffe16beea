"""The receipts the benches use: a 10-line e-Ticket of the demo company that the in-process benches sign or
print, issued under a CAE range valid for years, and the body the HTTP benches send. One place, so the benches
measure the same documents."""

from __future__ import annotations

import json
from datetime import date

# The body the HTTP benches issue (an e-Ticket of two lines, no receiver), as bytes on the wire.
TWO_LINE_ETICKET_BODY = json.dumps(
    {
        "tipoCFE": 101,
        "fmaPago": 1,
        "mntBruto": True,
        "items": [
            {"indFact": 3, "nomItem": "Café", "cantidad": "2", "precioUnitario": "122"},
            {"indFact": 2, "nomItem": "Medialuna", "cantidad": "3", "precioUnitario": "44"},
        ],
    }
).encode()


def ten_line_eticket(**extra):
    from portal.service.cfe import parse_cfe_input

    lines = [{"indFact": 3, "nomItem": f"Artículo {i}", "cantidad": "2", "precioUnitario": "99.90"} for i in range(10)]
    return parse_cfe_input({"tipoCFE": 101, "fmaPago": 1, "mntBruto": True, "items": lines, **extra})


def demo_issuer(**extra):
    from portal.service.cfe.emission import Issuer

    return Issuer(
        rut="219999830019",
        razon_social="Demo S.A.",
        cdg_dgi_sucursal=1,
        domicilio_fiscal="Av. 18 de Julio 1234",
        ciudad="Montevideo",
        departamento="Montevideo",
        **extra,
    )


def numbering(nro: int = 1):
    from portal.service.cfe.emission import Numbering

    return Numbering(serie="A", nro=nro, cae_id=90260000011, dnro=1, hnro=100000, fec_venc=date(2030, 1, 1))
