"""What webhooks receive is what the OpenAPI document's `webhooks` section says (eventos/payloads.py): the flows that
publish each event of the catalogue run here, and every event they publish, with the body delivery.py builds around
it, must fit its model exactly (no field more, none less, the same JSON types); and the document has every event,
with schemas whose references resolve."""

from __future__ import annotations

import io
import json
from collections import Counter
from datetime import UTC, date, datetime

import jsonschema_rs
import pytest
from sqlalchemy import delete, select

from portal.service.comprobante import events
from portal.service.comprobante.models import IssuedCfe
from portal.service.envios import reports
from portal.service.envios.models import DgiDailyReport
from portal.service.envios.simulator import SimulatedDgi
from portal.service.eventos.catalogue import EVENTS, SUBSCRIBABLE
from portal.service.eventos.models import Event
from portal.service.eventos.payloads import DATA, DELIVERIES
from portal.service.eventos.publishing import new_event_id
from portal.service.intercambio import answers, transport
from portal.service.platform import db
from portal.service.platform.models import Certificate
from portal.service.salud import watch
from portal.service.webhooks.delivery import body_of
from tests.integration import test_salud, test_webhooks
from tests.support import recibidos as sup
from tests.support.cfe_bodies import EFACTURA, ETICKET, body, issue, note
from tests.support.envios import REJECT_MARKER, drain
from tests.support.exchange import RecordingTransport, receiver_ack_cfe, receiver_ack_sobre, to_norte

# The webhooks tests' app: envios answered at once by the simulator, webhooks to 127.0.0.1 allowed.
app, client = test_webhooks.app, test_webhooks.client
ADMIN = "admin@demo.uy"


@pytest.fixture
def service_config(service_config):
    return {**service_config, "INTERCAMBIO_DELAY_SECONDS": 0}


def _conforming(app) -> Counter:
    """Every event published so far, data and delivered body checked against their models and against what the
    OpenAPI document shows an integrator (its schema, formats included, and its examples' fields); how many of each
    type."""
    with app.app_context(), db.new_session() as session:
        published = list(session.scalars(select(Event).order_by(Event.created_at)))
    for event in published:
        DATA[event.type].model_validate_json(json.dumps(event.data))
        delivered = body_of(event.type, event.id, event.created_at, event.data)
        DELIVERIES[event.type].model_validate_json(delivered)
        _as_documented(app, event.type, delivered)
    return Counter(event.type for event in published)


def _as_documented(app, event_type: str, delivered: str) -> None:
    """A delivered body against the OpenAPI document's webhook: its schema (formats too: dates, moments), and the
    fields of one of its examples (an event may have several shapes, as a certificate's concern without one)."""
    schema, examples = _documented(app)[event_type]
    errors = [str(error).splitlines()[0] for error in schema.iter_errors(json.loads(delivered))]
    assert not errors, (event_type, errors)
    assert _fields(json.loads(delivered)) in [_fields(example) for example in examples], event_type
    # Its moment is written as the API and the data write moments (UTC with Z), and as the examples show it.
    assert json.loads(delivered)["timestamp"].endswith("Z"), delivered
    assert all(example["timestamp"].endswith("Z") for example in examples), event_type


def _documented(app) -> dict[str, tuple[jsonschema_rs.Draft202012Validator, list[dict]]]:
    """Each webhook's body schema (a validator that checks formats too) and its examples, from the served document."""
    if "test.documented_webhooks" in app.extensions:
        return app.extensions["test.documented_webhooks"]
    document = app.test_client().get("/api/v1/openapi.json").json
    found = {}
    for name, methods in document["webhooks"].items():
        media = methods["post"]["requestBody"]["content"]["application/json"]
        schema = {**media["schema"], "components": document["components"]}
        examples = [named["value"] for named in (media.get("examples") or {}).values()]
        found[name] = (jsonschema_rs.Draft202012Validator(schema, validate_formats=True), examples)
    app.extensions["test.documented_webhooks"] = found
    return found


def _fields(body: dict) -> tuple[list[str], list[str]]:
    return sorted(body), sorted(body["data"])


def test_a_receipts_events_fit_their_models(app, client, auth_headers):
    headers = auth_headers(ADMIN, company_id=1)
    ticket = issue(client, headers, body(ETICKET))  # emitir's plain path (fastpath.py)
    issue(client, headers, note(102, 101, ticket["serie"], ticket["nro"]))  # with a reference: the general path
    issue(client, headers, body(EFACTURA))  # an e-Ticket goes in the daily report: the e-Facturas go in envelopes
    rejected = body(EFACTURA)
    rejected["receptor"]["rznSocRecep"] = f"Cliente {REJECT_MARKER}E14"
    issue(client, headers, rejected)
    drain(app)
    with app.app_context(), db.write_transaction() as session:  # DGI observes only contingency receipts (CFC)
        record = session.get_one(IssuedCfe, ticket["idCfeEmitido"])
        record.dgi_status = "observado"
        events.receipt_verdict(session, record, [{"codigo": "C05", "glosa": "Observación"}])

    seen = _conforming(app)
    assert seen["comprobante.emitido"] == 4 and seen["comprobante.rechazado"] == 1
    assert seen["comprobante.aceptado"] == 1 and seen["comprobante.observado"] == 1


