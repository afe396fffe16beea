"""The export types through the service: each issues from the demo CAE ranges with a signed, XSD-valid XML,
prints its terms of sale, takes its notes from the receipt (full credit note, debit draft), and every request
DGI would reject is a 422 naming the field before a number is taken."""

from __future__ import annotations

import copy
import subprocess
from decimal import Decimal

import pytest
from lxml import etree
from sqlalchemy import select

from portal.service.cfe.schema import validate_cfe
from portal.service.comprobante.models import CaeRangeRecord
from portal.service.platform import db
from tests.support.cfe_bodies import issue
from tests.unit.cfe.test_cfe_export_audit import REJECTED
from tests.unit.cfe.types_bodies import EXPORT

EMITIR = "/api/v1/comprobante/emitir"
GET = "/api/v1/comprobante/getByIdCfeEmitido"
FULL = "/api/v1/comprobante/notaCreditoTotal"
DRAFT = "/api/v1/comprobante/borradorNota"
NS = {"c": "http://cfe.dgi.gub.uy"}


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


def today(body: dict) -> dict:
    """The body dated today (the demo CAE ranges are valid from a month ago)."""
    body = copy.deepcopy(body)
    body.pop("fchEmis", None)
    body.pop("fchVenc", None)
    for ref in body.get("referencias", []):
        ref.pop("fechaCFEref", None)
    return body


def _counters(service_app) -> dict:
    with service_app.app_context():
        rows = db.session().scalars(select(CaeRangeRecord).where(CaeRangeRecord.company_id == 1))
        return {row.id: row.next_nro for row in rows}


def _pdf_text(api_client, user, cfe_id, tmp_path) -> str:
    pdf = api_client.get(GET, query_string={"idCfeEmitido": cfe_id}, headers={**user, "Accept": "application/pdf"})
    assert pdf.status_code == 200 and pdf.mimetype == "application/pdf"
    (tmp_path / "r.pdf").write_bytes(pdf.data)
    return subprocess.run(
        ["pdftotext", str(tmp_path / "r.pdf"), "-"], capture_output=True, text=True, check=True
    ).stdout


@pytest.mark.parametrize("name", ["121-services", "121-goods", "124"])
def test_an_export_issues_signed_valid_and_printed(name, api_client, user, tmp_path):
    receipt = issue(api_client, user, today(EXPORT[name]))
    tipo = EXPORT[name]["tipoCFE"]
    assert receipt["tipoCFE"] == tipo and receipt["serie"] == "A"
    xml = api_client.get(
        GET, query_string={"idCfeEmitido": receipt["idCfeEmitido"]}, headers={**user, "Accept": "application/xml"}
    ).data
    assert validate_cfe(xml) == []
    totales = etree.fromstring(xml).find(".//c:Totales", NS)
    assert totales.findtext("c:MntExpoyAsim", namespaces=NS) == receipt["totales"]["mntExpoyAsim"]
    assert totales.find("c:IVATasaBasica", NS) is None
    monto = receipt["totales"]["mntTotal"] if tipo == 124 else receipt["totales"]["mntPagar"]
    assert receipt["urlQR"].split("?")[1].split(",")[4] == monto
    printed = _pdf_text(api_client, user, receipt["idCfeEmitido"], tmp_path)
    assert ("e-Remito de Exportación" if tipo == 124 else "e-Factura de Exportación") in printed
    # A buyer abroad: the labels in Spanish and English (the fiscal legends in Spanish only).
    assert f"Cláusula de venta / Incoterm: {EXPORT[name]['clauVenta']}" in printed
    assert "Vía de transporte / Transport:" in printed and "Exportación y asimiladas / Export" in printed
    assert "Puede verificar comprobante en www.dgi.gub.uy" in printed
    assert ("TOTAL A PAGAR" in printed) is (tipo != 124)


