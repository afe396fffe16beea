"""The received CFEs through the API: upload (files or ZIP, hostile ones refused whole), list with filters,
totals and CSV, one CFE as JSON, signed XML and PDF, accept, reject with a commercial motive (a second signed
ACKCFE), book and unbook; roles and companies."""

from __future__ import annotations

import csv
import io
import re
import zipfile
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from sqlalchemy import select, update

from portal.domain.uruguay_time import MONTEVIDEO
from portal.service.cfe.schema import validate_xml
from portal.service.envios import acks as dgi_acks
from portal.service.platform import db, jobs
from portal.service.recibidos.models import ExchangeAnswer, ReceivedCfe, ReceivedEnvelope
from tests.support import recibidos as sup

URL = "/api/v1/recibidos"


def _upload(client, headers, *files: tuple[str, bytes]):
    data = {"archivos": [(io.BytesIO(content), name) for name, content in files]}
    return client.post(URL, data=data, headers=headers, content_type="multipart/form-data")


@pytest.fixture
def usuario(auth_headers):
    return auth_headers("usuario@demo.uy")


@pytest.fixture
def received(api_client, usuario):
    """Three CFEs from the supplier (one rejected on arrival) and one in dollars."""
    dollars = {**sup.EFACTURA, "tpoMoneda": "USD", "tpoCambio": "40.125"}
    tampered = sup.cfe(3).replace(b"Cajas de cart", b"Cajas de CART")
    answer = _upload(
        api_client,
        usuario,
        ("Sob_211003420017_1.xml", sup.envelope([sup.cfe(1), sup.cfe(2), tampered, sup.cfe(4, body=dollars)])),
    )
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()["sobres"][0]


def test_upload_answers_each_envelope_and_lists_newest_first_with_totals(api_client, usuario, received):
    assert (received["estado"], received["aceptados"], received["rechazados"]) == ("AS", 3, 1)
    page = api_client.get(URL, headers=usuario).get_json()
    assert [item["nro"] for item in page["items"]] == [4, 3, 2, 1]  # same moment: newest id first
    assert page["siguienteCursor"] is None
    totals = {t["moneda"]: t for t in page["totales"]}
    assert set(totals) == {"UYU", "USD"} and totals["UYU"]["cantidad"] == 2  # the BE one is no purchase
    assert [i["estado"] for i in page["items"]] == ["AE", "BE", "AE", "AE"]
    assert page["items"][1]["motivos"][0]["codigo"] == "E04"


def test_filters_and_cursor_pages(api_client, usuario, received):
    def numbers(**params):
        return [i["nro"] for i in api_client.get(URL, query_string=params, headers=usuario).get_json()["items"]]

    assert numbers(numero="A-2") == [2]
    assert numbers(numero="a 2") == [2]
    assert numbers(moneda="USD") == [4]
    assert numbers(proveedor="2110034") == [4, 3, 2, 1]
    assert numbers(proveedor="comercial del") == [4, 3, 2, 1]
    assert numbers(proveedor="Otra") == []
    assert numbers(estado="rechazado") == [3]
    assert numbers(tipo=101) == []
    assert numbers(contabilizado="true") == []
    first = api_client.get(URL, query_string={"limite": 3}, headers=usuario).get_json()
    assert [i["nro"] for i in first["items"]] == [4, 3, 2] and first["siguienteCursor"]
    rest = api_client.get(URL, query_string={"limite": 3, "cursor": first["siguienteCursor"]}, headers=usuario)
    assert [i["nro"] for i in rest.get_json()["items"]] == [1]
    bad = api_client.get(URL, query_string={"montoDesde": 10, "montoHasta": 5}, headers=usuario)
    assert bad.status_code == 422


def test_the_number_filter_reads_numbers_as_the_issued_list_does(api_client, usuario, received):
    # The issued list and its 422 message accept "only the number": the received list said so and refused it.
    def numbers(numero):
        answer = api_client.get(URL, query_string={"numero": numero}, headers=usuario)
        assert answer.status_code == 200, answer.get_json()
        return [i["nro"] for i in answer.get_json()["items"]]

    assert numbers("2") == [2]
    assert numbers("A-0000002") == [2]
    assert numbers("A2") == [2]
    assert numbers("B-2") == []


def test_csv_has_every_matching_row(api_client, usuario, received):
    answer = api_client.get(URL, headers={**usuario, "Accept": "text/csv"})
    assert answer.status_code == 200 and answer.mimetype == "text/csv"
    lines = answer.get_data(as_text=True).lstrip("\ufeff").splitlines()
    assert lines[0].startswith("Recibido;RUT proveedor") and len(lines) == 5
    assert "Comercial del Norte S.R.L." in lines[1] and ";Recibido;" in lines[1]
    totals = [row["Total"] for row in _csv_rows(answer)]  # a spreadsheet's number: decimal comma, no grouping
    assert all(re.fullmatch(r"-?\d+,\d\d", total) for total in totals), totals


def _csv_rows(answer) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(answer.get_data(as_text=True).lstrip("\ufeff")), delimiter=";"))


def _comma(amount: str) -> str:
    return amount.replace(".", ",")


def test_the_csv_has_the_net_and_iva_by_rate_as_the_supplier_signed_them_a_credit_note_negative(api_client, usuario):
    """The file had only the total: an accountant booking purchases needs the net and the IVA by rate (the IVA
    purchases book's columns), read from the signed XML, a credit note's negative as its total is."""
    invoice = {
        **sup.EFACTURA,
        "items": [
            {"indFact": 3, "nomItem": "Cajas", "cantidad": "2", "precioUnitario": "100"},
            {"indFact": 2, "nomItem": "Pan", "cantidad": "1", "precioUnitario": "50"},
            {"indFact": 1, "nomItem": "Libros", "cantidad": "1", "precioUnitario": "30"},
        ],
    }
    note = {
        **sup.EFACTURA,
        "tipoCFE": 112,
        "items": [{"indFact": 3, "nomItem": "Bonificación", "cantidad": "1", "precioUnitario": "20"}],
        "referencias": [{"tpoDocRef": 111, "serie": "A", "nroCFERef": 1, "razonRef": "Bonificación"}],
    }
    envelope = sup.envelope([sup.cfe(1, body=invoice), sup.cfe(2, body=note)], idemisor=91)
    [result] = _upload(api_client, usuario, ("s.xml", envelope)).get_json()["sobres"]
    signed = {
        detail["nro"]: detail["totales"]
        for detail in (api_client.get(f"{URL}/{i}", headers=usuario).get_json() for i in result["recibidos"])
    }
    rows = {
        int(row["Número"]): row for row in _csv_rows(api_client.get(URL, headers={**usuario, "Accept": "text/csv"}))
    }
    first, credit = signed[1], signed[2]
    assert Decimal(first["MntIVATasaBasica"]) and Decimal(first["MntIVATasaMin"]) and Decimal(first["MntNoGrv"])
    assert rows[1]["Neto tasa básica"] == _comma(first["MntNetoIVATasaBasica"])
    assert rows[1]["IVA tasa básica"] == _comma(first["MntIVATasaBasica"])
    assert rows[1]["Neto tasa mínima"] == _comma(first["MntNetoIvaTasaMin"])
    assert rows[1]["IVA tasa mínima"] == _comma(first["MntIVATasaMin"])
    assert rows[1]["Exento y no gravado"] == _comma(first["MntNoGrv"])
    assert rows[1]["Percepciones"] == rows[1]["Retenciones"] == "0,00"
    assert rows[1]["Total"] == _comma(first["MntTotal"])
    assert rows[2]["Neto tasa básica"] == "-" + _comma(credit["MntNetoIVATasaBasica"])
    assert rows[2]["IVA tasa básica"] == "-" + _comma(credit["MntIVATasaBasica"])
    assert rows[2]["Total"] == "-" + _comma(credit["MntTotal"])


