"""The IVA sales book: every amount equals what the signed XML carries (recomputed here from the XML), credit
notes count negative, DGI's rejections stay out of the totals, and the CSV and XLSX open with the right types."""

from __future__ import annotations

import csv
import io
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal

import pytest
from lxml import etree
from openpyxl import load_workbook
from sqlalchemy import select, update

from portal.domain.uruguay_time import today_montevideo
from portal.service.comprobante.models import IssuedCfe
from portal.service.platform import db
from tests.support import cfe_bodies as bodies
from tests.support.cfe_bodies import issue

VENTAS = "/api/v1/informes/ventas"
CFE = "{http://cfe.dgi.gub.uy}"
# The book's columns and the element of the CFE's Totales each comes from.
FROM_XML = {
    "noGravado": "MntNoGrv",
    "exportacion": "MntExpoyAsim",
    "ivaSuspenso": "MntIVaenSusp",
    "netoTasaMinima": "MntNetoIvaTasaMin",
    "netoTasaBasica": "MntNetoIVATasaBasica",
    "netoOtraTasa": "MntNetoIVAOtra",
    "ivaTasaMinima": "MntIVATasaMin",
    "ivaTasaBasica": "MntIVATasaBasica",
    "ivaOtraTasa": "MntIVAOtra",
    "percepciones": "MntImpuestoPerc",
    "retenciones": "MntTotRetenido",
    "total": "MntTotal",
}


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


@pytest.fixture
def month(api_client, user, service_app):
    """A month of mixed receipts: e-Tickets, e-Facturas in pesos and dollars, a credit and a debit note, an
    e-Remito (not a sale) and an e-Factura DGI rejected."""
    issued = [issue(api_client, user, bodies.body(kind)) for kind in (bodies.DGI_SAMPLE_ETICKET, bodies.ETICKET)]
    factura = issue(api_client, user, bodies.body(bodies.EFACTURA))
    dollars = bodies.body(bodies.EFACTURA)
    dollars.update(tpoMoneda="USD", tpoCambio="39.875")
    in_dollars = issue(api_client, user, dollars)
    credit = issue(api_client, user, bodies.note(112, 111, factura["serie"], factura["nro"]))
    debit = issue(api_client, user, bodies.note(113, 111, factura["serie"], factura["nro"]))
    remito = issue(api_client, user, bodies.body(bodies.EREMITO))
    rejected = issue(api_client, user, bodies.body(bodies.EFACTURA))
    with service_app.app_context():
        session = db.session()
        session.execute(
            update(IssuedCfe).where(IssuedCfe.id == rejected["idCfeEmitido"]).values(dgi_status="rechazado")
        )
        session.commit()
    return {
        "book": [*issued, factura, in_dollars, credit, debit],
        "remito": remito,
        "rejected": rejected,
    }


def _period() -> dict[str, str]:
    today = today_montevideo()
    return {"desde": (today - timedelta(days=3)).isoformat(), "hasta": today.isoformat()}


def _xml_amounts(service_app, receipt_id: str) -> tuple[dict[str, Decimal], Decimal, str]:
    """The signed XML's totals, its exchange rate and currency, read from the XML itself."""
    with service_app.app_context():
        xml = db.session().scalar(select(IssuedCfe.xml).where(IssuedCfe.id == receipt_id))
    totals = etree.fromstring(xml).find(f".//{CFE}Totales")
    values = {name: Decimal(totals.findtext(f"{CFE}{tag}") or "0") for name, tag in FROM_XML.items()}
    rate = Decimal(totals.findtext(f"{CFE}TpoCambio") or "1")
    return values, rate, totals.findtext(f"{CFE}TpoMoneda")


def test_every_amount_equals_the_signed_xml_and_credit_notes_count_negative(api_client, user, month, service_app):
    answer = api_client.get(VENTAS, query_string=_period(), headers=user)
    assert answer.status_code == 200, answer.json
    book = answer.json
    assert sorted(row["id"] for row in book["filas"]) == sorted(r["idCfeEmitido"] for r in month["book"])
    expected_total = dict.fromkeys(FROM_XML, Decimal(0))
    for row in book["filas"]:
        values, rate, currency = _xml_amounts(service_app, row["id"])
        sign = -1 if row["tipoCFE"] == 112 else 1
        assert row["moneda"] == currency
        for name, value in values.items():
            assert Decimal(row["importes"][name]) == sign * value, (row["tipoCFE"], name)
            in_pesos = (sign * value * rate).quantize(Decimal("0.01"), ROUND_HALF_UP)
            assert Decimal(row["importesPesos"][name]) == in_pesos, (row["tipoCFE"], name)
            expected_total[name] += in_pesos
    assert {k: Decimal(v) for k, v in book["totalesPesos"].items()} == expected_total
    assert book["cantidad"] == len(month["book"])
    declaration = {k: Decimal(v) for k, v in book["declaracion"].items()}
    assert declaration["ventasTasaBasica"] == expected_total["netoTasaBasica"]
    assert declaration["ivaDebitoFiscal"] == (
        expected_total["ivaTasaBasica"] + expected_total["ivaTasaMinima"] + expected_total["ivaOtraTasa"]
    )
    by_type = {t["tipoCFE"]: t for t in book["porTipo"]}
    assert Decimal(by_type[112]["importesPesos"]["total"]) < 0
    assert by_type[111]["cantidad"] == 2
    dollars = next(c for c in book["porMoneda"] if c["moneda"] == "USD")
    assert Decimal(dollars["importes"]["total"]) == Decimal(month["book"][3]["totales"]["mntTotal"])


