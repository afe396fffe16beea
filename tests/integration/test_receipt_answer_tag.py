"""getByIdCfeEmitido's ETag and If-None-Match: a 304 only while every section of the JSON is what the tag was
given with (the receipt, its DGI state and envelope, the time making it late, notes, collection reference,
e-mail sends, the electronic receiver's state), and only after the caller's access is checked."""

from __future__ import annotations

import pytest
from sqlalchemy import delete, update

from portal.service.envios import outage
from portal.service.envios.models import DgiEnvelope, DgiSubmission
from portal.service.intercambio.models import ExchangeCfe
from portal.service.platform import db, jobs
from tests.support import cfe_bodies as bodies
from tests.support.envios import ENVIOS_CONFIG, drain
from tests.support.exchange import RecordingTransport, receiver_ack_cfe, receiver_ack_sobre, to_norte

GET = "/api/v1/comprobante/getByIdCfeEmitido"


@pytest.fixture
def service_config(service_config, smtp, tmp_path):
    return {
        **service_config,
        **ENVIOS_CONFIG,
        "INTERCAMBIO_DELAY_SECONDS": 0,
        "SMTP_URL": smtp.url,
        "MAIL_FROM": "comprobantes@demo.uy",
        "MAILBOX_DIR": str(tmp_path / "mailbox"),
    }


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


@pytest.fixture
def factura(api_client, user):
    return bodies.issue(api_client, user, bodies.body(bodies.EFACTURA))


def get(api_client, headers: dict, cfe_id: str, tag: str | None = None, **extra: str):
    conditional = {"If-None-Match": tag} if tag else {}
    return api_client.get(GET, query_string={"idCfeEmitido": cfe_id}, headers={**headers, **conditional, **extra})


def tag_of(api_client, headers: dict, cfe_id: str) -> str:
    answer = get(api_client, headers, cfe_id)
    assert answer.status_code == 200, answer.json
    return answer.headers["ETag"]


def changed(api_client, headers: dict, cfe_id: str, old: str) -> dict:
    """The tag no longer holds: a 200 with a new tag and the answer as a plain GET gives it now."""
    answer = get(api_client, headers, cfe_id, old)
    assert answer.status_code == 200, answer.status_code
    assert answer.headers["ETag"] != old
    assert answer.json == get(api_client, headers, cfe_id).json
    assert get(api_client, headers, cfe_id, answer.headers["ETag"]).status_code == 304
    return answer.json


def test_the_same_answer_again_is_a_304_without_a_body(api_client, user, factura):
    cfe_id = factura["idCfeEmitido"]
    first = get(api_client, user, cfe_id)
    tag = first.headers["ETag"]
    assert tag.startswith('"') and tag.endswith('"') and not tag.startswith("W/")
    again = get(api_client, user, cfe_id, tag)
    assert again.status_code == 304 and again.data == b"" and again.headers["ETag"] == tag
    # Kept by the client alone and asked about again before each use (the service's JSON is otherwise no-store).
    for answer in (first, again):
        assert answer.headers["Cache-Control"] == "private, no-cache"
        assert {"Accept", "Accept-Language"} <= set(answer.headers["Vary"].replace(" ", "").split(","))
    assert get(api_client, user, cfe_id, f"W/{tag}").status_code == 304  # If-None-Match compares weakly
    assert get(api_client, user, cfe_id, f'"otro", {tag}').status_code == 304
    assert get(api_client, user, cfe_id, "*").status_code == 304
    other = get(api_client, user, cfe_id, '"otro"')
    assert other.status_code == 200 and other.json == first.json and other.headers["ETag"] == tag
    # The XML and the PDF are not conditional: they never answer 304.
    xml = get(api_client, user, cfe_id, tag, Accept="application/xml")
    assert xml.status_code == 200 and xml.data.startswith(b"<")
    # Another language is another answer.
    english = get(api_client, user, cfe_id, tag, **{"Accept-Language": "en"})
    assert english.status_code == 200 and english.headers["ETag"] != tag


