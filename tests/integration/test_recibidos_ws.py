"""The service's exchange web service, aws_efactura_intercambio, called over HTTP by zeep built from DGI's
WSDL (intercambio.transport.deliver, with the company's WS-Security signature): an envelope in, our answers
back to the sender's own web service by the worker, answers to our envelopes handed to intercambio.answers,
DGI's rejection notices, and what is refused."""

from __future__ import annotations

import pytest
import requests
from lxml import etree
from lxml.builder import ElementMaker
from sqlalchemy import select

from portal.service import create_app
from portal.service.cfe.schema import validate_xml
from portal.service.envios.consultas import ElectronicIssuer
from portal.service.intercambio import answers, transport
from portal.service.intercambio.directory import upsert_issuer
from portal.service.platform import db, jobs
from portal.service.recibidos.models import ExchangeAnswer, ReceivedCfe, ReceivedEnvelope
from tests.support import recibidos as sup

PATH = "/ws/aws_efactura_intercambio"
SUPPLIER_ID, DEMO_ID = 2, 1


@pytest.fixture
def app(live_service, service_config):
    """An app of the calling side on the same database (the live service is the receiving side)."""
    application = create_app(service_config)
    jobs.use_app(application)
    yield application
    application.extensions["db_engine"].dispose()


def _listed(app, rut: str, url: str) -> ElectronicIssuer:
    issuer = ElectronicIssuer(rut, "Empresa", None, url, None, None)
    with app.app_context():
        upsert_issuer(db.session(), issuer)
        db.session().commit()
    return issuer


def test_an_envelope_by_the_web_service_is_received_and_answered_by_the_senders_web_service(
    app, live_service, monkeypatch
):
    url = live_service.url + PATH
    demo = _listed(app, sup.RECEIVER_RUT, url)
    _listed(app, sup.SUPPLIER_RUT, url)  # the supplier is served here too: our answers come back to this service
    recorded: list[tuple[int, bytes, str]] = []
    monkeypatch.setattr(
        answers, "record_answer", lambda s, company_id, doc, channel: recorded.append((company_id, doc, channel))
    )
    data = sup.envelope([sup.cfe(1), sup.cfe(2)], idemisor=901)
    with app.app_context():
        result = transport.deliver(SUPPLIER_ID, demo, "SOBRE", data, "Sob_211003420017_20261127_901.xml")
    assert (result.channel, result.delivered) == ("ws", True), result.detail
    assert result.detail.startswith("0")
    with app.app_context():
        envelope = db.session().scalar(select(ReceivedEnvelope))
        assert (envelope.company_id, envelope.channel, envelope.estado, envelope.xml) == (DEMO_ID, "ws", "AS", data)
    jobs.run_pending()
    with app.app_context():
        sent = [
            (a.kind, a.state, a.delivered_by)
            for a in db.session().scalars(select(ExchangeAnswer).order_by(ExchangeAnswer.id))
        ]
    assert sent == [("ACKSobre", "enviado", "ws"), ("ACKCFE", "enviado", "ws")]
    # The supplier's side got both answers, ACKSobre first, for its own company.
    assert [(c, etree.QName(etree.fromstring(d)).localname, ch) for c, d, ch in recorded] == [
        (SUPPLIER_ID, "ACKSobre", "ws"),
        (SUPPLIER_ID, "ACKCFE", "ws"),
    ]
    assert validate_xml(recorded[1][1], "ACKCFE_Partes.xsd") == []


def _ack_sobre_for(rut_issuer: str) -> bytes:
    from datetime import datetime

    from portal.service.envios import acks as dgi_acks

    document = dgi_acks.ack_sobre_document(
        rut_dgi=sup.SUPPLIER_RUT,
        rut_emisor=rut_issuer,
        id_respuesta=1,
        file_name="Sob.xml",
        received=datetime.now().astimezone(),
        idemisor=5,
        id_receptor=9,
        count=1,
        estado="AS",
        motives=[],
        token=None,
        query_after=None,
    )
    return sup.signer().sign(document).xml


