"""The e-Boleta de entrada through the service: issued from the demo CAE ranges, signed and XSD-valid, printed
with the seller's box, credited from its receipt; each request DGI would refuse is a 422 naming the field and
takes no number."""

from __future__ import annotations

import pytest
from lxml import etree

from portal.service.cfe.schema import validate_cfe
from tests.integration.test_export_api import DRAFT, EMITIR, FULL, GET, _counters, _pdf_text, today
from tests.support.cfe_bodies import issue
from tests.unit.cfe.test_cfe_boleta_audit import REJECTED
from tests.unit.cfe.types_bodies import BOLETA

NS = {"c": "http://cfe.dgi.gub.uy"}


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


@pytest.mark.parametrize("name", ["151-imeba", "151-several"])
def test_a_boleta_issues_signed_valid_and_printed(name, api_client, user, tmp_path):
    receipt = issue(api_client, user, today(BOLETA[name]))
    assert receipt["tipoCFE"] == 151
    xml = api_client.get(
        GET, query_string={"idCfeEmitido": receipt["idCfeEmitido"]}, headers={**user, "Accept": "application/xml"}
    ).data
    assert validate_cfe(xml) == []
    assert etree.fromstring(xml).findtext(".//c:MntPagar", namespaces=NS) == receipt["totales"]["mntPagar"]
    printed = _pdf_text(api_client, user, receipt["idCfeEmitido"], tmp_path)
    assert "e-Boleta de entrada" in printed
    assert ("RUC VENDEDOR" if BOLETA[name]["receptor"]["tipoDocRecep"] == 2 else "VENDEDOR") in printed
    assert "IVA tasa" not in printed  # a purchase with no IVA


def test_a_boleta_is_credited_and_debited_from_its_receipt(api_client, user):
    boleta = issue(api_client, user, today(BOLETA["151-imeba"]))
    credit = api_client.post(
        FULL, json={"idCfeEmitido": boleta["idCfeEmitido"], "razon": "Animales rechazados"}, headers=user
    )
    assert credit.status_code == 201, credit.json
    assert credit.json["tipoCFE"] == 152 and credit.json["totales"]["mntTotal"] == boleta["totales"]["mntTotal"]
    other = issue(api_client, user, today(BOLETA["151-several"]))
    draft = api_client.get(DRAFT, query_string={"idCfeEmitido": other["idCfeEmitido"], "tipo": "debito"}, headers=user)
    assert draft.status_code == 200 and draft.json["borrador"]["tipoCFE"] == 153
    assert issue(api_client, user, draft.json["borrador"])["tipoCFE"] == 153


@pytest.mark.parametrize(("case", "body", "field", "code"), REJECTED, ids=[r[0] for r in REJECTED])
def test_dgi_would_reject_takes_no_number(case, body, field, code, api_client, user, service_app):
    body = {k: v for k, v in today(body).items() if v is not None}
    if isinstance(body.get("receptor"), dict):
        body["receptor"] = {k: v for k, v in body["receptor"].items() if v is not None}
    before = _counters(service_app)
    answer = api_client.post(EMITIR, json=body, headers=user)
    assert answer.status_code == 422, answer.json
    assert (field, code) in [(f["field"], f["code"]) for f in answer.json["error"]["fields"]]
    assert _counters(service_app) == before
