"""The receiver's answers to our envelopes (ACKSobre, then ACKCFE): verified against the receiver's certificate,
matched to our envelope and recorded per receipt; the receipt JSON's `intercambio`; a commercial rejection's
prefilled credit note and the link both ways."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from portal.service.cfe.signing import shared_signer
from portal.service.envios import acks
from portal.service.intercambio import answers
from portal.service.intercambio.models import ExchangeCfe, ExchangeEnvelope
from portal.service.platform import db
from portal.service.platform.certificates import generate_self_signed
from portal.service.platform.i18n import say
from tests.support.cfe_bodies import issue
from tests.support.envios import ENVIOS_CONFIG, drain
from tests.support.exchange import NORTE, RecordingTransport, receiver_ack_cfe, receiver_ack_sobre, to_norte

GET = "/api/v1/comprobante/getByIdCfeEmitido"


@pytest.fixture
def service_config(service_config):
    return {**service_config, **ENVIOS_CONFIG, "INTERCAMBIO_DELAY_SECONDS": 0}


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


@pytest.fixture
def delivered(api_client, user, service_app, monkeypatch):
    """Two e-Facturas delivered to Comercial del Norte (company 2 of the demo) in one envelope."""
    from portal.service.intercambio import transport

    monkeypatch.setattr(transport, "deliver", RecordingTransport())
    cfes = [issue(api_client, user, to_norte()), issue(api_client, user, to_norte(adenda=None))]
    drain(service_app)
    return cfes


def _record(app, document: bytes) -> None:
    with app.app_context(), db.write_transaction() as session:
        answers.record_answer(session, 1, document, "ws")


def _exchange(api_client, user, cfe_id):
    answer = api_client.get(GET, query_string={"idCfeEmitido": cfe_id}, headers=user)
    assert answer.status_code == 200
    return answer.json["intercambio"]


def test_the_receipt_json_carries_the_receiver_state_beside_dgi(api_client, user, delivered):
    state = _exchange(api_client, user, delivered[0]["idCfeEmitido"])
    assert state["estado"] == "enviado" and state["receptor"]["rut"] == NORTE
    assert state["sobre"]["idEmisor"] == 1 and state["sobre"]["ordinal"] == 1
    assert {"registrado", "enSobre", "enviado"} <= set(state["fechas"])
    other = issue(
        api_client,
        user,
        to_norte() | {"receptor": {"tipoDocRecep": 3, "codPaisRecep": "UY", "docRecep": "13353214"}, "tipoCFE": 101},
    )
    assert (
        api_client.get(GET, query_string={"idCfeEmitido": other["idCfeEmitido"]}, headers=user).json.get("intercambio")
        is None
    )


def test_envelope_then_cfe_answers_move_each_receipt(api_client, user, service_app, delivered):
    _record(service_app, receiver_ack_sobre(service_app))
    first, second = (_exchange(api_client, user, c["idCfeEmitido"]) for c in delivered)
    assert first["estado"] == second["estado"] == "sobre_recibido" and first["sobre"]["acuse"] == "AS"
    rejection = [acks.motive("E05")]
    commercial = [{"codigo": "E24", "glosa": "Diferencia de precios y/o descuentos", "detalle": "Lista 2026"}]
    document = receiver_ack_cfe(service_app, delivered, [("AE", []), ("BE", commercial)])
    _record(service_app, document)
    _record(service_app, document)  # the same answer twice changes nothing
    first, second = (_exchange(api_client, user, c["idCfeEmitido"]) for c in delivered)
    assert first["estado"] == "aceptado" and first["final"] and "respondido" in first["fechas"]
    assert second["estado"] == "rechazado" and second["rechazoComercial"] is True
    assert second["motivos"][0]["codigo"] == "E24" and second["motivos"][0]["glosa"].startswith("Diferencia")
    assert "borradorNota" in second["borradorNota"] and "borradorNota" not in first
    # A later message may reject the first one too (after the receiver's own approval), with DGI's motive.
    _record(service_app, receiver_ack_cfe(service_app, delivered, [("BE", rejection), ("BE", commercial)]))
    first = _exchange(api_client, user, delivered[0]["idCfeEmitido"])
    assert first["estado"] == "rechazado" and first["rechazoComercial"] is False and "borradorNota" not in first


def test_an_acceptance_the_receiver_sends_after_its_first_ae_is_recorded_as_confirmed(
    api_client, user, service_app, delivered
):
    """The receiver answers AE on arrival and AE again when its accountant accepts: the second was taken for the
    first one sent again, and the issuer never learnt that the receiver had accepted it."""
    on_arrival = receiver_ack_cfe(service_app, delivered, [("AE", []), ("AE", [])], id_respuesta=8)
    _record(service_app, on_arrival)
    _record(service_app, on_arrival)  # the same answer again: not a confirmation
    first = _exchange(api_client, user, delivered[0]["idCfeEmitido"])
    assert first["estado"] == "aceptado" and "confirmado" not in first["fechas"]
    _record(service_app, receiver_ack_cfe(service_app, delivered[:1], [("AE", [])], id_respuesta=9))
    first, second = (_exchange(api_client, user, c["idCfeEmitido"]) for c in delivered)
    assert first["estado"] == "aceptado" and first["fechas"]["confirmado"] >= first["fechas"]["respondido"]
    assert "confirmado" not in second["fechas"]
    # A rejection after it (another provider's receiver may change its mind) is no confirmed acceptance.
    commercial = [{"codigo": "E24", "glosa": "Diferencia de precios y/o descuentos"}]
    _record(service_app, receiver_ack_cfe(service_app, delivered[:1], [("BE", commercial)], id_respuesta=10))
    first = _exchange(api_client, user, delivered[0]["idCfeEmitido"])
    assert first["estado"] == "rechazado" and "confirmado" not in first["fechas"]


def test_a_rejected_envelope_is_recorded_with_its_s_code(api_client, user, service_app, delivered):
    _record(service_app, receiver_ack_sobre(service_app, "BS", [acks.motive("S02")]))
    state = _exchange(api_client, user, delivered[0]["idCfeEmitido"])
    assert state["estado"] == "sobre_rechazado" and state["motivos"][0]["codigo"] == "S02"
    assert state["sobre"]["acuse"] == "BS" and state["final"] is True


def test_a_duplicate_envelope_answer_does_not_undo_the_first(api_client, user, service_app, delivered):
    _record(service_app, receiver_ack_sobre(service_app))
    _record(service_app, receiver_ack_sobre(service_app, "BS", [acks.motive("S08")]))  # our resend, already held
    assert _exchange(api_client, user, delivered[0]["idCfeEmitido"])["estado"] == "sobre_recibido"


def test_answers_that_are_not_signed_by_the_receiver_or_not_ours_are_refused(service_app, delivered):
    key, cert = generate_self_signed(NORTE, "Impostor")
    impostor = shared_signer(key, cert, "sha256")
    with pytest.raises(answers.AnswerRejected) as refused:
        _record(service_app, receiver_ack_sobre(service_app, signer=impostor))
    assert refused.value.code == "firma_invalida"
    # A catalogue message: Spanish as the exchange web service answers the sender with it, English to a reader.
    assert str(refused.value) == "La firma de la respuesta no es de un certificado del receptor."
    assert say(refused.value.message, "en") == "The answer's signature is not from a certificate of the receiver."
    tampered = receiver_ack_sobre(service_app).replace(b"<Estado>AS</Estado>", b"<Estado>BS</Estado>")
    with pytest.raises(answers.AnswerRejected, match="firma"):
        _record(service_app, tampered)
    with pytest.raises(answers.AnswerRejected) as unknown:
        _record(service_app, receiver_ack_sobre(service_app, idemisor=99))
    assert unknown.value.code == "sobre_desconocido"
    with pytest.raises(answers.AnswerRejected) as other:
        _record(service_app, receiver_ack_sobre(service_app, rut="215550030019"))  # not the envelope's receiver
    assert other.value.code == "sobre_desconocido"
    for hostile in (b"<x/>", b"no xml", b'<!DOCTYPE a [<!ENTITY b "c">]><a>&b;</a>'):
        with pytest.raises(answers.AnswerRejected) as bad:
            _record(service_app, hostile)
        assert bad.value.code == "formato"
    with service_app.app_context():
        [sobre] = db.new_session().scalars(select(ExchangeEnvelope)).all()
        assert sobre.ack_state is None  # nothing was recorded


def test_an_outside_receiver_is_verified_with_the_certificate_it_signed_with(service_app, delivered):
    # A receiver that is not a company of this service: its certificate must carry its RUT.
    with service_app.app_context(), db.write_transaction() as session:
        session.get(ExchangeEnvelope, 1).receiver_rut = "215550020013"
    key, cert = generate_self_signed("215550020013", "Receptor externo")
    _record(service_app, receiver_ack_sobre(service_app, signer=shared_signer(key, cert, "sha256"), rut="215550020013"))
    key, cert = generate_self_signed("215550040014", "Otro RUT")
    with pytest.raises(answers.AnswerRejected) as refused:
        _record(
            service_app, receiver_ack_sobre(service_app, signer=shared_signer(key, cert, "sha256"), rut="215550020013")
        )
    assert refused.value.code == "certificado_invalido"


def test_an_agreed_motive_gives_the_credit_note_the_receivers_own_words_and_reads_in_english(
    api_client, user, service_app, delivered
):
    """An E27-E60 rejection's words are its detail (its glosa a standard text): the prefilled credit note's reason
    was "E27 Otro motivo acordado entre las partes", dropping them, and the English page said the glosa in Spanish."""
    agreed = [{"codigo": "E27", "glosa": "Otro motivo acordado entre las partes", "detalle": "No pedimos cinta."}]
    _record(service_app, receiver_ack_cfe(service_app, delivered, [("AE", []), ("BE", agreed)]))
    rejected = delivered[1]["idCfeEmitido"]
    draft = api_client.get(
        _exchange(api_client, user, rejected)["borradorNota"].split("localhost", 1)[-1], headers=user
    )
    reason = draft.json["borrador"]["referencias"][0]["razonRef"]
    assert reason == "Rechazo comercial del receptor: E27 No pedimos cinta."
    [motive] = _exchange(api_client, {**user, "Accept-Language": "en"}, rejected)["motivos"]
    assert motive["texto"] == "Another motive agreed between the parties" and motive["detalle"] == "No pedimos cinta."
    own = [{"codigo": "E31", "glosa": "Entrega fuera de horario", "detalle": "Llegó a las 22 h."}]
    _record(service_app, receiver_ack_cfe(service_app, delivered, [("BE", own), ("BE", agreed)]))
    [theirs] = _exchange(api_client, {**user, "Accept-Language": "en"}, delivered[0]["idCfeEmitido"])["motivos"]
    assert theirs["texto"] == "Entrega fuera de horario"  # the receiver's own words stay as written
    long = [{**agreed[0], "detalle": "La mercadería llegó incompleta y con el embalaje roto en tres de las cajas."}]
    _record(service_app, receiver_ack_cfe(service_app, delivered, [("AE", []), ("BE", long)]))
    draft = api_client.get(
        _exchange(api_client, user, rejected)["borradorNota"].split("localhost", 1)[-1], headers=user
    )
    reason = draft.json["borrador"]["referencias"][0]["razonRef"]
    full = f"Rechazo comercial del receptor: E27 {long[0]['detalle']}"
    assert len(reason) <= 90 and reason.endswith("…"), reason  # said to be cut ...
    assert full.startswith(reason[:-1]) and full[len(reason) - 1] == " "  # ... and cut between words


def test_a_commercial_rejection_offers_the_prefilled_credit_note_and_links_it(api_client, user, service_app, delivered):
    commercial = [{"codigo": "E24", "glosa": "Diferencia de precios y/o descuentos"}]
    _record(service_app, receiver_ack_cfe(service_app, delivered, [("AE", []), ("BE", commercial)]))
    rejected = delivered[1]["idCfeEmitido"]
    draft_url = _exchange(api_client, user, rejected)["borradorNota"]
    draft = api_client.get(draft_url.split("localhost", 1)[-1], headers=user)
    assert draft.status_code == 200, draft.json
    body = draft.json["borrador"]
    reason = body["referencias"][0]["razonRef"]
    assert reason.startswith("Rechazo comercial del receptor: E24") and len(reason) <= 90
    body["items"] = body["items"][:1]
    note = issue(api_client, user, body)
    assert note["corrigeRechazoComercial"] == rejected
    state = _exchange(api_client, user, rejected)
    assert state["notaCorrectiva"] == note["idCfeEmitido"] and "borradorNota" not in state
    fetched = api_client.get(GET, query_string={"idCfeEmitido": note["idCfeEmitido"]}, headers=user).json
    assert fetched["corrigeRechazoComercial"] == rejected
    # The accepted receipt's note draft has no such reason.
    plain = api_client.get(
        "/api/v1/comprobante/borradorNota",
        query_string={"idCfeEmitido": delivered[0]["idCfeEmitido"], "tipo": "credito"},
        headers=user,
    ).json["borrador"]
    assert "razonRef" not in plain["referencias"][0]
    with service_app.app_context():
        assert db.new_session().get(ExchangeCfe, rejected).note_id == note["idCfeEmitido"]


def test_openapi_documents_the_receiver_state(api_client):
    schemas = api_client.get("/api/v1/openapi.json").json["components"]["schemas"]
    receipt = schemas["CfeEmitido"]["properties"]
    assert "intercambio" in receipt and "corrigeRechazoComercial" in receipt
    state = schemas["EstadoIntercambio"]["properties"]
    assert {"estado", "motivos", "rechazoComercial", "borradorNota", "notaCorrectiva", "avisoAnulacion"} <= set(state)
    assert "receptorElectronico" in schemas["ReceptorDgi"]["properties"]


def test_a_commercially_rejected_e_factura_for_others_is_linked_to_its_credit_note(
    api_client, user, service_app, monkeypatch
):
    # An e-Factura de venta por cuenta ajena (141) goes to an electronic receiver like any e-Factura; its
    # correcting note is a 142, which must settle the rejection as a 112 settles a 111's.
    from portal.service.intercambio import transport

    monkeypatch.setattr(transport, "deliver", RecordingTransport())
    body = to_norte() | {
        "tipoCFE": 141,
        "complFiscal": {"tipoDocMdte": 2, "pais": "UY", "docMdte": "21-900009-001-1", "nombreMdte": "DGI PRUEBA"},
    }
    invoice = issue(api_client, user, body)
    drain(service_app)
    commercial = [{"codigo": "E21", "glosa": "Mercadería en mal estado"}]
    _record(service_app, receiver_ack_cfe(service_app, [invoice], [("BE", commercial)]))
    draft_url = _exchange(api_client, user, invoice["idCfeEmitido"])["borradorNota"]
    draft = api_client.get(draft_url.split("localhost", 1)[-1], headers=user).json["borrador"]
    assert draft["tipoCFE"] == 142
    note = issue(api_client, user, draft)
    assert note["corrigeRechazoComercial"] == invoice["idCfeEmitido"]
    state = _exchange(api_client, user, invoice["idCfeEmitido"])
    assert state["notaCorrectiva"] == note["idCfeEmitido"] and "borradorNota" not in state
