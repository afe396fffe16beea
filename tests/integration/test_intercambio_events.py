"""The exchange's events reach a real webhook receiver: `recibido.nuevo` for each received CFE stored (the ones
refused on arrival too, with their motives), `intercambio.respuesta` for each answer a receiver gave on one of
our receipts, `intercambio.aceptacion_confirmada` for each acceptance a receiver confirmed in an answer of its own;
all written in the transaction that records what they tell (a rolled-back answer has none)."""

from __future__ import annotations

import io

import pytest
from sqlalchemy import func, select
from standardwebhooks.webhooks import Webhook

from portal.service.eventos.models import Event
from portal.service.intercambio import answers, transport
from portal.service.intercambio.models import ExchangeCfe
from portal.service.platform import db
from tests.integration import test_webhooks
from tests.support import recibidos as sup
from tests.support.cfe_bodies import issue
from tests.support.envios import drain
from tests.support.exchange import RecordingTransport, receiver_ack_cfe, receiver_ack_sobre, to_norte

# The webhooks tests' own fixtures: the app that delivers at once to a real receiver on 127.0.0.1.
app, client, receiver = test_webhooks.app, test_webhooks.client, test_webhooks.receiver


@pytest.fixture
def service_config(service_config):
    return {**service_config, "INTERCAMBIO_DELAY_SECONDS": 0}


def _hook(client, headers, url: str, event: str) -> str:
    answer = client.post("/api/v1/webhooks", json={"url": url, "eventos": [event]}, headers=headers)
    assert answer.status_code == 201, answer.json
    return answer.json["secreto"]


def _payloads(receiver, path: str, secret: str) -> list[dict]:
    return [Webhook(secret).verify(r.body, r.headers) for r in receiver.of_path(path)]


def test_each_received_cfe_is_a_recibido_nuevo_event(app, client, auth_headers, receiver):
    admin = auth_headers("admin@demo.uy", company_id=1)
    secret = _hook(client, admin, f"{receiver.url}/recibidos", "recibido.nuevo")
    tampered = sup.cfe(3).replace(b"Cajas de cart", b"Cajas de CART")
    files = {"archivos": [(io.BytesIO(sup.envelope([sup.cfe(1), sup.cfe(2), tampered])), "Sob_1.xml")]}
    answer = client.post("/api/v1/recibidos", data=files, headers=admin, content_type="multipart/form-data")
    assert answer.status_code == 201, answer.json
    drain(app)

    events = sorted(_payloads(receiver, "/recibidos", secret), key=lambda p: p["data"]["nro"])
    assert [p["type"] for p in events] == ["recibido.nuevo"] * 3
    assert [(p["data"]["rutEmisor"], p["data"]["nro"], p["data"]["estado"]) for p in events] == [
        (sup.SUPPLIER_RUT, 1, "AE"),
        (sup.SUPPLIER_RUT, 2, "AE"),
        (sup.SUPPLIER_RUT, 3, "BE"),
    ]
    assert events[2]["data"]["motivos"] and events[0]["data"]["motivos"] == []
    listed = client.get("/api/v1/recibidos", headers=admin).json["items"]
    assert {p["data"]["idRecibido"] for p in events} == {item["id"] for item in listed}
    assert b"<CFE" not in b"".join(r.body for r in receiver.received)  # ids and states, never the document


def test_a_receivers_answer_is_an_intercambio_respuesta_event(app, client, auth_headers, receiver, monkeypatch):
    monkeypatch.setattr(transport, "deliver", RecordingTransport())
    admin = auth_headers("admin@demo.uy", company_id=1)
    secret = _hook(client, admin, f"{receiver.url}/respuestas", "intercambio.respuesta")
    first = issue(client, admin, to_norte())
    second = issue(client, admin, to_norte(adenda=None))
    drain(app)
    commercial = [{"codigo": "E24", "glosa": "Diferencia de precios y/o descuentos", "detalle": "Lista de octubre"}]
    ack_cfe = receiver_ack_cfe(app, [first, second], [("AE", []), ("BE", commercial)])
    with app.app_context():
        with db.write_transaction() as session:  # an answer that is rolled back publishes nothing
            answers.record_answer(session, 1, ack_cfe, "ws")
            session.rollback()
        assert db.session().scalar(select(func.count()).select_from(Event).where(Event.type.like("intercambio%"))) == 0
        with db.write_transaction() as session:
            answers.record_answer(session, 1, receiver_ack_sobre(app), "ws")
            answers.record_answer(session, 1, ack_cfe, "ws")
        with db.write_transaction() as session:
            answers.record_answer(session, 1, ack_cfe, "ws")  # the same answer again: no new event
    drain(app)

    events = {p["data"]["idCfe"]: p for p in _payloads(receiver, "/respuestas", secret)}
    assert set(events) == {first["idCfeEmitido"], second["idCfeEmitido"]}
    accepted, rejected = events[first["idCfeEmitido"]]["data"], events[second["idCfeEmitido"]]["data"]
    assert (accepted["estadoReceptor"], accepted["rechazoComercial"], accepted["motivos"]) == ("aceptado", False, [])
    assert (rejected["estadoReceptor"], rejected["rechazoComercial"]) == ("rechazado", True)
    assert rejected["motivos"][0]["codigo"] == "E24" and rejected["rutReceptor"] == "211003420017"
    assert rejected["nro"] == second["nro"]


