"""The receipt list and notes on a real PostgreSQL server: filters, keyset pages, exact totals with credit
notes subtracting, the CSV, and the credit limit of an original."""

from __future__ import annotations

import csv
import io

import pytest

from portal.service.comprobante.search import Filters, conditions, page
from portal.service.platform import db
from tests.support import cfe_bodies as bodies
from tests.support import receipt_copies
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
    assert [c["idCfeEmitido"] for c in found.json["items"]] == [factura["idCfeEmitido"]]
    first = api_client.get(BUSCAR, query_string={"tipoCFE": 101, "limite": 2}, headers=user).json
    second = api_client.get(
        BUSCAR, query_string={"tipoCFE": 101, "limite": 2, "cursor": first["siguienteCursor"]}, headers=user
    ).json
    assert [c["idCfeEmitido"] for c in first["items"] + second["items"]] == [
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


def _every_page(api_client, user, params: dict) -> tuple[list[str], int]:
    answer = api_client.get(BUSCAR, query_string={**params, "limite": 37}, headers=user)
    seen, count = [c["idCfeEmitido"] for c in answer.json["items"]], answer.json["total"]
    while answer.json["siguienteCursor"]:
        answer = api_client.get(
            BUSCAR, query_string={**params, "limite": 37, "cursor": answer.json["siguienteCursor"]}, headers=user
        )
        seen += [c["idCfeEmitido"] for c in answer.json["items"]]
    return seen, count


def test_receiver_filter_finds_what_a_plain_reading_finds_on_postgresql(api_client, user, service_app):
    issue(api_client, user, bodies.body(bodies.EFACTURA))
    rows = receipt_copies.fill(service_app, 300)
    for typed in ("21", "21-100342", "fe", "ÑANDÚ", "AR20", "arapey", "norte ferreteria", "s.r.l"):
        wanted = [r for r in rows if receipt_copies.receiver_matches(r, typed)]
        seen, count = _every_page(api_client, user, {"receptor": typed})
        assert seen == receipt_copies.in_list_order(wanted) and count == len(wanted), typed


def test_receiver_filter_pages_along_the_list_index_on_postgresql(
    api_client, user, service_app, postgres_server, pg_database
):
    """With statistics of 3,000 receipts, the page of "21" (most of them) walks the list's index in its order
    and stops after its rows: no pass over the table, no sort. (The totals must add up every match; there
    PostgreSQL weighs the table against the indexes by its statistics, and for most of a table it reads it.)"""
    issue(api_client, user, bodies.body(bodies.EFACTURA))
    company = receipt_copies.fill(service_app, 3000)[0]["company_id"]
    with postgres_server.connect(pg_database, autocommit=True) as admin:
        admin.execute("VACUUM ANALYZE cfe_emitido")
    with service_app.app_context():
        session = db.session()
        with receipt_copies.statements_run(session) as run:
            page(session, conditions(session, company, Filters(receptor="21")), None, 50)
        (sql, parameters) = run[-1]
        plan = "\n".join(row[0] for row in session.connection().exec_driver_sql(f"EXPLAIN {sql}", parameters))
    assert "Index Scan Backward using ix_cfe_emitido_listado" in plan, plan
    assert "Seq Scan" not in plan and "Sort" not in plan and "receptor_doc >=" in sql, plan
