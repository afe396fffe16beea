"""The receipt list and notes on a real PostgreSQL server: filters, keyset pages, exact totals with credit
notes subtracting, the CSV, and the credit limit of an original."""

from __future__ import annotations

import csv
import io

import pytest

from tests.support import cfe_bodies as bodies
from tests.support.cfe_bodies import issue

BUSCAR = "/api/v1/comprobante/buscar"


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


def test_search_pages_totals_and_csv_on_postgresql(api_client, user):
    tickets = [issue(api_client, user, bodies.body(bodies.ETICKET)) for _ in range(3)]
    nandu = bodies.body(bodies.EFACTURA)
    nandu["receptor"] = {**bodies.BUYER, "docRecep": "211003420017", "rznSocRecep": "Ñandú S.A."}
    factura = issue(api_client, user, nandu)
    found = api_client.get(
        BUSCAR, query_string={"receptor": "NANDU", "numero": f"A {factura['nro']:07d}"}, headers=user
    )
    assert [c["idCfeEmitido"] for c in found.json["comprobantes"]] == [factura["idCfeEmitido"]]
    first = api_client.get(BUSCAR, query_string={"tipoCFE": 101, "limite": 2}, headers=user).json
    second = api_client.get(
        BUSCAR, query_string={"tipoCFE": 101, "limite": 2, "cursor": first["siguiente"]}, headers=user
    ).json
    assert [c["idCfeEmitido"] for c in first["comprobantes"] + second["comprobantes"]] == [
        t["idCfeEmitido"] for t in reversed(tickets)
    ]
    api_client.post(
        "/api/v1/comprobante/notaCreditoTotal",
        headers=user,
        json={"idCfeEmitido": factura["idCfeEmitido"], "razon": "Error"},
    )
    totals = api_client.get(BUSCAR, headers=user).json["totales"]
    assert totals == [{"moneda": "UYU", "cantidad": 5, "mntTotal": f"{3 * 376:.2f}"}]
    # A streamed answer keeps its request context until it is closed (as a WSGI server does after sending).
    with api_client.get(BUSCAR, query_string={"tipoCFE": 111}, headers={**user, "Accept": "text/csv"}) as answer:
        text = answer.data
    rows = list(csv.reader(io.StringIO(text.decode("utf-8-sig")), delimiter=";"))
    assert len(rows) == 2 and rows[1][5] == "Ñandú S.A."
    again = api_client.post(
        "/api/v1/comprobante/notaCreditoTotal",
        headers=user,
        json={"idCfeEmitido": factura["idCfeEmitido"], "razon": "Otra vez"},
    )
    assert again.status_code == 409 and again.json["error"]["code"] == "ya_anulado"
