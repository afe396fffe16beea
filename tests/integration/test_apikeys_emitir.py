"""A key created through the API issues a receipt with `X-API-Key`, for its own company only."""

from __future__ import annotations

EMITIR = "/api/v1/comprobante/emitir"
GET = "/api/v1/comprobante/getByIdCfeEmitido"
# The smallest valid e-Ticket: a final consumer, no receptor, amounts with VAT included.
ETICKET = {
    "tipoCFE": 101,
    "fmaPago": 1,
    "mntBruto": True,
    "items": [{"indFact": 3, "nomItem": "Café", "cantidad": "2", "precioUnitario": "122"}],
}


def test_a_key_created_through_the_api_issues_a_receipt_with_x_api_key(api_client, auth_headers):
    created = api_client.post("/api/v1/apikeys", json={"nombre": "Caja 1"}, headers=auth_headers("admin@demo.uy", 1))
    assert created.status_code == 201, created.json
    as_key = {"X-API-Key": created.json["clave"]}

    issued = api_client.post(EMITIR, json=ETICKET, headers=as_key)
    assert issued.status_code == 201, issued.json
    receipt = issued.json
    assert receipt["tipoCFE"] == 101 and receipt["nro"] >= 1
    assert receipt["creadoPor"] == f"apikey:{created.json['id']}"
    assert issued.headers["RateLimit-Policy"] == '"default";q=600;w=60'
    assert issued.headers["RateLimit"].startswith('"default";r=599;')

    fetched = api_client.get(GET, query_string={"idCfeEmitido": receipt["idCfeEmitido"]}, headers=as_key)
    assert fetched.status_code == 200 and fetched.json["nro"] == receipt["nro"]
    other_company = api_client.get(
        GET, query_string={"idCfeEmitido": receipt["idCfeEmitido"]}, headers=auth_headers("admin@demo.uy", 2)
    )
    assert other_company.status_code == 404

    api_client.post(f"/api/v1/apikeys/{created.json['id']}/revocar", headers=auth_headers("admin@demo.uy", 1))
    assert api_client.post(EMITIR, json=ETICKET, headers=as_key).status_code == 401
