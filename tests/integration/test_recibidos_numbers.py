"""The numbers a supplier reads in our answers are the receiving company's own: IDReceptor (our number for its
envelope), IDRespuesta and the answers' file names count 1, 2, 3... per company, whatever the service receives
for its other companies, so no supplier can read off the service's volume."""

from __future__ import annotations

import copy
import io
import re
import threading

import pytest
from lxml import etree
from sqlalchemy import select

from portal.service.cfe import Issuer, xmlsafe
from portal.service.cfe.schema import validate_xml
from portal.service.dgi.wsse_verify import soap_envelope
from portal.service.intercambio.transport import NAMESPACE
from portal.service.platform import db
from portal.service.recibidos import tasks
from portal.service.recibidos.models import ExchangeAnswer, ReceivedEnvelope
from tests.support import recibidos as sup

NS = {"d": "http://cfe.dgi.gub.uy"}
SCHEMAS = {"ACKSobre": "ACKSobre.xsd", "ACKCFE": "ACKCFE_Partes.xsd"}
DEMO, NORTE = 1, 2
DEMO_RUT, NORTE_RUT = sup.RECEIVER_RUT, sup.SUPPLIER_RUT
# Demo S.A. as the supplier of Comercial del Norte (who supplies Demo in tests.support.recibidos).
DEMO_AS_SUPPLIER = Issuer(
    rut=DEMO_RUT,
    razon_social="Demo S.A.",
    cdg_dgi_sucursal=1,
    domicilio_fiscal="Av. 18 de Julio 1000",
    ciudad="Montevideo",
    departamento="Montevideo",
)


@pytest.fixture
def service_config(service_config):
    # The SOBRE call below is posted by the test client, unsigned (test_recibidos_ws checks the signature).
    return {**service_config, "INTERCAMBIO_WS_REQUIRE_SIGNATURE": False}


def to_demo(idemisor: int) -> bytes:
    """An envelope Comercial del Norte sends Demo S.A., with one e-Factura."""
    return sup.envelope([sup.cfe(idemisor)], idemisor=idemisor)


def to_norte(idemisor: int) -> bytes:
    """An envelope Demo S.A. sends Comercial del Norte, with one e-Factura."""
    body = copy.deepcopy(sup.EFACTURA)
    body["receptor"] = {**sup.BUYER, "docRecep": NORTE_RUT, "rznSocRecep": "Comercial del Norte S.R.L."}
    signed = sup.cfe(idemisor, body=body, issuer=DEMO_AS_SUPPLIER)
    return sup.envelope([signed], rut_receptor=NORTE_RUT, rut_emisor=DEMO_RUT, idemisor=idemisor)


def _upload(api_client, headers, data: bytes) -> dict:
    answer = api_client.post(
        "/api/v1/recibidos",
        data={"archivos": [(io.BytesIO(data), "sobre.xml")]},
        headers=headers,
        content_type="multipart/form-data",
    )
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()["sobres"][0]


def _caratula(document: bytes, field: str) -> str | None:
    return etree.fromstring(document).findtext(f"d:Caratula/d:{field}", namespaces=NS)


def _answers(app, company_id: int) -> list[ExchangeAnswer]:
    with app.app_context():
        session = db.session()
        rows = list(
            session.scalars(
                select(ExchangeAnswer).where(ExchangeAnswer.company_id == company_id).order_by(ExchangeAnswer.id)
            )
        )
        session.expunge_all()
        return rows


def _envelope_numbers(app, company_id: int) -> dict[int, int]:
    """Each of the company's envelopes' row id -> its IDReceptor."""
    with app.app_context():
        rows = db.session().execute(
            select(ReceivedEnvelope.id, ReceivedEnvelope.id_receptor).where(ReceivedEnvelope.company_id == company_id)
        )
        return {row.id: row.id_receptor for row in rows}


