"""The IVA purchases book, from the received CFEs: its totals equal the received signed XMLs' totals (recomputed
here from the XML), credit notes count negative, dollars in pesos at the CFE's rate, CFEs DGI rejected and the
ones the company rejected (on arrival or commercially) apart; CSV and XLSX as the sales book's."""

from __future__ import annotations

import csv
import io
from datetime import timedelta
from decimal import ROUND_HALF_UP, Decimal

import pytest
from lxml import etree
from openpyxl import load_workbook
from sqlalchemy import select, update

from portal.domain.uruguay_time import today_montevideo
from portal.service.platform import db
from portal.service.recibidos.models import ReceivedCfe
from tests.integration.test_informes_ventas import CFE, FROM_XML
from tests.support import recibidos as sup

COMPRAS = "/api/v1/informes/compras"


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


def _credit_note(nro_ref: int) -> dict:
    return {
        **sup.EFACTURA,
        "tipoCFE": 112,
        "items": [{"indFact": 3, "nomItem": "Bonificación", "cantidad": "1", "precioUnitario": "200"}],
        "referencias": [{"tpoDocRef": 111, "serie": "A", "nroCFERef": nro_ref, "razonRef": "Bonificación"}],
    }


@pytest.fixture
def purchases(api_client, user, service_app) -> dict[int, int]:
    """Seven CFEs from the supplier: e-Facturas in pesos and dollars, a credit note, one rejected on arrival (its
    signature broken), one rejected commercially, one DGI rejected, and an e-Remito (not a purchase)."""
    dollars = {**sup.EFACTURA, "tpoMoneda": "USD", "tpoCambio": "40.125"}
    remito = {
        "tipoCFE": 181,
        "tipoTraslado": 1,
        "receptor": sup.BUYER,
        "items": [{"indFact": 8, "nomItem": "Cajas", "cantidad": "10"}],
    }
    tampered = sup.cfe(4).replace(b"Cajas de cart", b"Cajas de CART")
    cfes = [sup.cfe(1), sup.cfe(2, body=dollars), sup.cfe(3, body=_credit_note(1)), tampered, sup.cfe(5), sup.cfe(6)]
    cfes.append(sup.cfe(7, body=remito))
    data = {"archivos": [(io.BytesIO(sup.envelope(cfes)), "Sob_211003420017_1.xml")]}
    answer = api_client.post("/api/v1/recibidos", data=data, headers=user, content_type="multipart/form-data")
    assert answer.status_code == 201, answer.get_json()
    with service_app.app_context():
        ids = {nro: id_ for id_, nro in db.session().execute(select(ReceivedCfe.id, ReceivedCfe.nro))}
    rejected = api_client.post(f"/api/v1/recibidos/{ids[5]}/rechazar", json={"motivo": "E24"}, headers=user)
    assert rejected.status_code == 200, rejected.get_json()
    with service_app.app_context(), db.write_transaction() as session:
        session.execute(update(ReceivedCfe).where(ReceivedCfe.id == ids[6]).values(anulado_dgi=True))
    return ids


def _period() -> dict[str, str]:
    today = today_montevideo()
    return {"desde": (today - timedelta(days=3)).isoformat(), "hasta": today.isoformat()}


def _xml_totals_in_pesos(service_app, received_id: int) -> dict[str, Decimal]:
    """The received signed XML's totals in pesos, signed as the book signs them, read from the XML itself."""
    with service_app.app_context():
        xml = db.session().scalar(select(ReceivedCfe.xml).where(ReceivedCfe.id == received_id))
    root = etree.fromstring(xml)
    totals = root.find(f".//{CFE}Totales")
    sign = -1 if root.find(f".//{CFE}TipoCFE").text == "112" else 1
    rate = Decimal(totals.findtext(f"{CFE}TpoCambio") or "1")
    return {
        name: (sign * Decimal(totals.findtext(f"{CFE}{tag}") or "0") * rate).quantize(Decimal("0.01"), ROUND_HALF_UP)
        for name, tag in FROM_XML.items()
    }