def _recorded(app, *documents: bytes, undo: bool = False) -> None:
    with app.app_context(), db.write_transaction() as session:
        for document in documents:
            answers.record_answer(session, 1, document, "ws")
        if undo:
            session.rollback()


def _count(app, model_filter) -> int:
    with app.app_context(), db.new_session() as session:
        return session.scalar(select(func.count()).select_from(Event).where(model_filter)) or 0


def test_a_receivers_confirmed_acceptance_is_one_event_with_its_record_for_the_issuer_alone(
    app, client, auth_headers, receiver, monkeypatch
):
    """The receiver's own acceptance after its AE on arrival (its accountant's decision) was recorded on the receipt
    and told no integration: intercambio.respuesta is for a new verdict, and this one is the same AE again."""
    monkeypatch.setattr(transport, "deliver", RecordingTransport())
    admin, other = auth_headers("admin@demo.uy", company_id=1), auth_headers("admin@demo.uy", company_id=2)
    secret = _hook(client, admin, f"{receiver.url}/confirmadas", "intercambio.aceptacion_confirmada")
    _hook(client, other, f"{receiver.url}/otra", "intercambio.aceptacion_confirmada")  # Norte's own: not its receipt
    first, second = issue(client, admin, to_norte()), issue(client, admin, to_norte(adenda=None))
    drain(app)
    confirmations = Event.type == "intercambio.aceptacion_confirmada"

    def answer(id_respuesta: int, *verdicts: tuple[str, list], cfes=(first,)) -> bytes:
        return receiver_ack_cfe(app, list(cfes), list(verdicts), id_respuesta=id_respuesta)

    on_arrival = answer(8, ("AE", []), ("AE", []), cfes=(first, second))
    _recorded(app, receiver_ack_sobre(app), on_arrival, on_arrival)  # the same answer twice: no confirmation
    assert _count(app, confirmations) == 0
    _recorded(app, answer(9, ("AE", [])), undo=True)  # rolled back: neither the confirmation nor its event
    assert _count(app, confirmations) == 0
    with app.app_context():
        assert db.new_session().get(ExchangeCfe, first["idCfeEmitido"]).confirmed_at is None
    _recorded(app, answer(9, ("AE", [])))
    _recorded(app, answer(9, ("AE", [])), answer(10, ("AE", [])))  # again, and another AE: confirmed already
    assert _count(app, confirmations) == 1
    # A rejection, a new acceptance and its confirmation: another acceptance, another event.
    commercial = [{"codigo": "E24", "glosa": "Diferencia precios y/o descuentos"}]
    _recorded(app, answer(11, ("BE", commercial)), answer(12, ("AE", [])))
    assert _count(app, confirmations) == 1
    _recorded(app, answer(13, ("AE", [])))
    drain(app)

    events = _payloads(receiver, "/confirmadas", secret)
    assert [p["type"] for p in events] == ["intercambio.aceptacion_confirmada"] * 2
    assert {p["data"]["idCfe"] for p in events} == {first["idCfeEmitido"]}
    data = events[-1]["data"]
    assert (data["rutReceptor"], data["nro"], data["tipoCfe"]) == ("211003420017", first["nro"], 111)
    fechas = client.get(
        "/api/v1/comprobante/getByIdCfeEmitido", query_string={"idCfeEmitido": first["idCfeEmitido"]}, headers=admin
    ).json["intercambio"]["fechas"]
    assert data["confirmado"] == fechas["confirmado"]
    assert receiver.of_path("/otra") == []
