"""The home page: the day at a glance from the service (today's receipts and totals, DGI states with the
rejected ones linked, CAE numbers and certificates with their warnings), the main actions of each role, a
refresh that swaps only the summary, and a page that still opens when the service is down."""

from __future__ import annotations

import uuid
from datetime import datetime, time, timedelta

import pytest
from bs4 import BeautifulSoup
from flask import url_for
from sqlalchemy import update

from portal.client import CfeClient
from portal.client.cfe import CfeRequest
from portal.domain.uruguay_time import MONTEVIDEO, today_montevideo
from portal.service.comprobante.models import CaeRangeRecord, IssuedCfe
from portal.service.empresa.models import CompanySettings
from portal.service.platform import db
from portal.service.platform.models import Certificate
from tests.support import cfe_bodies as bodies
from tests.support.html import soup as _soup
from tests.support.html import text
from tests.support.new_company import as_a_new_company


def _card(soup: BeautifulSoup, name: str) -> str:
    return " ".join(soup.find(attrs={"data-testid": f"card-{name}"}).get_text(" ").split())


def _issue(live_service, live_token_for, body: dict):
    api = CfeClient(live_service.url).as_user(live_token_for("usuario@demo.uy"), company_id=1)
    return api.issue_receipt(CfeRequest.from_json(body), idempotency_key=uuid.uuid4().hex)


def _set(live_service, model, where, **values):
    with live_service.app.app_context():
        db.session().execute(update(model).where(*where).values(**values))
        db.session().commit()


def test_todays_receipts_and_totals_in_pesos_and_dollars(signed_in, live_service, live_token_for):
    ticket = _issue(live_service, live_token_for, bodies.body(bodies.ETICKET))
    _issue(live_service, live_token_for, {**bodies.body(bodies.EFACTURA), "tpoMoneda": "USD", "tpoCambio": "40"})
    soup = _soup(signed_in("usuario@demo.uy").get("/"))
    today = _card(soup, "today")
    assert today_montevideo().strftime("%d/%m/%Y") in today and "2 comprobantes" in today
    rows = [
        [td.get_text(strip=True) for td in tr.find_all("td")]
        for tr in soup.find(attrs={"data-testid": "card-today"}).select("tbody tr")
    ]
    assert rows[0] == ["e-Ticket", "1", "$\u00a0376,00"] and ticket.totals.to_pay == 376
    assert rows[1][0] == "e-Factura" and rows[1][2].startswith("U$S\u00a0")
    net = soup.find(attrs={"data-testid": "today-net"}).get_text(" ", strip=True)
    assert "$\u00a0376,00" in net and "U$S" in net


def test_rejected_receipts_are_counted_and_linked_to_their_page(signed_in, live_service, live_token_for):
    rejected = _issue(live_service, live_token_for, bodies.body(bodies.ETICKET))
    _issue(live_service, live_token_for, bodies.body(bodies.ETICKET))  # still pendiente: waiting
    _set(live_service, IssuedCfe, [IssuedCfe.id == rejected.id], dgi_status="rechazado")
    soup = _soup(signed_in("usuario@demo.uy").get("/"))
    assert soup.find(attrs={"data-testid": "dgi-waiting"}).get_text(strip=True) == "1"
    assert soup.find(attrs={"data-testid": "dgi-rejected"}).get_text(strip=True) == "1"
    link = soup.find(attrs={"data-testid": "dgi-latest-rejected"}).find("a")
    assert link["href"] == f"/comprobantes/{rejected.id}" and text(link) == f"e-Ticket {rejected.number}"
    # A small e-Ticket waits for the daily report: counted as without DGI's final answer, not as "waiting for an
    # answer", which the Envíos page keeps for receipts sent one by one (and says so).
    assert "Rechazado por DGI" in _card(soup, "dgi") and "Va en el reporte diario de DGI" in _card(soup, "dgi")
    assert "Sin respuesta final de DGI" in _card(soup, "dgi") and "Esperando respuesta" not in _card(soup, "dgi")
    envios = _soup(signed_in("soporte@demo.uy").get("/envios/"))
    assert "reporte diario no están aquí" in envios.find(attrs={"data-testid": "waiting-scope"}).get_text()


def test_cae_and_certificate_warnings(signed_in, live_service):
    _set(
        live_service, CaeRangeRecord, [CaeRangeRecord.company_id == 1, CaeRangeRecord.tipo_cfe == 101], next_nro=99_001
    )
    _set(
        live_service,
        CaeRangeRecord,
        [CaeRangeRecord.company_id == 1, CaeRangeRecord.tipo_cfe == 111],
        vencimiento=today_montevideo() + timedelta(days=12),
    )
    _set(
        live_service,
        CaeRangeRecord,
        [CaeRangeRecord.company_id == 1, CaeRangeRecord.tipo_cfe == 181],
        next_nro=CaeRangeRecord.hnro + 1,
    )
    _set(
        live_service,
        Certificate,
        [Certificate.company_id == 1],
        # Noon in Montevideo twenty days from today: days are counted by Uruguay's calendar.
        not_after=datetime.combine(today_montevideo() + timedelta(days=20), time(12), tzinfo=MONTEVIDEO),
    )
    soup = _soup(signed_in("usuario@demo.uy").get("/"))
    cae = _card(soup, "cae")
    rows = {
        " ".join(tr.td.get_text(" ").split()): [" ".join(td.get_text(" ").split()) for td in tr.find_all("td")[1:]]
        for tr in soup.find(attrs={"data-testid": "card-cae"}).select("tbody tr")
    }
    in_twelve_days = (today_montevideo() + timedelta(days=12)).strftime("%d/%m/%Y")
    assert rows["e-Ticket A"][0] == "1.000 Menos del 10 %"  # split() also splits the no-break space
    assert rows["e-Factura A"] == ["100.000", f"{in_twelve_days} Vence en 12 días"]
    assert rows["Nota de crédito de e-Ticket A"][0] == "100.000"  # no warning
    assert "e-Remito A" not in rows
    assert "e-Remito: no quedan números vigentes" in cae
    certificates = _card(soup, "certificates")
    assert "en 20 días" in certificates and "Por vencer" in certificates
    assert "Cargar un CAE" not in cae  # an admin's action


