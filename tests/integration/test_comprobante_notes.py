"""Notes derived from a receipt: the full credit note, drafts of partial and debit notes, the credit limit,
the reference fields of XSD 1.44 and the links both ways in the receipt JSON."""

from __future__ import annotations

from decimal import Decimal

import pytest
from lxml import etree

from portal import paths
from tests.support import cfe_bodies as bodies
from tests.support.cfe_bodies import issue

GET = "/api/v1/comprobante/getByIdCfeEmitido"
FULL = "/api/v1/comprobante/notaCreditoTotal"
DRAFT = "/api/v1/comprobante/borradorNota"
NS = {"c": "http://cfe.dgi.gub.uy"}


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


@pytest.fixture
def factura(api_client, user):
    body = bodies.body(bodies.EFACTURA)
    body.update(tpoMoneda="USD", tpoCambio="39.250", fmaPago=2, fchVenc="2050-01-31", adenda="Orden de compra 4512")
    return issue(api_client, user, body)


def _get(api_client, user, cfe_id):
    answer = api_client.get(GET, query_string={"idCfeEmitido": cfe_id}, headers=user)
    assert answer.status_code == 200
    return answer.json


def test_receipt_json_carries_what_the_pdf_shows(api_client, user, factura):
    receipt = _get(api_client, user, factura["idCfeEmitido"])
    assert [item["nomItem"] for item in receipt["items"]] == ["Consultoría", "Libros"]
    assert receipt["fmaPago"] == 2 and receipt["fchVenc"] == "2050-01-31"
    assert receipt["adenda"] == "Orden de compra 4512" and receipt["tpoCambio"] == "39.250"
    assert receipt["notas"] == [] and receipt["saldoAcreditable"] == receipt["totales"]["mntTotal"]


def test_a_reason_with_a_character_xml_cannot_carry_is_a_422_on_razon(api_client, user, factura):
    body = {"idCfeEmitido": factura["idCfeEmitido"], "razon": "Error \ufffe"}
    answer = api_client.post(FULL, json=body, headers=user)
    assert answer.status_code == 422, answer.json
    assert [(f["field"], "U+FFFE" in f["message"]) for f in answer.json["error"]["fields"]] == [("razon", True)]


def test_full_credit_note_cancels_the_receipt_and_both_link(api_client, user, factura):
    answer = api_client.post(
        FULL,
        json={"idCfeEmitido": factura["idCfeEmitido"], "razon": "Emitida por error"},
        headers={**user, "Idempotency-Key": "anular-1"},
    )
    assert answer.status_code == 201, answer.json
    note = answer.json
    assert note["tipoCFE"] == 112 and note["tpoMoneda"] == "USD" and note["tpoCambio"] == "39.250"
    assert note["totales"]["mntTotal"] == factura["totales"]["mntTotal"]
    assert [i["nomItem"] for i in note["items"]] == ["Consultoría", "Libros"]
    [ref] = note["referencias"]
    assert ref["idCfeEmitido"] == factura["idCfeEmitido"] and ref["razonRef"] == "Emitida por error"
    assert ref["mntCFEref"] == factura["totales"]["mntTotal"] and ref["tpoMonedaRef"] == "USD"
    original = _get(api_client, user, factura["idCfeEmitido"])
    assert [n["idCfeEmitido"] for n in original["notas"]] == [note["idCfeEmitido"]]
    assert original["saldoAcreditable"] == "0.00"
    again = api_client.post(
        FULL,
        json={"idCfeEmitido": factura["idCfeEmitido"], "razon": "Emitida por error"},
        headers={**user, "Idempotency-Key": "anular-1"},
    )
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert again.json["idCfeEmitido"] == note["idCfeEmitido"]
    other = api_client.post(FULL, json={"idCfeEmitido": factura["idCfeEmitido"], "razon": "Otra vez"}, headers=user)
    assert other.status_code == 409 and other.json["error"]["code"] == "ya_anulado"


def test_a_full_credit_note_that_loses_the_race_gets_ya_anulado_too(api_client, user, monkeypatch):
    from portal.service.comprobante import notes

    factura = issue(api_client, user, bodies.body(bodies.EFACTURA))
    body = {"idCfeEmitido": factura["idCfeEmitido"], "razon": "Emitida por error"}
    assert api_client.post(FULL, json=body, headers=user).status_code == 201
    real, calls = notes.credited, []

    def checked_before_the_winner_committed(session, cfe_id):
        calls.append(cfe_id)
        return Decimal("0.00") if len(calls) == 1 else real(session, cfe_id)

    # Four at once: the losers' check before the issue saw no note yet; the one inside the issue sees the winner's.
    monkeypatch.setattr(notes, "credited", checked_before_the_winner_committed)
    loser = api_client.post(FULL, json=body, headers=user)
    assert loser.status_code == 409 and loser.json["error"]["code"] == "ya_anulado", loser.json


