"""The receptores endpoints: past receivers as a person types (company isolation, prefix, limit, 422) and a
receiver looked up at DGI with the same warnings smart issuance gives."""

from __future__ import annotations

import copy
import re
import socket

import pytest

from portal.service.dgi import sandbox_data as dgi_data
from tests.support import cfe_bodies as bodies

PAST = "/api/v1/receptores"
DGI = "/api/v1/receptores/dgi"


def _efactura_to(doc: str, name: str, **extra) -> dict:
    body = copy.deepcopy(bodies.body(bodies.EFACTURA))
    body["receptor"] = {**body["receptor"], "docRecep": doc, "rznSocRecep": name, **extra}
    return body


@pytest.fixture
def usuario(auth_headers):
    return auth_headers("usuario@demo.uy")


def _codes(answer) -> list[str]:
    return [w["codigo"] for w in answer.json["advertencias"]]


def test_past_receivers_newest_used_first_one_per_document(api_client, usuario):
    bodies.issue(api_client, usuario, _efactura_to("214844360018", "Direccion General Impositiva"))
    bodies.issue(api_client, usuario, _efactura_to("219999830019", "Demo Cliente Viejo"))
    bodies.issue(api_client, usuario, _efactura_to("214844360018", "DGI Nombre Nuevo", dirRecep="Otra 1"))

    answer = api_client.get(PAST, query_string={"q": "21"}, headers=usuario)

    assert answer.status_code == 200, answer.json
    found = answer.json["items"]
    assert [r["docRecep"] for r in found] == ["214844360018", "219999830019"]
    assert found[0]["rznSocRecep"] == "DGI Nombre Nuevo" and found[0]["dirRecep"] == "Otra 1"  # the newest receipt's
    assert found[0]["tipoDocRecep"] == 2 and found[0]["codPaisRecep"] == "UY" and found[0]["ultimoUso"]


def test_past_receivers_match_a_word_of_the_name_or_the_start_of_the_document(api_client, usuario):
    bodies.issue(api_client, usuario, _efactura_to("214844360018", "Ñandú Servicios"))
    bodies.issue(api_client, usuario, _efactura_to("219999830019", "Otra Empresa"))

    by_name = api_client.get(PAST, query_string={"q": "nandu"}, headers=usuario).json["items"]
    by_typed_rut = api_client.get(PAST, query_string={"q": "21-999983"}, headers=usuario).json["items"]
    in_the_middle = api_client.get(PAST, query_string={"q": "Servicios"}, headers=usuario).json["items"]

    assert [r["rznSocRecep"] for r in by_name] == ["Ñandú Servicios"]
    assert [r["docRecep"] for r in by_typed_rut] == ["219999830019"]
    assert [r["rznSocRecep"] for r in in_the_middle] == ["Ñandú Servicios"]  # as the receipt list matches
    assert api_client.get(PAST, query_string={"q": "ervicios"}, headers=usuario).json["items"] == []


def test_past_receivers_respect_the_limit(api_client, usuario):
    for doc in ("214844360018", "219999830019", "211003420017"):
        bodies.issue(api_client, usuario, _efactura_to(doc, f"Cliente {doc}"))

    found = api_client.get(PAST, query_string={"q": "Cliente", "limite": 2}, headers=usuario).json["items"]

    assert [r["docRecep"] for r in found] == ["211003420017", "219999830019"]


def test_another_companys_receivers_never_appear(api_client, usuario, auth_headers):
    bodies.issue(api_client, usuario, _efactura_to("214844360018", "Secreto de Demo"))
    admin_of_both = auth_headers("admin@demo.uy", 2)  # admin of Demo S.A. too, working as Comercial del Norte

    answer = api_client.get(PAST, query_string={"q": "Secreto"}, headers=admin_of_both)

    assert answer.status_code == 200 and answer.json["items"] == []
    assert "Secreto" not in answer.get_data(as_text=True)


@pytest.mark.parametrize(
    "query, field",
    [
        ({}, "q"),
        ({"q": ""}, "q"),
        ({"q": "x" * 151}, "q"),
        ({"q": "a", "limite": 0}, "limite"),
        ({"q": "a", "limite": 51}, "limite"),
        ({"q": "a", "limite": "diez"}, "limite"),
        ({"q": "a", "pagina": 2}, "pagina"),
    ],
)
def test_bad_input_is_a_422_that_names_the_field(api_client, usuario, query, field):
    answer = api_client.get(PAST, query_string=query, headers=usuario)

    assert answer.status_code == 422
    error = answer.json["error"]
    assert [f["field"] for f in error["fields"]] == [field] and error["requestId"]


