"""The portal side of receipts reaching DGI, through the real sign-in and a live service whose queued work
the tests run: the DGI badge and panel that refresh themselves until final, a rejection with DGI's reason and
"Emitir corregido" linked both ways, and the "Envíos a DGI" page (roles, company, voiding numbers)."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from bs4 import BeautifulSoup

from tests.support import cfe_bodies as bodies
from tests.support.envios import ENVIOS_CONFIG, REJECT_MARKER, drain
from tests.support.html import soup, text

HTMX = {"HX-Request": "true"}
RECEIPT_URL = re.compile(r"^/comprobantes/([0-9a-f]{32})$")


@pytest.fixture
def service_config(service_config):
    return {**service_config, **ENVIOS_CONFIG}


def form_values(page: BeautifulSoup, selector: str) -> dict[str, str]:
    """What a browser would submit from the form."""
    values: dict[str, str] = {}
    for element in page.select_one(selector).find_all(["input", "select", "textarea"]):
        name = element.get("name")
        if not name or element.get("type") in ("submit", "button"):
            continue
        if element.name == "select":
            chosen = element.find("option", selected=True) or element.find("option")
            values[name] = chosen.get("value", "")
        elif element.name == "textarea":
            values[name] = element.get_text()
        elif element.get("type") != "checkbox" or element.has_attr("checked"):
            values[name] = element.get("value", "y" if element.get("type") == "checkbox" else "")
    return values


@pytest.fixture
def issue_api(live_service, live_token_for):
    """issue_api(body, email) -> the receipt JSON, issued through the live service's API."""
    client = live_service.app.test_client()

    def issue(body: dict, email: str = "usuario@demo.uy") -> dict:
        return bodies.issue(client, {"Authorization": f"Bearer {live_token_for(email)}"}, body)

    return issue


def rejected_efactura(motive: str = "E07") -> dict:
    body = bodies.body(bodies.EFACTURA)
    body["receptor"] = {**body["receptor"], "rznSocRecep": f"Cliente {REJECT_MARKER}{motive}"}
    return body


def panel(client, receipt_id: str):
    return soup(client.get(f"/comprobantes/{receipt_id}")).find(attrs={"data-testid": "dgi-panel"})


def test_the_receipt_page_polls_its_dgi_panel_until_dgi_accepts(signed_in, issue_api, live_service):
    usuario = signed_in("usuario@demo.uy")
    receipt_id = issue_api(bodies.body(bodies.EFACTURA))["idCfeEmitido"]
    pending = panel(usuario, receipt_id)
    assert pending["data-state"] == "pendiente"
    assert pending["hx-get"] == f"/envios/estado/{receipt_id}/detalle"
    assert pending["hx-trigger"] == "load delay:3s" and pending["hx-swap"] == "outerHTML"

    drain(live_service.app)
    fragment = usuario.get(f"/envios/estado/{receipt_id}/detalle", headers=HTMX)
    accepted = soup(fragment).find(attrs={"data-testid": "dgi-panel"})
    assert fragment.status_code == 200 and fragment.headers["Cache-Control"] == "no-store"
    assert accepted["data-state"] == "aceptado"
    assert accepted.find(attrs={"data-testid": "dgi-state"}).get_text(strip=True) == "Aceptado por DGI"
    assert not accepted.has_attr("hx-get") and not accepted.has_attr("hx-trigger")  # final: polling stops
    assert soup(fragment).find("html") is None  # a fragment, not a page


def test_a_small_eticket_says_it_goes_in_the_daily_report_and_keeps_looking_slowly(signed_in, issue_api, live_service):
    usuario = signed_in("usuario@demo.uy")
    receipt_id = issue_api(bodies.body(bodies.ETICKET))["idCfeEmitido"]
    drain(live_service.app)
    badge = soup(usuario.get(f"/envios/estado/{receipt_id}")).find(attrs={"data-testid": "dgi-state"})
    assert badge["data-state"] == "pendiente_reporte" and "reporte diario" in badge.get_text()
    assert badge["hx-trigger"] == "load delay:60s"