def test_each_company_numbers_its_envelopes_and_answers_on_its_own(api_client, auth_headers, service_app):
    demo, norte = auth_headers("usuario@demo.uy"), auth_headers("admin@demo.uy", company_id=NORTE)
    results: dict[int, list[dict]] = {DEMO: [], NORTE: []}
    for idemisor in (1, 2, 3):  # interleaved: the two companies' rows alternate in every table
        results[DEMO].append(_upload(api_client, demo, to_demo(idemisor)))
        results[NORTE].append(_upload(api_client, norte, to_norte(idemisor)))
    duplicate = _upload(api_client, norte, to_norte(2))  # S20: names our earlier number, the company's own
    assert [r["estado"] for r in results[DEMO] + results[NORTE]] == ["AS"] * 6, results
    assert [r["sobreId"] for r in results[DEMO]] == [1, 2, 3]
    assert [r["sobreId"] for r in results[NORTE]] == [1, 2, 3]
    assert (duplicate["estado"], duplicate["sobreId"]) == ("BS", 4)
    assert "(nuestro nº 2)" in duplicate["motivos"][0]["detalle"]

    for company_id, supplier_rut, count in ((DEMO, NORTE_RUT, 6), (NORTE, DEMO_RUT, 7)):
        numbers = _envelope_numbers(service_app, company_id)
        answers = _answers(service_app, company_id)
        assert [a.id_respuesta for a in answers] == list(range(1, count + 1))
        assert [a.filename for a in answers] == [f"{a.kind}_{supplier_rut}_{a.id_respuesta}.xml" for a in answers]
        for answer in answers:
            assert validate_xml(answer.document, SCHEMAS[answer.kind]) == []
            assert _caratula(answer.document, "IDRespuesta") == str(answer.id_respuesta)
            assert _caratula(answer.document, "IDReceptor") == str(numbers[answer.sobre_id])
        assert sorted(numbers.values()) == list(range(1, len(numbers) + 1))
    s20 = _answers(service_app, NORTE)[-1]
    assert (s20.kind, _caratula(s20.document, "IDReceptor")) == ("ACKSobre", "4")
    assert "(nuestro nº 2)" in etree.fromstring(s20.document).findtext(".//d:MotivosRechazo/d:Detalle", namespaces=NS)

    # Norte's second CFE as its own users see it: the envelope's number and the answers' numbers are Norte's, and
    # an answer is asked for by its number.
    received = results[NORTE][1]["recibidos"][0]
    detail = api_client.get(f"/api/v1/recibidos/{received}", headers=norte).get_json()
    assert detail["sobreId"] == 2
    assert [(r["tipo"], r["id"]) for r in detail["respuestas"]] == [("ACKSobre", 3), ("ACKCFE", 4)]
    download = api_client.get(f"/api/v1/recibidos/{received}/respuestas/3", headers=norte)
    assert download.status_code == 200
    assert download.headers["Content-Disposition"] == f'attachment; filename="ACKSobre_{DEMO_RUT}_3.xml"'
    assert _caratula(download.data, "IDReceptor") == "2"
    # Demo's answer number 3 is another envelope's answer: not this CFE's, and never Norte's to read.
    assert api_client.get(f"/api/v1/recibidos/{received}/respuestas/5", headers=norte).status_code == 404
    assert api_client.get(f"/api/v1/recibidos/{received}/respuestas/3", headers=demo).status_code == 404


def _sobre_call(document: bytes) -> bytes:
    call = etree.Element(f"{{{NAMESPACE}}}WS_eFactura_Intercambio.SOBRE", nsmap={None: NAMESPACE})
    etree.SubElement(
        etree.SubElement(call, f"{{{NAMESPACE}}}Datain"), f"{{{NAMESPACE}}}xmlData"
    ).text = document.decode()
    return soap_envelope(call)


def test_the_exchange_web_service_tells_the_sender_the_companys_own_number(api_client, auth_headers):
    demo = auth_headers("usuario@demo.uy")
    for idemisor in (1, 2):
        _upload(api_client, demo, to_demo(idemisor))  # Demo's envelopes 1 and 2
    answer = api_client.post(
        "/ws/aws_efactura_intercambio", data=_sobre_call(to_norte(1)), content_type="text/xml; charset=utf-8"
    )
    assert answer.status_code == 200, answer.data
    said = etree.fromstring(answer.data).findtext(f".//{{{NAMESPACE}}}xmlData")
    detail = etree.fromstring(said).findtext("Respuesta/Detalle")
    assert re.search(r"número de recepción (\d+)\.", detail).group(1) == "1", detail  # Norte's first


def test_envelopes_received_at_once_get_distinct_numbers(service_app, monkeypatch):
    # Several envelopes for one company at the same moment (and one for another company among them): each its
    # own number, 1..n without a hole, and so its answers.
    # The process's XML intake gate (2 at once, 5 s wait) is not what this tests: on a loaded machine it turns
    # envelopes away with a 503 before they reach the numbers.
    monkeypatch.setattr(xmlsafe, "_intake_slots", threading.BoundedSemaphore(16))
    count = 6
    start = threading.Barrier(count + 1)
    outcomes: list[tuple[int, int]] = []
    states: list[tuple] = []  # each envelope's state and motives: said when it fails
    errors: list[BaseException] = []

    def receive(company_id: int, data: bytes) -> None:
        try:
            with service_app.app_context():
                start.wait(10)
                result = tasks.receive_and_answer(company_id, data, "api", source_name="sobre.xml")
            outcomes.append((company_id, result.id_receptor))
            states.append((company_id, result.estado, result.motives))
        except BaseException as exc:  # reported below
            errors.append(exc)

    envelopes = [to_demo(i) for i in range(1, count + 1)]
    threads = [threading.Thread(target=receive, args=(DEMO, data)) for data in envelopes]
    threads.append(threading.Thread(target=receive, args=(NORTE, to_norte(1))))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    assert sorted(n for c, n in outcomes if c == DEMO) == list(range(1, count + 1))
    assert [n for c, n in outcomes if c == NORTE] == [1]
    assert [s[1] for s in states] == ["AS"] * (count + 1), states
    assert sorted(a.id_respuesta for a in _answers(service_app, DEMO)) == list(range(1, 2 * count + 1)), states