def test_an_export_invoice_is_credited_and_debited_from_its_receipt(api_client, user):
    factura = issue(api_client, user, today(EXPORT["121-services"]))
    answer = api_client.post(
        FULL, json={"idCfeEmitido": factura["idCfeEmitido"], "razon": "Emitida por error"}, headers=user
    )
    assert answer.status_code == 201, answer.json
    credit = answer.json
    assert credit["tipoCFE"] == 122 and credit["tpoMoneda"] == "USD"
    assert credit["totales"]["mntTotal"] == factura["totales"]["mntTotal"]
    [ref] = credit["referencias"]
    assert ref["tpoDocRef"] == 121 and ref["nroCFERef"] == factura["nro"]
    second = issue(api_client, user, today(EXPORT["121-services"]))
    draft = api_client.get(DRAFT, query_string={"idCfeEmitido": second["idCfeEmitido"], "tipo": "debito"}, headers=user)
    assert draft.status_code == 200 and draft.json["borrador"]["tipoCFE"] == 123
    assert draft.json["borrador"]["clauVenta"] == "N/A" and draft.json["borrador"]["viaTransp"] == 8
    debit = issue(api_client, user, draft.json["borrador"])
    assert debit["tipoCFE"] == 123
    other = copy.deepcopy(today(EXPORT["122"]))
    other["referencias"][0].update(tpoDocRef=111, nroCFERef=1)
    refused = api_client.post(EMITIR, json=other, headers=user)
    assert refused.status_code == 422


@pytest.mark.parametrize(("case", "body", "field", "code"), REJECTED, ids=[r[0] for r in REJECTED])
def test_dgi_would_reject_takes_no_number(case, body, field, code, api_client, user, service_app):
    before = _counters(service_app)
    answer = api_client.post(EMITIR, json=today(body), headers=user)
    assert answer.status_code == 422, answer.json
    fields = [(f["field"], f["code"]) for f in answer.json["error"]["fields"]]
    assert (field, code) in fields, fields
    assert _counters(service_app) == before


def test_the_daily_totals_carry_the_export_in_pesos(api_client, user):
    receipt = issue(api_client, user, today(EXPORT["121-services"]))
    assert Decimal(receipt["totales"]["mntExpoyAsim"]) == Decimal("5400.00")


@pytest.mark.parametrize("tipo", [121, 122, 123, 124, 131, 132, 133, 141, 142, 143, 151, 152, 153])
def test_dgi_cae_of_every_new_type_uploads_and_numbers(tipo, api_client, auth_headers):
    from portal.domain.cfe_types import CFE_TYPES
    from tests.support.empresa_files import cae_xml

    admin = auth_headers("admin@demo.uy", 1)
    upload = api_client.post(
        "/api/v1/empresa/cae",
        data=cae_xml(tipo=tipo, serie="T", dnro=1, hnro=500, cae_id=90260000000 + tipo * 10),
        content_type="application/xml",
        headers=admin,
    )
    assert upload.status_code == 201, upload.json
    assert (upload.json["tipoCFE"], upload.json["serie"], upload.json["restantes"]) == (tipo, "T", 500)
    assert tipo in CFE_TYPES  # and the demo data (seed) has a range of it: the issue tests above number from it


def test_new_types_are_found_by_type_and_exported_to_csv(api_client, user):
    import csv
    import io

    from tests.unit.cfe.types_bodies import BOLETA, CUENTA_AJENA

    for body in (EXPORT["121-services"], BOLETA["151-imeba"], CUENTA_AJENA["141-dgi-sample"]):
        issue(api_client, user, today(body))
    for tipo, name in (
        (121, "e-Factura de Exportación"),
        (151, "e-Boleta de entrada"),
        (141, "e-Factura Venta por Cuenta Ajena"),
    ):
        found = api_client.get("/api/v1/comprobante/buscar", query_string={"tipoCFE": tipo}, headers=user)
        assert found.status_code == 200, found.json
        listed = found.json.get("comprobantes", found.json.get("items"))  # the list's key (seams-api renames lists)
        assert listed and {item["tipoCFE"] for item in listed} == {tipo}
        with api_client.get(
            "/api/v1/comprobante/buscar", query_string={"tipoCFE": tipo}, headers={**user, "Accept": "text/csv"}
        ) as answer:
            text = answer.data.decode("utf-8")
        rows = list(csv.reader(io.StringIO(text.lstrip("\ufeff")), delimiter=";"))
        assert rows[1][1] == name


