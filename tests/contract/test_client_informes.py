"""The real client's reports and exchange-rate methods against a live service: typed results, the period's
figures as the service adds them, the period's purchases, the sales book's files, and a missing rate as None."""

from __future__ import annotations

import io
import uuid
from datetime import date, timedelta
from decimal import Decimal

import pytest
from openpyxl import load_workbook

from portal.client import CfeClient, ValidationError
from portal.client.cfe import CfeRequest
from portal.client.informes import PurchasesReport, RateLine
from portal.client.recibidos import EnvelopeFile
from portal.domain.uruguay_time import today_montevideo
from tests.support import cfe_bodies as bodies
from tests.support import recibidos as sup


@pytest.fixture
def api(live_service, live_token_for):
    return CfeClient(live_service.url, retries=0).as_user(live_token_for("usuario@demo.uy"), company_id=1)


def test_the_period_report_and_the_sales_book_are_typed(api):
    receipt = api.issue_receipt(CfeRequest.from_json(bodies.body(bodies.EFACTURA)), idempotency_key=uuid.uuid4().hex)
    today = today_montevideo()
    report = api.period_report(today.replace(day=1), today)
    assert report.by_day and report.count == 1 and report.total_uyu == receipt.totals.total
    assert [c.key for c in report.by_type] == ["111"]
    assert report.top_customers[0].document == bodies.BUYER["docRecep"]
    assert dict(report.iva)["ivaTasaBasica"] > 0
    book = load_workbook(io.BytesIO(api.sales_book(today.replace(day=1), today, "xlsx")))
    assert book["Libro de ventas"].cell(2, 4).value == receipt.nro
    assert api.sales_book(today.replace(day=1), today, "csv").decode("utf-8-sig").startswith("Fecha;Tipo")
    purchases = api.purchases_book(today.replace(day=1), today, "csv").decode("utf-8-sig")
    assert purchases.startswith("Fecha;Tipo;Serie;Número;Documento del proveedor;Proveedor")


def test_a_reversed_period_names_the_clients_field(api):
    today = today_montevideo()
    with pytest.raises(ValidationError) as refused:
        api.period_report(today, today - timedelta(days=1))
    assert refused.value.fields[0].field == "end"


def test_the_days_rate_and_a_missing_one(api):
    rate = api.exchange_rate("USD")
    assert rate is not None and rate.currency == "USD" and Decimal(0) < rate.buy <= rate.sell
    assert rate.day <= today_montevideo()
    assert api.exchange_rate("EUR", date(2015, 3, 2)) is None


def test_the_purchases_at_a_glance_are_typed_and_add_up_the_received_cfes(api):
    """Two received e-Facturas and one the company rejected: the rates, the credit and the supplier as the
    service adds them, the rejected one counted apart."""
    [result] = api.upload_envelopes((EnvelopeFile("s.xml", sup.envelope([sup.cfe(n) for n in (1, 2, 3)])),))
    api.reject_received(result.received_ids[2], "E24")
    today = today_montevideo()
    report = api.purchases_report(today - timedelta(days=3), today)
    assert isinstance(report, PurchasesReport) and not report.empty
    assert (report.count, report.rejected_by_dgi, report.rejected_by_company) == (2, 0, 1)
    kept = [api.get_received(received_id).cfe.total for received_id in result.received_ids[:2]]
    assert report.total_uyu == sum(kept)
    assert [line.rate for line in report.by_rate] == ["basica", "minima", "otra", "exento"]
    assert all(isinstance(line, RateLine) for line in report.by_rate)
    basic = report.by_rate[0]
    assert basic.percent == Decimal(22) and basic.iva_uyu > 0 and basic.total_uyu == basic.net_uyu + basic.iva_uyu
    assert report.rates_total.iva_uyu == dict(report.iva)["ivaCreditoFiscal"] == sum(r.iva_uyu for r in report.by_rate)
    assert [t.key for t in report.by_type] == ["111"]
    assert report.top_suppliers[0].document == sup.SUPPLIER_RUT and report.top_suppliers[0].count == 2
    assert api.purchases_report(date(2015, 3, 1), date(2015, 3, 31)).empty


def test_a_reversed_purchases_period_names_the_clients_field(api):
    today = today_montevideo()
    with pytest.raises(ValidationError) as refused:
        api.purchases_report(today, today - timedelta(days=1))
    assert refused.value.fields[0].field == "end"
