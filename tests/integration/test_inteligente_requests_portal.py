"""The requests page support staff use: the company's recent requests with their state, searched by request
id or by receipt number (typed any way), filtered live with htmx, paged, each row leading to its status."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from sqlalchemy import update

from portal.client import CfeClient
from portal.client.inteligente import SmartIssueRequest, SmartLine
from portal.service.inteligente import recovery
from portal.service.inteligente.models import SmartRequest
from portal.service.platform import db
from tests.support.html import soup as _soup
from tests.support.html import text

PAGE = "/inteligente/solicitudes"
HTMX = {"HX-Request": "true"}
ONE_LINE = SmartIssueRequest(lines=(SmartLine("Café", Decimal("2"), Decimal("122")),))


def _rows(response) -> list[str]:
    return [row["data-request-id"] for row in _soup(response).select("[data-testid=requests] tbody tr")]


@pytest.fixture
def service_api(live_service, live_token_for):
    """The service as usuario@demo.uy, issuing the way an ERP would."""
    return CfeClient(live_service.url).as_user(live_token_for("usuario@demo.uy"), company_id=1)


@pytest.fixture
def issued(service_api):
    return service_api.smart_issue(ONE_LINE, idempotency_key=uuid.uuid4().hex)


@pytest.fixture
def soporte(signed_in):
    return signed_in("soporte@demo.uy")


def test_the_page_lists_recent_requests_with_state_receipt_and_a_link_to_each(soporte, service_api, issued):
    previewed = service_api.smart_preview(ONE_LINE)
    answer = soporte.get(PAGE)
    assert answer.status_code == 200 and "<html" in answer.get_data(as_text=True)
    assert _rows(answer) == [previewed.id, issued.id]
    row = _soup(answer).find("tr", attrs={"data-request-id": issued.id})
    assert row.find(attrs={"data-testid": "request-state"})["data-state"] == "issued"
    receipt = text(row.find(attrs={"data-testid": "request-receipt"}))
    assert receipt == f"e-Ticket {issued.receipt.number}"
    assert "$\u00a0244,00" in row.get_text()
    assert row.find("a")["href"] == f"{PAGE}?request_id={issued.id}"
    assert (
        _soup(answer)
        .find("tr", attrs={"data-request-id": previewed.id})
        .find(attrs={"data-testid": "request-state"})
        .get_text(strip=True)
        == "Previsualizada"
    )


def test_live_filtering_answers_only_the_list_fragment(soporte, service_api, issued):
    service_api.smart_preview(ONE_LINE)
    answer = soporte.get(PAGE, query_string={"estado": "issued"}, headers=HTMX)
    html = answer.get_data(as_text=True)
    assert answer.status_code == 200 and html.lstrip().startswith('<div id="solicitudes"') and "<html" not in html
    assert "HX-Request" in answer.headers["Vary"]
    assert _rows(answer) == [issued.id]
    form = _soup(soporte.get(PAGE)).find("form", class_="request-filters")
    assert form["hx-get"] == PAGE and form["hx-target"] == "#solicitudes" and form["hx-replace-url"] == "true"


@pytest.mark.parametrize("typed", ["{serie}-{nro}", "{serie} {nro:07d}", "{serie}{nro}", "{nro}", "  {serie}   {nro} "])
def test_a_receipt_number_typed_any_way_finds_its_request(soporte, service_api, issued, typed):
    service_api.smart_issue(ONE_LINE, idempotency_key=uuid.uuid4().hex)  # another number
    query = typed.format(serie=issued.receipt.serie, nro=issued.receipt.nro)
    assert _rows(soporte.get(PAGE, query_string={"q": query})) == [issued.id]
    assert _rows(soporte.get(PAGE, query_string={"q": query}, headers=HTMX)) == [issued.id]


def test_a_request_id_in_the_box_goes_straight_to_that_request(soporte, issued):
    page = _soup(soporte.get(PAGE, query_string={"q": issued.id}))
    section = page.find(id="solicitud")
    assert section and issued.id in section.find("h2").get_text() and page.find(id="q")["value"] == issued.id
    assert page.select("[data-testid=requests]") == []
    fragment = soporte.get(PAGE, query_string={"q": issued.id}, headers=HTMX).get_data(as_text=True)
    assert fragment.lstrip().startswith('<div id="solicitudes"') and 'id="solicitud"' in fragment
    linked = _soup(soporte.get(PAGE, query_string={"request_id": issued.id}))  # the rows' and result's links
    assert linked.find(attrs={"data-testid": "request-state"})["data-state"] == "issued"


def test_what_the_list_cannot_read_is_422_with_the_input_kept(soporte):
    answer = soporte.get(PAGE, query_string={"q": "Factura quince"})
    page = _soup(answer)
    assert answer.status_code == 422 and page.find(id="q")["value"] == "Factura quince"
    said = "Escribí la serie y el número, como A-15 o A 0000015, o solo el número."
    assert page.find(id="q-error").get_text(strip=True) == said
    assert page.find(id="q")["aria-invalid"] == "true"
    swapped = soporte.get(PAGE, query_string={"desde": "2026-11-20", "hasta": "2026-11-19"}, headers=HTMX)
    assert swapped.status_code == 422
    assert "«Hasta» es anterior a «Desde»" in _soup(swapped).find(id="hasta-error").get_text()
    stale = soporte.get(PAGE, query_string={"cursor": "not-a-cursor"})
    problem = _soup(stale).select_one(".filter-errors .field-error")
    assert stale.status_code == 422 and "No pudimos abrir esa página de la lista." in problem.get_text()
    assert problem.find("a")["href"] == PAGE  # the way forward: the newest requests


def test_pages_of_twenty_keep_the_filters_and_go_back_to_the_newest(soporte, service_api):
    made = [service_api.smart_preview(ONE_LINE).id for _ in range(21)]
    first = soporte.get(PAGE, query_string={"estado": "preview"})
    assert _rows(first) == made[::-1][:20]
    following = _soup(first).find("a", rel="next")["href"]
    assert following.startswith(f"{PAGE}?estado=preview&cursor=")
    second = soporte.get(following, headers=HTMX)
    assert _rows(second) == [made[0]]
    newest = _soup(second).find("nav", class_="pager").find("a")
    assert newest["href"] == f"{PAGE}?estado=preview" and newest["hx-push-url"] == "true"
    assert _soup(second).find("a", rel="next") is None


def test_an_empty_search_says_so_and_offers_a_way_forward(soporte):
    answer = soporte.get(PAGE, query_string={"q": "Z-9999999"})
    assert answer.status_code == 200 and "Revisá el número o quitá algún filtro" in answer.get_data(as_text=True)


def test_the_page_speaks_english(soporte, issued):
    token = _soup(soporte.get(PAGE)).find("input", {"name": "csrf_token"})["value"]
    soporte.post("/idioma", data={"lang": "en", "next": "/", "csrf_token": token})
    page = _soup(soporte.get(PAGE))
    assert page.find("h1").get_text(strip=True) == "Issuance requests"
    assert page.find("label", attrs={"for": "hasta"}).get_text(strip=True) == "Until"
    assert (
        page.find("tr", attrs={"data-request-id": issued.id})
        .find(attrs={"data-testid": "request-state"})
        .get_text(strip=True)
        == "Issued"
    )
    empty = _soup(soporte.get(PAGE, query_string={"q": "Z-9999999"})).find(class_="empty-state").get_text(strip=True)
    assert empty == "No request matches that search. Check the number or remove a filter."


def test_a_failed_requests_error_and_timeline_are_english_on_the_english_page(soporte, service_api, live_service):
    """The request's error and its timeline's details were kept as Spanish sentences alone and shown so on the
    English page: "emision_interrumpida: La emisión se interrumpió...", "0 advertencias"."""
    previewed = service_api.smart_preview(ONE_LINE)
    with live_service.app.app_context():  # a process killed after the confirmation's commit, then the sweep
        session = db.session()
        session.execute(update(SmartRequest).where(SmartRequest.id == previewed.id).values(state="confirmed"))
        session.commit()
        assert recovery.settle_unfinished(datetime.now(UTC) + timedelta(hours=1))["failed"] >= 1
    token = _soup(soporte.get(PAGE)).find("input", {"name": "csrf_token"})["value"]
    soporte.post("/idioma", data={"lang": "en", "next": "/", "csrf_token": token})
    page = _soup(soporte.get(PAGE, query_string={"request_id": previewed.id}))
    cut_off = "The issue was cut off before it finished and no receipt was issued. Preview it again."
    assert page.find(attrs={"data-testid": "request-error"}).get_text(" ", strip=True) == (
        f"emision_interrumpida — {cut_off}"
    )
    details = [row("td")[-1].get_text(strip=True) for row in page.select("[data-testid=timeline] tbody tr")]
    assert details == ["0 warnings", f"emision_interrumpida: {cut_off}"]