def test_the_books_totals_equal_the_received_xmls_totals(api_client, user, purchases, service_app):
    answer = api_client.get(COMPRAS, query_string=_period(), headers=user)
    assert answer.status_code == 200, answer.json
    book = answer.json
    in_book = [purchases[n] for n in (1, 2, 3)]
    assert [(f["nro"], f["estado"]) for f in book["filas"]] == [(1, "recibido"), (2, "recibido"), (3, "recibido")]
    assert book["filas"][0]["docEmisor"] == sup.SUPPLIER_RUT and book["cantidad"] == 3

    expected = dict.fromkeys(FROM_XML, Decimal(0))
    for received_id in in_book:
        for name, value in _xml_totals_in_pesos(service_app, received_id).items():
            expected[name] += value
    assert {name: Decimal(value) for name, value in book["totalesPesos"].items()} == expected
    credit = book["filas"][2]
    assert Decimal(credit["importes"]["total"]) < 0  # the credit note counts negative
    dollars = book["filas"][1]
    assert dollars["moneda"] == "USD" and dollars["tipoCambio"] == "40.125"
    assert Decimal(dollars["importesPesos"]["total"]) == (
        Decimal(dollars["importes"]["total"]) * Decimal("40.125")
    ).quantize(Decimal("0.01"), ROUND_HALF_UP)
    assert book["declaracion"]["ivaCreditoFiscal"] == f"{expected['ivaTasaBasica'] + expected['ivaTasaMinima']:.2f}"
    assert book["declaracion"]["comprasTasaBasica"] == f"{expected['netoTasaBasica']:.2f}"

    assert [(f["nro"], f["estado"]) for f in book["rechazadosDgi"]] == [(6, "rechazado_dgi")]
    assert sorted((f["nro"], f["estado"]) for f in book["rechazadosEmpresa"]) == [
        (4, "rechazado_al_recibir"),
        (5, "rechazado_comercial"),
    ]


def test_csv_and_xlsx_carry_the_same_book(api_client, user, purchases):
    answer = api_client.get(COMPRAS, query_string={**_period(), "formato": "csv"}, headers=user)
    assert answer.status_code == 200 and answer.mimetype == "text/csv"
    assert "libro-compras-" in answer.headers["Content-Disposition"]
    lines = list(csv.reader(io.StringIO(answer.get_data(as_text=True).lstrip("\ufeff")), delimiter=";"))
    assert lines[0][4:6] == ["Documento del proveedor", "Proveedor"]
    assert [line[3] for line in lines[1:4]] == ["1", "2", "3"]
    headings = [line[0] for line in lines if len(line) == 1]
    assert headings == ["Rechazados por DGI (fuera del libro)", "Rechazados por la empresa (fuera del libro)"]

    answer = api_client.get(COMPRAS, query_string=_period(), headers={**user, "Accept": answer.mimetype})
    assert answer.mimetype == "text/csv"
    xlsx = api_client.get(COMPRAS, query_string={**_period(), "formato": "xlsx"}, headers=user)
    workbook = load_workbook(io.BytesIO(xlsx.data))
    xlsx.close()
    assert workbook.sheetnames == ["Libro de compras", "Resumen", "Rechazados por DGI", "Rechazados por la empresa"]
    sheet = workbook["Libro de compras"]
    assert sheet.max_row == 4 and isinstance(sheet.cell(2, 9).value, (int, float))
    summary = [row[0] for row in workbook["Resumen"].iter_rows(values_only=True)]
    assert "IVA crédito fiscal (total)" in summary


def test_the_sales_book_is_unchanged_by_purchases(api_client, user, purchases):
    book = api_client.get("/api/v1/informes/ventas", query_string=_period(), headers=user).json
    assert book["cantidad"] == 0 and book["rechazados"] == [] and "ivaDebitoFiscal" in book["declaracion"]


def test_an_e_boleta_de_entrada_the_company_issued_is_a_purchase_in_the_book(api_client, user, service_app):
    """The e-Boleta de entrada (151-153) is the purchase document the buyer itself issues to a seller who issues
    none (CFE-URUGUAY.md section 3, IndFact 13-15 and 17): a purchase of the company, in its purchases book with
    its seller as the supplier (its credit note negative), never in the sales book."""
    from portal.domain.identifiers import digits_only
    from tests.integration.test_export_api import today as dated_today
    from tests.support.cfe_bodies import issue
    from tests.unit.cfe.types_bodies import BOLETA

    boleta = issue(api_client, user, dated_today(BOLETA["151-imeba"]))
    book = api_client.get(COMPRAS, query_string=_period(), headers=user).json
    rows = {row["id"]: row for row in book["filas"]}
    assert boleta["idCfeEmitido"] in rows, book["filas"]
    row = rows[boleta["idCfeEmitido"]]
    assert row["tipoCFE"] == 151 and row["docEmisor"] == digits_only(BOLETA["151-imeba"]["receptor"]["docRecep"])
    assert row["importes"]["total"] == boleta["totales"]["mntTotal"]
    assert book["cantidad"] == 1 and book["totalesPesos"]["total"] == row["importesPesos"]["total"]
    sales = api_client.get("/api/v1/informes/ventas", query_string=_period(), headers=user).json
    assert sales["cantidad"] == 0
