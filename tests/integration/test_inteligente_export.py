"""Smart issuance of an export: a foreign receiver of services gets a 121 with sale mode 90 and no transport,
of goods a 121 with the Incoterm and transport it was told (a 422 naming them otherwise); its notes are
122/123 with the same terms; a tourist with a passport and no country stays an e-Ticket."""

from __future__ import annotations

import pytest

from tests.integration.test_export_api import today
from tests.integration.test_inteligente_api import DIRECT, _confirm, _preview
from tests.support.cfe_bodies import issue
from tests.unit.cfe.types_bodies import EXPORT

FOREIGN = {
    "documento": "98-7654321",
    "tipoDoc": 4,
    "pais": "US",
    "nombre": "Acme Software Inc.",
    "direccion": "500 Market St",
}
SOFTWARE = {"descripcion": "Desarrollo de software", "cantidad": "120", "precio": "45", "categoria": "servicios"}
WOOL = {"descripcion": "Lana lavada", "cantidad": "2000", "precio": "6.10", "unidad": "kg"}


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


def test_a_foreign_receiver_of_services_gets_an_export_invoice_that_issues(api_client, user):
    body = {"receptor": FOREIGN, "moneda": "USD", "tipoCambio": "39.250", "lineas": [SOFTWARE]}
    preview = _preview(api_client, user, body)
    draft = preview["borrador"]
    assert draft["tipoCFE"] == 121
    assert (draft["clauVenta"], draft["modVenta"], draft["viaTransp"]) == ("N/A", 90, 8)
    assert [item["indFact"] for item in draft["items"]] == [10]
    assert "mntBruto" not in draft and draft["receptor"]["paisRecep"] == "Estados Unidos"
    reasons = {i["campo"]: i["motivo"] for i in preview["inferencias"]}
    assert "exterior" in reasons["tipoCFE"]
    answer = _confirm(api_client, user, preview)
    assert answer.status_code == 200 and answer.json["estado"] == "issued", answer.json


def test_goods_abroad_need_their_incoterm_and_transport(api_client, user):
    body = {"receptor": {**FOREIGN, "pais": "BR"}, "moneda": "USD", "tipoCambio": "39.250", "lineas": [WOOL]}
    refused = api_client.post(DIRECT, json=body, headers=user)
    assert refused.status_code == 422
    assert {f["field"] for f in refused.json["error"]["fields"]} == {"pistas.clauVenta", "pistas.viaTransp"}
    told = _preview(api_client, user, {**body, "pistas": {"clauVenta": "FOB", "viaTransp": 3}})
    draft = told["borrador"]
    assert (draft["tipoCFE"], draft["clauVenta"], draft["modVenta"], draft["viaTransp"]) == (121, "FOB", 1, 3)


def test_a_note_of_an_export_is_a_122_with_its_terms(api_client, user):
    factura = issue(api_client, user, today(EXPORT["121-goods"]))
    body = {
        "receptor": {**FOREIGN, "pais": "BR"},
        "moneda": "EUR",
        "tipoCambio": "42.375",
        "lineas": [WOOL],
        "referencia": {"idCfeEmitido": factura["idCfeEmitido"], "razon": "Devolución"},
    }
    draft = _preview(api_client, user, body)["borrador"]
    assert draft["tipoCFE"] == 122 and (draft["clauVenta"], draft["viaTransp"]) == ("FOB", 3)


def test_a_passport_without_a_country_stays_an_eticket(api_client, user):
    tourist = {"documento": "AB123456", "tipoDoc": 5, "nombre": "Jane Doe"}
    assert _preview(api_client, user, {"receptor": tourist, "lineas": [SOFTWARE]})["borrador"]["tipoCFE"] == 101


def test_an_english_caller_reads_the_exports_reasons_and_refusals_in_english(api_client, user):
    """Why the draft is an export (and its terms, its IVA, the receiver's country), why goods are refused without
    their terms, an undeducible document and a missing reference: English to an English caller."""
    english = {**user, "Accept-Language": "en"}
    services = {"receptor": FOREIGN, "moneda": "USD", "lineas": [SOFTWARE]}
    preview = api_client.post("/api/v1/cfe/previsualizar-emision-inteligente", json=services, headers=english)
    assert preview.status_code == 201, preview.json
    reasons = {i["campo"]: i["motivo"] for i in preview.json["inferencias"]}
    assert reasons["tipoCFE"] == "The receiver is abroad (US): e-Factura de Exportación."
    assert reasons["items[0].indFact"] == "Export and similar (no VAT)."
    assert reasons["receptor.paisRecep"] == "Name of the document's country."
    assert reasons["modVenta"] == "Export of services (every line is a service)."
    assert reasons["tpoCambio"].startswith("BCU stand-in's rate (selling, not official) of ")  # the demo's
    goods = {"receptor": {**FOREIGN, "pais": "BR"}, "moneda": "USD", "tipoCambio": "39.250", "lineas": [WOOL]}
    refused = api_client.post(DIRECT, json=goods, headers=english).json["error"]
    assert refused["message"] == "The export's terms are missing."
    assert refused["fields"][0]["message"].startswith("To export goods give the sale clause (Incoterm)")
    unknown = api_client.post(DIRECT, json={"receptor": {"documento": "12"}, "lineas": [SOFTWARE]}, headers=english)
    assert unknown.json["error"]["fields"][0]["message"].startswith("It is neither a valid RUT nor a valid cédula")
    note = {"lineas": [SOFTWARE], "referencia": {"idCfeEmitido": "cfe_0000", "razon": "Devolución"}}
    missing = api_client.post(DIRECT, json=note, headers=english).json["error"]
    assert missing["message"] == "There is no such referenced receipt in your company."