def test_the_pdf_is_bilingual_for_a_receiver_abroad_and_on_request(api_client, user, tmp_path):
    from tests.support import cfe_bodies as bodies

    export = issue(api_client, user, today(EXPORT["121-services"]))
    assert "Fecha / Date:" in _pdf_text(api_client, user, export["idCfeEmitido"], tmp_path)
    factura = issue(api_client, user, bodies.body(bodies.EFACTURA))
    assert "Fecha / Date:" not in _pdf_text(api_client, user, factura["idCfeEmitido"], tmp_path)
    asked = api_client.get(
        GET,
        query_string={"idCfeEmitido": factura["idCfeEmitido"], "bilingue": "true"},
        headers={**user, "Accept": "application/pdf"},
    )
    (tmp_path / "b.pdf").write_bytes(asked.data)
    text = subprocess.run(
        ["pdftotext", str(tmp_path / "b.pdf"), "-"], capture_output=True, text=True, check=True
    ).stdout
    assert "Fecha / Date:" in text and "RUC COMPRADOR" in text


def test_the_homes_figures_count_an_export_as_a_sale_and_a_boleta_as_none(api_client, user):
    from tests.unit.cfe.types_bodies import BOLETA

    export = issue(api_client, user, today(EXPORT["121-services"]))
    issue(api_client, user, today(BOLETA["151-several"]))  # in dollars too: a purchase, not a sale
    today_figures = api_client.get("/api/v1/empresa/resumen", headers=user).json["hoy"]
    by_type = {(t["tipoCFE"], t["moneda"]): t["cantidad"] for t in today_figures["porTipo"]}
    assert by_type[(121, "USD")] == 1 and by_type[(151, "USD")] == 1
    usd = {t["moneda"]: t["neto"] for t in today_figures["porMoneda"]}["USD"]
    assert Decimal(usd) == Decimal(export["totales"]["mntPagar"])


def test_the_openapi_document_has_a_request_example_for_every_type(api_client):
    from portal.domain.cfe_types import CFE_TYPES

    document = api_client.get("/api/v1/openapi.json").json
    schema = document["components"]["schemas"]["CfeInput"]
    assert {example["tipoCFE"] for example in schema["examples"]} == set(CFE_TYPES)
    # Each issues as it stands: test_dgi_rules_api.test_every_openapi_example_of_emitir_issues_as_it_stands.


def test_a_refusal_names_the_types_in_the_callers_language(api_client, user):
    """A refusal about a type said it in DGI's Spanish to an English caller ("Does not apply to e-Remito de
    Exportación.", "only e-Factura de Exportación o Nota de Débito de e-Factura de Exportación o ..."): the type
    names, and the "or" between them, are the caller's language's, as every other message of the service."""
    english = {**user, "Accept-Language": "en"}
    remito = {**today(EXPORT["124"]), "fmaPago": 1}
    fields = api_client.post(EMITIR, json=remito, headers=english).json["error"]["fields"]
    assert {f["field"]: f["message"] for f in fields} == {"fmaPago": "Does not apply to Export e-Remito."}
    note = {**today(EXPORT["121-goods"]), "tipoCFE": 122}
    note["referencias"] = [{"tpoDocRef": 111, "serie": "A", "nroCFERef": 1, "razonRef": "Ajuste"}]
    fields = api_client.post(EMITIR, json=note, headers=english).json["error"]["fields"]
    assert {f["field"]: f["message"] for f in fields}["referencias[0].tpoDocRef"] == (
        "Receipt type not allowed as a reference of Export e-Factura credit note: only Export e-Factura or Export "
        "e-Factura debit note or Contingency Export e-Factura or Contingency Export e-Factura debit note."
    )
    spanish = api_client.post(EMITIR, json=note, headers=user).json["error"]["fields"]
    assert {f["field"]: f["message"] for f in spanish}["referencias[0].tpoDocRef"] == (
        "Tipo de comprobante no admitido como referencia de Nota de crédito de e-Factura de exportación: solo "
        "e-Factura de exportación o Nota de débito de e-Factura de exportación o e-Factura de exportación de "
        "contingencia o Nota de débito de e-Factura de exportación de contingencia."
    )