def test_rejected_receipts_are_listed_apart_and_e_remitos_are_not_sales(api_client, user, month):
    book = api_client.get(VENTAS, query_string=_period(), headers=user).json
    assert [row["id"] for row in book["rechazados"]] == [month["rejected"]["idCfeEmitido"]]
    every_id = {row["id"] for row in book["filas"]}
    assert month["rejected"]["idCfeEmitido"] not in every_id
    assert month["remito"]["idCfeEmitido"] not in every_id


def test_csv_and_xlsx_carry_the_same_book_with_numbers_and_dates(api_client, user, month):
    period = _period()
    json_book = api_client.get(VENTAS, query_string=period, headers=user).json
    as_csv = api_client.get(VENTAS, query_string=period, headers={**user, "Accept": "text/csv"})
    assert as_csv.status_code == 200 and as_csv.mimetype == "text/csv"
    assert "attachment" in as_csv.headers["Content-Disposition"]
    lines = list(csv.reader(io.StringIO(as_csv.get_data(as_text=True).lstrip("\ufeff")), delimiter=";"))
    header, rows = lines[0], lines[1 : 1 + len(json_book["filas"])]
    total_column = header.index("Total (UYU)")
    csv_total = sum(Decimal(row[total_column].replace(",", ".")) for row in rows)
    assert csv_total == Decimal(json_book["totalesPesos"]["total"])
    assert lines[len(json_book["filas"]) + 2] == ["Rechazados por DGI (fuera del libro)"]

    as_xlsx = api_client.get(VENTAS, query_string={**period, "formato": "xlsx"}, headers=user)
    assert as_xlsx.status_code == 200
    content = as_xlsx.data
    as_xlsx.close()  # a streamed file is closed with its response, as a WSGI server does
    workbook = load_workbook(io.BytesIO(content))
    assert workbook.sheetnames == ["Libro de ventas", "Resumen", "Rechazados por DGI"]
    sheet = workbook["Libro de ventas"]
    header = [cell.value for cell in sheet[1]]
    data = list(sheet.iter_rows(min_row=2, values_only=True))
    assert len(data) == len(json_book["filas"])
    assert all(isinstance(row[0], date) for row in data)
    total_column = header.index("Total (UYU)")
    assert all(isinstance(row[total_column], (int, float)) for row in data)
    assert round(sum(Decimal(str(row[total_column])) for row in data), 2) == Decimal(json_book["totalesPesos"]["total"])
    assert workbook["Rechazados por DGI"].max_row == 2


def test_soporte_reads_the_book_and_a_period_is_checked(api_client, auth_headers, month):
    soporte = auth_headers("soporte@demo.uy")
    assert api_client.get(VENTAS, query_string=_period(), headers=soporte).status_code == 200
    reversed_range = api_client.get(
        VENTAS, query_string={"desde": "2026-02-01", "hasta": "2026-01-01"}, headers=soporte
    )
    assert reversed_range.status_code == 422
    assert reversed_range.json["error"]["fields"][0]["field"] == "hasta"
    too_long = api_client.get(VENTAS, query_string={"desde": "2024-01-01", "hasta": "2025-06-30"}, headers=soporte)
    assert too_long.status_code == 422 and too_long.json["error"]["fields"][0]["code"] == "periodo_demasiado_largo"
    assert api_client.get(VENTAS, query_string={"desde": "2026-01-01"}, headers=soporte).status_code == 422
    assert api_client.get(VENTAS, query_string=_period()).status_code == 401