@pytest.mark.parametrize(
    "failure, code, temporary",
    [(NotImplementedError("not yet"), "2002", True), (ValueError("no es respuesta a un sobre nuestro"), "2000", False)],
)
def test_an_answer_that_cannot_be_recorded_is_retried_or_refused(
    app, live_service, monkeypatch, failure, code, temporary
):
    def refuse(*args):
        raise failure

    monkeypatch.setattr(answers, "record_answer", refuse)
    supplier = _listed(app, sup.SUPPLIER_RUT, live_service.url + PATH)
    with app.app_context():
        result = transport.deliver(DEMO_ID, supplier, "RESPUESTASOBRE", _ack_sobre_for(sup.RECEIVER_RUT), "a.xml")
    assert (result.delivered, result.temporary, result.detail[:4]) == (False, temporary, code)


def test_an_envelope_for_a_company_not_served_here(app, live_service):
    stranger = _listed(app, "214844360018", live_service.url + PATH)
    with app.app_context():
        result = transport.deliver(
            SUPPLIER_ID, stranger, "SOBRE", sup.envelope([sup.cfe(1)], rut_receptor="214844360018"), "s.xml"
        )
    assert (result.delivered, result.temporary) == (False, False) and result.detail.startswith("1001")


def test_a_refused_envelope_is_answered_with_what_is_wrong_in_it(app, live_service):
    """The answer said only DGI's words for the motive ("S01 Formato del archivo no es el indicado"), never what the
    receiver found wrong (a DOCTYPE, a schema error), which only the signed ACKSobre carried later."""
    demo = _listed(app, sup.RECEIVER_RUT, live_service.url + PATH)
    data = sup.envelope([sup.cfe(1)], idemisor=902)
    hostile = data.replace(b"?>", b'?><!DOCTYPE x [<!ENTITY a "b">]>', 1)
    with app.app_context():
        result = transport.deliver(SUPPLIER_ID, demo, "SOBRE", hostile, "Sob_211003420017_20261127_902.xml")
    assert result.delivered and result.detail.startswith("0"), result.detail
    assert "S01 Formato del archivo no es el indicado: El XML no puede declarar un DOCTYPE." in result.detail


def test_an_envelope_declared_in_another_encoding_is_answered_that_it_must_be_utf8(app, live_service):
    """DGI's documents are UTF-8: one declared UTF-16 was answered "Receptor desconocido" (its RUT, re-encoded, was
    not found), which sent its sender looking for the wrong mistake."""
    demo = _listed(app, sup.RECEIVER_RUT, live_service.url + PATH)
    data = sup.envelope([sup.cfe(1)], idemisor=903).replace(b'encoding="UTF-8"', b'encoding="UTF-16"', 1)
    assert b'encoding="UTF-16"' in data
    with app.app_context():
        result = transport.deliver(SUPPLIER_ID, demo, "SOBRE", data, "Sob_211003420017_20261127_903.xml")
    assert "Documento ilegible" in result.detail and "UTF-8" in result.detail, result.detail
    assert "Receptor desconocido" not in result.detail


def test_unsigned_or_not_soap_requests_get_a_fault(live_service):
    url = live_service.url + PATH
    body = (
        '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>'
        '<WS_eFactura_Intercambio.SOBRE xmlns="http://dgi.gub.uy"><Datain><xmlData>x</xmlData></Datain>'
        "</WS_eFactura_Intercambio.SOBRE></soap:Body></soap:Envelope>"
    )
    unsigned = requests.post(url, data=body, headers={"Content-Type": "text/xml"}, timeout=10)
    assert unsigned.status_code == 500 and b"WS-Security" in unsigned.content and b"Fault" in unsigned.content
    hostile = requests.post(url, data=b'<!DOCTYPE x [<!ENTITY a "b">]><x/>', timeout=10)
    assert hostile.status_code == 500 and b"Fault" in hostile.content


def test_a_request_too_big_gets_a_soap_fault_not_an_html_page(live_service):
    # A SOAP caller reads a Fault; werkzeug's HTML "413" page is nothing its client can parse.
    too_big = requests.post(
        live_service.url + PATH,
        data=b"<x>" + b"a" * (7 * 1024 * 1024) + b"</x>",
        headers={"Content-Type": "text/xml"},
        timeout=10,
    )
    assert too_big.status_code == 413 and too_big.headers["Content-Type"].startswith("text/xml")
    fault = etree.fromstring(too_big.content).find(".//{http://schemas.xmlsoap.org/soap/envelope/}Fault")
    assert fault.findtext("faultcode") == "SOAP-ENV:Client" and "MB" in fault.findtext("faultstring")


