"""Keying a paper contingency receipt (CFC) in through emitir: checked against the registered book, signed as its
1xx element with TipoCFE 2xx and the paper's serie and number, sent to DGI only, observed, corrected, accepted;
each refusal with its code; each paper number once; voiding a book's unused numbers."""

from __future__ import annotations

import subprocess
from datetime import timedelta
from decimal import Decimal

import pytest
from lxml import etree
from sqlalchemy import select

from portal.domain.uruguay_time import today_montevideo
from portal.service.cfe.schema import validate_xml
from portal.service.comprobante.models import IssuedCfe
from portal.service.envios.models import DgiSubmission
from portal.service.platform import db
from portal.service.platform.models import Certificate
from tests.support import cfe_bodies as bodies
from tests.support.envios import ENVIOS_CONFIG, REJECT_MARKER, drain

NS = {"d": "http://cfe.dgi.gub.uy"}
CAE_ID = "90261234567"


@pytest.fixture
def service_config(service_config):
    return {**service_config, **ENVIOS_CONFIG}


@pytest.fixture
def admin(auth_headers):
    return auth_headers("admin@demo.uy", 1)


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


@pytest.fixture
def book(api_client, admin):
    today = today_montevideo()
    body = {
        "tipoCFE": 211,
        "serie": "B",
        "desde": 1,
        "hasta": 50,
        "caeId": CAE_ID,
        "fechaAutorizacion": (today - timedelta(days=30)).isoformat(),
        "vencimiento": (today + timedelta(days=700)).isoformat(),
    }
    answer = api_client.post("/api/v1/empresa/contingencia", json=body, headers=admin)
    assert answer.status_code == 201, answer.json
    return answer.json


def paper(nro: int, *, tipo: int = 211, serie: str = "B", days_ago: int = 2, **changes) -> dict:
    body = {**bodies.body(bodies.EFACTURA), "tipoCFE": tipo, "contingencia": {"serie": serie, "nro": nro}}
    body["fchEmis"] = (today_montevideo() - timedelta(days=days_ago)).isoformat()
    return {**body, **changes}


def key_in(api_client, headers, body, **extra):
    return api_client.post("/api/v1/comprobante/emitir", json=body, headers={**headers, **extra})


def cancel(api_client, headers, cfe_id: str, reason: str):
    """notaCreditoTotal: the receipt cancelled with one credit note."""
    body = {"idCfeEmitido": cfe_id, "razon": reason}
    return api_client.post("/api/v1/comprobante/notaCreditoTotal", json=body, headers=headers)


def paper_remito(nro: int, days_ago: int) -> dict:
    """A paper e-Remito de contingencia (281) of serie R."""
    return {
        "tipoCFE": 281,
        "tipoTraslado": 1,
        "receptor": bodies.BUYER,
        "items": [{"nomItem": "Cajas", "cantidad": "3", "indFact": 8}],
        "contingencia": {"serie": "R", "nro": nro},
        "fchEmis": (today_montevideo() - timedelta(days=days_ago)).isoformat(),
    }


def register_book(api_client, admin, tipo: int, serie: str, cae_id: str, *, expires_in: int) -> dict:
    """A 10-number book of `tipo` authorised 60 days ago, expiring `expires_in` days from today."""
    today = today_montevideo()
    body = {
        "tipoCFE": tipo,
        "serie": serie,
        "desde": 1,
        "hasta": 10,
        "caeId": cae_id,
        "fechaAutorizacion": (today - timedelta(days=60)).isoformat(),
        "vencimiento": (today + timedelta(days=expires_in)).isoformat(),
    }
    answer = api_client.post("/api/v1/empresa/contingencia", json=body, headers=admin)
    assert answer.status_code == 201, answer.json
    return answer.json