def test_one_cfe_as_json_xml_and_pdf(api_client, usuario, received):
    first = received["recibidos"][0]
    detail = api_client.get(f"{URL}/{first}", headers=usuario).get_json()
    assert detail["nombreEmisor"] == "Comercial del Norte S.R.L." and detail["canal"] == "api"
    assert [line["nombre"] for line in detail["lineas"]] == ["Cajas de cartón", "Fletes"]
    assert detail["totales"]["MntTotal"] == detail["total"]
    assert [r["tipo"] for r in detail["respuestas"]] == ["ACKSobre", "ACKCFE"]
    xml = api_client.get(f"{URL}/{first}?formato=xml", headers=usuario)
    assert xml.mimetype == "application/xml" and xml.data.startswith(b"<CFE")
    pdf = api_client.get(f"{URL}/{first}?formato=pdf", headers=usuario)
    assert pdf.status_code == 200 and pdf.data.startswith(b"%PDF")


def test_a_cfe_in_dollars_says_its_rate_and_its_total_in_pesos_as_the_purchases_book_carries_it(
    api_client, usuario, received
):
    first, _second, _refused, dollars = received["recibidos"]
    detail = api_client.get(f"{URL}/{dollars}", headers=usuario).get_json()
    total = Decimal(detail["totales"]["MntTotal"])
    assert (detail["moneda"], Decimal(detail["tipoCambio"])) == ("USD", Decimal("40.125"))
    assert Decimal(detail["totalPesos"]) == (total * Decimal("40.125")).quantize(Decimal("0.01"))
    book = api_client.get(
        "/api/v1/informes/compras",
        query_string={"desde": detail["fecha"], "hasta": detail["fecha"]},
        headers=usuario,
    ).get_json()
    [in_book] = [row for row in book["filas"] if row["moneda"] == "USD"]
    assert Decimal(in_book["importesPesos"]["total"]) == Decimal(detail["totalPesos"])  # one rule, one figure
    pesos = api_client.get(f"{URL}/{first}", headers=usuario).get_json()
    assert (pesos["tipoCambio"], pesos["totalPesos"]) == (None, None)


def test_one_cfe_in_the_format_the_document_offers(api_client, usuario, received):
    """The document offered the XML and the PDF by media type but the service read only an undocumented `?formato=`:
    `Accept: application/pdf` answered the JSON. Both ways work now, and `formato` is in the document."""
    first = received["recibidos"][0]
    pdf = api_client.get(f"{URL}/{first}", headers={**usuario, "Accept": "application/pdf"})
    assert pdf.status_code == 200 and pdf.mimetype == "application/pdf" and pdf.data.startswith(b"%PDF")
    xml = api_client.get(f"{URL}/{first}", headers={**usuario, "Accept": "application/xml"})
    assert xml.mimetype == "application/xml" and xml.data.startswith(b"<CFE")
    assert api_client.get(f"{URL}/{first}", headers={**usuario, "Accept": "*/*"}).mimetype == "application/json"
    refused = api_client.get(f"{URL}/{first}", headers={**usuario, "Accept": "text/html"})
    assert refused.status_code == 406 and refused.json["error"]["code"] == "not_acceptable"
    unknown = api_client.get(f"{URL}/{first}?formato=doc", headers={**usuario, "Accept-Language": "en"})
    assert unknown.status_code == 422 and unknown.json["error"]["fields"] == [
        {"field": "formato", "code": "enum", "message": "Value not allowed (expected 'json', 'xml' or 'pdf')."}
    ]
    spec = api_client.get("/api/v1/openapi.json").json
    parameters = spec["paths"]["/api/v1/recibidos/{recibido_id}"]["get"]["parameters"]
    formato = next(p for p in parameters if p["name"] == "formato")
    assert formato["in"] == "query" and set(formato["schema"]["anyOf"][0]["enum"]) == {"json", "xml", "pdf"}


def test_reject_sends_a_second_signed_ackcfe_and_blocks_booking(api_client, usuario, received, service_app):
    second = received["recibidos"][1]
    refused = api_client.post(f"{URL}/{second}/rechazar", json={"motivo": "E40"}, headers=usuario)
    assert refused.status_code == 422  # E27-E60 need their words
    answer = api_client.post(
        f"{URL}/{second}/rechazar", json={"motivo": "E24", "detalle": "Precio acordado: $ 140"}, headers=usuario
    )
    assert answer.status_code == 200, answer.get_json()
    body = answer.get_json()
    assert body["decision"] == "rechazado" and body["motivoDecision"]["codigo"] == "E24"
    assert [r["tipo"] for r in body["respuestas"]] == ["ACKSobre", "ACKCFE", "ACKCFE"]
    # Which ACKCFE is which: they read alike ("ACKCFE" twice) on the page.
    assert [r["respondeA"] for r in body["respuestas"]] == ["recepcion", "recepcion", "decision"]
    with service_app.app_context():
        document = db.session().get(ExchangeAnswer, body["respuestas"][-1]["id"]).document
    assert validate_xml(document, "ACKCFE_Partes.xsd") == []
    [verdict] = dgi_acks.read_ack_cfe(document)
    assert (verdict.ordinal, verdict.estado, verdict.nro, verdict.motives[0]["codigo"]) == (2, "BE", 2, "E24")
    assert api_client.post(f"{URL}/{second}/aceptar", headers=usuario).status_code == 409
    assert api_client.post(f"{URL}/{second}/contabilizar", headers=usuario).status_code == 409
    assert (
        api_client.get(URL, query_string={"estado": "rechazado_comercial"}, headers=usuario).get_json()["items"][0][
            "id"
        ]
        == second
    )


