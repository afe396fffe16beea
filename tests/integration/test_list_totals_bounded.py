"""The receipt list's totals are bounded (issue 31, target 6): at most CFE_LIST_TOTALS_LIMIT receipts are added
up; a filter that matches more says "more than" that many (`totalAcotado`) and gives no sums, rather than add
up a million receipts on every keystroke. Within the limit the count and sums stay exact."""

from __future__ import annotations

import uuid
from decimal import Decimal

import pytest
from bs4 import BeautifulSoup

from portal.client import CfeClient
from tests.support import cfe_bodies as bodies
from tests.support import receipt_copies
from tests.support.cfe_bodies import issue

BUSCAR = "/api/v1/comprobante/buscar"


@pytest.fixture
def filled(api_client, auth_headers, service_app):
    user = auth_headers("usuario@demo.uy")
    issue(api_client, user, bodies.body(bodies.EFACTURA))
    rows = receipt_copies.fill(service_app, 30)
    return user, rows


def _pesos(rows) -> Decimal:
    return sum((Decimal(str(r["mnt_total"])) for r in rows), Decimal(0)).quantize(Decimal("0.01"))


def test_a_set_larger_than_the_limit_says_more_than_and_gives_no_sums(api_client, service_app, filled):
    user, rows = filled
    service_app.config["LIST_TOTALS_LIMIT"] = 10
    answer = api_client.get(BUSCAR, headers=user).json
    assert answer["total"] == 10 and answer["totalAcotado"] is True and answer["totales"] == []
    assert len(answer["items"]) == len(rows) and answer["siguienteCursor"] is None  # the page is not bounded


def test_a_set_within_the_limit_keeps_its_exact_count_and_sums(api_client, service_app, filled):
    user, rows = filled
    service_app.config["LIST_TOTALS_LIMIT"] = len(rows)  # exactly as many as match: still exact
    answer = api_client.get(BUSCAR, headers=user).json
    assert answer["totalAcotado"] is False and answer["total"] == len(rows)
    (pesos,) = answer["totales"]
    assert pesos["cantidad"] == len(rows) and Decimal(pesos["mntTotal"]) == _pesos(rows)
    service_app.config["LIST_TOTALS_LIMIT"] = len(rows) - 1  # one more than the limit: bounded
    assert api_client.get(BUSCAR, headers=user).json["totalAcotado"] is True


def test_a_narrower_filter_under_the_limit_gets_its_exact_totals_back(api_client, service_app, filled):
    user, rows = filled
    service_app.config["LIST_TOTALS_LIMIT"] = 10
    tickets = [r for r in rows if r["tipo_cfe"] == 101]
    narrow = next(
        n
        for n in ("Ñandú", "Óptica", "Ferretería", "Librería")
        if 0 < sum(n in r["receptor_nombre"] for r in rows) <= 10
    )
    wanted = [r for r in rows if narrow in r["receptor_nombre"]]
    answer = api_client.get(BUSCAR, query_string={"receptor": narrow}, headers=user).json
    assert answer["totalAcotado"] is False and answer["total"] == len(wanted)
    assert Decimal(answer["totales"][0]["mntTotal"]) == _pesos(wanted)
    assert len(tickets) > 10
    assert api_client.get(BUSCAR, query_string={"tipoCFE": 101}, headers=user).json["totalAcotado"] is True


def test_the_portal_says_more_than_and_how_to_get_the_totals(signed_in, live_service, live_token_for):
    api = CfeClient(live_service.url).as_user(live_token_for("usuario@demo.uy"))
    for _ in range(3):
        api.issue_receipt(bodies.request(bodies.ETICKET), idempotency_key=uuid.uuid4().hex)
    usuario = signed_in("usuario@demo.uy")
    live_service.app.config["LIST_TOTALS_LIMIT"] = 2
    page = BeautifulSoup(usuario.get("/comprobantes/").data, "html.parser")
    assert page.select_one("[data-testid=result-count] strong").get_text(strip=True) == "Más de 2 comprobantes"
    assert page.select_one("[data-testid=totals-bounded]") and not page.select("[data-testid=currency-total]")
    assert len(page.select(".receipt-list tbody tr")) == 3  # the rows are all there
    live_service.app.config["LIST_TOTALS_LIMIT"] = 3
    page = BeautifulSoup(usuario.get("/comprobantes/").data, "html.parser")
    assert page.select_one("[data-testid=result-count] strong").get_text(strip=True) == "3 comprobantes"
    assert page.select("[data-testid=currency-total]") and not page.select_one("[data-testid=totals-bounded]")
