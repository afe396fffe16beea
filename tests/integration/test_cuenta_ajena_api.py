"""Sales on behalf of others through the service: 131 and 141 issue from the demo CAE ranges with the principal
in zona K and the printed legend, their notes come from the receipt, and every request DGI would refuse is a
422 naming the field that takes no number."""

from __future__ import annotations

import pytest
from lxml import etree

from portal.service.cfe.schema import validate_cfe
from tests.integration.test_export_api import DRAFT, EMITIR, FULL, GET, _counters, _pdf_text, today
from tests.support.cfe_bodies import issue
from tests.unit.cfe.test_cfe_cuenta_ajena_audit import NOTE_OF_ANOTHER_FAMILY, REJECTED
from tests.unit.cfe.types_bodies import CUENTA_AJENA

NS = {"c": "http://cfe.dgi.gub.uy"}


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


@pytest.mark.parametrize("name", ["131", "141-dgi-sample"])
def test_a_sale_on_behalf_of_others_issues_with_its_principal(name, api_client, user, tmp_path):
    receipt = issue(api_client, user, today(CUENTA_AJENA[name]))
    xml = api_client.get(
        GET, query_string={"idCfeEmitido": receipt["idCfeEmitido"]}, headers={**user, "Accept": "application/xml"}
    ).data
    assert validate_cfe(xml) == []
    principal = etree.fromstring(xml).find(".//c:Compl_Fiscal/c:Compl_Fiscal_Data", NS)
    assert principal.findtext("c:NombreMdte", namespaces=NS) == CUENTA_AJENA[name]["complFiscal"]["nombreMdte"]
    printed = " ".join(_pdf_text(api_client, user, receipt["idCfeEmitido"], tmp_path).split())
    assert "Venta por Cuenta Ajena" in printed
    assert "Venta por cuenta ajena - Mandante: " + CUENTA_AJENA[name]["complFiscal"]["nombreMdte"] in printed


def test_a_cuenta_ajena_eticket_prints_on_a_roll(api_client, user):
    receipt = issue(api_client, user, today(CUENTA_AJENA["131"]))
    roll = api_client.get(
        GET,
        query_string={"idCfeEmitido": receipt["idCfeEmitido"], "formato": "80mm"},
        headers={**user, "Accept": "application/pdf"},
    )
    assert roll.status_code == 200 and roll.mimetype == "application/pdf"


def test_its_notes_come_from_the_receipt_with_the_principal(api_client, user):
    factura = issue(api_client, user, today(CUENTA_AJENA["141-dgi-sample"]))
    credit = api_client.post(
        FULL, json={"idCfeEmitido": factura["idCfeEmitido"], "razon": "Devuelto al mandante"}, headers=user
    )
    assert credit.status_code == 201, credit.json
    assert credit.json["tipoCFE"] == 142
    draft = api_client.get(
        DRAFT, query_string={"idCfeEmitido": factura["idCfeEmitido"], "tipo": "debito"}, headers=user
    )
    assert draft.status_code == 200 and draft.json["borrador"]["tipoCFE"] == 143
    assert draft.json["borrador"]["complFiscal"]["nombreMdte"] == "DGI PRUEBA"
    assert issue(api_client, user, draft.json["borrador"])["tipoCFE"] == 143


@pytest.mark.parametrize(("case", "body", "field", "code"), REJECTED, ids=[r[0] for r in REJECTED])
def test_dgi_would_reject_takes_no_number(case, body, field, code, api_client, user, service_app):
    before = _counters(service_app)
    answer = api_client.post(EMITIR, json=today(body), headers=user)
    assert answer.status_code == 422, answer.json
    assert (field, code) in [(f["field"], f["code"]) for f in answer.json["error"]["fields"]]
    assert _counters(service_app) == before


def test_a_note_of_another_family_takes_no_number(api_client, user, service_app):
    issue(api_client, user, today(CUENTA_AJENA["131"]))
    before = _counters(service_app)
    answer = api_client.post(EMITIR, json=today(NOTE_OF_ANOTHER_FAMILY), headers=user)
    assert answer.status_code == 422
    assert ("referencias[0].tpoDocRef", "not_allowed") in [
        (f["field"], f["code"]) for f in answer.json["error"]["fields"]
    ]
    assert _counters(service_app) == before


def test_the_answer_documents_the_principal_it_shows(api_client, user):
    """OpenAPI describes the answer's complFiscal field by field, the request's fields, and an issued receipt's
    complFiscal has exactly those, of the documented types."""
    schemas = api_client.get("/api/v1/openapi.json").json["components"]["schemas"]

    def resolved(schema: dict) -> dict:
        options = [option for option in schema.get("anyOf", [schema]) if option.get("type") != "null"]
        assert len(options) == 1, schema
        ref = options[0].get("$ref", "")
        return schemas[ref.rsplit("/", 1)[-1]] if ref else options[0]

    answered = resolved(schemas["CfeEmitido"]["properties"]["complFiscal"])
    requested = resolved(schemas["CfeInput"]["properties"]["complFiscal"])
    assert answered.get("properties") and set(answered["properties"]) == set(requested["properties"])
    assert set(answered.get("required", [])) == set(answered["properties"])
    shown = issue(api_client, user, today(CUENTA_AJENA["131"]))["complFiscal"]
    assert set(shown) == set(answered["properties"])
    python_type = {"integer": int, "string": str}
    for name, value in shown.items():
        assert isinstance(value, python_type[answered["properties"][name]["type"]]), name