def test_the_receipt_list_shows_each_receipts_state_and_asks_again_later(signed_in):
    usuario = signed_in("usuario@demo.uy")
    data = form_values(soup(usuario.get("/comprobantes/nuevo", follow_redirects=True)), "form.receipt-form")
    data.update({"lines-0-nom_item": "Café", "lines-0-cantidad": "2", "lines-0-precio_unitario": "122"})
    receipt_id = RECEIPT_URL.match(usuario.post("/comprobantes/nuevo", data=data).headers["Location"])[1]
    badge = soup(usuario.get("/comprobantes/")).select_one(".receipt-list tbody tr [data-testid=dgi-state]")
    # The list knows the state already; a state that is not final asks again after its own interval.
    assert badge["data-state"] == "pendiente_reporte" and badge["id"] == f"dgi-state-{receipt_id}"
    assert (badge["hx-get"], badge["hx-trigger"]) == (f"/envios/estado/{receipt_id}", "load delay:60s")
    answer = soup(usuario.get(badge["hx-get"], headers=HTMX)).find(attrs={"data-testid": "dgi-state"})
    assert answer["id"] == badge["id"] and answer["data-state"] == "pendiente_reporte"


def test_a_rejected_receipt_shows_dgis_reason_no_fiscal_validity_and_the_way_forward(
    signed_in, issue_api, live_service
):
    receipt_id = issue_api(rejected_efactura("E07"))["idCfeEmitido"]
    drain(live_service.app)
    usuario, soporte = signed_in("usuario@demo.uy"), signed_in("soporte@demo.uy")
    block = panel(usuario, receipt_id)
    text = block.get_text(" ", strip=True)
    assert block["data-state"] == "rechazado" and not block.has_attr("hx-get")
    assert "E07 Fecha Firma de CFE no se corresponde con fecha CAE" in text
    assert (
        block.find(attrs={"data-testid": "dgi-no-validity"})
        .get_text(" ", strip=True)
        .startswith("Este comprobante no tiene validez fiscal.")
    )
    assert block.find(attrs={"data-testid": "issue-corrected"})["href"] == f"/comprobantes/{receipt_id}/corregir"
    # No note is offered on it (the service would refuse it: DGI rejects notes on a rejected receipt, E12).
    page = soup(usuario.get(f"/comprobantes/{receipt_id}"))
    assert page.find("button", string="Anular con nota de crédito") is None
    assert not page.select(f'a[href^="/comprobantes/{receipt_id}/nota/"]')
    # Support staff see the same reason but cannot issue, so they are not offered the correction.
    support_block = panel(soporte, receipt_id)
    assert "E07" in support_block.get_text() and support_block.find(attrs={"data-testid": "issue-corrected"}) is None
    assert soporte.get(f"/comprobantes/{receipt_id}/corregir").status_code == 403