def test_the_period_at_a_glance_adds_up_what_the_book_files(api_client, user, month):
    period = _period()
    book = api_client.get(VENTAS, query_string=period, headers=user).json
    answer = api_client.get("/api/v1/informes/periodo", query_string=period, headers=user)
    assert answer.status_code == 200, answer.json
    glance = answer.json
    assert glance["agrupacion"] == "dia" and len(glance["serie"]) == 4
    assert glance["totalPesos"] == book["totalesPesos"]["total"] and glance["cantidad"] == book["cantidad"]
    assert sum(Decimal(day["totalPesos"]) for day in glance["serie"]) == Decimal(book["totalesPesos"]["total"])
    assert glance["iva"] == book["declaracion"]
    assert glance["rechazados"] == 1
    assert {t["tipoCFE"] for t in glance["porTipo"]} == {101, 111, 112, 113}
    top = glance["principalesClientes"][0]
    assert top["docRecep"] == bodies.BUYER["docRecep"]
    states = {s["estado"]: s["cantidad"] for s in glance["estadosDgi"]}
    assert states["rechazado"] == 1 and sum(states.values()) == len(month["book"]) + 2  # the e-Remito counts here


def test_a_year_is_drawn_month_by_month(api_client, user, month):
    today = today_montevideo()
    year = {"desde": (today - timedelta(days=364)).isoformat(), "hasta": today.isoformat()}
    glance = api_client.get("/api/v1/informes/periodo", query_string=year, headers=user).json
    assert glance["agrupacion"] == "mes"
    assert all(day["fecha"].endswith("-01") for day in glance["serie"])
    assert len(glance["serie"]) in (12, 13)
    assert sum(Decimal(m["totalPesos"]) for m in glance["serie"]) == Decimal(glance["totalPesos"])


def test_an_export_invoice_and_its_credit_note_are_sales_in_the_book(api_client, user, service_app):
    """An e-Factura de Exportación (121) is a sale: it goes in the book and in the return's exports figure
    (MntExpoyAsim, CFE-URUGUAY.md section 14), its credit note (122) negative."""
    from tests.integration.test_export_api import today as dated_today
    from tests.unit.cfe.types_bodies import EXPORT

    export = issue(api_client, user, dated_today(EXPORT["121-services"]))
    credit = api_client.post(
        "/api/v1/comprobante/notaCreditoTotal",
        json={"idCfeEmitido": export["idCfeEmitido"], "razon": "Devolución"},
        headers=user,
    )
    assert credit.status_code in (200, 201), credit.json
    book = api_client.get(VENTAS, query_string=_period(), headers=user).json
    rows = {row["id"]: row for row in book["filas"]}
    assert export["idCfeEmitido"] in rows
    values, rate, _currency = _xml_amounts(service_app, export["idCfeEmitido"])
    in_pesos = (values["exportacion"] * rate).quantize(Decimal("0.01"), ROUND_HALF_UP)
    assert in_pesos > 0
    assert Decimal(rows[export["idCfeEmitido"]]["importesPesos"]["exportacion"]) == in_pesos
    assert {t["tipoCFE"] for t in book["porTipo"]} == {121, 122}
    assert Decimal(book["declaracion"]["exportaciones"]) == 0  # the note took the whole export back


def test_a_customer_named_two_ways_is_one_customer_under_its_latest_name(api_client, user):
    """The top customers went by document and name: the same RUT as "Ñandú" and "Ñandú S.R.L." made two rows,
    each with half of what the customer bought."""
    first, second = bodies.body(bodies.EFACTURA), bodies.body(bodies.EFACTURA)
    first["receptor"] = {**first["receptor"], "rznSocRecep": "Ñandú"}
    second["receptor"] = {**second["receptor"], "rznSocRecep": "Ñandú Servicios S.R.L."}
    issued = [issue(api_client, user, first), issue(api_client, user, second)]
    glance = api_client.get("/api/v1/informes/periodo", query_string=_period(), headers=user).json
    rows = [c for c in glance["principalesClientes"] if c["docRecep"] == bodies.BUYER["docRecep"]]
    assert len(rows) == 1 and rows[0]["cantidad"] == 2, glance["principalesClientes"]
    assert rows[0]["rznSocRecep"] == "Ñandú Servicios S.R.L."
    assert Decimal(rows[0]["totalPesos"]) == sum(Decimal(str(r["totales"]["mntPagar"])) for r in issued)


def test_a_period_at_the_end_of_the_calendar_is_answered(api_client, user):
    """The last days a date can hold (31/12/9999) are a period like any other: no day or month after them is
    drawn (it was a 500)."""
    for desde in ("9999-12-30", "9999-01-01"):
        answer = api_client.get(
            "/api/v1/informes/periodo", query_string={"desde": desde, "hasta": "9999-12-31"}, headers=user
        )
        assert answer.status_code == 200, (desde, answer.json)
        assert answer.json["serie"][-1]["fecha"] in ("9999-12-31", "9999-12-01")
        assert len(answer.json["serie"]) in (2, 12)
        pdf = api_client.get(
            "/api/v1/informes/periodo/pdf", query_string={"desde": desde, "hasta": "9999-12-31"}, headers=user
        )
        assert pdf.status_code == 200 and pdf.mimetype == "application/pdf"