def test_accept_book_and_unbook(api_client, usuario, received):
    first = received["recibidos"][0]
    assert api_client.post(f"{URL}/{first}/aceptar", headers=usuario).get_json()["decision"] == "aceptado"
    booked = api_client.post(f"{URL}/{first}/contabilizar", headers=usuario).get_json()
    assert booked["contabilizado"] is True and booked["contabilizadoEn"]
    assert [
        i["id"]
        for i in api_client.get(URL, query_string={"contabilizado": "true"}, headers=usuario).get_json()["items"]
    ] == [first]
    assert api_client.post(f"{URL}/{first}/descontabilizar", headers=usuario).get_json()["contabilizado"] is False
    rejected_on_arrival = received["recibidos"][2]
    assert api_client.post(f"{URL}/{rejected_on_arrival}/contabilizar", headers=usuario).status_code == 409


def test_a_booked_cfe_is_not_rejected_until_its_mark_is_off(api_client, usuario, received):
    """Booked, then rejected: it stayed booked (the CSV said "Rechazado;no;sí", and an accounting system pulling
    booked rows took a purchase the company refused), with no way to take the mark off. The rejection is refused
    while it is booked, saying what to do; once the mark is off it goes through."""
    first = received["recibidos"][0]
    assert api_client.post(f"{URL}/{first}/contabilizar", headers=usuario).get_json()["contabilizado"] is True
    reject = {"motivo": "E24", "detalle": "Precio acordado: $ 140"}
    refused = api_client.post(f"{URL}/{first}/rechazar", json=reject, headers=usuario)
    assert refused.status_code == 409 and refused.get_json()["error"]["code"] == "recibido_contabilizado"
    assert "quitá la marca antes de rechazarlo" in refused.get_json()["error"]["message"]
    kept = api_client.get(f"{URL}/{first}", headers=usuario).get_json()
    assert kept["decision"] is None and kept["contabilizado"] is True
    assert [r["tipo"] for r in kept["respuestas"]] == ["ACKSobre", "ACKCFE"]  # nothing told the supplier
    api_client.post(f"{URL}/{first}/descontabilizar", headers=usuario)
    rejected = api_client.post(f"{URL}/{first}/rechazar", json=reject, headers=usuario).get_json()
    assert rejected["decision"] == "rechazado" and rejected["contabilizado"] is False


def test_already_decided_names_the_day_in_uruguay(api_client, usuario, received, service_app):
    """Decided at 22:30 in Montevideo (01:30 UTC the next day): the refusal of a second decision said the next day."""
    first = received["recibidos"][0]
    assert api_client.post(f"{URL}/{first}/aceptar", headers=usuario).status_code == 200
    with service_app.app_context():
        db.session().execute(
            update(ReceivedCfe)
            .where(ReceivedCfe.id == first)
            .values(decided_at=datetime(2026, 11, 28, 1, 30, tzinfo=UTC))
        )
        db.session().commit()
    again = api_client.post(f"{URL}/{first}/aceptar", headers=usuario)
    assert (
        again.status_code == 409 and again.get_json()["error"]["message"] == "Este CFE ya fue aceptado el 27/11/2026."
    )


def test_roles_and_other_companies(api_client, auth_headers, received):
    first = received["recibidos"][0]
    soporte = auth_headers("soporte@demo.uy")
    assert api_client.get(f"{URL}/{first}", headers=soporte).status_code == 200
    assert api_client.post(f"{URL}/{first}/contabilizar", headers=soporte).status_code == 403
    assert api_client.post(URL, headers=soporte).status_code == 403
    other = auth_headers("admin@demo.uy", company_id=2)
    assert api_client.get(f"{URL}/{first}", headers=other).status_code == 404
    assert api_client.post(f"{URL}/{first}/aceptar", headers=other).status_code == 404
    assert api_client.get(URL, headers=other).get_json()["items"] == []


def test_a_zip_of_envelopes_and_a_broken_envelope_in_it(api_client, usuario):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("sobres/uno.xml", sup.envelope([sup.cfe(10)], idemisor=10))
        archive.writestr("sobres/roto.xml", b"<no es un sobre")
    answer = _upload(api_client, usuario, ("lote.zip", buffer.getvalue()))
    assert answer.status_code == 201
    results = {s["archivo"]: s for s in answer.get_json()["sobres"]}
    assert results["uno.xml"]["estado"] == "AS"
    assert results["roto.xml"]["estado"] == "BS" and results["roto.xml"]["motivos"][0]["codigo"] == "S01"


def test_an_upload_says_where_the_answers_go_and_that_an_unreadable_envelopes_go_nowhere(
    api_client, usuario, service_app
):
    """A file that is no readable envelope (a DOCTYPE, a PDF, "<no>") is answered BS S01, but no one can be known
    to answer: the portal said "the supplier is told" all the same. Each envelope's result now says who sent it
    and how our answers reach them (DGI's directory: the exchange web service, else the exchange e-mail)."""
    from portal.service.envios.consultas import ElectronicIssuer
    from portal.service.intercambio.directory import upsert_issuer

    hostile = b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a SYSTEM "file:///etc/passwd">]><x>&a;</x>'
    files = [("xxe.xml", hostile), ("factura.pdf", b"%PDF-1.4 no es un sobre"), ("no.xml", b"<no>")]
    answer = _upload(api_client, usuario, *files)
    assert answer.status_code == 201
    for result in answer.get_json()["sobres"]:
        assert (result["estado"], result["motivos"][0]["codigo"]) == ("BS", "S01")
        assert (result["rutEmisor"], result["destinoRespuesta"]) == (None, None), result["archivo"]

    [by_mail] = _upload(api_client, usuario, ("s.xml", sup.envelope([sup.cfe(80)], idemisor=80))).get_json()["sobres"]
    assert (by_mail["estado"], by_mail["rutEmisor"], by_mail["destinoRespuesta"]) == ("AS", sup.SUPPLIER_RUT, "correo")
    with service_app.app_context():
        upsert_issuer(
            db.session(),
            ElectronicIssuer(
                sup.SUPPLIER_RUT,
                "Comercial del Norte S.R.L.",
                "intercambio@norte.com.uy",
                "https://norte.com.uy/intercambio",
                None,
                None,
            ),
        )
        db.session().commit()
    [by_ws] = _upload(api_client, usuario, ("s.xml", sup.envelope([sup.cfe(81)], idemisor=81))).get_json()["sobres"]
    assert by_ws["destinoRespuesta"] == "servicio_web"
    with service_app.app_context():
        upsert_issuer(
            db.session(), ElectronicIssuer(sup.SUPPLIER_RUT, "Comercial del Norte S.R.L.", None, None, None, None)
        )
        db.session().commit()
    [unlisted] = _upload(api_client, usuario, ("s.xml", sup.envelope([sup.cfe(82)], idemisor=82))).get_json()["sobres"]
    assert (unlisted["rutEmisor"], unlisted["destinoRespuesta"]) == (sup.SUPPLIER_RUT, None)
    schema = api_client.get("/api/v1/openapi.json").get_json()["components"]["schemas"]["ResultadoSobre"]
    assert "destinoRespuesta" in schema["properties"] and "rutEmisor" in schema["properties"]