def test_a_304_only_after_the_callers_access_is_checked(api_client, auth_headers, user, factura):
    cfe_id = factura["idCfeEmitido"]
    tag = tag_of(api_client, user, cfe_id)
    other_company = get(api_client, auth_headers("admin@demo.uy", company_id=2), cfe_id, tag)
    assert other_company.status_code == 404 and other_company.json["error"]["code"] == "cfe_no_encontrado"
    assert "ETag" not in other_company.headers
    nobody = api_client.get(GET, query_string={"idCfeEmitido": cfe_id}, headers={"If-None-Match": tag})
    assert nobody.status_code == 401
    forged = get(api_client, {"Authorization": "Bearer no-es-un-token"}, cfe_id, tag)
    assert forged.status_code == 401
    # Another user who may see it: the same answer, so the same tag.
    assert get(api_client, auth_headers("admin@demo.uy", company_id=1), cfe_id, tag).status_code == 304
    assert get(api_client, user, "0" * 32, tag).status_code == 404


def test_the_dgi_state_and_its_envelope_change_the_tag(api_client, user, service_app, factura):
    cfe_id = factura["idCfeEmitido"]
    tag = tag_of(api_client, user, cfe_id)
    drain(service_app)  # packed, sent, answered: the submission moves, the envelope row is shared
    answer = changed(api_client, user, cfe_id, tag)
    assert answer["dgi"]["estado"] == "aceptado" and answer["estadoDGI"] == "aceptado"
    tag = get(api_client, user, cfe_id).headers["ETag"]
    with service_app.app_context(), db.write_transaction() as session:  # a row several receipts share
        session.execute(update(DgiEnvelope).values(token="otro-token"))
    assert changed(api_client, user, cfe_id, tag)["dgi"]["sobre"]["token"] == "otro-token"
    tag = get(api_client, user, cfe_id).headers["ETag"]
    with service_app.app_context(), db.write_transaction() as session:  # the receipt's own row (trigger)
        session.execute(update(DgiSubmission).where(DgiSubmission.cfe_id == cfe_id).values(observations=2))
    assert changed(api_client, user, cfe_id, tag)["dgi"]["observaciones"] == 2
    tag = get(api_client, user, cfe_id).headers["ETag"]
    with service_app.app_context(), db.write_transaction() as session:  # not shown: the tag holds
        session.execute(update(DgiEnvelope).values(attempts=DgiEnvelope.attempts + 1))
    assert get(api_client, user, cfe_id, tag).status_code == 304


def test_the_time_alone_makes_a_pending_receipt_late_and_changes_the_tag(api_client, user, service_app, factura):
    cfe_id = factura["idCfeEmitido"]
    tag = tag_of(api_client, user, cfe_id)
    assert get(api_client, user, cfe_id).json["dgi"]["demorado"] is False
    service_app.config["ENVIOS_OVERDUE_MINUTES"] = 0  # as if the minutes had gone by
    assert changed(api_client, user, cfe_id, tag)["dgi"]["demorado"] is True


def test_dgi_not_answering_while_the_receipt_waits_changes_the_tag(api_client, user, service_app, factura):
    """The answer says since when DGI does not answer while the receipt waits on it (as `GET /envios/dgi/aviso`),
    and nothing when DGI answers again: the receipt's own rows never moved, the tag does."""
    cfe_id = factura["idCfeEmitido"]
    tag = tag_of(api_client, user, cfe_id)
    assert "dgiSinRespuestaDesde" not in get(api_client, user, cfe_id).json["dgi"]
    with service_app.app_context():
        outage.failed("No se pudo conectar con el servicio de DGI.", 30)
    down = changed(api_client, user, cfe_id, tag)["dgi"]
    notice = api_client.get("/api/v1/envios/dgi/aviso", headers=user).json
    assert down["estado"] == "pendiente" and down["dgiSinRespuestaDesde"] == notice["sinRespuestaDesde"]
    tag = get(api_client, user, cfe_id).headers["ETag"]
    with service_app.app_context():
        assert outage.answered() is True
    again = changed(api_client, user, cfe_id, tag)["dgi"]
    assert again["estado"] == "pendiente" and "dgiSinRespuestaDesde" not in again


