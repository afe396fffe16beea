"""Exchange rates: the BCU client (zeep, from the WSDL) against the stand-in's SOAP endpoint on a live service,
the rate a day gets (weekends take Friday's; none older than 10 days), an operator's correction that the BCU's
figures never overwrite, the UI of 31 December becoming the next year's threshold value, and the API."""

from __future__ import annotations

import socket
from datetime import date, timedelta
from decimal import Decimal

import pytest
from sqlalchemy import delete

from portal.service import create_app
from portal.service.cotizaciones import bcu, rates
from portal.service.cotizaciones.models import ExchangeRate
from portal.service.indices.models import UiValue
from portal.service.platform import db

COTIZACIONES = "/api/v1/cotizaciones"


def _standin_url(live_service) -> str:
    return f"{live_service.url}/simuladores/bcu/awsbcucotizaciones"


def test_the_client_reads_what_the_stand_in_publishes_through_soap(live_service):
    start, end = date(2026, 11, 20), date(2026, 11, 24)  # Friday to Tuesday
    fetched = bcu.fetch_rates(_standin_url(live_service), ("USD", "UI"), start, end)
    assert fetched == bcu.standin_rates(("USD", "UI"), start, end)
    dollar_days = sorted(r.day for r in fetched if r.currency == "USD")
    assert dollar_days == [date(2026, 11, 20), date(2026, 11, 23), date(2026, 11, 24)]  # no weekend
    assert len([r for r in fetched if r.currency == "UI"]) == 5  # the UI has a value every day
    assert all(r.buy <= r.sell for r in fetched)


def test_a_weekend_with_nothing_published_is_no_error(live_service):
    assert bcu.fetch_rates(_standin_url(live_service), ("USD",), date(2026, 11, 21), date(2026, 11, 22)) == []


def test_the_bcu_not_answering_is_said_and_stores_nothing():
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    with pytest.raises(bcu.BcuUnavailable, match="no respondió"):
        bcu.fetch_rates(
            f"http://127.0.0.1:{port}/awsbcucotizaciones", ("USD",), date(2026, 11, 2), date(2026, 11, 6), 2
        )


def test_refresh_from_the_bcu_keeps_an_operators_correction_and_feeds_the_ui(live_service, service_config):
    app = create_app({**service_config, "RATES_SOURCE": "bcu", "BCU_URL": _standin_url(live_service)})
    with app.app_context():
        with db.write_transaction() as session:
            session.execute(delete(ExchangeRate))
            corrected = bcu.PublishedRate(date(2025, 12, 30), "USD", Decimal("39.000"), Decimal("39.500"))
            rates.store(session, [corrected], source=rates.OPERATOR)
        with db.write_transaction() as session:
            changed = rates.refresh(session, date(2025, 12, 29), date(2026, 1, 2))
        session = db.session()
        assert changed > 0
        kept = session.get(ExchangeRate, (date(2025, 12, 30), "USD"))
        assert (kept.sell, kept.source) == (Decimal("39.500000"), "operador")
        assert session.get(ExchangeRate, (date(2025, 12, 29), "USD")).source == "bcu"
        ui_2026 = session.get(UiValue, 2026)
        ui_dec_31 = session.get(ExchangeRate, (date(2025, 12, 31), "UI"))
        assert ui_2026.value == ui_dec_31.sell.quantize(Decimal("0.0001")) and ui_2026.source.startswith("BCU")
        # Saturday 3 January and Sunday the 4th take Friday the 2nd's dollar; nothing 10 days back is too old.
        assert rates.rate_on(session, "USD", date(2026, 1, 4)).day == date(2026, 1, 2)
        assert rates.rate_on(session, "USD", date(2026, 1, 13)) is None


def test_the_api_gives_the_days_rate_in_any_role(api_client, auth_headers):
    soporte = auth_headers("soporte@demo.uy")
    answer = api_client.get(COTIZACIONES, query_string={"moneda": "USD"}, headers=soporte)
    assert answer.status_code == 200, answer.json  # the demo data holds the stand-in's last weeks
    body = answer.json
    assert body["moneda"] == "USD" and body["fuente"] == "bcu"
    assert Decimal(body["compra"]) <= Decimal(body["venta"])
    assert date.fromisoformat(body["fecha"]) >= date.today() - timedelta(days=4)
    missing = api_client.get(COTIZACIONES, query_string={"moneda": "EUR", "fecha": "2015-03-02"}, headers=soporte)
    assert missing.status_code == 404 and missing.json["error"]["code"] == "sin_cotizacion"
    wrong = api_client.get(COTIZACIONES, query_string={"moneda": "JPY"}, headers=soporte)
    assert wrong.status_code == 422 and wrong.json["error"]["fields"][0]["field"] == "moneda"
    assert api_client.get(COTIZACIONES, query_string={"moneda": "USD"}).status_code == 401