@pytest.mark.parametrize(
    "name, content, words",
    [
        ("bomba.zip", "bomb", "se expande"),
        ("anidado.zip", "nested", "otro ZIP"),
        ("roto.zip", b"PK\x03\x04 esto no es un zip", "no es un ZIP"),
    ],
)
def test_hostile_uploads_are_refused_whole(api_client, usuario, service_app, name, content, words):
    buffer = io.BytesIO()
    if content == "bomb":
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("ok.xml", sup.envelope([sup.cfe(20)], idemisor=20))
            for n in range(31):
                archive.writestr(f"ceros{n}.xml", b"0" * (2 * 1024 * 1024))
        content = buffer.getvalue()
    elif content == "nested":
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr("ok.xml", sup.envelope([sup.cfe(21)], idemisor=21))
            archive.writestr("otro.zip", b"PK")
        content = buffer.getvalue()
    answer = _upload(api_client, usuario, (name, content))
    assert answer.status_code == 422
    assert words in answer.get_json()["error"]["message"]
    with service_app.app_context():
        assert db.session().scalars(select(ExchangeAnswer)).first() is None  # nothing received


def test_an_upload_stores_every_envelope_or_none_and_names_the_one_that_stopped_it(
    api_client, usuario, service_app, monkeypatch
):
    """Each envelope of an upload was stored in a transaction of its own: when the second could not be taken in
    (the process's XML slots all busy), the first was already stored and answered while the upload said it
    failed, and the same upload sent again answered the supplier S20 (a duplicate) for an envelope the company
    had. Now nothing of the upload is stored, the refusal names the file, and sending it again receives both."""
    sup.busy_on_the_second_envelope(monkeypatch)
    files = [
        ("uno.xml", sup.envelope([sup.cfe(40)], idemisor=40)),
        ("dos.xml", sup.envelope([sup.cfe(41)], idemisor=41)),
    ]
    refused = _upload(api_client, usuario, *files)
    assert refused.status_code == 503, refused.get_json()
    assert refused.headers["Retry-After"]
    with service_app.app_context():
        assert db.session().scalars(select(ReceivedEnvelope)).first() is None
        assert db.session().scalars(select(ExchangeAnswer)).first() is None
    message = refused.get_json()["error"]["message"]
    assert "«dos.xml»" in message and "reintentá" in message and "ningún sobre" in message, message
    monkeypatch.undo()
    again = _upload(api_client, usuario, *files)
    assert again.status_code == 201, again.get_json()
    assert [(s["archivo"], s["estado"]) for s in again.get_json()["sobres"]] == [("uno.xml", "AS"), ("dos.xml", "AS")]


def test_answers_to_an_upload_go_to_the_supplier_by_mail_from_the_worker(api_client, usuario, service_app, smtp):
    from portal.service.envios.consultas import ElectronicIssuer
    from portal.service.intercambio.directory import upsert_issuer

    service_app.config["SMTP_URL"] = smtp.url
    with service_app.app_context():
        upsert_issuer(
            db.session(),
            ElectronicIssuer(
                sup.SUPPLIER_RUT, "Comercial del Norte S.R.L.", "intercambio@norte.com.uy", None, None, None
            ),
        )
        db.session().commit()
    answer = _upload(api_client, usuario, ("s.xml", sup.envelope([sup.cfe(30)], idemisor=30)))
    assert answer.status_code == 201
    jobs.use_app(service_app)
    jobs.run_pending()
    with service_app.app_context():
        states = [
            (a.kind, a.state, a.delivered_by)
            for a in db.session().scalars(select(ExchangeAnswer).order_by(ExchangeAnswer.id))
        ]
    assert states == [("ACKSobre", "enviado", "correo"), ("ACKCFE", "enviado", "correo")]
    received_mail = smtp.recorder.received
    assert [m.envelope_to for m in received_mail] == [["intercambio@norte.com.uy"]] * 2
    attached = [next(m.message.iter_attachments()) for m in received_mail]
    assert [a.get_filename().split("_")[0] for a in attached] == ["ACKSobre", "ACKCFE"]
    assert validate_xml(attached[0].get_content(), "ACKSobre.xsd") == []


def test_an_envelope_that_spends_its_whole_cpu_budget_is_refused_s01(api_client, usuario, monkeypatch):
    from portal.service.recibidos import intake

    monkeypatch.setattr(intake, "EXAMINE_CPU_SECONDS", 0.000001)
    answer = _upload(api_client, usuario, ("s.xml", sup.envelope([sup.cfe(n) for n in range(1, 21)])))
    [result] = answer.get_json()["sobres"]
    assert result["estado"] == "BS" and result["motivos"][0]["codigo"] == "S01"
    assert "costoso" in result["motivos"][0]["detalle"]


def test_our_answers_can_be_downloaded_only_through_their_own_cfe(api_client, usuario, auth_headers, received):
    first = received["recibidos"][0]
    answers = api_client.get(f"{URL}/{first}", headers=usuario).get_json()["respuestas"]
    document = api_client.get(f"{URL}/{first}/respuestas/{answers[1]['id']}", headers=usuario)
    assert document.status_code == 200 and b"<ACKCFE" in document.data
    other = _upload(api_client, usuario, ("o.xml", sup.envelope([sup.cfe(50)], idemisor=50))).get_json()["sobres"][0]
    foreign = api_client.get(f"{URL}/{other['recibidos'][0]}/respuestas/{answers[0]['id']}", headers=usuario)
    assert foreign.status_code == 404
    elsewhere = auth_headers("admin@demo.uy", company_id=2)
    assert api_client.get(f"{URL}/{first}/respuestas/{answers[0]['id']}", headers=elsewhere).status_code == 404


def test_dates_with_a_time_zone_as_xml_schema_allows_are_read_not_a_500(api_client, usuario):
    # xs:date may end in a time zone: "2027-09-24-03:00" is as valid as "2027-09-24" to DGI's schema.
    def zoned(root):
        for path in (".//d:CAEData/d:FecVenc", ".//d:IdDoc/d:FchEmis"):
            node = root.find(path, namespaces={"d": "http://cfe.dgi.gub.uy"})
            node.text += "-03:00"

    signed = sup.cfe(60, tamper=zoned)
    answer = _upload(api_client, usuario, ("z.xml", sup.envelope([signed], idemisor=60)))
    assert answer.status_code == 201, answer.get_data(as_text=True)[:300]
    [result] = answer.get_json()["sobres"]
    assert (result["estado"], result["aceptados"]) == ("AS", 1)
    detail = api_client.get(f"{URL}/{result['recibidos'][0]}", headers=usuario).get_json()
    assert detail["fecha"] == signed.split(b"<FchEmis>", 1)[1][:10].decode()