def test_an_outage_changes_the_tag_of_a_receipt_issued_before_its_road_to_dgi_was_kept(
    api_client, user, service_app, factura
):
    # No submission row (a receipt issued before the envíos area existed): its answer shows its own state, which
    # waits, so an outage's start and end are in its answer and must be in its tag too.
    cfe_id = factura["idCfeEmitido"]
    with service_app.app_context(), db.write_transaction() as session:
        session.execute(delete(DgiSubmission).where(DgiSubmission.cfe_id == cfe_id))
    tag = tag_of(api_client, user, cfe_id)
    with service_app.app_context():
        outage.failed("No se pudo conectar con el servicio de DGI.", 30)
    down = changed(api_client, user, cfe_id, tag)["dgi"]
    assert "dgiSinRespuestaDesde" in down
    tag = get(api_client, user, cfe_id).headers["ETag"]
    with service_app.app_context():
        assert outage.answered() is True
    assert "dgiSinRespuestaDesde" not in changed(api_client, user, cfe_id, tag)["dgi"]


def test_an_outage_leaves_the_tag_of_a_receipt_that_no_longer_waits(api_client, user, service_app, factura):
    cfe_id = factura["idCfeEmitido"]
    drain(service_app)
    tag = tag_of(api_client, user, cfe_id)
    with service_app.app_context():
        outage.failed("No se pudo conectar con el servicio de DGI.", 30)
    assert get(api_client, user, cfe_id, tag).status_code == 304
    assert "dgiSinRespuestaDesde" not in get(api_client, user, cfe_id).json["dgi"]


def test_a_note_issued_against_the_receipt_changes_its_tag(api_client, user, factura):
    cfe_id = factura["idCfeEmitido"]
    tag = tag_of(api_client, user, cfe_id)
    note = api_client.post(
        "/api/v1/comprobante/notaCreditoTotal",
        json={"idCfeEmitido": cfe_id, "razon": "Devolución"},
        headers={**user, "Idempotency-Key": "nota-etag-1"},
    )
    assert note.status_code == 201, note.json
    answer = changed(api_client, user, cfe_id, tag)
    assert [n["idCfeEmitido"] for n in answer["notas"]] == [note.json["idCfeEmitido"]]
    assert answer["saldoAcreditable"] == "0.00"


def test_a_collection_reference_changes_the_tag(api_client, user, factura):
    cfe_id = factura["idCfeEmitido"]
    tag = tag_of(api_client, user, cfe_id)
    path = "/api/v1/comprobante/reaplicarReferencia"
    assert (
        api_client.post(path, json={"idCfeEmitido": cfe_id, "referenciaCobro": "COB-1"}, headers=user).status_code
        == 200
    )
    answer = changed(api_client, user, cfe_id, tag)
    assert answer["referenciaCobro"] == "COB-1" and len(answer["historialReferencias"]) == 1
    tag = tag_of(api_client, user, cfe_id)
    body = {"idCfeEmitido": cfe_id, "referenciaCobro": "COB-2", "observacion": "Reimputado"}
    assert api_client.post(path, json=body, headers=user).status_code == 200
    assert len(changed(api_client, user, cfe_id, tag)["historialReferencias"]) == 2


def test_an_e_mail_send_changes_the_tag(api_client, user, service_app, factura, smtp):
    cfe_id = factura["idCfeEmitido"]
    tag = tag_of(api_client, user, cfe_id)
    sent = api_client.post(
        f"/api/v1/correo/comprobante/{cfe_id}/envios", json={"destinatarios": ["compras@cliente.uy"]}, headers=user
    )
    assert sent.status_code in (201, 202), sent.json
    answer = changed(api_client, user, cfe_id, tag)
    assert answer["correo"]["envios"] == 1
    tag = get(api_client, user, cfe_id).headers["ETag"]
    jobs.use_app(service_app)
    try:
        jobs.run_pending()  # the send is made: its state moves
    finally:
        jobs.use_app(None)
    assert smtp.recorder.received
    assert changed(api_client, user, cfe_id, tag)["correo"]["ultimo"]["estado"] != answer["correo"]["ultimo"]["estado"]


