"""Request bodies for every supported CFE type, dated today so the demo CAE ranges number them."""

from __future__ import annotations

import copy
from dataclasses import replace

from portal.client.cfe import CfeRequest

BUYER = {
    "tipoDocRecep": 2,
    "codPaisRecep": "UY",
    "docRecep": "214844360018",
    "rznSocRecep": "DIRECCION GENERAL IMPOSITIVA",
    "dirRecep": "Fernandez Crespo 1534",
    "ciudadRecep": "Montevideo",
    "deptoRecep": "Montevideo",
}

# DGI's sample e-Ticket (prices with IVA): totals known to the cent (CFE-URUGUAY.md §3).
DGI_SAMPLE_ETICKET = {
    "tipoCFE": 101,
    "fmaPago": 1,
    "mntBruto": True,
    "receptor": {"tipoDocRecep": 3, "codPaisRecep": "UY", "docRecep": "13353214"},
    "items": [
        {"indFact": 3, "nomItem": "Bananas", "cantidad": "40", "uniMed": "kg", "precioUnitario": "4200"},
        {"indFact": 2, "nomItem": "Manzanas", "cantidad": "18", "uniMed": "kg", "precioUnitario": "22"},
        {"indFact": 1, "nomItem": "Papas", "cantidad": "12", "uniMed": "kg", "precioUnitario": "35"},
    ],
}

ETICKET = {
    "tipoCFE": 101,
    "fmaPago": 1,
    "mntBruto": True,
    "items": [
        {"indFact": 3, "nomItem": "Café", "cantidad": "2", "precioUnitario": "122"},
        {"indFact": 2, "nomItem": "Medialuna", "cantidad": "3", "precioUnitario": "44"},
    ],
}

EFACTURA = {
    "tipoCFE": 111,
    "fmaPago": 2,
    "receptor": BUYER,
    "items": [
        {"indFact": 3, "nomItem": "Consultoría", "cantidad": "10", "uniMed": "h", "precioUnitario": "1500"},
        {"indFact": 1, "nomItem": "Libros", "cantidad": "2", "precioUnitario": "350.25"},
    ],
}


def note(tipo: int, referenced_type: int, serie: str, nro: int) -> dict:
    body = {
        "tipoCFE": tipo,
        "fmaPago": 1,
        "items": [{"indFact": 3, "nomItem": "Ajuste", "cantidad": "1", "precioUnitario": "100"}],
        "referencias": [
            {"tpoDocRef": referenced_type, "serie": serie, "nroCFERef": nro, "razonRef": "Ajuste de precio"}
        ],
    }
    if tipo in (112, 113):
        body["receptor"] = BUYER
    return body


EREMITO = {
    "tipoCFE": 181,
    "tipoTraslado": 1,
    "receptor": BUYER,
    "items": [
        {"nomItem": "Manzanas", "cantidad": "10", "uniMed": "kg"},
        {"nomItem": "Arroz", "cantidad": "8.5", "uniMed": "kg"},
    ],
}

ERESGUARDO = {
    "tipoCFE": 182,
    "receptor": BUYER,
    "items": [{"retencPercep": [{"codRet": "2183165", "tasa": "50", "mntSujetoaRet": "22000", "valRetPerc": "11000"}]}],
    "referencias": [{"tpoDocRef": 111, "serie": "A", "nroCFERef": 25}],
}


def body(kind: dict) -> dict:
    return copy.deepcopy(kind)


def request(kind: dict, **changes) -> CfeRequest:
    """The body as the client's typed request (what the portal sends), with `changes` to its fields."""
    return replace(CfeRequest.from_json(body(kind)), **changes)


def issue(api_client, headers: dict, body: dict, **extra_headers) -> dict:
    """POST emitir through a Flask test client; asserts it was issued and returns the receipt JSON."""
    answer = api_client.post("/api/v1/comprobante/emitir", json=body, headers={**headers, **extra_headers})
    assert answer.status_code == 201, answer.json
    return answer.json