def test_a_paper_cfc_is_signed_as_its_1xx_element_with_tipocfe_2xx_and_the_paper_numbers(
    api_client, user, book, service_app, tmp_path
):
    answer = key_in(api_client, user, paper(7))
    assert answer.status_code == 201, answer.json
    issued = answer.json
    assert (issued["tipoCFE"], issued["serie"], issued["nro"]) == (211, "B", 7)
    assert issued["cae"] == {"caeId": CAE_ID, "dNro": 1, "hNro": 50, "fecVenc": book["vencimiento"]}
    xml = api_client.get(
        "/api/v1/comprobante/getByIdCfeEmitido",
        query_string={"idCfeEmitido": issued["idCfeEmitido"]},
        headers={**user, "Accept": "application/xml"},
    ).data
    root = etree.fromstring(xml)
    assert root.find("d:eFact", NS) is not None
    iddoc = "d:eFact/d:Encabezado/d:IdDoc/d:"
    assert [root.findtext(iddoc + n, namespaces=NS) for n in ("TipoCFE", "Serie", "Nro")] == ["211", "B", "7"]
    assert root.findtext("d:eFact/d:CAEData/d:CAE_ID", namespaces=NS) == CAE_ID
    assert validate_xml(xml, "CFEDGI.xsd") == []
    with service_app.app_context():
        record = db.new_session().get(IssuedCfe, issued["idCfeEmitido"])
        cert = db.new_session().get(Certificate, record.certificate_id)
        assert record.cae_range_id is None and record.libreta_id == book["id"]
    (tmp_path / "cfc.xml").write_bytes(xml)
    (tmp_path / "cert.pem").write_text(cert.cert_pem)
    verified = subprocess.run(
        ["xmlsec1", "--verify", "--pubkey-cert-pem", str(tmp_path / "cert.pem"), str(tmp_path / "cfc.xml")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert verified.returncode == 0, verified.stderr


def test_each_paper_number_is_keyed_in_once_and_a_key_replays_the_first(api_client, user, book):
    first = key_in(api_client, user, paper(8), **{"Idempotency-Key": "cfc-8"})
    assert first.status_code == 201
    replay = key_in(api_client, user, paper(8), **{"Idempotency-Key": "cfc-8"})
    assert (replay.status_code, replay.json["idCfeEmitido"]) == (201, first.json["idCfeEmitido"])
    again = key_in(api_client, user, paper(8))
    assert (again.status_code, again.json["error"]["code"]) == (409, "cfc_ya_ingresado")


# Each body is made when its test runs (its date is today's then, not at collection: a run may cross midnight).
@pytest.mark.parametrize(
    ("make_body", "code", "field"),
    [
        (lambda: paper(51), "cfc_fuera_de_libreta", "contingencia.nro"),
        (lambda: paper(5, serie="C"), "cfc_fuera_de_libreta", "contingencia.nro"),
        (lambda: paper(5, tipo=201, mntBruto=True), "cfc_tipo_distinto", "tipoCFE"),
        (lambda: paper(5, days_ago=-1), "cfc_fecha_futura", "fchEmis"),
        (lambda: paper(5, days_ago=40), "libreta_no_vigente", "fchEmis"),
        (
            lambda: {**bodies.body(bodies.EFACTURA), "contingencia": {"serie": "B", "nro": 5}},
            "cfc_tipo_distinto",
            "contingencia",
        ),
    ],
)
def test_a_paper_the_book_does_not_authorise_is_refused(api_client, user, book, make_body, code, field):
    answer = key_in(api_client, user, make_body())
    assert answer.status_code == 422, answer.json
    assert answer.json["error"]["code"] == code
    assert [f["field"] for f in answer.json["error"]["fields"]] == [field]


def test_a_cfc_needs_its_paper_and_date(api_client, user, book):
    body = paper(5)
    del body["contingencia"], body["fchEmis"]
    answer = key_in(api_client, user, body)
    assert answer.status_code == 422
    assert {f["field"] for f in answer.json["error"]["fields"]} == {"contingencia", "fchEmis"}


def test_an_expired_book_refuses_a_later_paper(api_client, admin, user):
    register_book(api_client, admin, 281, "R", "90260000001", expires_in=-10)
    remito = paper_remito(2, days_ago=2)
    answer = key_in(api_client, user, remito)
    assert (answer.status_code, answer.json["error"]["code"]) == (422, "libreta_vencida")


def _state(api_client, user, cfe_id):
    answer = api_client.get(
        "/api/v1/comprobante/getByIdCfeEmitido", query_string={"idCfeEmitido": cfe_id}, headers=user
    )
    return answer.json


def test_a_cfc_road_to_dgi_only_observed_corrected_and_accepted(api_client, user, book, service_app):
    body = paper(9)
    body["receptor"] = {**bodies.BUYER, "rznSocRecep": f"{REJECT_MARKER}E05"}
    issued = key_in(api_client, user, body).json
    drain(service_app)
    observed = _state(api_client, user, issued["idCfeEmitido"])
    assert observed["estadoDGI"] == "observado"
    assert observed["dgi"]["observaciones"] == 1
    assert [m["codigo"] for m in observed["dgi"]["motivos"]] == ["C05"]
    assert observed.get("intercambio") is None  # never to the receiver, though it is an electronic issuer's RUT
    mail = api_client.post(
        f"/api/v1/correo/comprobante/{issued['idCfeEmitido']}/envios",
        json={"destinatarios": ["cliente@example.com"]},
        headers=user,
    )
    assert (mail.status_code, mail.json["error"]["code"]) == (409, "cfc_solo_dgi")

    other = api_client.post(
        f"/api/v1/comprobante/contingencia/{issued['idCfeEmitido']}/corregir",
        json=paper(10),
        headers=user,
    )
    assert (other.status_code, other.json["error"]["code"]) == (422, "cfc_distinto")
    corrected = api_client.post(
        f"/api/v1/comprobante/contingencia/{issued['idCfeEmitido']}/corregir",
        json=paper(9),
        headers=user,
    )
    assert corrected.status_code == 200, corrected.json
    assert (corrected.json["nro"], corrected.json["estadoDGI"]) == (9, "pendiente")
    assert corrected.json["receptor"]["rznSocRecep"] == bodies.BUYER["rznSocRecep"]
    drain(service_app)
    accepted = _state(api_client, user, issued["idCfeEmitido"])
    assert (accepted["estadoDGI"], accepted["dgi"]["observaciones"], accepted["dgi"]["motivos"]) == ("aceptado", 1, [])
    again = api_client.post(
        f"/api/v1/comprobante/contingencia/{issued['idCfeEmitido']}/corregir",
        json=paper(9),
        headers=user,
    )
    assert (again.status_code, again.json["error"]["code"]) == (409, "cfc_no_observado")
    with service_app.app_context():
        sub = db.new_session().get(DgiSubmission, issued["idCfeEmitido"])
        assert sub.route == "sobre" and sub.observations == 1


def test_unused_paper_numbers_are_voided_counted_and_never_keyed_in(api_client, admin, user, book, service_app):
    assert key_in(api_client, user, paper(3)).status_code == 201
    void = f"/api/v1/empresa/contingencia/{book['id']}/anulaciones"
    used = api_client.post(void, json={"desde": 1, "hasta": 5, "motivo": "Rotos"}, headers=admin)
    assert (used.status_code, used.json["error"]["code"]) == (409, "cfc_numero_usado")
    outside = api_client.post(void, json={"desde": 45, "hasta": 60, "motivo": "Rotos"}, headers=admin)
    assert (outside.status_code, outside.json["error"]["code"]) == (422, "anulacion_fuera_de_libreta")
    assert api_client.post(void, json={"desde": 41, "hasta": 50, "motivo": "Rotos"}, headers=user).status_code == 403
    voided = api_client.post(void, json={"desde": 41, "hasta": 50, "motivo": "Papeles rotos"}, headers=admin)
    assert voided.status_code == 201, voided.json
    assert (voided.json["desde"], voided.json["hasta"], voided.json["tipoCFE"]) == (41, 50, 211)
    twice = api_client.post(void, json={"desde": 50, "hasta": 50, "motivo": "Otra vez"}, headers=admin)
    assert (twice.status_code, twice.json["error"]["code"]) == (409, "cfc_numero_usado")
    late = key_in(api_client, user, paper(45))
    assert (late.status_code, late.json["error"]["code"]) == (409, "cfc_numero_anulado")
    [listed] = api_client.get("/api/v1/empresa/contingencia", headers=admin).json["items"]
    assert (listed["usados"], listed["anulados"], listed["libres"]) == (1, 10, 39)
    missing = api_client.post(
        "/api/v1/empresa/contingencia/999/anulaciones", json={"desde": 1, "hasta": 1, "motivo": "x"}, headers=admin
    )
    assert (missing.status_code, missing.json["error"]["code"]) == (404, "libreta_no_encontrada")


def test_the_daily_report_counts_keyed_in_cfc_on_their_own_line(api_client, admin, user, book, service_app):
    from portal.service.comprobante.models import VoidedRange
    from portal.service.envios import reports
    from portal.service.envios.models import DgiDailyReport

    fecha = today_montevideo()
    for nro in (11, 12):
        assert key_in(api_client, user, paper(nro, days_ago=0)).status_code == 201
    bodies.issue(api_client, user, bodies.body(bodies.EFACTURA))
    void = f"/api/v1/empresa/contingencia/{book['id']}/anulaciones"
    assert api_client.post(void, json={"desde": 30, "hasta": 31, "motivo": "Rotos"}, headers=admin).status_code == 201
    with service_app.app_context():
        voided = db.new_session().scalars(select(VoidedRange)).all()
        assert [(v.tipo_cfe, v.nro_desde, v.nro_hasta, v.fecha, v.cae_range_id) for v in voided] == [
            (211, 30, 31, fecha, None)
        ]
        report_id = reports.build(1, fecha, "test")
        xml = db.new_session().get(DgiDailyReport, report_id).xml
    assert validate_xml(xml, "ReporteDiarioCFE.xsd") == []
    root = etree.fromstring(xml)
    assert root.findtext(".//d:Rsmn_Fac_Cont/d:RsmnData/d:CantCFCEmi", namespaces=NS) == "2"
    assert root.findtext(".//d:Rsmn_Fac/d:RsmnData/d:CantDocsEmi", namespaces=NS) == "1"
    # ReporteDiarioCFE.xsd 1.44.2 has no place for voided CFC ("No corresponde informar los CFC anulados"): the
    # voided paper numbers are kept (dgi_anulacion, with their book) and shown per book, never in the report.
    assert root.findtext(".//d:Rsmn_Fac/d:RsmnData/d:CantDocsAnulados", namespaces=NS) in (None, "0")
    assert b"<RngDocsAnulados" not in xml


def test_a_keyed_in_cfc_prints_as_its_type_of_contingency(api_client, user, book, tmp_path):
    issued = key_in(api_client, user, paper(13)).json
    pdf = api_client.get(
        "/api/v1/comprobante/getByIdCfeEmitido",
        query_string={"idCfeEmitido": issued["idCfeEmitido"]},
        headers={**user, "Accept": "application/pdf"},
    )
    assert pdf.status_code == 200, pdf.data[:500]
    (tmp_path / "cfc.pdf").write_bytes(pdf.data)
    text = subprocess.run(
        ["pdftotext", str(tmp_path / "cfc.pdf"), "-"], capture_output=True, text=True, check=True
    ).stdout
    assert "e-Factura de contingencia" in text and "B" in text and "0000013" in text


def test_a_cfc_is_cancelled_with_its_electronic_credit_note_and_found_by_its_type(api_client, user, book, service_app):
    issued = key_in(api_client, user, paper(14)).json
    answer = cancel(api_client, user, issued["idCfeEmitido"], "Devolución")
    assert answer.status_code == 201, answer.json
    note = answer.json
    assert note["tipoCFE"] == 112 and note["totales"]["mntTotal"] == issued["totales"]["mntTotal"]
    [ref] = note["referencias"]
    assert (ref["tpoDocRef"], ref["serie"], ref["nroCFERef"]) == (211, "B", 14)
    assert ref["fechaCFEref"] == issued["fchEmis"]
    cancelled = _state(api_client, user, issued["idCfeEmitido"])
    assert cancelled["saldoAcreditable"] == "0.00"
    drain(service_app)  # DGI holds the CFC, so it accepts the note on it (no E12)
    assert _state(api_client, user, note["idCfeEmitido"])["estadoDGI"] == "aceptado"
    again = cancel(api_client, user, issued["idCfeEmitido"], "Otra vez")
    assert (again.status_code, again.json["error"]["code"]) == (409, "ya_anulado")
    listed = api_client.get("/api/v1/comprobante/buscar", query_string={"tipoCFE": 211}, headers=user)
    assert listed.status_code == 200, listed.json
    assert [(r["tipoCFE"], r["nro"]) for r in listed.json["items"]] == [(211, 14)]
    notes = api_client.get("/api/v1/comprobante/buscar", query_string={"tipoCFE": 112}, headers=user)
    assert [r["idCfeEmitido"] for r in notes.json["items"]] == [note["idCfeEmitido"]]


def test_partial_credit_and_debit_notes_reference_a_cfc_like_a_1xx_original(api_client, user, book):
    issued = key_in(api_client, user, paper(16)).json
    draft = api_client.get(
        "/api/v1/comprobante/borradorNota",
        query_string={"idCfeEmitido": issued["idCfeEmitido"], "tipo": "credito"},
        headers=user,
    )
    assert draft.status_code == 200, draft.json
    assert draft.json["borrador"]["tipoCFE"] == 112
    assert draft.json["borrador"]["referencias"][0]["tpoDocRef"] == 211
    partial = bodies.issue(api_client, user, bodies.note(112, 211, "B", 16))
    assert partial["referencias"][0]["mntCFEref"] == issued["totales"]["mntTotal"]
    left = _state(api_client, user, issued["idCfeEmitido"])["saldoAcreditable"]
    assert float(left) == float(issued["totales"]["mntTotal"]) - float(partial["totales"]["mntTotal"])
    debit = bodies.issue(api_client, user, bodies.note(113, 211, "B", 16))
    assert debit["tipoCFE"] == 113
    rest = cancel(api_client, user, issued["idCfeEmitido"], "Resto")
    assert (rest.status_code, rest.json["error"]["code"]) == (409, "acreditado_en_parte")  # the balance is left
    other_currency = {**bodies.note(112, 211, "B", 16), "tpoMoneda": "USD", "tpoCambio": "40"}
    refused = key_in(api_client, user, other_currency)
    assert (refused.status_code, refused.json["error"]["fields"][0]["code"]) == (422, "moneda_distinta")
    wrong_date = bodies.note(112, 211, "B", 16)
    wrong_date["referencias"][0]["fechaCFEref"] = (today_montevideo() - timedelta(days=20)).isoformat()
    dated = key_in(api_client, user, wrong_date)
    assert (dated.status_code, dated.json["error"]["fields"][0]["code"]) == (422, "fecha_distinta")
    ticket_note = key_in(api_client, user, bodies.note(102, 211, "B", 16))
    assert (ticket_note.status_code, ticket_note.json["error"]["fields"][0]["code"]) == (422, "not_allowed")


def test_an_e_ticket_cfc_takes_the_e_ticket_notes_and_a_remito_cfc_none(api_client, admin, user):
    today = today_montevideo()
    register_book(api_client, admin, 201, "T", "90260000002", expires_in=60)
    register_book(api_client, admin, 281, "R", "90260000004", expires_in=60)
    ticket = {**bodies.body(bodies.ETICKET), "tipoCFE": 201, "contingencia": {"serie": "T", "nro": 1}}
    ticket["fchEmis"] = (today - timedelta(days=1)).isoformat()
    issued = key_in(api_client, user, ticket)
    assert issued.status_code == 201, issued.json
    note = cancel(api_client, user, issued.json["idCfeEmitido"], "Devolución")
    assert (note.status_code, note.json["tipoCFE"]) == (201, 102)
    assert bodies.issue(api_client, user, bodies.note(103, 201, "T", 1))["tipoCFE"] == 103
    remito = paper_remito(1, days_ago=1)
    keyed = key_in(api_client, user, remito)
    assert keyed.status_code == 201, keyed.json
    none = cancel(api_client, user, keyed.json["idCfeEmitido"], "x")
    assert (none.status_code, none.json["error"]["code"]) == (409, "tipo_sin_nota")
    assert none.json["error"]["message"] == "Un e-Remito de contingencia no se anula con nota de crédito."
    english = cancel(api_client, {**user, "Accept-Language": "en"}, keyed.json["idCfeEmitido"], "x")
    assert english.json["error"]["message"] == (
        "Receipts of type Contingency e-Remito are not cancelled with a credit note."
    )
    on_remito = key_in(api_client, user, bodies.note(112, 281, "R", 1))
    assert (on_remito.status_code, on_remito.json["error"]["fields"][0]["code"]) == (422, "not_allowed")


def test_a_book_expired_since_the_paper_was_written_still_takes_it(api_client, admin, user, service_app):
    expired = register_book(api_client, admin, 211, "V", "90260000003", expires_in=-10)
    written = key_in(api_client, user, paper(1, serie="V", days_ago=20))
    assert written.status_code == 201, written.json
    assert written.json["cae"]["fecVenc"] == expired["vencimiento"]
    drain(service_app)  # DGI judges a CFC by its book's dates on the paper's date (CFE-URUGUAY.md section 13)
    assert _state(api_client, user, written.json["idCfeEmitido"])["estadoDGI"] == "aceptado"
    later = key_in(api_client, user, paper(2, serie="V", days_ago=5))
    assert (later.status_code, later.json["error"]["code"]) == (422, "libreta_vencida")


def test_a_paper_cfc_previews_without_taking_its_number(api_client, user, book):
    preview = api_client.post(
        "/api/v1/comprobante/previsualizar", json=paper(15), headers={**user, "Accept": "application/pdf"}
    )
    assert preview.status_code == 200 and preview.data.startswith(b"%PDF")
    assert key_in(api_client, user, paper(15)).status_code == 201  # the preview did not key it in


def test_a_paper_note_is_linked_to_its_original_and_the_book_and_list_count_paper_receipts(
    api_client, admin, user, book
):
    """A paper credit note (212) keyed in takes its amount off its original's balance as an electronic one does,
    each receipt's answer names the other, and a paper receipt and its paper notes are in the IVA sales book
    and the list's totals with the credit note negative."""
    register_book(api_client, admin, 212, "N", "90260000005", expires_in=60)
    register_book(api_client, admin, 213, "D", "90260000006", expires_in=60)
    original = key_in(api_client, user, paper(20)).json
    credit = {**bodies.note(112, 211, "B", 20), "tipoCFE": 212, "contingencia": {"serie": "N", "nro": 1}}
    credit["fchEmis"] = original["fchEmis"]
    keyed = key_in(api_client, user, credit)
    assert keyed.status_code == 201, keyed.json
    assert keyed.json["referencias"][0]["mntCFEref"] == original["totales"]["mntTotal"]  # filled from the original
    after = _state(api_client, user, original["idCfeEmitido"])
    assert [n["idCfeEmitido"] for n in after["notas"]] == [keyed.json["idCfeEmitido"]]
    left = Decimal(original["totales"]["mntTotal"]) - Decimal(keyed.json["totales"]["mntTotal"])
    assert Decimal(after["saldoAcreditable"]) == left
    debit = {**bodies.note(113, 211, "B", 20), "tipoCFE": 213, "contingencia": {"serie": "D", "nro": 1}}
    debit["fchEmis"] = original["fchEmis"]
    assert key_in(api_client, user, debit).status_code == 201

    too_much = {**credit, "contingencia": {"serie": "N", "nro": 2}}
    too_much["items"] = [{**credit["items"][0], "precioUnitario": "999999"}]
    refused = key_in(api_client, user, too_much)
    assert (refused.status_code, refused.json["error"]["fields"][0]["code"]) == (422, "supera_saldo")
    nowhere = {**credit, "contingencia": {"serie": "N", "nro": 2}, "referencias": [{**credit["referencias"][0]}]}
    nowhere["referencias"][0]["nroCFERef"] = 49
    missing = key_in(api_client, user, nowhere)
    assert (missing.status_code, missing.json["error"]["fields"][0]["code"]) == (422, "not_found")

    period = {"desde": (today_montevideo() - timedelta(days=5)).isoformat(), "hasta": today_montevideo().isoformat()}
    sales = api_client.get("/api/v1/informes/ventas", query_string=period, headers=user).json
    by_type = {row["tipoCFE"]: row for row in sales["filas"]}
    assert set(by_type) == {211, 212, 213}
    assert Decimal(by_type[212]["importes"]["total"]) == -Decimal(keyed.json["totales"]["mntTotal"])
    assert Decimal(by_type[211]["importes"]["total"]) == Decimal(original["totales"]["mntTotal"])
    as_csv = api_client.get("/api/v1/informes/ventas", query_string=period, headers={**user, "Accept": "text/csv"})
    assert "e-Factura de contingencia" in as_csv.get_data(as_text=True)  # named, not "211"
    listed = api_client.get("/api/v1/comprobante/buscar", query_string={"desde": period["desde"]}, headers=user).json
    [pesos] = [t for t in listed["totales"] if t["moneda"] == "UYU"]
    [note_item] = [r for r in listed["items"] if r["tipoCFE"] == 212]
    assert Decimal(note_item["importe"]) == -Decimal(note_item["mntTotal"])
    expected = sum((Decimal(r["importe"]) for r in listed["items"]), Decimal(0))
    assert Decimal(pesos["mntTotal"]) == expected


def test_a_keyed_in_paper_e_ticket_prints_on_a_roll_as_an_e_ticket_does(api_client, admin, user, tmp_path):
    """A paper e-Ticket keyed in (201) prints as its 1xx type does: on the shop's thermal roll too (DGI admits
    thermal paper for e-Tickets and their notes), not a 422 on `formato`."""
    register_book(api_client, admin, 201, "T", "90260000002", expires_in=60)
    ticket = {**bodies.body(bodies.ETICKET), "tipoCFE": 201, "contingencia": {"serie": "T", "nro": 1}}
    ticket["fchEmis"] = (today_montevideo() - timedelta(days=1)).isoformat()
    issued = key_in(api_client, user, ticket)
    assert issued.status_code == 201, issued.json
    pdf = api_client.get(
        "/api/v1/comprobante/getByIdCfeEmitido",
        query_string={"idCfeEmitido": issued.json["idCfeEmitido"], "formato": "80mm"},
        headers={**user, "Accept": "application/pdf"},
    )
    assert pdf.status_code == 200, pdf.data[:500]
    (tmp_path / "cfc.pdf").write_bytes(pdf.data)
    text = subprocess.run(["pdftotext", str(tmp_path / "cfc.pdf"), "-"], capture_output=True, text=True, check=True)
    assert "CONSUMO FINAL" in text.stdout and "contingencia" in text.stdout
