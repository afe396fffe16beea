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
            session.execute(delete(UiValue).where(UiValue.year == 2026))
            corrected = bcu.PublishedRate(date(2025, 12, 30), "USD", Decimal("39.000"), Decimal("39.500"))
            rates.store(session, [corrected], source=rates.OPERATOR)
        with db.write_transaction() as session:
            changed = rates.refresh(session, date(2025, 12, 29), date(2026, 1, 2))
        session = db.session()
        assert changed > 0
        kept = session.get(ExchangeRate, (date(2025, 12, 30), "USD"))
        assert (kept.sell, kept.source) == (Decimal("39.500000"), "operador")
        # The address configured as the BCU's is the stand-in's, which names itself in its answer: not the BCU's.
        assert session.get(ExchangeRate, (date(2025, 12, 29), "USD")).source == "simulador"
        ui_2026 = session.get(UiValue, 2026)
        ui_dec_31 = session.get(ExchangeRate, (date(2025, 12, 31), "UI"))
        assert ui_2026.value == ui_dec_31.sell.quantize(Decimal("0.0001"))
        assert ui_2026.source == "Simulador del BCU (no oficial), UI al 31/12/2025" and not ui_2026.verified
        # Saturday 3 January and Sunday the 4th take Friday the 2nd's dollar; nothing 10 days back is too old.
        assert rates.rate_on(session, "USD", date(2026, 1, 4)).day == date(2026, 1, 2)
        assert rates.rate_on(session, "USD", date(2026, 1, 13)) is None


def test_the_stand_ins_figures_are_stored_as_the_stand_ins(service_app):
    """CFE_RATES_SOURCE unset (the default, the demo, a misconfigured installation): the rates loaded are the
    stand-in's invented ones, and say so."""
    with service_app.app_context():
        assert service_app.config["RATES_SOURCE"] == "standin"
        with db.write_transaction() as session:
            session.execute(delete(ExchangeRate))
            assert rates.refresh(session, date(2025, 12, 29), date(2025, 12, 31)) > 0
        stored = {row.source for row in db.session().query(ExchangeRate)}
    assert stored == {"simulador"}


def test_no_fetched_figure_overwrites_a_more_trusted_one(service_app):
    """An operator's correction stays under the BCU's and the stand-in's figures; a BCU rate stays under the
    stand-in's; the BCU's replace the stand-in's (an installation that starts asking the BCU)."""
    monday, tuesday, wednesday = date(2025, 12, 1), date(2025, 12, 2), date(2025, 12, 3)

    def official(day: date, sell: str) -> bcu.PublishedRate:
        return bcu.PublishedRate(day, "USD", Decimal(sell) - 1, Decimal(sell))

    with service_app.app_context():
        with db.write_transaction() as session:
            session.execute(delete(ExchangeRate))
            rates.store(session, [official(monday, "39.5")], source=rates.OPERATOR)
            rates.store(session, [official(tuesday, "39.7")])  # the BCU's
            rates.store(session, bcu.standin_rates(("USD",), wednesday, wednesday))
        with db.write_transaction() as session:
            assert rates.store(session, bcu.standin_rates(("USD",), monday, wednesday)) == 0
            assert rates.store(session, [official(monday, "41"), official(wednesday, "41.2")]) == 1
        found = {row.day: (row.sell, row.source) for row in db.session().query(ExchangeRate)}
    assert found == {
        monday: (Decimal("39.5"), "operador"),
        tuesday: (Decimal("39.7"), "bcu"),
        wednesday: (Decimal("41.2"), "bcu"),
    }


def test_the_api_says_which_rate_is_the_stand_ins_as_its_schema_documents(service_app, api_client, auth_headers):
    day = date(2025, 12, 3)
    with service_app.app_context(), db.write_transaction() as session:
        session.execute(delete(ExchangeRate).where(ExchangeRate.currency == "BRL"))
        rates.store(session, bcu.standin_rates(("BRL",), day, day))
        rates.store(session, [bcu.PublishedRate(day + timedelta(days=1), "BRL", Decimal("7"), Decimal("7.1"))])
        rates.store(
            session, [bcu.PublishedRate(day + timedelta(days=2), "BRL", Decimal("7"), Decimal("7.2"))], "operador"
        )
    user = auth_headers()
    said = {
        api_client.get(COTIZACIONES, query_string={"moneda": "BRL", "fecha": f"{when}"}, headers=user).json["fuente"]
        for when in (day, day + timedelta(days=1), day + timedelta(days=2))
    }
    query = {"moneda": "BRL", "desde": f"{day}", "hasta": f"{day + timedelta(days=2)}"}
    days = api_client.get(DIAS, query_string=query, headers=user).json["items"]
    assert said == {item["fuente"] for item in days} == {"simulador", "bcu", "operador"}
    schemas = api_client.get("/api/v1/openapi.json").json["components"]["schemas"]
    assert set(schemas["Cotizacion"]["properties"]["fuente"]["enum"]) == said
    documented = schemas["DiaCotizacion"]["properties"]["fuente"]
    assert {value for option in documented["anyOf"] for value in option.get("enum", [])} == said
    assert "simulador" in schemas["Cotizacion"]["properties"]["fuente"]["description"]