def test_the_wsdl_is_dgis_with_this_address(live_service):
    wsdl = requests.get(live_service.url + PATH + "?wsdl", timeout=10)
    assert wsdl.status_code == 200 and f'location="{live_service.url}{PATH}"'.encode() in wsdl.content
    assert b"WS_eFactura_Intercambio.SOBRE" in requests.get(live_service.url + PATH + "?xsd1", timeout=10).content


def _notice(rut_receptor: str, cfes: list[tuple[int, str, int]]) -> bytes:
    e = ElementMaker(namespace="http://cfe.dgi.gub.uy", nsmap={None: "http://cfe.dgi.gub.uy"})
    root = e.CFEs_Anulados_x_RechazoDGI(
        e.Caratula(
            e.RUCEmisor(sup.SUPPLIER_RUT),
            e.RUCReceptor(rut_receptor),
            e.IDComunicacion("1"),
            e.CantCFEAnulados(str(len(cfes))),
            e.Tmst("2026-11-27T10:00:00-03:00"),
        ),
        *[
            e.CFEAnulado(
                e.TipoCFE(str(t)),
                e.Serie(s),
                e.NroCFE(str(n)),
                e.FechaCFE("2026-11-27"),
                e.Motivo_Cod("RD"),
                e.Motivo_Glosa("Comprobante anulado por rechazo de DGI"),
            )
            for t, s, n in cfes
        ],
        version="1.0",
    )
    return sup.signer().sign(root).xml


def test_dgis_rejection_notice_marks_the_received_cfe_which_then_cannot_be_booked(app, live_service, usuario_headers):
    url = live_service.url + PATH
    demo = _listed(app, sup.RECEIVER_RUT, url)
    with app.app_context():
        assert transport.deliver(SUPPLIER_ID, demo, "SOBRE", sup.envelope([sup.cfe(1), sup.cfe(2)]), "s.xml").delivered
        notice = _notice(sup.RECEIVER_RUT, [(111, "A", 2)])
        assert validate_xml(notice, "CFEs_Anulados_x_RechazoDGI.xsd") == []
        result = transport.deliver(SUPPLIER_ID, demo, "NOTIFICACIONANULACIONCFE", notice, "Rech.xml")
        assert result.delivered, result.detail
        forged = notice.replace(b"<NroCFE>2<", b"<NroCFE>1<")
        refused = transport.deliver(SUPPLIER_ID, demo, "NOTIFICACIONANULACIONCFE", forged, "Rech.xml")
        assert (refused.delivered, refused.detail[:4]) == (False, "4000")
        rows = {r.nro: r for r in db.session().scalars(select(ReceivedCfe))}
    assert (rows[1].anulado_dgi, rows[2].anulado_dgi) == (False, True)
    booked = requests.post(
        f"{live_service.url}/api/v1/recibidos/{rows[2].id}/contabilizar", headers=usuario_headers, timeout=10
    )
    assert booked.status_code == 409 and booked.json()["error"]["code"] == "no_contabilizable"


@pytest.fixture
def usuario_headers(live_token_for):
    return {"Authorization": f"Bearer {live_token_for('usuario@demo.uy')}"}


def test_a_company_that_cannot_sign_its_answers_asks_the_sender_to_retry(app, live_service):
    from sqlalchemy import delete

    from portal.service.platform.models import Certificate

    demo = _listed(app, sup.RECEIVER_RUT, live_service.url + PATH)
    with app.app_context():
        db.session().execute(delete(Certificate).where(Certificate.company_id == DEMO_ID))
        db.session().commit()
        result = transport.deliver(SUPPLIER_ID, demo, "SOBRE", sup.envelope([sup.cfe(1)]), "s.xml")
        assert (result.delivered, result.temporary, result.detail[:4]) == (False, True, "1002")
        assert db.session().scalar(select(ReceivedEnvelope.id)) is None  # nothing half-stored
