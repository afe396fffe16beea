"""The real client's reports and exchange-rate methods against a live service: typed results, the period's
figures as the service adds them, the sales book's files, and a missing rate as None."""

from __future__ import annotations

import io
import uuid
from datetime import date, timedelta
from decimal import Decimal

import pytest
from openpyxl import load_workbook

from portal.client import CfeClient, ValidationError
from portal.client.cfe import CfeRequest
from portal.domain.uruguay_time import today_montevideo
from tests.support import cfe_bodies as bodies


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
