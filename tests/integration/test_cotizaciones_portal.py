"""The portal's "Cotizaciones": a currency's rates day by day from the service, the rate a receipt of each day takes,
a day without a rate marked with what happens then, in Spanish and in English; a GET form (no JavaScript needed),
the last 30 days by default, a period over a year refused; the link under "Más" for every role."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest
from bs4 import BeautifulSoup
from sqlalchemy import delete

from portal.domain.uruguay_time import today_montevideo
from portal.service.cotizaciones import bcu, rates
from portal.service.cotizaciones.models import ExchangeRate
from portal.service.platform import db
from tests.support.html import csrf

# Tourism week 2025: the BCU closed from Monday 14 to Friday 18 April.
TURISMO = "/cotizaciones/?moneda=EUR&desde=09/04/2025&hasta=22/04/2025"


@pytest.fixture
def tourism_week(live_service):
    with live_service.app.app_context(), db.write_transaction() as session:
        session.execute(delete(ExchangeRate).where(ExchangeRate.currency == "EUR"))
        rates.store(session, [bcu.PublishedRate(date(2025, 4, 11), "EUR", Decimal("45.2"), Decimal("46.3456"))])
        session.get(ExchangeRate, (date(2025, 4, 11), "EUR")).source = "simulador"  # the stand-in's figure
        correction = bcu.PublishedRate(date(2025, 4, 21), "EUR", Decimal("45.3"), Decimal("46.5"))
        rates.store(session, [correction], source=rates.OPERATOR)


def _soup(answer) -> BeautifulSoup:
    return BeautifulSoup(answer.get_data(as_text=True), "html.parser")


def _row(soup: BeautifulSoup, day: date) -> str:
    return " ".join(soup.find("tr", attrs={"data-day": day.isoformat()}).get_text(" ").split())


def test_a_period_in_spanish_with_the_days_without_a_rate_marked(signed_in, tourism_week):
    answer = signed_in("soporte@demo.uy").get(TURISMO)
    assert answer.status_code == 200
    soup = _soup(answer)
    rows = soup.select("[data-testid=rates-table] tbody tr")
    assert [row["data-day"] for row in rows] == [(date(2025, 4, 22) - timedelta(days=n)).isoformat() for n in range(14)]
    assert _row(soup, date(2025, 4, 11)) == "vie 11/04/2025 45,200 46,3456 Simulador del BCU (no oficial) 46,346"
    assert "Corrección del operador" in _row(soup, date(2025, 4, 21))
    holiday = soup.find("tr", attrs={"data-day": "2025-04-16"})
    assert holiday["data-testid"] == "rate-missing"
    text = _row(soup, date(2025, 4, 16))
    assert "Sin cotización" in text and "feriado" in text
    assert "46,346 la venta del 11/04/2025" in text
    assert "fin de semana" in _row(soup, date(2025, 4, 19))
    assert "Ninguno ninguna cotización en los 10 días anteriores" in _row(soup, date(2025, 4, 10))
    assert len(soup.select("[data-testid=rate-missing]")) == 12  # only the 11th and the 21st have a rate
    assert "12 días del período no tienen cotización publicada." in soup.get_text()
    assert "fines de semana y feriados" in soup.find(attrs={"data-testid": "rates-rule"}).get_text()


def test_the_same_period_in_english(signed_in, tourism_week):
    client = signed_in("usuario@demo.uy")
    client.post("/idioma", data={"lang": "en", "next": "/", "csrf_token": csrf(client)})
    soup = _soup(client.get(TURISMO))
    assert soup.find("h1").get_text(strip=True) == "Exchange rates"
    headers = [th.get_text(" ", strip=True) for th in soup.select("[data-testid=rates-table] thead th")]
    assert headers == ["Day", "Buying", "Selling", "Source", "A receipt's exchange rate that day"]
    assert _row(soup, date(2025, 4, 11)) == "Fri 11/04/2025 45.200 46.3456 BCU stand-in (not official) 46.346"
    assert "invented and not official" in soup.find(attrs={"data-testid": "rates-standin"}).get_text()
    assert "(the BCU or, for testing, its stand-in)" in soup.select_one("p.lead").get_text()
    assert "Operator's correction" in _row(soup, date(2025, 4, 21))
    text = _row(soup, date(2025, 4, 16))
    assert "No rate" in text and "holiday" in text and "46.346 selling rate of 11/04/2025" in text
    assert "None no rate in the 10 days before" in _row(soup, date(2025, 4, 10))
    assert "12 days of the period have no published rate." in soup.get_text()


def test_each_days_rate_says_whose_it_is_whatever_the_service_loads_now(signed_in, live_service):
    """A rate the BCU published stays the BCU's in an installation that loads the stand-in's now, and the stand-in's
    figures never read as the BCU's; the page says the service does not ask the BCU."""
    with live_service.app.app_context(), db.write_transaction() as session:
        session.execute(delete(ExchangeRate).where(ExchangeRate.currency == "BRL"))
        rates.store(session, [bcu.PublishedRate(date(2025, 4, 10), "BRL", Decimal("6.9"), Decimal("7.1"))])
        session.add(
            ExchangeRate(
                day=date(2025, 4, 11), currency="BRL", buy=Decimal("7"), sell=Decimal("7.2"), source="simulador"
            )
        )
    soup = _soup(signed_in("usuario@demo.uy").get("/cotizaciones/?moneda=BRL&desde=10/04/2025&hasta=11/04/2025"))
    assert "BCU" in _row(soup, date(2025, 4, 10)) and "Simulador" not in _row(soup, date(2025, 4, 10))
    assert "Simulador del BCU (no oficial)" in _row(soup, date(2025, 4, 11))
    notice = soup.find(attrs={"data-testid": "rates-standin"}).get_text()
    assert "no consulta al BCU" in notice and "no oficiales" in notice
    lead = soup.select_one("p.lead").get_text()  # true above the stand-in's rates too: never "del BCU" alone
    assert "del BCU" not in lead and "el BCU o, para probar, su simulador" in lead