def test_the_api_gives_the_days_rate_in_any_role(api_client, auth_headers):
    soporte = auth_headers("soporte@demo.uy")
    answer = api_client.get(COTIZACIONES, query_string={"moneda": "USD"}, headers=soporte)
    assert answer.status_code == 200, answer.json  # the demo data holds the stand-in's last weeks
    body = answer.json
    assert body["moneda"] == "USD" and body["fuente"] == "simulador"  # the demo's are the stand-in's
    assert Decimal(body["compra"]) <= Decimal(body["venta"])
    assert date.fromisoformat(body["fecha"]) >= date.today() - timedelta(days=4)
    missing = api_client.get(COTIZACIONES, query_string={"moneda": "EUR", "fecha": "2015-03-02"}, headers=soporte)
    assert missing.status_code == 404 and missing.json["error"]["code"] == "sin_cotizacion"
    wrong = api_client.get(COTIZACIONES, query_string={"moneda": "JPY"}, headers=soporte)
    assert wrong.status_code == 422 and wrong.json["error"]["fields"][0]["field"] == "moneda"
    assert api_client.get(COTIZACIONES, query_string={"moneda": "USD"}).status_code == 401


DIAS = COTIZACIONES + "/dias"
# Tourism week 2025: the BCU closed from Monday 14 to Friday 18 April; Friday the 11th's rate covers it.
TURISMO = [
    bcu.PublishedRate(date(2025, 4, 10), "EUR", Decimal("45.100000"), Decimal("46.250000")),
    bcu.PublishedRate(date(2025, 4, 11), "EUR", Decimal("45.200000"), Decimal("46.3456")),
    bcu.PublishedRate(date(2025, 4, 21), "EUR", Decimal("45.300000"), Decimal("46.500000")),
]


def _store_turismo(service_app) -> None:
    with service_app.app_context(), db.write_transaction() as session:
        session.execute(delete(ExchangeRate).where(ExchangeRate.currency == "EUR"))
        rates.store(session, TURISMO[:2])
        rates.store(session, TURISMO[2:], source=rates.OPERATOR)


def test_the_days_of_a_period_hold_what_the_rates_table_holds_and_what_a_missing_day_takes(
    service_app, api_client, auth_headers
):
    _store_turismo(service_app)
    query = {"moneda": "EUR", "desde": "2025-04-09", "hasta": "2025-04-22"}
    answer = api_client.get(DIAS, query_string=query, headers=auth_headers("soporte@demo.uy"))
    assert answer.status_code == 200, answer.json
    body = answer.json
    assert (body["moneda"], body["desde"], body["hasta"], body["diasAtras"]) == ("EUR", "2025-04-09", "2025-04-22", 10)
    assert body["publicadas"] == "simulador"  # the tests' service reads the stand-in
    days = {item["fecha"]: item for item in body["items"]}
    assert [item["fecha"] for item in body["items"]][:2] == ["2025-04-22", "2025-04-21"]  # newest first
    assert len(days) == 14
    with service_app.app_context():
        table = {row.day: row for row in db.session().query(ExchangeRate).filter_by(currency="EUR")}
    for day, row in table.items():
        item = days[day.isoformat()]
        assert (Decimal(item["compra"]), Decimal(item["venta"]), item["fuente"]) == (row.buy, row.sell, row.source)
        assert item["fechaTipoCambio"] == day.isoformat()
    assert days["2025-04-21"]["fuente"] == "operador"
    assert days["2025-04-11"]["tipoCambio"] == "46.346"  # TpoCambio: the selling rate with 3 decimals
    holiday = days["2025-04-16"]
    assert (holiday["compra"], holiday["venta"], holiday["fuente"]) == (None, None, None)
    assert (holiday["tipoCambio"], holiday["fechaTipoCambio"]) == ("46.346", "2025-04-11")
    assert days["2025-04-22"]["fechaTipoCambio"] == "2025-04-21"  # a day after the last published takes it
    # The 9th has nothing published in the ten days before it: no rate at all.
    assert (days["2025-04-09"]["tipoCambio"], days["2025-04-09"]["fechaTipoCambio"]) == (None, None)


