"""The receipt page is kept per process by everything it is made of (comprobantes/page.py): a page served again
is the same page with a fresh CSRF token that works; any change of the receipt, the user, the company, the
language or the address gives the page anew; and what the service refuses is never served from the cache."""

from __future__ import annotations

import re

import pytest

from portal.client import CfeClient
from tests.support import cfe_bodies as bodies
from tests.support.html import soup

# Both ways the page writes it: wtforms' hidden_tag() and the header's csrf_field() macro.
TOKEN = re.compile(r'name="csrf_token"(?: type="hidden")? value="([^"]+)"')


@pytest.fixture
def service_api(live_service):
    from tests.conftest import mint_token

    return CfeClient(live_service.url).as_user(mint_token(live_service.app, "usuario@demo.uy"), company_id=1)


@pytest.fixture
def receipt_id(service_api) -> str:
    return service_api.issue_receipt(bodies.request(bodies.EFACTURA), idempotency_key="page-cache").id


def without_tokens(html: str) -> str:
    """The page without its CSRF token (in the forms and in htmx's headers): it changes every second."""
    return html.replace(TOKEN.search(html).group(1), "")


def test_a_page_served_again_is_the_same_page_and_its_form_works(portal_app, signed_in, receipt_id):
    client = signed_in("usuario@demo.uy")
    first = client.get(f"/comprobantes/{receipt_id}").get_data(as_text=True)
    second = client.get(f"/comprobantes/{receipt_id}").get_data(as_text=True)
    assert len(portal_app.extensions["receipt_pages"]._pages) == 1  # the second came from the cache
    assert without_tokens(first) == without_tokens(second)
    form = soup(client.get(f"/comprobantes/{receipt_id}")).select_one("form.reference-form")
    data = {i["name"]: i.get("value", "") for i in form.select("input[name]")}
    answer = client.post(f"/comprobantes/{receipt_id}/referencia", data={**data, "referencia": "REC-7"})
    assert answer.status_code in (200, 303), answer.status_code
    # The reference changed the service's answer: the page shows it, not the page kept before.
    page = soup(client.get(f"/comprobantes/{receipt_id}"))
    assert page.select_one("[data-testid=current-reference]").get_text(strip=True) == "REC-7"


def test_each_user_role_and_language_gets_its_own_page(signed_in, receipt_id):
    writer = signed_in("usuario@demo.uy")
    assert soup(writer.get(f"/comprobantes/{receipt_id}")).select_one("form.reference-form") is not None
    # soporte reads the same receipt (same answer from the service) but may not write: no form for them.
    reader = signed_in("soporte@demo.uy")
    assert soup(reader.get(f"/comprobantes/{receipt_id}")).select_one("form.reference-form") is None
    assert soup(writer.get(f"/comprobantes/{receipt_id}")).select_one("form.reference-form") is not None
    writer.get("/idioma/en", headers={"Referer": f"/comprobantes/{receipt_id}"})
    english = writer.get(f"/comprobantes/{receipt_id}").get_data(as_text=True)
    assert "Collection reference" in english and "Referencia de cobro" not in english


def test_another_company_never_gets_the_page(signed_in, receipt_id):
    # admin@demo.uy sees it acting for Demo S.A. (the page is kept), then switches to company 2: the service
    # refuses the receipt before any kept page is looked up.
    admin = signed_in("admin@demo.uy")
    assert admin.get(f"/comprobantes/{receipt_id}").status_code == 200
    admin.post("/empresa", data={"company_id": "2", "csrf_token": _token(admin)})
    assert admin.get(f"/comprobantes/{receipt_id}").status_code == 404


def _token(client) -> str:
    from tests.support.html import csrf

    return csrf(client, "/comprobantes/")
