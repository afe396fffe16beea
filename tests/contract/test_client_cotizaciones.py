"""The real client's rates of a period against a live service: typed days, newest first, a holiday with the rate
it takes from the day before, a day with none, and a period longer than a year refused on the client's field."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest
from sqlalchemy import delete

from portal.client import CfeClient, ValidationError
from portal.client.cotizaciones import MAX_PERIOD_DAYS, RateDay
from portal.service.cotizaciones import bcu, rates
from portal.service.cotizaciones.models import ExchangeRate
from portal.service.platform import db


@pytest.fixture
def api(live_service, live_token_for):
    return CfeClient(live_service.url, retries=0).as_user(live_token_for("soporte@demo.uy"), company_id=1)


def test_a_periods_days_are_typed_with_the_rate_a_receipt_takes(api, live_service):
    with live_service.app.app_context(), db.write_transaction() as session:
        session.execute(delete(ExchangeRate).where(ExchangeRate.currency == "BRL"))
        rates.store(session, [bcu.PublishedRate(date(2025, 4, 11), "BRL", Decimal("6.9"), Decimal("7.1235"))])
    found = api.exchange_rates("BRL", date(2025, 4, 10), date(2025, 4, 22))
    assert (found.currency, found.start, found.end, found.days_back) == (
        "BRL",
        date(2025, 4, 10),
        date(2025, 4, 22),
        10,
    )
    assert found.bcu_source == "simulador"
    assert [d.day for d in found.days] == [date(2025, 4, 22) - timedelta(days=n) for n in range(13)]
    by_day = {d.day: d for d in found.days}
    assert by_day[date(2025, 4, 11)] == RateDay(
        date(2025, 4, 11), Decimal("6.9"), Decimal("7.1235"), "bcu", Decimal("7.124"), date(2025, 4, 11)
    )
    holiday = by_day[date(2025, 4, 17)]
    assert not holiday.published and holiday.source is None
    assert (holiday.receipt_rate, holiday.receipt_rate_day) == (Decimal("7.124"), date(2025, 4, 11))
    assert by_day[date(2025, 4, 22)].receipt_rate is None  # eleven days after the last one published
    assert by_day[date(2025, 4, 10)].receipt_rate_day is None


def test_a_period_longer_than_a_year_names_the_clients_field(api):
    start = date(2025, 1, 1)
    assert len(api.exchange_rates("USD", start, start + timedelta(days=MAX_PERIOD_DAYS - 1)).days) == MAX_PERIOD_DAYS
    with pytest.raises(ValidationError) as refused:
        api.exchange_rates("USD", start, start + timedelta(days=MAX_PERIOD_DAYS))
    assert (refused.value.fields[0].field, refused.value.fields[0].code) == ("end", "periodo_demasiado_largo")