def test_nothing_published_more_than_ten_days_before_leaves_a_day_without_a_rate(service_app, api_client, auth_headers):
    _store_turismo(service_app)
    query = {"moneda": "EUR", "desde": "2025-04-11", "hasta": "2025-04-20"}
    body = api_client.get(DIAS, query_string=query, headers=auth_headers()).json
    days = {item["fecha"]: item["fechaTipoCambio"] for item in body["items"]}
    assert days["2025-04-20"] == "2025-04-11"  # nine days on: still the 11th's
    with service_app.app_context(), db.write_transaction() as session:
        session.execute(delete(ExchangeRate).where(ExchangeRate.day == date(2025, 4, 11)))
    body = api_client.get(DIAS, query_string=query, headers=auth_headers()).json
    days = {item["fecha"]: item["fechaTipoCambio"] for item in body["items"]}
    assert days["2025-04-20"] == "2025-04-10" and days["2025-04-19"] == "2025-04-10"
    query = {"moneda": "EUR", "desde": "2025-04-20", "hasta": "2025-04-20"}
    with service_app.app_context(), db.write_transaction() as session:
        session.execute(delete(ExchangeRate).where(ExchangeRate.day == date(2025, 4, 10)))
    [day] = api_client.get(DIAS, query_string=query, headers=auth_headers()).json["items"]
    assert (day["tipoCambio"], day["fechaTipoCambio"]) == (None, None)


def test_a_period_is_at_most_a_year_and_not_reversed(api_client, auth_headers):
    user = auth_headers()
    year = api_client.get(
        DIAS, query_string={"moneda": "USD", "desde": "2025-01-01", "hasta": "2026-01-01"}, headers=user
    )
    assert year.status_code == 200 and len(year.json["items"]) == 366
    longer = api_client.get(
        DIAS, query_string={"moneda": "USD", "desde": "2025-01-01", "hasta": "2026-01-02"}, headers=user
    )
    assert longer.status_code == 422
    assert longer.json["error"]["fields"][0] | {"message": ""} == {
        "field": "hasta",
        "code": "periodo_demasiado_largo",
        "message": "",
    }
    assert "366" in longer.json["error"]["fields"][0]["message"]
    reversed_ = api_client.get(
        DIAS, query_string={"moneda": "USD", "desde": "2025-02-01", "hasta": "2025-01-01"}, headers=user
    )
    assert reversed_.status_code == 422 and reversed_.json["error"]["fields"][0]["code"] == "rango_invalido"
    unknown = api_client.get(
        DIAS, query_string={"moneda": "JPY", "desde": "2025-01-01", "hasta": "2025-01-02"}, headers=user
    )
    assert unknown.status_code == 422 and unknown.json["error"]["fields"][0]["field"] == "moneda"


def test_the_days_are_for_signed_in_members_of_any_role(api_client, auth_headers):
    query = {"moneda": "USD", "desde": "2025-01-01", "hasta": "2025-01-31"}
    assert api_client.get(DIAS, query_string=query).status_code == 401
    assert api_client.get(DIAS, query_string=query).json["error"]["code"]
    for email in ("admin@demo.uy", "usuario@demo.uy", "soporte@demo.uy"):
        assert api_client.get(DIAS, query_string=query, headers=auth_headers(email, 1)).status_code == 200
    # A company the user is no member of is refused before anything is read.
    refused = api_client.get(DIAS, query_string=query, headers=auth_headers("usuario@demo.uy", 2))
    assert refused.status_code == 403 and refused.json["error"]["code"] == "empresa_ajena"


def test_openapi_documents_the_days_and_their_bound(api_client):
    spec = api_client.get("/api/v1/openapi.json").json
    entry = spec["paths"][DIAS]["get"]
    assert {p["name"] for p in entry["parameters"] if p["in"] == "query"} == {"moneda", "desde", "hasta"}
    assert "periodo_demasiado_largo" in entry["responses"]["422"]["description"]
    item = spec["components"]["schemas"]["DiaCotizacion"]
    assert {"fecha", "compra", "venta", "fuente", "tipoCambio", "fechaTipoCambio"} <= set(item["required"])


def test_a_period_sent_to_the_one_day_rate_is_an_unknown_parameter_not_a_bad_date(api_client, auth_headers):
    # desde/hasta belong to /cotizaciones/dias; sent here, well written, they are not "a date that is not valid".
    query = {"moneda": "USD", "desde": "2025-01-01", "hasta": "2025-01-31"}
    answer = api_client.get(COTIZACIONES, query_string=query, headers=auth_headers())
    assert answer.status_code == 422
    assert [(f["field"], f["code"]) for f in answer.json["error"]["fields"]] == [
        ("desde", "extra_forbidden"),
        ("hasta", "extra_forbidden"),
    ]


@pytest.mark.parametrize(
    ("desde", "hasta"), [("0001-01-01", "0001-01-01"), ("0001-01-01", "0001-12-31"), ("9999-01-01", "9999-12-31")]
)
def test_a_period_at_the_calendars_ends_is_days_without_rates_not_an_error(api_client, auth_headers, desde, hasta):
    """The days a period's first day may take its rate from start ten days before it, and the days are counted to
    its last: year 1 has no ten days before it, and 9999-12-31 no day after it (both were a 500)."""
    answer = api_client.get(
        DIAS, query_string={"moneda": "ARS", "desde": desde, "hasta": hasta}, headers=auth_headers()
    )
    assert answer.status_code == 200, answer.json
    items = answer.json["items"]
    assert (items[-1]["fecha"], items[0]["fecha"]) == (desde, hasta)
    assert all(item["venta"] is None for item in items)
