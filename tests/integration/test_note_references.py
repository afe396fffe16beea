"""A note is checked against the receipt it references before it takes a number (issue 25, items 2 to 4):
not on a receipt DGI rejected, in the original's currency (debit notes as credit notes), only on the types a
note may reference (never a credit note on a credit note), and with the original's date."""

from __future__ import annotations

import pytest

from tests.support import cfe_bodies as bodies
from tests.support.cfe_bodies import issue
from tests.support.envios import ENVIOS_CONFIG, REJECT_MARKER, drain

EMITIR = "/api/v1/comprobante/emitir"
FULL = "/api/v1/comprobante/notaCreditoTotal"
DRAFT = "/api/v1/comprobante/borradorNota"


@pytest.fixture
def service_config(service_config):
    return {**service_config, **ENVIOS_CONFIG}


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


def _draft(api_client, user, cfe_id: str, kind: str) -> dict:
    answer = api_client.get(DRAFT, query_string={"idCfeEmitido": cfe_id, "tipo": kind}, headers=user)
    assert answer.status_code == 200, answer.json
    return answer.json["borrador"]


def _fields(answer) -> dict[str, str]:
    assert answer.status_code == 422, answer.json
    return {f["field"]: f["code"] for f in answer.json["error"]["fields"]}


def _next_number(api_client, user, body: dict) -> int:
    return issue(api_client, user, body)["nro"]


def test_notes_on_a_receipt_dgi_rejected_are_refused_naming_it_and_take_no_number(api_client, user, service_app):
    good = issue(api_client, user, bodies.body(bodies.EFACTURA))
    body = bodies.body(bodies.EFACTURA)
    body["receptor"]["rznSocRecep"] = f"Cliente {REJECT_MARKER}E14"
    rejected = issue(api_client, user, body)
    drain(service_app)

    whole = api_client.post(FULL, json={"idCfeEmitido": rejected["idCfeEmitido"], "razon": "x"}, headers=user)
    assert _fields(whole) == {"referencias[0].nroCFERef": "rechazado_por_dgi"}
    assert f"{rejected['serie']}-{rejected['nro']}" in whole.json["error"]["fields"][0]["message"]
    debit = _draft(api_client, user, rejected["idCfeEmitido"], "debito")
    assert _fields(api_client.post(EMITIR, json=debit, headers=user)) == {
        "referencias[0].nroCFERef": "rechazado_por_dgi"
    }

    # No number was burnt: the first credit and debit notes that do issue are numbers 1.
    credit_ok = api_client.post(FULL, json={"idCfeEmitido": good["idCfeEmitido"], "razon": "x"}, headers=user)
    assert credit_ok.status_code == 201 and credit_ok.json["nro"] == 1
    assert _next_number(api_client, user, _draft(api_client, user, good["idCfeEmitido"], "debito")) == 1


@pytest.mark.parametrize(("original", "note"), [("EUR", "UYU"), ("UYU", "USD")])
def test_a_debit_note_is_in_its_originals_currency(api_client, user, original, note):
    body = bodies.body(bodies.EFACTURA)
    if original != "UYU":
        body.update(tpoMoneda=original, tpoCambio="42.100")
    factura = issue(api_client, user, body)
    debit = _draft(api_client, user, factura["idCfeEmitido"], "debito")
    debit["tpoMoneda"] = note
    debit.pop("tpoCambio", None)
    if note != "UYU":
        debit["tpoCambio"] = "39.250"
    answer = api_client.post(EMITIR, json=debit, headers=user)
    assert _fields(answer) == {"tpoMoneda": "moneda_distinta"}
    assert original in answer.json["error"]["fields"][0]["message"]


def test_a_credit_note_cannot_reference_a_credit_note_nor_a_debit_note_a_debit_note(api_client, user):
    factura = issue(api_client, user, bodies.body(bodies.EFACTURA))
    credit = issue(api_client, user, {**_draft(api_client, user, factura["idCfeEmitido"], "credito")})
    debit = issue(api_client, user, _draft(api_client, user, factura["idCfeEmitido"], "debito"))

    on_credit = _draft(api_client, user, factura["idCfeEmitido"], "credito")
    on_credit["referencias"] = [{"tpoDocRef": 112, "serie": credit["serie"], "nroCFERef": credit["nro"]}]
    assert _fields(api_client.post(EMITIR, json=on_credit, headers=user)) == {"referencias[0].tpoDocRef": "not_allowed"}

    on_debit = _draft(api_client, user, factura["idCfeEmitido"], "debito")
    on_debit["referencias"] = [{"tpoDocRef": 113, "serie": debit["serie"], "nroCFERef": debit["nro"]}]
    assert _fields(api_client.post(EMITIR, json=on_debit, headers=user)) == {"referencias[0].tpoDocRef": "not_allowed"}

    # A debit note may still be credited (the credit note cancels it).
    credit_of_debit = _draft(api_client, user, debit["idCfeEmitido"], "credito")
    assert credit_of_debit["referencias"][0]["tpoDocRef"] == 113
    issue(api_client, user, credit_of_debit)


def test_the_referenced_date_is_the_originals(api_client, user):
    factura = issue(api_client, user, bodies.body(bodies.EFACTURA))
    note = _draft(api_client, user, factura["idCfeEmitido"], "credito")
    note["referencias"][0]["fechaCFEref"] = "2024-01-02"
    answer = api_client.post(EMITIR, json=note, headers=user)
    assert _fields(answer) == {"referencias[0].fechaCFEref": "fecha_distinta"}
    note["referencias"][0].pop("fechaCFEref")
    issued = issue(api_client, user, note)
    assert issued["referencias"][0]["fechaCFEref"] == factura["fchEmis"]