def test_the_last_30_days_of_the_dollar_by_default_through_a_get_form(signed_in):
    soup = _soup(signed_in("usuario@demo.uy").get("/cotizaciones/"))
    form = soup.find("form", attrs={"data-testid": "rates-form"})
    assert form["method"] == "get" and form["action"] == "/cotizaciones/"  # works without JavaScript
    today = today_montevideo()
    assert soup.find("select", id="moneda").find("option", selected=True)["value"] == "USD"
    assert soup.find("input", id="hasta")["value"] == today.strftime("%d/%m/%Y")
    assert soup.find("input", id="desde")["value"] == (today - timedelta(days=29)).strftime("%d/%m/%Y")
    rows = soup.select("[data-testid=rates-table] tbody tr")
    assert len(rows) == 30 and rows[0]["data-day"] == today.isoformat()


def test_a_period_longer_than_a_year_is_refused_next_to_the_field(signed_in):
    answer = signed_in("usuario@demo.uy").get("/cotizaciones/?moneda=USD&desde=01/01/2025&hasta=02/01/2026")
    assert answer.status_code == 422
    soup = _soup(answer)
    assert "Se ven a lo sumo 366 días por vez." in soup.get_text()
    assert soup.find(attrs={"data-testid": "rates-table"}) is None
    assert signed_in("usuario@demo.uy").get("/cotizaciones/?desde=02/01/2025&hasta=01/01/2025").status_code == 422


@pytest.mark.parametrize("email", ["admin@demo.uy", "usuario@demo.uy", "soporte@demo.uy"])
def test_every_role_finds_the_page_under_mas(signed_in, email):
    soup = _soup(signed_in(email).get("/"))
    links = soup.select("ul.areas .nav-more details a")
    assert "/cotizaciones/" in [a["href"] for a in links if a.get_text(strip=True) == "Cotizaciones"]