@pytest.mark.parametrize(
    ("email", "actions"),
    [
        ("admin@demo.uy", ["Nuevo comprobante", "Emisión inteligente", "Consultar DGI", "Claves de API", "Empresa"]),
        ("usuario@demo.uy", ["Nuevo comprobante", "Emisión inteligente", "Consultar DGI"]),
        ("soporte@demo.uy", ["Consultar DGI"]),
    ],
)
def test_main_actions_by_role_and_labelled_cards(signed_in, email, actions):
    soup = _soup(signed_in(email).get("/"))
    assert [a.get_text(strip=True) for a in soup.select("nav.home-actions a")] == actions
    for card in soup.select(".home-cards > article"):
        heading = soup.find(id=card["aria-labelledby"])
        assert heading is not None and heading.name == "h3" and heading.get_text(strip=True)
    assert len(soup.select(".home-cards > article")) == 5  # today, DGI, received, CAE, certificates


def test_the_refresh_swaps_only_the_summary(signed_in):
    client = signed_in()
    button = _soup(client.get("/")).find("button", attrs={"hx-get": "/resumen"})
    assert button["hx-target"] == "#day-summary"
    fragment = client.get("/resumen", headers={"HX-Request": "true"})
    html = fragment.get_data(as_text=True)
    assert html.lstrip().startswith('<section id="day-summary"') and "<html" not in html
    assert "Comprobantes de hoy" in html and "HX-Request" in fragment.headers["Vary"]


def test_english(signed_in):
    client = signed_in()
    token = _soup(client.get("/")).find("input", {"name": "csrf_token"})["value"]
    client.post("/idioma", data={"lang": "en", "csrf_token": token})
    text = _soup(client.get("/")).find("main").get_text(" ", strip=True)
    for words in (
        "Your day",
        "Today's receipts",
        "Status at DGI",
        "CAE numbers",
        "Signing certificates",
        "New receipt",
        "Left",
    ):
        assert words in text


def test_service_down_the_page_still_opens_with_its_actions(signed_in, live_service):
    client = signed_in("usuario@demo.uy")
    live_service.stop()
    answer = client.get("/")
    soup = _soup(answer)
    assert answer.status_code == 503
    notice = soup.find(attrs={"data-testid": "summary-unavailable"}).get_text(" ", strip=True)
    assert "no está respondiendo" in notice and "Reintentar" in notice
    assert [a.get_text(strip=True) for a in soup.select("nav.home-actions a")][0] == "Nuevo comprobante"
    assert soup.find(attrs={"data-testid": "who-email"}).get_text(strip=True) == "usuario@demo.uy"


def _checklist(client):
    return _soup(client.get("/")).find(attrs={"data-testid": "setup-checklist"})


def _english(client):
    token = _soup(client.get("/")).find("input", {"name": "csrf_token"})["value"]
    client.post("/idioma", data={"lang": "en", "csrf_token": token})
    return client


def test_a_set_up_company_has_no_checklist(signed_in):
    assert _checklist(signed_in("admin@demo.uy")) is None


def test_an_admin_is_led_to_the_empresa_page_that_fixes_each_step(signed_in, live_service, portal_app):
    as_a_new_company(live_service.app)
    client = signed_in("admin@demo.uy")
    checklist = _checklist(client)
    assert checklist.find("h3").get_text(strip=True) == "Antes de emitir"
    with portal_app.test_request_context():
        pages = [url_for(f"empresa.{page}") for page in ("settings", "branches", "certificates", "cae")]
    links = [(a["href"], a.get_text(strip=True)) for a in checklist.find_all("a")]
    assert links == list(
        zip(
            pages,
            ["Empresa › Datos fiscales", "Empresa › Sucursales", "Empresa › Certificados", "Empresa › CAE"],
            strict=True,
        )
    )
    assert "resolución de DGI o la fecha de ingreso como emisor" in text(checklist.find("li"))
    assert "avisale" not in text(checklist)
    english = _checklist(_english(client))
    assert english.find("h3").get_text(strip=True) == "Before you issue"
    assert [a.get_text(strip=True) for a in english.find_all("a")] == [
        "Company › Tax details",
        "Company › Branches",
        "Company › Certificates",
        "Company › CAE",
    ]
    assert "DGI's resolution or the date the company became an issuer" in text(english)


def test_a_usuario_is_told_an_admin_sets_it_up(signed_in, live_service):
    with live_service.app.app_context():
        db.session().execute(
            update(CompanySettings).where(CompanySettings.company_id == 1).values(resolucion=None, fecha_emisor=None)
        )
        db.session().commit()
    client = signed_in("usuario@demo.uy")
    checklist = _checklist(client)
    assert [text(li) for li in checklist.find_all("li")] == [
        "La resolución de DGI o la fecha de ingreso como emisor: el pie del comprobante impreso la lleva."
    ]
    assert checklist.find("a") is None and "Lo configura un administrador de la empresa" in text(checklist)
    english = _checklist(_english(client))
    assert english.find("a") is None and "A company administrator sets this up in Company" in text(english)
    assert "Before you issue" in text(english)