def test_a_supplier_name_that_starts_like_a_formula_is_text_in_the_csv(api_client, usuario):
    # The name is the supplier's to write; a spreadsheet must show it, never run it (OWASP "CSV Injection").
    def formula(root):
        root.find(".//d:Emisor/d:RznSoc", namespaces={"d": "http://cfe.dgi.gub.uy"}).text = '=HYPERLINK("http://x")'

    signed = sup.cfe(70, tamper=formula)
    assert _upload(api_client, usuario, ("f.xml", sup.envelope([signed], idemisor=70))).status_code == 201
    lines = api_client.get(URL, headers={**usuario, "Accept": "text/csv"}).get_data(as_text=True).splitlines()
    assert ';"\'=HYPERLINK(""http://x"")";' in lines[1]


def test_totals_count_a_credit_note_negative_and_leave_out_a_commercial_rejection(api_client, usuario):
    # As the issued list's totals and the purchases book count them: a credit note takes away, and a CFE the
    # company rejected commercially is no purchase.
    note = {
        **sup.EFACTURA,
        "tipoCFE": 112,
        "items": [{"indFact": 3, "nomItem": "Bonificación", "cantidad": "1", "precioUnitario": "200"}],
        "referencias": [{"tpoDocRef": 111, "serie": "A", "nroCFERef": 80, "razonRef": "Bonificación"}],
    }
    cfes = [sup.cfe(80), sup.cfe(81, body=note), sup.cfe(82)]
    [result] = _upload(api_client, usuario, ("t.xml", sup.envelope(cfes, idemisor=80))).get_json()["sobres"]
    invoice, credit, rejected = result["recibidos"]
    assert api_client.post(f"{URL}/{rejected}/rechazar", json={"motivo": "E21"}, headers=usuario).status_code == 200
    amounts = {i: Decimal(api_client.get(f"{URL}/{i}", headers=usuario).get_json()["total"]) for i in (invoice, credit)}
    [pesos] = api_client.get(URL, headers=usuario).get_json()["totales"]
    assert (pesos["cantidad"], Decimal(pesos["total"])) == (2, amounts[invoice] - amounts[credit])
    assert (
        api_client.get(URL, query_string={"estado": "rechazado_comercial"}, headers=usuario).get_json()["totales"] == []
    )


def test_the_csv_shows_the_moment_received_on_uruguays_clock_and_a_credit_note_negative(api_client, usuario):
    note = {
        **sup.EFACTURA,
        "tipoCFE": 112,
        "items": [{"indFact": 3, "nomItem": "Bonificación", "cantidad": "1", "precioUnitario": "200"}],
        "referencias": [{"tpoDocRef": 111, "serie": "A", "nroCFERef": 1, "razonRef": "Bonificación"}],
    }
    [result] = _upload(api_client, usuario, ("n.xml", sup.envelope([sup.cfe(90, body=note)], idemisor=90))).get_json()[
        "sobres"
    ]
    detail = api_client.get(f"{URL}/{result['recibidos'][0]}", headers=usuario).get_json()
    received = datetime.fromisoformat(detail["recibidoEn"].replace("Z", "+00:00")).astimezone(MONTEVIDEO)
    [row] = _csv_rows(api_client.get(URL, headers={**usuario, "Accept": "text/csv"}))
    assert row["Recibido"] == f"{received:%d/%m/%Y %H:%M}"
    assert row["Total"] == "-" + _comma(detail["total"])


def test_an_english_client_reads_the_refusals_in_english(api_client, usuario, received):
    english = {**usuario, "Accept-Language": "en"}
    first = received["recibidos"][0]
    assert api_client.post(f"{URL}/{first}/aceptar", headers=english).status_code == 200
    again = api_client.post(f"{URL}/{first}/aceptar", headers=english).get_json()["error"]
    assert again["code"] == "ya_decidido" and again["message"].startswith("This CFE was already accepted on ")
    missing = api_client.get(f"{URL}/999999", headers=english).get_json()["error"]["message"]
    assert missing == "There is no received CFE with that id in your company."
    broken = _upload(api_client, english, ("roto.zip", b"PK\x03\x04 no es un zip")).get_json()["error"]
    assert broken["message"] == "“roto.zip” is not a readable ZIP."
    free_text = api_client.post(f"{URL}/{received['recibidos'][1]}/rechazar", json={"motivo": "E40"}, headers=english)
    [field] = free_text.get_json()["error"]["fields"]
    assert field["message"] == "Motive E40 is agreed between the parties: write it."
    ranges = api_client.get(URL, query_string={"desde": "2026-02-02", "hasta": "2026-02-01"}, headers=english)
    assert ranges.get_json()["error"]["fields"][0]["message"] == "The date from is after the date to."


def test_an_english_client_reads_our_detail_of_a_refusal_in_english_and_the_supplier_gets_spanish(
    api_client, usuario, received, service_app
):
    """DGI's glosa stays as DGI wrote it; our own detail is said in the reader's language, and the signed answer
    to the supplier keeps it in Spanish."""
    english = {**usuario, "Accept-Language": "en"}
    [broken] = _upload(api_client, english, ("no.xml", b"<no>")).get_json()["sobres"]
    [s01] = broken["motivos"]
    assert s01["codigo"] == "S01" and s01["glosa"] == "Formato del archivo no es el indicado"
    assert s01["detalle"] == "The XML is malformed: it ends before all its tags are closed (line 1, column 5)."
    [spanish] = _upload(api_client, usuario, ("no2.xml", b"<no>")).get_json()["sobres"]
    assert spanish["motivos"][0]["detalle"] == (
        "El XML está mal formado: termina antes de cerrar todas sus etiquetas (línea 1, columna 5)."
    )
    tampered = received["recibidos"][2]
    [e04] = api_client.get(f"{URL}/{tampered}", headers=english).get_json()["motivos"]
    assert e04["detalle"] == "The CFE's signature does not verify with the envelope's certificate."
    listed = api_client.get(URL, query_string={"estado": "rechazado"}, headers=english).get_json()["items"]
    assert [m["detalle"] for r in listed for m in r["motivos"]] == [e04["detalle"]]
    spanish_e04 = api_client.get(f"{URL}/{tampered}", headers=usuario).get_json()["motivos"][0]
    assert spanish_e04["detalle"] == "La firma del CFE no verifica con el certificado del sobre."
    with service_app.app_context():
        documents = [a.document for a in db.session().scalars(select(ExchangeAnswer))]
    assert any(b"El XML est\xc3\xa1 mal formado: termina antes" in d for d in documents)
    assert any(b"La firma del CFE no verifica" in d for d in documents)
    assert not any(b"The XML is malformed" in d or b"does not verify" in d for d in documents)


