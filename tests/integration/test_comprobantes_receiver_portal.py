"""The receipts form's receiver helped by the service: DGI's warnings and data for a typed RUT (never over
what the user typed, kindly when DGI is down) and the company's past receivers suggested as one types."""

from __future__ import annotations

import json
import socket
from urllib.parse import urlencode

import pytest

from portal.service.dgi import sandbox_data as dgi_data
from tests.integration.test_comprobantes_portal import HTMX, efactura, issue, new_form, soup

CHECK = "/comprobantes/nuevo/documento"
SUGGEST = "/comprobantes/nuevo/receptores"


@pytest.fixture
def usuario(signed_in):
    return signed_in("usuario@demo.uy")


def _check(client, number: str, doc_type: str = "2", **typed):
    answer = client.get(
        CHECK + "?" + urlencode({"tipo_doc_recep": doc_type, "doc_recep": number, **typed}), headers=HTMX
    )
    assert answer.status_code == 200
    return soup(answer)


def _fills(page) -> dict[str, str]:
    return {e["data-fill-field"]: e["data-fill-value"] for e in page.select("[data-fill-field]")}


def test_a_closed_rut_shows_the_warnings_next_to_the_document(usuario):
    page = _check(usuario, dgi_data.INACTIVE_RUT)

    assert "RUT válido" in page.select_one("#doc_recep-hint").get_text()
    warnings = page.select("#doc_recep-dgi .dgi-warnings li")
    assert [w["data-code"] for w in warnings] == ["receptor_inactivo", "receptor_no_emisor_electronico", "cva_vencido"]
    assert "CLAUSURADO" in warnings[0].get_text()


def test_the_warnings_stay_on_the_preview_before_issuing(usuario):
    data = {**efactura(usuario), "doc_recep": dgi_data.INACTIVE_RUT, "rzn_soc_recep": "La Blanqueada"}

    page = soup(usuario.post("/comprobantes/nuevo/previsualizar", data=data, headers=HTMX))

    assert page.select_one("#receipt-preview")
    shown = page.select('[data-testid="preview-dgi-warnings"] li')
    assert "receptor_inactivo" in [w["data-code"] for w in shown]
    assert page.select('#doc_recep-dgi li[data-code="receptor_inactivo"]')
    assert not page.select("[data-fill-field]")  # a re-rendered form fills nothing


def test_a_valid_rut_fills_the_empty_fields_and_leaves_typed_ones_alone(usuario):
    empty = _check(usuario, dgi_data.INACTIVE_RUT)
    typed = _check(usuario, dgi_data.INACTIVE_RUT, rzn_soc_recep="Mi cliente", ciudad_recep="Paso Molino")

    assert _fills(empty) == {
        "rzn_soc_recep": "FRIGORIFICO LA BLANQUEADA S.A.",
        "dir_recep": "AV. GENERAL RIVERA 3320",
        "ciudad_recep": "MONTEVIDEO",
        "depto_recep": "MONTEVIDEO",
    }
    assert "Datos completados desde DGI" in empty.select_one("[data-dgi-filled]").get_text()
    assert _fills(typed) == {"dir_recep": "AV. GENERAL RIVERA 3320", "depto_recep": "MONTEVIDEO"}
    assert all(e["data-fill-if"] == "" for e in typed.select("[data-fill-field]"))


def test_another_rut_replaces_what_dgi_filled_but_not_what_the_user_edited(usuario):
    first = _check(usuario, dgi_data.INACTIVE_RUT)
    record = first.select_one("#dgi_completado")["value"]
    assert json.loads(record)["rzn_soc_recep"] == "FRIGORIFICO LA BLANQUEADA S.A."

    second = _check(
        usuario,
        dgi_data.DEMO_RUT,
        rzn_soc_recep="FRIGORIFICO LA BLANQUEADA S.A.",  # still DGI's: replaced
        dir_recep="Mi dirección corregida",  # edited since: the user's
        dgi_completado=record,
    )

    fills = _fills(second)
    assert fills["rzn_soc_recep"] == "DGI RUC PRUEBA NO CEDE" and "dir_recep" not in fills
    assert second.select_one("#doc_recep-dgi .dgi-warnings") is None