def test_emitir_corregido_prefills_the_form_issues_a_new_number_and_links_both_ways(signed_in, issue_api, live_service):
    rejected = issue_api(rejected_efactura("E14"))
    drain(live_service.app)
    usuario = signed_in("usuario@demo.uy")
    form_page = usuario.get(f"/comprobantes/{rejected['idCfeEmitido']}/corregir", follow_redirects=True)
    page = soup(form_page)
    assert form_page.status_code == 200
    assert rejected["idCfeEmitido"] in page.find(attrs={"data-testid": "correcting"}).get_text()
    data = form_values(page, "form.receipt-form")
    assert data["corrige"] == rejected["idCfeEmitido"] and data["tipo_cfe"] == "111"
    assert (data["doc_recep"], data["rzn_soc_recep"]) == ("214844360018", f"Cliente {REJECT_MARKER}E14")
    assert (data["lines-0-nom_item"], data["lines-0-cantidad"], data["lines-0-precio_unitario"]) == (
        "Consultoría",
        "10",
        "1500",
    )
    assert (data["lines-1-nom_item"], data["lines-1-precio_unitario"], data["lines-1-uni_med"]) == (
        "Libros",
        "350,25",
        "",
    )

    data["rzn_soc_recep"] = "DIRECCION GENERAL IMPOSITIVA"  # what was wrong, fixed
    answer = usuario.post("/comprobantes/nuevo", data=data)
    assert answer.status_code == 303, answer.get_data(as_text=True)[:2000]
    corrected_id = RECEIPT_URL.match(answer.headers["Location"])[1]
    drain(live_service.app)

    corrected = panel(usuario, corrected_id)
    assert corrected["data-state"] == "aceptado"
    corrects = corrected.find(attrs={"data-testid": "dgi-corrects"}).a
    assert corrects["href"] == f"/comprobantes/{rejected['idCfeEmitido']}"
    assert text(corrects) == f"e-Factura A-{rejected['nro']:07d}"
    original = panel(usuario, rejected["idCfeEmitido"])
    assert original.find(attrs={"data-testid": "dgi-corrected-by"}).a["href"] == f"/comprobantes/{corrected_id}"
    assert original.find(attrs={"data-testid": "issue-corrected"}) is None
    new_number = soup(usuario.get(f"/comprobantes/{corrected_id}")).h1.get_text()
    assert new_number != f"e-Factura A-{rejected['nro']:07d}"
    # A second correction of the same receipt goes to the one already issued.
    again = usuario.get(f"/comprobantes/{rejected['idCfeEmitido']}/corregir")
    assert again.status_code == 303 and again.headers["Location"] == f"/comprobantes/{corrected_id}"


def test_only_a_rejected_receipt_can_be_corrected(signed_in, issue_api):
    usuario = signed_in("usuario@demo.uy")
    receipt_id = issue_api(bodies.body(bodies.EFACTURA))["idCfeEmitido"]
    answer = usuario.get(f"/comprobantes/{receipt_id}/corregir")
    assert answer.status_code == 303 and answer.headers["Location"] == f"/comprobantes/{receipt_id}"
    assert "Solo se emite corregido" in soup(usuario.get(answer.headers["Location"])).get_text()


def switch_to_company_2(client) -> None:
    token = soup(client.get("/"))("input", {"name": "csrf_token"})[0]["value"]
    assert client.post("/empresa", data={"company_id": "2", "csrf_token": token}).status_code == 303


def test_another_companys_receipt_is_a_404_everywhere(signed_in, issue_api, live_service):
    receipt_id = issue_api(rejected_efactura())["idCfeEmitido"]
    drain(live_service.app)
    admin = signed_in("admin@demo.uy")
    assert admin.get(f"/envios/estado/{receipt_id}").status_code == 200
    switch_to_company_2(admin)
    for path in (
        f"/envios/estado/{receipt_id}",
        f"/envios/estado/{receipt_id}/detalle",
        f"/comprobantes/{receipt_id}/corregir",
        "/envios/estado/no-es-un-id!",
    ):
        assert admin.get(path).status_code == 404, path


def test_the_smart_issuance_status_shows_the_receipts_dgi_badge_which_polls_until_final(
    signed_in, live_service, live_token_for
):
    from portal.client import CfeClient
    from portal.client.inteligente import SmartIssueRequest, SmartLine, SmartReceiver

    api = CfeClient(live_service.url).as_user(live_token_for("usuario@demo.uy"), company_id=1)
    issued = api.smart_issue(
        SmartIssueRequest(
            lines=(SmartLine("Consultoría", Decimal("1"), Decimal("9000")),), receiver=SmartReceiver("214844360018")
        ),
        idempotency_key="smart-dgi-badge",
    )
    soporte = signed_in("soporte@demo.uy")
    badge = soup(soporte.get(f"/inteligente/solicitudes?request_id={issued.id}")).find(
        attrs={"data-testid": "dgi-state"}
    )
    receipt_id = issued.receipt.id
    assert badge["data-state"] == "pendiente" and badge["hx-get"] == f"/envios/estado/{receipt_id}"
    drain(live_service.app)
    badge = soup(soporte.get(f"/inteligente/solicitudes?request_id={issued.id}")).find(
        attrs={"data-testid": "dgi-state"}
    )
    assert badge["data-state"] == "aceptado" and not badge.has_attr("hx-get")
