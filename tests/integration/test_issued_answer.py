"""emitir's two paths (comprobante.fastpath): the answer written from the values in hand is byte for byte the
CfeEmitido model's answer (cfe_emitido_json with just_issued) for every kind of receipt, both computed for the
same receipt in its own issuing transaction; the plain path stores the same rows as the general one; a replay
of its key answers the same."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from portal.service.comprobante import fastpath, presenters
from portal.service.comprobante.models import IssuedCfe
from portal.service.envios.models import DgiSubmission
from portal.service.eventos.models import Event
from portal.service.platform import db
from portal.service.platform.models import IdempotencyRecord
from tests.integration.test_export_api import today
from tests.support import cfe_bodies as bodies
from tests.unit.cfe.types_bodies import CUENTA_AJENA

EMITIR = "/api/v1/comprobante/emitir"


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


@pytest.fixture
def compared(monkeypatch):
    """Every issue's answer next to the CfeEmitido model's answer for the same receipt, read in its own issuing
    transaction: (path, the answer sent, the model's), as JSON texts."""
    pairs: list[tuple[str, str, str]] = []
    plain, general = fastpath._issue_plainly, fastpath.issued_json

    def plain_and_model(session, principal, cfe, checked, key):
        result = plain(session, principal, cfe, checked, key)
        record = session.get(IssuedCfe, result.answer["idCfeEmitido"])
        model = presenters.cfe_emitido_json(
            record, result.warnings, session, just_issued=True, numbering=result.numbering
        )
        pairs.append(("plain", _text(result.answer), _text(model)))
        return result

    def general_and_model(record, warnings, session, numbering):
        answer = general(record, warnings, session, numbering)
        model = presenters.cfe_emitido_json(record, warnings, session, just_issued=True, numbering=numbering)
        pairs.append(("general", _text(answer), _text(model)))
        return answer

    monkeypatch.setattr(fastpath, "_issue_plainly", plain_and_model)
    monkeypatch.setattr(fastpath, "issued_json", general_and_model)
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


def _foreign_currency_ticket() -> dict:
    body = bodies.body(bodies.DGI_SAMPLE_ETICKET)
    body.update(tpoMoneda="USD", tpoCambio="39.250", adenda="Mesa 4", infoAdicionalDoc="Turno noche")
    body["mediosPago"] = [{"glosaMP": "Tarjeta", "valorPago": "10"}]
    return body


def _invoice_to_a_foreigner() -> dict:
    body = bodies.body(bodies.ETICKET)
    body["receptor"] = {"tipoDocRecep": 4, "codPaisRecep": "AR", "docRecep": "AR-30712345", "rznSocRecep": "Juan Pérez"}
    return body


def _on_behalf_of_others(name: str) -> dict:
    """A sale on behalf of others: its answer carries the principal (complFiscal) as issued."""
    return today(CUENTA_AJENA[name])


def _discounted_ticket() -> dict:
    body = bodies.body(bodies.DGI_SAMPLE_ETICKET)
    body["dscRcgGlobal"] = [{"tpoMovDR": "D", "tpoDR": 1, "glosaDR": "Descuento", "valorDR": "10", "indFactDR": 3}]
    return body


@pytest.mark.parametrize(
    ("make", "path"),
    [
        (lambda: bodies.body(bodies.ETICKET), "plain"),
        (lambda: bodies.body(bodies.DGI_SAMPLE_ETICKET), "plain"),
        (lambda: bodies.body(bodies.EFACTURA), "general"),  # to a RUT: maybe an electronic receiver
        (lambda: bodies.body(bodies.EREMITO), "general"),
        (_foreign_currency_invoice, "general"),
        (_foreign_currency_ticket, "plain"),
        (_discounted_ticket, "plain"),
        (_invoice_to_a_foreigner, "plain"),
        (lambda: _on_behalf_of_others("131"), "plain"),
        (lambda: _on_behalf_of_others("141-dgi-sample"), "general"),
    ],
    ids=[
        "eticket",
        "eticket-receiver",
        "efactura",
        "eremito",
        "usd-invoice",
        "usd-ticket",
        "discount",
        "foreigner",
        "on-behalf-ticket",
        "on-behalf-invoice",
    ],
)
def test_the_issuing_answer_is_the_models_answer_byte_for_byte(api_client, user, compared, make, path):
    sent = api_client.post(EMITIR, json=make(), headers=user)
    if sent.status_code != 201:  # a body this test made up that the rules refuse proves nothing: say so
        pytest.fail(f"not issued: {sent.get_data(as_text=True)}")
    assert [taken for taken, _fast, _model in compared] == [path]
    _taken, fast, model = compared[0]
    assert fast == model
    assert sent.get_data(as_text=True) == fast  # and it is what the caller got


def test_a_note_with_references_and_its_original_answer_alike(api_client, user, compared):
    original = bodies.issue(api_client, user, _foreign_currency_invoice())
    credit = bodies.note(112, 111, original["serie"], original["nro"])
    credit.update(tpoMoneda="USD", tpoCambio="39.250")
    sent = api_client.post(EMITIR, json=credit, headers=user)
    assert sent.status_code == 201, sent.json
    assert [fast == model for _path, fast, model in compared] == [True, True]
    assert json.loads(compared[1][1])["referencias"][0]["idCfeEmitido"] == original["idCfeEmitido"]


# What differs between two issues of the same body, whichever path: the receipt's identity, number, moment and
# signature (the signature covers the number and the moment).
_PER_ISSUE = {"id", "nro", "tmst_firma", "created_at", "xml", "digest", "security_code", "qr_url", "request_id"}


def _stored(service_app, cfe_id: str) -> tuple[dict, dict, list]:
    with service_app.app_context():
        session = db.session()
        receipt = session.execute(select(IssuedCfe.__table__).where(IssuedCfe.id == cfe_id)).mappings().one()
        submission = (
            session.execute(select(DgiSubmission.__table__).where(DgiSubmission.cfe_id == cfe_id)).mappings().one()
        )
        events = session.execute(
            select(Event.type, Event.data, Event.company_id).where(Event.data["idCfe"].as_string() == cfe_id)
        ).all()
    kept = {k: v for k, v in receipt.items() if k not in _PER_ISSUE and k != "idempotency_key"}
    sub = {k: v for k, v in submission.items() if k not in {"cfe_id", "created_at"}}
    return kept, sub, [(t, {k: v for k, v in d.items() if k not in {"idCfe", "nro"}}, c) for t, d, c in events]


@pytest.mark.parametrize("make", [lambda: bodies.body(bodies.ETICKET), _invoice_to_a_foreigner])
def test_both_paths_store_the_same_rows(api_client, user, service_app, monkeypatch, make):
    """The receipt, its road to DGI and its webhook event, column by column, as the general path stores them."""
    plain = bodies.issue(api_client, user, make(), **{"Idempotency-Key": "plain-1"})
    monkeypatch.setattr(fastpath, "covers", lambda cfe, rut: False)
    general = bodies.issue(api_client, user, make(), **{"Idempotency-Key": "general-1"})
    assert plain["nro"] == general["nro"] - 1  # gapless across the two paths
    assert _stored(service_app, plain["idCfeEmitido"]) == _stored(service_app, general["idCfeEmitido"])
    with service_app.app_context():
        keys = {
            k.key: (k.state, k.response_status, k.response_body["idCfeEmitido"])
            for k in db.session().scalars(select(IdempotencyRecord))
        }
    assert keys == {
        "plain-1": ("done", 201, plain["idCfeEmitido"]),
        "general-1": ("done", 201, general["idCfeEmitido"]),
    }


def test_a_replay_of_a_plain_issue_is_its_answer(api_client, user):
    first = api_client.post(EMITIR, json=bodies.body(bodies.ETICKET), headers={**user, "Idempotency-Key": "k-1"})
    again = api_client.post(EMITIR, json=bodies.body(bodies.ETICKET), headers={**user, "Idempotency-Key": "k-1"})
    assert first.status_code == again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.json == first.json