@pytest.mark.parametrize(
    "path, field, query",
    [(PAST, "q", {}), (DGI, "nroDoc", {"tipoDoc": 2}), ("/api/v1/productos", "q", {})],
)
@pytest.mark.parametrize("spaces", ["   ", "\u00a0", "\u2003\u00a0 "])
def test_a_search_text_of_only_spaces_is_refused_and_the_schema_says_so(
    api_client, usuario, path, field, query, spaces
):
    # Stripped, a text of spaces is empty: refused as too short, which the schema must state for a text its
    # minLength alone accepts (schemathesis' positive cases found it): its pattern asks for a non-space.
    answer = api_client.get(path, query_string={**query, field: spaces}, headers=usuario)

    assert answer.status_code == 422
    assert [f["field"] for f in answer.json["error"]["fields"]] == [field]
    document = api_client.get("/api/v1/openapi.json").json
    (parameter,) = [p for p in document["paths"][path]["get"]["parameters"] if p["name"] == field]
    text = next(s for s in parameter["schema"].get("anyOf", [parameter["schema"]]) if s["type"] == "string")
    assert text["pattern"] == r"\S" and not re.search(text["pattern"], spaces)


def test_a_closed_rut_gets_its_data_and_the_warnings_smart_issuance_gives(api_client, usuario):
    answer = api_client.get(DGI, query_string={"tipoDoc": 2, "nroDoc": "21-555001-001-8"}, headers=usuario)
    smart = api_client.post(
        "/api/v1/cfe/previsualizar-emision-inteligente",
        headers=usuario,
        json={
            "receptor": {"documento": dgi_data.INACTIVE_RUT},
            "lineas": [{"descripcion": "X", "cantidad": "1", "precio": "1"}],
        },
    )

    assert answer.status_code == 200, answer.json
    body = answer.json
    assert body["encontrado"] is True and body["docRecep"] == dgi_data.INACTIVE_RUT
    assert body["rznSocRecep"] == "FRIGORIFICO LA BLANQUEADA S.A." and body["dirRecep"] == "AV. GENERAL RIVERA 3320"
    assert body["ciudadRecep"] and body["deptoRecep"]
    assert "CLAUSURADO" in body["advertencias"][0]["mensaje"]
    assert body["advertencias"] == smart.json["advertencias"]
    assert _codes(answer) == ["receptor_inactivo", "receptor_no_emisor_electronico", "cva_vencido"]


def test_an_active_taxpayer_has_no_warnings_and_an_unknown_rut_is_warned_about(api_client, usuario):
    active = api_client.get(DGI, query_string={"tipoDoc": 2, "nroDoc": dgi_data.DEMO_RUT}, headers=usuario)
    unknown = api_client.get(DGI, query_string={"tipoDoc": 2, "nroDoc": dgi_data.UNKNOWN_RUT}, headers=usuario)

    assert active.json["encontrado"] is True and active.json["advertencias"] == []
    assert unknown.status_code == 200 and unknown.json["encontrado"] is False
    assert _codes(unknown) == ["receptor_no_encontrado"] and "rznSocRecep" not in unknown.json


def test_a_person_gets_the_name_dgi_registers(api_client, usuario):
    answer = api_client.get(DGI, query_string={"tipoDoc": 3, "nroDoc": "1.234.567-2"}, headers=usuario)

    assert answer.status_code == 200 and answer.json["encontrado"] is True
    assert answer.json["docRecep"] == dgi_data.INDIVIDUAL_CI and answer.json["rznSocRecep"]
    assert answer.json["advertencias"] == []


@pytest.mark.parametrize(
    "query, field",
    [
        ({"tipoDoc": 2, "nroDoc": "215550010019"}, "nroDoc"),
        ({"tipoDoc": 4, "nroDoc": "ABC123"}, "tipoDoc"),
        ({"nroDoc": "215550010018"}, "tipoDoc"),
    ],
)
def test_a_bad_document_is_a_422(api_client, usuario, query, field):
    answer = api_client.get(DGI, query_string=query, headers=usuario)

    assert answer.status_code == 422 and [f["field"] for f in answer.json["error"]["fields"]] == [field]


def test_dgi_down_is_a_502_with_the_error_shape(api_client, usuario, service_app):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{sock.getsockname()[1]}/ePrueba/ws"
    service_app.config.update(DGI_BACKEND="soap", DGI_SOAP_URL=closed, DGI_TIMEOUT_SECONDS=2)

    answer = api_client.get(DGI, query_string={"tipoDoc": 2, "nroDoc": "219000090011"}, headers=usuario)

    assert answer.status_code == 502 and answer.json["error"]["code"].startswith("dgi_")


def test_the_lookup_signs_as_the_callers_company_only(api_client, auth_headers, service_app):
    from datetime import UTC, datetime, timedelta

    from sqlalchemy import update

    from portal.service.platform import db
    from portal.service.platform.models import Certificate

    with service_app.app_context():  # Comercial del Norte (company 2) has no valid certificate any more
        db.session().execute(
            update(Certificate)
            .where(Certificate.company_id == 2)
            .values(not_after=datetime.now(UTC) - timedelta(days=1))
        )
        db.session().commit()
    query = {"tipoDoc": 2, "nroDoc": dgi_data.DEMO_RUT}

    as_norte = api_client.get(DGI, query_string=query, headers=auth_headers("admin@demo.uy", 2))
    as_demo = api_client.get(DGI, query_string=query, headers=auth_headers("admin@demo.uy", 1))

    # The same user: as company 2 it never borrows company 1's certificate.
    assert as_norte.status_code == 409 and as_norte.json["error"]["code"] == "sin_certificado_vigente"
    assert as_demo.status_code == 200