def test_a_refused_envelope_and_report_fit_their_models(app, client, auth_headers):
    issue(client, auth_headers(ADMIN, company_id=1), body(EFACTURA))
    app.extensions["dgi_reception"] = SimulatedDgi(app.config)
    app.config["DGI_RUT"] = "211003420017"  # envelopes addressed to the wrong RUT: DGI refuses them (S02)
    drain(app)
    assert _conforming(app)["sobre.rechazado"] == 1

    # A report DGI refuses (BR): what reports.py publishes for it, from the row it records.
    report = DgiDailyReport(
        id=7, company_id=1, fecha=date(2026, 11, 24), sec_envio=2, ack_state="BR", ack_motives=[{"codigo": "R05"}]
    )
    DATA["reporte.rechazado"].model_validate_json(json.dumps(reports.report_event(report)))
    moment = datetime(2026, 11, 25, 9, 30, tzinfo=UTC)
    _as_documented(
        app, "reporte.rechazado", body_of("reporte.rechazado", new_event_id(), moment, reports.report_event(report))
    )


def test_the_watchs_events_fit_their_models(app):
    test_salud._certificate_expires_in(app, 10)
    test_salud._first_range_nearly_used(app)
    with app.app_context():
        watch.run(1)
        with db.write_transaction() as session:  # a company without a certificate: the concern has no facts
            session.execute(delete(Certificate).where(Certificate.company_id == 2))
        watch.run(2)
    seen = _conforming(app)
    assert seen["cae.por_agotarse"] >= 1 and seen["certificado.por_vencer"] == 2


def test_the_exchanges_events_fit_their_models(app, client, auth_headers, monkeypatch):
    monkeypatch.setattr(transport, "deliver", RecordingTransport())
    admin = auth_headers(ADMIN, company_id=1)
    tampered = sup.cfe(2).replace(b"Cajas de cart", b"Cajas de CART")  # refused on arrival: with motives
    files = {"archivos": [(io.BytesIO(sup.envelope([sup.cfe(1), tampered])), "Sob_1.xml")]}
    answer = client.post("/api/v1/recibidos", data=files, headers=admin, content_type="multipart/form-data")
    assert answer.status_code == 201, answer.json
    first, second = issue(client, admin, to_norte()), issue(client, admin, to_norte(adenda=None))
    drain(app)
    commercial = [{"codigo": "E24", "glosa": "Diferencia de precios y/o descuentos", "detalle": "Lista de octubre"}]
    ack_cfe = receiver_ack_cfe(app, [first, second], [("AE", []), ("BE", commercial)])
    confirmation = receiver_ack_cfe(app, [first], [("AE", [])], id_respuesta=9)  # the receiver's own acceptance
    with app.app_context(), db.write_transaction() as session:
        answers.record_answer(session, 1, receiver_ack_sobre(app), "ws")
        answers.record_answer(session, 1, ack_cfe, "ws")
        answers.record_answer(session, 1, confirmation, "ws")

    seen = _conforming(app)
    assert seen["recibido.nuevo"] == 2 and seen["intercambio.respuesta"] == 2
    assert seen["intercambio.aceptacion_confirmada"] == 1


def test_the_test_event_fits_its_model(app, client, auth_headers):
    headers = auth_headers(ADMIN, company_id=1)
    created = client.post(
        "/api/v1/webhooks", json={"url": "http://127.0.0.1:18399/x", "eventos": ["sobre.rechazado"]}, headers=headers
    )
    assert created.status_code == 201, created.json
    assert client.post(f"/api/v1/webhooks/{created.json['id']}/prueba", headers=headers).status_code == 202
    assert _conforming(app)["webhook.prueba"] == 1


def test_a_publisher_that_adds_or_drops_a_field_does_not_fit():
    """The check above can fail: a field more, a field less or another JSON type is refused."""
    good = {"idWebhook": "we_1", "mensaje": "Evento de prueba."}
    DATA["webhook.prueba"].model_validate_json(json.dumps(good))
    for bad in ({**good, "extra": 1}, {"idWebhook": "we_1"}, {**good, "idWebhook": 1}):
        with pytest.raises(ValueError):
            DATA["webhook.prueba"].model_validate_json(json.dumps(bad))


def _refs(value) -> list[str]:
    if isinstance(value, dict):
        own = [value["$ref"]] if isinstance(value.get("$ref"), str) else []
        return own + [r for item in value.values() for r in _refs(item)]
    if isinstance(value, list):
        return [r for item in value for r in _refs(item)]
    return []


def _resolve(document: dict, ref: str) -> dict:
    assert ref.startswith("#/"), ref
    node = document
    for part in ref[2:].split("/"):
        node = node[part]
    return node


def test_the_document_describes_every_event_a_webhook_receives(api_client):
    document = api_client.get("/api/v1/openapi.json").json
    assert set(document["webhooks"]) == set(EVENTS) == set(DATA)
    for name in EVENTS:
        post = document["webhooks"][name]["post"]
        assert {p["name"] for p in post["parameters"]} >= {"webhook-id", "webhook-timestamp", "webhook-signature"}
        assert set(post["responses"]) == {"2XX", "default"}
        envelope = _resolve(document, post["requestBody"]["content"]["application/json"]["schema"]["$ref"])
        assert envelope["properties"]["type"]["const"] == name
        data = _resolve(document, envelope["properties"]["data"]["$ref"])
        assert set(data["properties"]) == set(DATA[name].model_json_schema(by_alias=True)["properties"])
        assert data["additionalProperties"] is False
    # Every reference in the document (webhooks and paths alike) names a schema it has.
    for ref in _refs(document):
        _resolve(document, ref)
    # Where integrators start (registering a webhook, the catalogue) points to the section.
    for path, method in (("/api/v1/webhooks", "post"), ("/api/v1/eventos", "get")):
        assert "sección `webhooks`" in " ".join(document["paths"][path][method]["description"].split())
    # The test event is documented, yet no webhook can subscribe to it.
    assert "webhook.prueba" not in SUBSCRIBABLE