def test_why_an_answer_could_not_be_delivered_is_said_in_the_readers_language(
    api_client, usuario, service_app, monkeypatch
):
    """An answer to a supplier the directory does not list waits as sin_destino, and the reason was kept as its
    Spanish sentence alone, so an English reader got it in Spanish."""
    from portal.service.recibidos import sending

    monkeypatch.setattr(sending, "route", lambda envelope, session: None)
    [result] = _upload(api_client, usuario, ("s.xml", sup.envelope([sup.cfe(70)], idemisor=70))).get_json()["sobres"]
    jobs.use_app(service_app)
    try:
        jobs.run_pending()
    finally:
        jobs.use_app(None)
    url = f"{URL}/{result['recibidos'][0]}"
    english = api_client.get(url, headers={**usuario, "Accept-Language": "en"}).get_json()["respuestas"]
    assert [(r["estado"], r["error"]) for r in english] == [
        ("sin_destino", "The supplier has no exchange web service nor exchange e-mail.")
    ] * 2
    spanish = api_client.get(url, headers=usuario).get_json()["respuestas"]
    assert {r["error"] for r in spanish} == {"No hay servicio web ni correo de intercambio del emisor."}


def test_schema_errors_in_a_refused_envelope_say_where_in_the_readers_language(api_client, usuario, service_app):
    """The detail of an S04 is libxml2's own words after ours ("línea 6: Element …"); an English reader read
    "línea", a supplier still gets the Spanish."""
    broken = sup.envelope([sup.cfe(71)], idemisor=71).replace(b"<DGICFE:Idemisor>71", b"<DGICFE:Idemisor>x71")
    english = {**usuario, "Accept-Language": "en"}
    [result] = _upload(api_client, english, ("s.xml", broken)).get_json()["sobres"]
    [s04] = result["motivos"]
    assert s04["codigo"] == "S04" and s04["detalle"].startswith("line 6: Element ") and "línea" not in s04["detalle"]
    with service_app.app_context():
        [answer] = db.session().scalars(select(ExchangeAnswer)).all()
    assert "línea 6: Element " in answer.document.decode()


def test_the_csv_says_the_companys_decision_in_the_readers_language(api_client, usuario, received):
    """The Decision column is words in the file's language (its header is), never the stored code: an English
    reader used to find «aceptado» and «rechazado» under "Decision"."""
    first, second = received["recibidos"][0], received["recibidos"][1]
    assert api_client.post(f"{URL}/{first}/aceptar", headers=usuario).status_code == 200
    rejected = api_client.post(f"{URL}/{second}/rechazar", json={"motivo": "E24"}, headers=usuario)
    assert rejected.status_code == 200

    def decisions(language: str) -> dict[str, str]:
        headers = {**usuario, "Accept": "text/csv", "Accept-Language": language}
        header, *rows = api_client.get(URL, headers=headers).get_data(as_text=True).lstrip("\ufeff").splitlines()
        column = header.split(";").index("Decision" if language == "en" else "Decisión")
        return {cells[5]: cells[column] for cells in (row.split(";") for row in rows)}  # by number

    assert decisions("en") == {"4": "", "3": "", "2": "Rejected", "1": "Accepted"}
    assert decisions("es-UY") == {"4": "", "3": "", "2": "Rechazado", "1": "Aceptado"}


def test_the_csv_names_the_type_and_what_was_answered_on_arrival_in_the_readers_language(api_client, usuario, received):
    """The Tipo and Estado columns held the codes ("111", "AE", "BE") where the pages say words."""

    def columns(language: str) -> set[tuple[str, str]]:
        headers = {**usuario, "Accept": "text/csv", "Accept-Language": language}
        type_, status = ("Type", "Status") if language == "en" else ("Tipo", "Estado")
        return {(row[type_], row[status]) for row in _csv_rows(api_client.get(URL, headers=headers))}

    assert columns("es-UY") == {("e-Factura", "Recibido"), ("e-Factura", "Rechazado al recibirlo")}
    assert columns("en") == {("e-Factura", "Received"), ("e-Factura", "Rejected on arrival")}


def test_an_english_client_reads_dgis_motives_in_english_by_their_code_and_the_glosa_stays_dgis(
    api_client, usuario, received
):
    """DGI's texts of S01-S08 and E01-E15 are said in the reader's language by their code (`texto`); the glosa, what
    the signed answer to the supplier carries, stays DGI's Spanish."""
    english = {**usuario, "Accept-Language": "en"}
    [broken] = _upload(api_client, english, ("no.xml", b"<no>")).get_json()["sobres"]
    [s01] = broken["motivos"]
    assert s01["glosa"] == "Formato del archivo no es el indicado"
    assert s01["texto"] == "The file is not in the required format"
    [e04] = api_client.get(f"{URL}/{received['recibidos'][2]}", headers=english).get_json()["motivos"]
    assert (e04["codigo"], e04["glosa"]) == ("E04", "Firma electrónica no es válida")
    assert e04["texto"] == "The electronic signature is not valid"
    [spanish] = api_client.get(f"{URL}/{received['recibidos'][2]}", headers=usuario).get_json()["motivos"]
    assert spanish["texto"] == spanish["glosa"] == "Firma electrónica no es válida"


def test_several_are_booked_at_once_and_what_cannot_be_is_said_one_by_one(api_client, usuario, auth_headers, received):
    """An accountant books a month's purchases in one call: the bookable ones are marked (one already booked
    counts), one rejected on arrival and one that does not exist stay out, each said apart; another company's
    admin reaches none of them; soporte may not book."""
    first, second, refused, dollars = received["recibidos"]
    listed = {i["id"]: i["contabilizable"] for i in api_client.get(URL, headers=usuario).get_json()["items"]}
    assert listed == {first: True, second: True, refused: False, dollars: True}  # what the portal offers to book
    assert api_client.post(f"{URL}/{second}/contabilizar", headers=usuario).status_code == 200
    norte = api_client.post(f"{URL}/contabilizar", json={"ids": [dollars]}, headers=auth_headers("admin@demo.uy", 2))
    assert norte.get_json() == {"contabilizados": [], "noContabilizables": [], "inexistentes": [dollars]}
    assert api_client.get(f"{URL}/{dollars}", headers=usuario).get_json()["contabilizado"] is False
    body = {"ids": [dollars, refused, first, 999_999, second]}
    answer = api_client.post(f"{URL}/contabilizar", json=body, headers=usuario)
    assert answer.status_code == 200, answer.get_json()
    said = answer.get_json()
    assert said["contabilizados"] == [dollars, first, second]  # in the caller's order
    [no] = said["noContabilizables"]
    assert (no["id"], no["codigo"]) == (refused, "no_contabilizable") and "rechazado" in no["mensaje"]
    assert said["inexistentes"] == [999_999]
    booked = {i["id"]: i["contabilizado"] for i in api_client.get(URL, headers=usuario).get_json()["items"]}
    assert booked == {first: True, second: True, refused: False, dollars: True}
    english = api_client.post(
        f"{URL}/contabilizar", json={"ids": [refused]}, headers={**usuario, "Accept-Language": "en"}
    )
    assert "rejected" in english.get_json()["noContabilizables"][0]["mensaje"]
    assert api_client.post(f"{URL}/contabilizar", json=body, headers=auth_headers("soporte@demo.uy")).status_code == 403