def test_note_xml_writes_the_reference_fields_of_xsd_1_44_and_validates(api_client, user, factura):
    note = api_client.post(
        FULL, json={"idCfeEmitido": factura["idCfeEmitido"], "razon": "Devolución"}, headers=user
    ).json
    xml = api_client.get(
        GET, query_string={"idCfeEmitido": note["idCfeEmitido"]}, headers={**user, "Accept": "application/xml"}
    ).data
    doc = etree.fromstring(xml)
    ref = doc.find(".//c:Referencia/c:Referencia", NS)
    assert ref.findtext("c:MntCFEref", namespaces=NS) == factura["totales"]["mntTotal"]
    assert ref.findtext("c:TpoMonedaRef", namespaces=NS) == "USD"
    assert ref.findtext("c:TpoCambioRef", namespaces=NS) == "39.250"
    schema = etree.XMLSchema(etree.parse(str(paths.xsd_dir() / "CFEDGI.xsd")))
    assert schema.validate(doc), schema.error_log


def test_a_credit_note_never_exceeds_what_is_left_nor_changes_currency(api_client, user, factura):
    total = Decimal(factura["totales"]["mntTotal"])
    draft = api_client.get(
        DRAFT, query_string={"idCfeEmitido": factura["idCfeEmitido"], "tipo": "credito"}, headers=user
    )
    assert draft.status_code == 200 and Decimal(draft.json["saldoAcreditable"]) == total
    partial = draft.json["borrador"]
    partial["items"] = [{"indFact": 1, "nomItem": "Libros devueltos", "cantidad": "1", "precioUnitario": "100"}]
    issue(api_client, user, partial)
    left = Decimal(_get(api_client, user, factura["idCfeEmitido"])["saldoAcreditable"])
    assert left == total - 100
    too_much = {
        **partial,
        "items": [{"indFact": 1, "nomItem": "Todo", "cantidad": "1", "precioUnitario": str(left + 1)}],
    }
    refused = api_client.post("/api/v1/comprobante/emitir", json=too_much, headers=user)
    assert refused.status_code == 422 and refused.json["error"]["fields"][0]["code"] == "supera_saldo"
    pesos = {**partial, "tpoMoneda": "UYU"}
    pesos.pop("tpoCambio")
    refused = api_client.post("/api/v1/comprobante/emitir", json=pesos, headers=user)
    assert refused.status_code == 422 and refused.json["error"]["fields"][0]["code"] == "moneda_distinta"
    whole = api_client.post(FULL, json={"idCfeEmitido": factura["idCfeEmitido"], "razon": "x"}, headers=user)
    assert whole.status_code == 409 and whole.json["error"]["code"] == "acreditado_en_parte"
    exact = {**partial, "items": [{"indFact": 1, "nomItem": "Saldo", "cantidad": "1", "precioUnitario": str(left)}]}
    issue(api_client, user, exact)
    assert _get(api_client, user, factura["idCfeEmitido"])["saldoAcreditable"] == "0.00"


def test_debit_note_draft_issues_as_it_stands(api_client, user, factura):
    draft = api_client.get(
        DRAFT, query_string={"idCfeEmitido": factura["idCfeEmitido"], "tipo": "debito"}, headers=user
    )
    assert draft.status_code == 200 and draft.json["borrador"]["tipoCFE"] == 113
    assert "saldoAcreditable" not in draft.json
    note = issue(api_client, user, draft.json["borrador"])
    original = _get(api_client, user, factura["idCfeEmitido"])
    assert [n["idCfeEmitido"] for n in original["notas"]] == [note["idCfeEmitido"]]
    assert original["saldoAcreditable"] == factura["totales"]["mntTotal"]  # a debit note credits nothing


def test_reason_is_required_and_other_companies_get_404(api_client, user, auth_headers, factura):
    missing = api_client.post(FULL, json={"idCfeEmitido": factura["idCfeEmitido"]}, headers=user)
    assert missing.status_code == 422 and missing.json["error"]["fields"][0]["field"] == "razon"
    other = auth_headers("admin@demo.uy", company_id=2)
    assert (
        api_client.post(FULL, json={"idCfeEmitido": factura["idCfeEmitido"], "razon": "x"}, headers=other).status_code
        == 404
    )
    assert (
        api_client.get(
            DRAFT, query_string={"idCfeEmitido": factura["idCfeEmitido"], "tipo": "credito"}, headers=other
        ).status_code
        == 404
    )


def test_support_staff_cannot_cancel(api_client, auth_headers, factura):
    answer = api_client.post(
        FULL, json={"idCfeEmitido": factura["idCfeEmitido"], "razon": "x"}, headers=auth_headers("soporte@demo.uy")
    )
    assert answer.status_code == 403


def test_a_remito_has_no_credit_note(api_client, user):
    remito = issue(api_client, user, bodies.body(bodies.EREMITO))
    answer = api_client.post(FULL, json={"idCfeEmitido": remito["idCfeEmitido"], "razon": "x"}, headers=user)
    assert answer.status_code == 409 and answer.json["error"]["code"] == "tipo_sin_nota"
