"""The issuing path's answer (presenters.issued_json, written from the values in hand) is byte for byte the
answer of the CfeEmitido model (cfe_emitido_json with just_issued): same keys, same order, same values, for
every kind of receipt. Both are computed for the same receipt in its own issuing transaction."""

from __future__ import annotations

import json

import pytest

from portal.service.comprobante import presenters, routes
from tests.support import cfe_bodies as bodies


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


@pytest.fixture
def compared(monkeypatch):
    """Every issue's answer computed both ways inside its transaction; the pairs of JSON texts."""
    pairs: list[tuple[str, str]] = []

    def both(record, warnings, session, numbering):
        fast = presenters.issued_json(record, warnings, session, numbering)
        model = presenters.cfe_emitido_json(record, warnings, session, just_issued=True, numbering=numbering)
        pairs.append((_text(fast), _text(model)))
        return fast

    monkeypatch.setattr(routes, "issued_json", both)
    return pairs


def _text(answer: dict) -> str:
    return json.dumps(answer, ensure_ascii=False, separators=(",", ":"))


def _foreign_currency_invoice() -> dict:
    body = bodies.body(bodies.EFACTURA)
    body.update(
        tpoMoneda="USD",
        tpoCambio="39.250",
        fmaPago=2,
        fchVenc="2050-01-31",
        adenda="Orden de compra 4512",
        infoAdicionalDoc="Entrega en depósito",
        mediosPago=[{"glosaMP": "Transferencia", "valorPago": "100"}],
    )
    return body


def _discounted_ticket() -> dict:
    body = bodies.body(bodies.DGI_SAMPLE_ETICKET)
    body["dscRcgGlobal"] = [{"tpoMovDR": "D", "tpoDR": 1, "glosaDR": "Descuento", "valorDR": "10", "indFactDR": 3}]
    return body


@pytest.mark.parametrize(
    "make",
    [
        lambda: bodies.body(bodies.ETICKET),
        lambda: bodies.body(bodies.DGI_SAMPLE_ETICKET),
        lambda: bodies.body(bodies.EFACTURA),
        lambda: bodies.body(bodies.EREMITO),
        _foreign_currency_invoice,
        _discounted_ticket,
    ],
    ids=["eticket", "eticket-receiver", "efactura-electronic-receiver", "eremito", "usd-invoice", "discount"],
)
def test_the_issuing_answer_is_the_models_answer_byte_for_byte(api_client, user, compared, make):
    sent = api_client.post("/api/v1/comprobante/emitir", json=make(), headers=user)
    if sent.status_code != 201:  # a body this test made up that the rules refuse proves nothing: say so
        pytest.fail(f"not issued: {sent.get_data(as_text=True)}")
    assert len(compared) == 1
    fast, model = compared[0]
    assert fast == model
    assert sent.get_data(as_text=True) == fast  # and it is what the caller got


def test_a_note_with_references_and_its_original_answer_alike(api_client, user, compared):
    original = bodies.issue(api_client, user, _foreign_currency_invoice())
    credit = bodies.note(112, 111, original["serie"], original["nro"])
    credit.update(tpoMoneda="USD", tpoCambio="39.250")
    sent = api_client.post("/api/v1/comprobante/emitir", json=credit, headers=user)
    assert sent.status_code == 201, sent.json
    assert [fast == model for fast, model in compared] == [True, True]
    assert json.loads(compared[1][0])["referencias"][0]["idCfeEmitido"] == original["idCfeEmitido"]