def _decision_answer(service_app, received_id: int) -> ExchangeAnswer:
    with service_app.app_context():
        return (
            db.session()
            .scalars(
                select(ExchangeAnswer).where(ExchangeAnswer.cfe_id == received_id, ExchangeAnswer.kind == "ACKCFE")
            )
            .one()
        )


def test_several_are_rejected_at_once_each_answered_as_a_rejection_of_it_alone_the_rest_said_one_by_one(
    api_client, usuario, auth_headers, received, service_app
):
    """One motive for the chosen ones: each that can be rejected is, and its supplier gets the ACKCFE a rejection
    of it alone sends (BE with the motive and its words, signed, by the envelope's channel, queued in the same
    transaction); one already accepted, one rejected on arrival and one booked are said with why, one that is not
    the company's as missing; another company's admin reaches none; soporte may not."""
    first, second, refused, dollars = received["recibidos"]
    assert api_client.post(f"{URL}/{first}/aceptar", headers=usuario).status_code == 200
    alone = api_client.post(
        f"{URL}/{second}/rechazar", json={"motivo": "E24", "detalle": "Precio: $ 140"}, headers=usuario
    )
    assert alone.status_code == 200
    later = _upload(api_client, usuario, ("Sob_2.xml", sup.envelope([sup.cfe(5), sup.cfe(6)], idemisor=2)))
    fifth, booked = later.get_json()["sobres"][0]["recibidos"]
    assert api_client.post(f"{URL}/{booked}/contabilizar", headers=usuario).status_code == 200

    body = {"ids": [dollars], "motivo": "E24", "detalle": "Precio: $ 140"}
    norte = api_client.post(f"{URL}/rechazar", json=body, headers=auth_headers("admin@demo.uy", 2))
    assert norte.get_json() == {"rechazados": [], "noRechazables": [], "inexistentes": [dollars]}
    assert api_client.post(f"{URL}/rechazar", json=body, headers=auth_headers("soporte@demo.uy")).status_code == 403
    assert api_client.get(f"{URL}/{dollars}", headers=usuario).get_json()["decision"] is None

    body["ids"] = [dollars, refused, first, 999_999, booked, fifth]
    answer = api_client.post(f"{URL}/rechazar", json=body, headers={**usuario, "Idempotency-Key": "rechazo-1"})
    assert answer.status_code == 200, answer.get_json()
    said = answer.get_json()
    assert said["rechazados"] == [dollars, fifth]  # in the caller's order
    why = {n["id"]: (n["codigo"], n["mensaje"]) for n in said["noRechazables"]}
    assert list(why) == [refused, first, booked]
    assert why[refused][0] == "recibido_rechazado" and "rechazado al recibirlo" in why[refused][1]
    assert why[first][0] == "ya_decidido" and why[first][1].startswith("Este CFE ya fue aceptado el ")
    assert why[booked][0] == "recibido_contabilizado"
    assert said["inexistentes"] == [999_999]

    # The supplier reads the same answer a rejection of one CFE sends: only the CFE and the number differ.
    by_one, by_several = _decision_answer(service_app, second), _decision_answer(service_app, dollars)
    assert (by_several.channel, by_several.state, by_several.filename.split("_")[0]) == (
        by_one.channel,
        by_one.state,
        "ACKCFE",
    )
    assert validate_xml(by_several.document, "ACKCFE_Partes.xsd") == []
    [one], [several] = dgi_acks.read_ack_cfe(by_one.document), dgi_acks.read_ack_cfe(by_several.document)
    assert (several.estado, several.motives, several.nro) == ("BE", one.motives, 4)
    detail = api_client.get(f"{URL}/{dollars}", headers=usuario).get_json()
    assert (detail["decision"], detail["motivoDecision"]["codigo"]) == ("rechazado", "E24")
    assert [r["respondeA"] for r in detail["respuestas"]] == ["recepcion", "recepcion", "decision"]

    # A retry with the same key answers the first outcome; a second click without one rejects and answers nothing
    # again: each is said as already rejected.
    again = api_client.post(f"{URL}/rechazar", json=body, headers={**usuario, "Idempotency-Key": "rechazo-1"})
    assert again.get_json() == said and again.headers["Idempotent-Replayed"] == "true"
    twice = api_client.post(f"{URL}/rechazar", json=body, headers=usuario).get_json()
    assert twice["rechazados"] == []
    assert {n["id"]: n["codigo"] for n in twice["noRechazables"]}[dollars] == "ya_decidido"
    with service_app.app_context():
        decisions = db.session().scalars(select(ExchangeAnswer).where(ExchangeAnswer.cfe_id.is_not(None))).all()
    assert sorted(a.cfe_id for a in decisions) == sorted([first, second, dollars, fifth])  # one each, ever
    english = api_client.post(f"{URL}/rechazar", json=body, headers={**usuario, "Accept-Language": "en"})
    assert "already" in english.get_json()["noRechazables"][0]["mensaje"]


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"ids": [], "motivo": "E21"}, "too_short"),
        ({"ids": [1, 1], "motivo": "E21"}, "ids_repetidos"),
        ({"ids": list(range(1, 102)), "motivo": "E21"}, "too_many"),
        ({"ids": [1], "motivo": "E19"}, "literal_error"),
        ({"ids": [1], "motivo": "E40"}, "required"),  # E27-E60: the parties' own words, for each supplier
        ({"ids": [1], "motivo": "E21", "detalle": "x" * 501}, "string_too_long"),
        ({"ids": [1]}, "missing"),
    ],
)
def test_rejecting_several_refuses_what_a_rejection_of_one_refuses_and_rejects_nothing(
    api_client, usuario, received, body, code
):
    body = {**body, "ids": [received["recibidos"][0] if i == 1 else i for i in body.get("ids", [])]}
    if code == "ids_repetidos":
        body["ids"] = [received["recibidos"][0]] * 2
    answer = api_client.post(f"{URL}/rechazar", json=body, headers=usuario)
    assert answer.status_code == 422
    assert code in {f["code"] for f in answer.get_json()["error"]["fields"]}, answer.get_json()
    assert not any(i["decision"] for i in api_client.get(URL, headers=usuario).get_json()["items"])


def test_rejecting_several_is_documented_with_its_cap_its_key_and_its_errors(api_client):
    operation = api_client.get("/api/v1/openapi.json").get_json()["paths"]["/api/v1/recibidos/rechazar"]["post"]
    assert {"200", "400", "409", "422"} <= set(operation["responses"])
    assert "hasta 100 ids" in operation["description"]
    assert any(p["name"] == "Idempotency-Key" and p["in"] == "header" for p in operation["parameters"])
    schema = api_client.get("/api/v1/openapi.json").get_json()["components"]["schemas"]["RechazarVarios"]
    assert schema["properties"]["ids"]["maxItems"] == 100


