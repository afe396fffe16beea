"""Long downloads (a list's CSV or ZIP, an IVA book) hold one of the process's threads while their reader reads:
a process serves a few at a time, and a company only its share of them, so issuing always finds a thread. A slot is
held from the answer until the server closes it, read to the end or not."""

from __future__ import annotations

import pytest

from portal.service.platform import downloads
from tests.conftest import mint_token


@pytest.fixture
def slots(service_app):
    service_app.config.update(DOWNLOADS_PER_PROCESS=2, DOWNLOADS_PER_COMPANY=1)
    assert downloads.in_progress(service_app) == 0
    yield service_app.config
    assert downloads.in_progress(service_app) == 0  # every answer closed gave its slot back


def _download(api_client, headers, path="/api/v1/comprobante/buscar", query=None, accept="text/csv"):
    """A download whose answer the test holds open, unread, as a slow reader would."""
    return api_client.get(path, query_string=query or {}, headers={**headers, "Accept": accept}, buffered=False)


def test_a_company_has_its_share_of_downloads_and_the_process_its_own(api_client, auth_headers, slots, service_app):
    demo, norte = auth_headers("usuario@demo.uy"), auth_headers("admin@demo.uy", 2)
    first = _download(api_client, demo)
    assert first.status_code == 200 and downloads.in_progress(service_app) == 1
    refused = _download(api_client, demo, "/api/v1/recibidos", accept="application/zip")
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "5"
    assert refused.get_json()["error"]["code"] == "descargas_en_curso"
    assert "otras descargas de tu empresa en curso" in refused.get_json()["error"]["message"]
    english = _download(api_client, {**demo, "Accept-Language": "en"})
    assert "Other downloads of your company are in progress" in english.get_json()["error"]["message"]
    assert api_client.get("/api/v1/comprobante/buscar", headers=demo).status_code == 200  # a page is no download

    other = _download(api_client, norte, "/api/v1/recibidos", accept="text/csv")
    assert other.status_code == 200 and downloads.in_progress(service_app) == 2
    slots["DOWNLOADS_PER_COMPANY"] = 2
    busy = _download(api_client, demo, "/api/v1/informes/ventas", {"desde": "2026-11-01", "hasta": "2026-11-30"})
    assert busy.status_code == 503 and busy.headers["Retry-After"] == "5"
    assert busy.get_json()["error"]["code"] == "servicio_ocupado"

    other.get_data()  # read to its end: its slot is free once the last chunk is out, before the server closes it
    assert downloads.in_progress(service_app) == 1
    other.close()
    first.close()  # the reader gone before reading anything
    assert downloads.in_progress(service_app) == 0
    book = api_client.get(
        "/api/v1/informes/ventas",
        query_string={"desde": "2026-11-01", "hasta": "2026-11-30", "formato": "xlsx"},
        headers=demo,
    )
    assert book.status_code == 200 and book.data.startswith(b"PK")  # built whole, its slot given back once built
    book.close()


def test_the_portal_says_why_a_download_must_wait(signed_in, live_service):
    """The company's share taken (another tab's year of receipts still downloading): the portal's page says so in
    the service's words, in the user's language, and when to try again."""
    live_service.app.config.update(DOWNLOADS_PER_COMPANY=1)
    token = mint_token(live_service.app, "usuario@demo.uy")
    holding = _download(live_service.app.test_client(), {"Authorization": f"Bearer {token}"})
    try:
        assert holding.status_code == 200
        answer = signed_in("usuario@demo.uy").get("/recibidos/recibidos.csv")
        assert answer.status_code == 429
        page = answer.get_data(as_text=True)
        assert "otras descargas de tu empresa en curso" in page and "reintentar en 5 segundos" in page
    finally:
        holding.close()
    assert downloads.in_progress(live_service.app) == 0
