"""The receipt list as XLSX (GET buscar with formato=xlsx or Accept): the CSV's rows and columns in a workbook
that opens in a spreadsheet library with dates as dates and amounts as numbers, credit notes negative, a
receiver's formula-like name kept as text; and the OpenAPI document says so."""

from __future__ import annotations

import csv
import io
from datetime import datetime
from decimal import Decimal

import pytest
from openpyxl import load_workbook

from portal.domain.uruguay_time import today_montevideo
from portal.service.platform.spreadsheet import XLSX
from tests.support import cfe_bodies as bodies
from tests.support.cfe_bodies import issue

BUSCAR = "/api/v1/comprobante/buscar"


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


def _workbook(api_client, user, query: dict, accept: str | None = None):
    headers = {**user, "Accept": accept} if accept else user
    with api_client.get(BUSCAR, query_string=query, headers=headers) as answer:  # a file: closed as a server would
        return _opened(answer), answer.headers


def _opened(answer):
    assert answer.status_code == 200, answer.status_code
    assert answer.mimetype == XLSX
    assert (
        answer.headers["Content-Disposition"].startswith("attachment")
        and "comprobantes.xlsx" in answer.headers["Content-Disposition"]
    )
    return load_workbook(io.BytesIO(answer.data))


def test_the_list_as_xlsx_has_the_csvs_rows_with_dates_and_numbers(api_client, user):
    factura = bodies.body(bodies.EFACTURA)
    factura["receptor"] = {**bodies.BUYER, "rznSocRecep": '=HYPERLINK("http://x";"a")'}
    original = issue(api_client, user, factura)
    note = api_client.post(
        "/api/v1/comprobante/notaCreditoTotal",
        headers=user,
        json={"idCfeEmitido": original["idCfeEmitido"], "razon": "Error"},
    ).json
    book, _headers = _workbook(api_client, user, {"formato": "xlsx"})
    assert book.sheetnames == ["Comprobantes"]
    header, *rows = [[cell.value for cell in row] for row in book.active.iter_rows()]
    with api_client.get(BUSCAR, headers={**user, "Accept": "text/csv"}) as answer:
        csv_header, *csv_rows = csv.reader(io.StringIO(answer.data.decode("utf-8").lstrip("\ufeff")), delimiter=";")
    assert header == csv_header and len(rows) == len(csv_rows) == 2
    by_id = {row[header.index("Identificador")]: dict(zip(header, row, strict=True)) for row in rows}
    sale, credit = by_id[original["idCfeEmitido"]], by_id[note["idCfeEmitido"]]
    assert isinstance(sale["Fecha"], datetime) and sale["Fecha"].date() == today_montevideo()
    assert isinstance(sale["Total"], float) and Decimal(str(sale["Total"])) == Decimal(original["totales"]["mntTotal"])
    assert credit["Total"] == -sale["Total"] and credit["IVA tasa básica"] == -sale["IVA tasa básica"] < 0
    assert sale["Número"] == original["nro"] and sale["Anulado por"].startswith("Nota de Crédito de e-Factura")
    assert sale["Receptor"] == '=HYPERLINK("http://x";"a")'  # text, as typed
    cells = {cell.column_letter: cell for cell in book.active[2]}
    assert cells["A"].number_format == "DD/MM/YYYY" and cells["H"].number_format == "#,##0.00"
    assert all(cell.data_type != "f" for row in book.active.iter_rows() for cell in row)  # no formula anywhere


def test_accept_asks_for_it_too_and_the_filters_apply(api_client, user):
    issue(api_client, user, bodies.body(bodies.ETICKET))
    factura = issue(api_client, user, bodies.body(bodies.EFACTURA))
    book, headers = _workbook(api_client, user, {"tipoCFE": 111}, accept=XLSX)
    rows = list(book.active.iter_rows(min_row=2, values_only=True))
    assert [row[3] for row in rows] == [factura["nro"]]
    assert "Accept" in headers["Vary"]


def test_the_openapi_document_offers_the_list_as_xlsx(api_client):
    document = api_client.get("/api/v1/openapi.json").json
    operation = document["paths"][BUSCAR]["get"]
    assert XLSX in operation["responses"]["200"]["content"]
    formato = next(p for p in operation["parameters"] if p["name"] == "formato")
    assert "xlsx" in str(formato["schema"])
    assert api_client.get(BUSCAR, query_string={"formato": "pdf"}, headers={}).status_code in (401, 422)