@pytest.mark.parametrize(
    ("ids", "code"),
    [
        ([], "too_short"),
        ([1, 1], "ids_repetidos"),
        (list(range(1, 502)), "too_many"),
        (["x"], "int_type"),
        ([2**63], "less_than_equal"),
        ([1.5], "int_type"),
    ],
)
def test_booking_several_refuses_no_ids_too_many_and_repeats_whole(api_client, usuario, received, ids, code):
    answer = api_client.post(f"{URL}/contabilizar", json={"ids": ids}, headers=usuario)
    assert answer.status_code == 422
    assert code in {f["code"] for f in answer.get_json()["error"]["fields"]}, answer.get_json()
    assert not any(i["contabilizado"] for i in api_client.get(URL, headers=usuario).get_json()["items"])


def test_a_months_purchases_are_booked_by_the_lists_filters_up_to_what_the_list_counted(
    api_client, usuario, auth_headers, received, monkeypatch
):
    """The list counts what can still be booked over every page, and names the newest of them; booking by the
    same filters marks those (not the rejected one, not one that arrived after the count, not another company's),
    at most the call's limit at a time, and again marks nothing twice."""
    first, second, refused, dollars = received["recibidos"]
    page = api_client.get(URL, headers=usuario, query_string={"limite": 1}).get_json()
    assert (page["sinContabilizar"], page["sinContabilizarHasta"]) == (3, dollars)  # over all pages, not one row
    in_pesos = api_client.get(URL, headers=usuario, query_string={"moneda": "UYU"}).get_json()
    assert (in_pesos["sinContabilizar"], in_pesos["sinContabilizarHasta"]) == (2, second)
    later = _upload(api_client, usuario, ("Sob_211003420017_2.xml", sup.envelope([sup.cfe(5)], idemisor=2)))
    [arrived_after] = later.get_json()["sobres"][0]["recibidos"]

    norte = api_client.post(f"{URL}/contabilizar-filtrados", json={}, headers=auth_headers("admin@demo.uy", 2))
    assert norte.get_json() == {"contabilizados": 0, "quedan": 0}
    soporte = auth_headers("soporte@demo.uy")
    assert api_client.post(f"{URL}/contabilizar-filtrados", json={}, headers=soporte).status_code == 403

    monkeypatch.setattr("portal.service.recibidos.routes.BOOK_FILTERED_LIMIT", 2)
    body = {"hastaId": page["sinContabilizarHasta"]}
    answer = api_client.post(f"{URL}/contabilizar-filtrados", json=body, headers=usuario)
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json() == {"contabilizados": 2, "quedan": 1}
    assert api_client.post(f"{URL}/contabilizar-filtrados", json=body, headers=usuario).get_json() == {
        "contabilizados": 1,
        "quedan": 0,
    }
    booked = {i["id"]: i["contabilizado"] for i in api_client.get(URL, headers=usuario).get_json()["items"]}
    assert booked == {first: True, second: True, refused: False, dollars: True, arrived_after: False}
    assert api_client.post(f"{URL}/contabilizar-filtrados", json=body, headers=usuario).get_json() == {
        "contabilizados": 0,
        "quedan": 0,
    }
    other_currency = {"moneda": "USD", "estado": "aceptado"}
    assert api_client.post(f"{URL}/contabilizar-filtrados", json=other_currency, headers=usuario).get_json() == {
        "contabilizados": 0,
        "quedan": 0,
    }
    everything_now = api_client.post(f"{URL}/contabilizar-filtrados", json={}, headers=usuario).get_json()
    assert everything_now == {"contabilizados": 1, "quedan": 0}
    after = api_client.get(URL, headers=usuario).get_json()
    assert (after["sinContabilizar"], after["sinContabilizarHasta"]) == (0, None)


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"desde": "2026-13-01"}, "date_from_datetime_parsing"),
        ({"desde": "2026-11-02", "hasta": "2026-11-01"}, "rango_invalido"),
        ({"hastaId": 0}, "greater_than_equal"),
        ({"contabilizado": False}, "extra_forbidden"),
        ({"monto_desde": "5"}, "extra_forbidden"),  # the schema's name is montoDesde
        ({"estado": "todos"}, "literal_error"),
    ],
)
def test_booking_by_filters_refuses_a_filter_it_cannot_read_and_books_nothing(
    api_client, usuario, received, body, code
):
    answer = api_client.post(f"{URL}/contabilizar-filtrados", json=body, headers=usuario)
    assert answer.status_code == 422
    assert code in {f["code"] for f in answer.get_json()["error"]["fields"]}, answer.get_json()
    assert not any(i["contabilizado"] for i in api_client.get(URL, headers=usuario).get_json()["items"])


def test_the_signed_xmls_of_the_matching_ones_download_as_one_zip_byte_for_byte(api_client, usuario, received):
    """What the company keeps for DGI: each received CFE's signed XML as its supplier sent it, a month's in one file,
    the list's filters deciding which."""
    answer = api_client.get(URL, headers={**usuario, "Accept": "application/zip"})
    assert answer.status_code == 200 and answer.mimetype == "application/zip" and answer.is_streamed
    archive = zipfile.ZipFile(io.BytesIO(answer.get_data()))
    assert archive.testzip() is None
    names = archive.namelist()
    assert names == [f"211003420017_111_A-{n:07d}.xml" for n in (4, 3, 2, 1)]  # the list's order, newest first
    for received_id, name in zip(received["recibidos"], reversed(names), strict=True):
        signed = api_client.get(f"{URL}/{received_id}", query_string={"formato": "xml"}, headers=usuario)
        assert archive.read(name) == signed.get_data()
    only = api_client.get(URL, query_string={"numero": "A-2"}, headers={**usuario, "Accept": "application/zip"})
    assert zipfile.ZipFile(io.BytesIO(only.get_data())).namelist() == ["211003420017_111_A-0000002.xml"]


@pytest.mark.parametrize("name", ["sobre\x00.xml", "sobre\x07\x1b.xml", "\x00", "sobre\u2028.xml"])
def test_a_file_name_no_xml_can_hold_is_not_echoed_into_the_answer(api_client, usuario, service_app, name):
    """An upload's file name is echoed in the ACKSobre's NomArch: one with a NUL was a 500 (lxml cannot hold it).
    Such a name is answered with DGI's pattern of an envelope's name, and the envelope is received."""
    answer = _upload(api_client, usuario, (name, sup.envelope([sup.cfe(30)], idemisor=30)))
    assert answer.status_code == 201, answer.get_json()
    [envelope] = answer.get_json()["sobres"]
    assert envelope["estado"] == "AS" and envelope["aceptados"] == 1
    with service_app.app_context():
        ack = db.session().scalars(select(ExchangeAnswer).where(ExchangeAnswer.kind == "ACKSobre")).one()
    [nom_arch] = re.findall(rb"<NomArch>([^<]*)</NomArch>", ack.document)
    assert nom_arch.startswith(b"Sob_211003420017_") and nom_arch.endswith(b"_30.xml")
