"""Retiring a CAE range through the API (POST /empresa/cae/{id}/baja): every unused number voided at once,
confirmed by stating how many; admins only; in the audit like the upload; the voided numbers in the daily
report, as any other void."""

from __future__ import annotations

import pytest
from lxml import etree

from portal.domain.uruguay_time import today_montevideo
from portal.service.envios import reports
from portal.service.envios.models import DgiDailyReport
from portal.service.platform import db
from tests.support.empresa_files import cae_xml

BASE = "/api/v1/empresa"
D = "{http://cfe.dgi.gub.uy}"


@pytest.fixture
def admin(auth_headers):
    return auth_headers("admin@demo.uy", 1)


@pytest.fixture
def loaded(api_client, admin) -> dict:
    answer = api_client.post(
        f"{BASE}/cae",
        data=cae_xml(tipo=111, serie="C", dnro=1, hnro=2500),
        content_type="application/xml",
        headers=admin,
    )
    assert answer.status_code == 201, answer.json
    return answer.json


def retire(api_client, headers, range_id: int, count: int, reason: str = "Cambio de serie"):
    return api_client.post(f"{BASE}/cae/{range_id}/baja", json={"cantidad": count, "motivo": reason}, headers=headers)


def range_of(api_client, headers, range_id: int) -> dict:
    return next(r for r in api_client.get(f"{BASE}/cae", headers=headers).json["items"] if r["id"] == range_id)


def test_a_wrong_count_voids_nothing_and_says_how_many_are_left(api_client, admin, loaded):
    answer = retire(api_client, admin, loaded["id"], 2499)
    assert answer.status_code == 409 and answer.json["error"]["code"] == "cantidad_distinta"
    assert "2500" in answer.json["error"]["message"] and "1 a 2500" in answer.json["error"]["message"]
    assert range_of(api_client, admin, loaded["id"])["restantes"] == 2500
    assert api_client.get("/api/v1/envios/anulaciones", headers=admin).json["total"] == 0


def test_the_stated_count_voids_the_whole_rest_audited_and_in_todays_report(api_client, admin, loaded, service_app):
    answer = retire(api_client, admin, loaded["id"], 2500, "Cambio de serie: no se usa más")
    assert answer.status_code == 200, answer.json
    body = answer.json
    assert (body["nroDesde"], body["nroHasta"], body["cantidad"]) == (1, 2500, 2500)
    assert body["cae"]["restantes"] == 0 and body["cae"]["estado"] == "agotado"
    assert body["fechaReporte"] == today_montevideo().isoformat()

    [voided] = api_client.get("/api/v1/envios/anulaciones", headers=admin).json["items"]
    assert (voided["idAnulacion"], voided["tipoCFE"], voided["serie"]) == (body["idAnulacion"], 111, "C")
    assert (voided["nroDesde"], voided["nroHasta"], voided["origen"]) == (1, 2500, "operador")
    assert voided["motivo"] == "Cambio de serie: no se usa más"

    [event] = [
        e for e in api_client.get(f"{BASE}/auditoria", headers=admin).json["items"] if e["accion"] == "cae_dado_de_baja"
    ]
    assert event["objeto"] == str(loaded["caeId"]) and event["actor"] == "admin@demo.uy"
    assert event["cambios"]["cantidad"] == 2500 and (
        event["cambios"]["anuladosDesde"],
        event["cambios"]["anuladosHasta"],
    ) == (1, 2500)

    with service_app.app_context():
        report = db.session().get(DgiDailyReport, reports.build(1, today_montevideo(), "test"))
        section = etree.fromstring(report.xml).find(f"{D}Rsmn_Fac/{D}RsmnData")
        assert section.findtext(f"{D}CantDocsAnulados") == "2500"
        ranges = section.findall(f"{D}RngDocsAnulados/{D}RDA_Item")
        assert [(r.findtext(f"{D}Serie"), r.findtext(f"{D}NroDesde"), r.findtext(f"{D}NroHasta")) for r in ranges] == [
            ("C", "1", "2500")
        ]

    again = retire(api_client, admin, loaded["id"], 2500)
    assert again.status_code == 409 and again.json["error"]["code"] == "cae_sin_numeros"


def test_only_admins_of_the_company_retire_a_range(api_client, auth_headers, loaded):
    for email in ("usuario@demo.uy", "soporte@demo.uy"):
        assert retire(api_client, auth_headers(email, 1), loaded["id"], 2500).status_code == 403
    other = retire(api_client, auth_headers("admin@demo.uy", 2), loaded["id"], 2500)
    assert other.status_code == 404 and other.json["error"]["code"] == "cae_no_encontrado"
    assert range_of(api_client, auth_headers("admin@demo.uy", 1), loaded["id"])["restantes"] == 2500


def test_the_message_is_in_the_language_asked_for(api_client, admin, loaded):
    answer = api_client.post(
        f"{BASE}/cae/{loaded['id']}/baja",
        json={"cantidad": 3, "motivo": "Cambio de serie"},
        headers={**admin, "Accept-Language": "en"},
    )
    assert answer.status_code == 409 and "2500" in answer.json["error"]["message"]
    assert "quedan" not in answer.json["error"]["message"]


@pytest.mark.parametrize("reason", ["Cambio\x00de serie", "Cambio \u202eeires", "Cambio\nde serie"])
def test_a_reason_with_a_character_that_cannot_be_stored_or_shown_voids_nothing(api_client, admin, loaded, reason):
    """A NUL is refused by PostgreSQL (a 500 there), a right-to-left override makes the audit read otherwise."""
    answer = retire(api_client, admin, loaded["id"], 2500, reason)
    assert answer.status_code == 422, answer.json
    assert answer.json["error"]["fields"][0]["field"] == "motivo"
    assert range_of(api_client, admin, loaded["id"])["restantes"] == 2500