def test_the_electronic_receivers_answer_changes_the_tag(api_client, user, service_app, monkeypatch):
    from portal.service.intercambio import answers, transport

    monkeypatch.setattr(transport, "deliver", RecordingTransport())
    cfe_id = bodies.issue(api_client, user, to_norte())["idCfeEmitido"]
    tag = tag_of(api_client, user, cfe_id)
    drain(service_app)
    assert changed(api_client, user, cfe_id, tag)["intercambio"]["estado"] == "enviado"
    tag = get(api_client, user, cfe_id).headers["ETag"]
    with service_app.app_context(), db.write_transaction() as session:
        answers.record_answer(session, 1, receiver_ack_sobre(service_app), "ws")
    exchange = changed(api_client, user, cfe_id, tag)["intercambio"]
    assert exchange["estado"] == "sobre_recibido" and exchange["sobre"]["acuse"] == "AS"
    tag = get(api_client, user, cfe_id).headers["ETag"]
    motive = {"codigo": "E24", "glosa": "Diferencia de precios", "detalle": None}
    with service_app.app_context(), db.write_transaction() as session:  # the receipt's own row (trigger)
        session.execute(update(ExchangeCfe).where(ExchangeCfe.cfe_id == cfe_id).values(motives=[motive]))
    assert changed(api_client, user, cfe_id, tag)["intercambio"]["motivos"][0]["codigo"] == "E24"
    # A credit note linked as the correction of that receipt's commercial rejection: the note's answer says so.
    note = api_client.post(
        "/api/v1/comprobante/notaCreditoTotal",
        json={"idCfeEmitido": cfe_id, "razon": "Rechazo comercial"},
        headers={**user, "Idempotency-Key": "nota-etag-2"},
    ).json["idCfeEmitido"]
    note_tag = tag_of(api_client, user, note)
    assert get(api_client, user, note).json.get("corrigeRechazoComercial") is None
    with service_app.app_context(), db.write_transaction() as session:
        session.execute(update(ExchangeCfe).where(ExchangeCfe.cfe_id == cfe_id).values(note_id=note))
    assert changed(api_client, user, note, note_tag)["corrigeRechazoComercial"] == cfe_id


def test_the_receivers_confirmed_acceptance_changes_the_tag(api_client, user, service_app, monkeypatch):
    """The receiver's own acceptance after its AE on arrival writes only when (and which answer) on the receipt's
    exchange row, and the tag read neither: a kept answer went on saying that the receiver might still reject it."""
    from portal.service.intercambio import answers, transport

    monkeypatch.setattr(transport, "deliver", RecordingTransport())
    receipt = bodies.issue(api_client, user, to_norte())
    drain(service_app)
    with service_app.app_context(), db.write_transaction() as session:
        answers.record_answer(session, 1, receiver_ack_cfe(service_app, [receipt], [("AE", [])], 8), "ws")
    tag = tag_of(api_client, user, receipt["idCfeEmitido"])
    assert "confirmado" not in get(api_client, user, receipt["idCfeEmitido"]).json["intercambio"]["fechas"]
    with service_app.app_context(), db.write_transaction() as session:
        answers.record_answer(session, 1, receiver_ack_cfe(service_app, [receipt], [("AE", [])], 9), "ws")
    assert "confirmado" in changed(api_client, user, receipt["idCfeEmitido"], tag)["intercambio"]["fechas"]


def test_the_openapi_document_says_so(api_client):
    operation = api_client.get("/api/v1/openapi.json").json["paths"][GET]["get"]
    assert "ETag" in operation["responses"]["200"]["headers"] and "ETag" in operation["responses"]["304"]["headers"]
    assert "content" not in operation["responses"]["304"]
    assert {"name": "If-None-Match", "in": "header"}.items() <= next(
        p for p in operation["parameters"] if p["name"] == "If-None-Match"
    ).items()