def test_a_person_gets_the_name_dgi_registers(usuario):
    page = _check(usuario, "1.234.567-2", doc_type="3")

    assert list(_fills(page)) == ["rzn_soc_recep"] and _fills(page)["rzn_soc_recep"]


def test_dgi_down_is_said_kindly_and_issuing_goes_on(usuario, live_service):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{sock.getsockname()[1]}/ePrueba/ws"
    live_service.app.config.update(DGI_BACKEND="soap", DGI_SOAP_URL=closed, DGI_TIMEOUT_SECONDS=2)

    page = _check(usuario, "219000090011", rzn_soc_recep="Lo que escribí")
    data = {**efactura(usuario), "doc_recep": "219000090011", "rzn_soc_recep": "Cliente escrito a mano"}

    note = page.select_one('[data-testid="receiver-dgi-note"]').get_text()
    assert "No pudimos consultar a DGI" in note and "podés emitir igual" in note
    assert not page.select("[data-fill-field]")
    assert issue(usuario, data)


def test_past_receivers_are_suggested_by_name_or_document(usuario):
    data = {**efactura(usuario), "doc_recep": "214844360018", "rzn_soc_recep": "Ñandú Servicios SRL"}
    issue(usuario, data)

    by_name = soup(usuario.get(SUGGEST, query_string={"rzn_soc_recep": "ñand"}, headers=HTMX))
    by_doc = soup(usuario.get(SUGGEST, query_string={"doc_recep": "21-484436"}, headers=HTMX))
    by_two_digits = soup(usuario.get(SUGGEST, query_string={"doc_recep": "21"}, headers=HTMX))
    too_short = usuario.get(SUGGEST, query_string={"rzn_soc_recep": "ñ"}, headers=HTMX)
    too_few_digits = usuario.get(SUGGEST, query_string={"doc_recep": "2-"}, headers=HTMX)

    button = by_name.select_one("[data-receiver-pick]")
    picked = json.loads(button["data-receiver-pick"])
    assert picked["doc_recep"] == "214844360018" and picked["rzn_soc_recep"] == "Ñandú Servicios SRL"
    assert picked["tipo_doc_recep"] == "2" and button["type"] == "button"
    assert "21-484436-001-8" in button.get_text()
    assert by_doc.select_one("[data-receiver-pick]")
    assert "21-484436-001-8" in by_two_digits.select_one("[data-receiver-pick]").get_text()
    assert too_short.get_data(as_text=True).strip() == "" and too_few_digits.get_data(as_text=True).strip() == ""


def test_the_form_asks_for_suggestions_and_dgi_as_one_types(usuario):
    page = soup(usuario.get("/comprobantes/nuevo", follow_redirects=True))

    doc = page.select_one("#doc_recep")
    assert "#rzn_soc_recep" in doc["data-hx-include"] and "#dgi_completado" in doc["data-hx-include"]
    for box, source in (("#doc-suggestions", "#doc_recep"), ("#name-suggestions", "#rzn_soc_recep")):
        assert page.select_one(box)["hx-get"] == SUGGEST and f"from:{source}" in page.select_one(box)["hx-trigger"]
    assert page.select_one("#dgi_completado") is not None and "dgi_completado" in new_form(usuario)


def test_soporte_gets_no_suggestions(signed_in):
    soporte = signed_in("soporte@demo.uy")

    assert soporte.get(SUGGEST, query_string={"rzn_soc_recep": "Demo"}).status_code == 403


def test_without_a_valid_certificate_the_form_says_so_and_lets_the_user_type(usuario, live_service):
    from datetime import UTC, datetime, timedelta

    from sqlalchemy import update

    from portal.service.platform import db
    from portal.service.platform.models import Certificate

    with live_service.app.app_context():
        db.session().execute(
            update(Certificate)
            .where(Certificate.company_id == 1)
            .values(not_after=datetime.now(UTC) - timedelta(days=1))
        )
        db.session().commit()

    page = _check(usuario, dgi_data.INACTIVE_RUT)

    assert "certificado vigente" in page.select_one('[data-testid="receiver-dgi-note"]').get_text()
    assert not page.select("[data-fill-field]") and not page.select(".dgi-warnings")
