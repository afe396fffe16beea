"""The Comprobante endpoints: issue every type, fetch as JSON/XML/PDF, preview, sign, references."""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime, timedelta

import pytest
from lxml import etree
from sqlalchemy import delete, select, update

from portal import paths
from portal.domain.uruguay_time import today_montevideo
from portal.service.comprobante.models import CaeRangeRecord, PreviewToken
from portal.service.empresa.models import Branch
from portal.service.platform import db
from portal.service.platform.models import Certificate, Company, IdempotencyRecord
from tests.support import cfe_bodies as bodies
from tests.support.cfe_bodies import issue as _issue

EMITIR = "/api/v1/comprobante/emitir"
GET = "/api/v1/comprobante/getByIdCfeEmitido"


@pytest.fixture(scope="module")
def cfe_schema():
    return etree.XMLSchema(etree.parse(str(paths.xsd_dir() / "CFEDGI.xsd")))


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


def _certificate_pem(service_app, company_id=1) -> bytes:
    with service_app.app_context():
        cert = db.session().scalar(select(Certificate).where(Certificate.company_id == company_id))
        return cert.cert_pem.encode()


def _xmlsec_verifies(xml: bytes, cert_pem: bytes, tmp_path) -> bool:
    (tmp_path / "cfe.xml").write_bytes(xml)
    (tmp_path / "cert.pem").write_bytes(cert_pem)
    result = subprocess.run(
        [
            "xmlsec1",
            "--verify",
            "--pubkey-cert-pem",
            str(tmp_path / "cert.pem"),
            "--id-attr:ID",
            "CFE",
            str(tmp_path / "cfe.xml"),
        ],
        capture_output=True,
        text=True,
    )
    return result.returncode == 0


def test_every_supported_type_is_issued_schema_valid_and_independently_verifiable(
    api_client, user, service_app, cfe_schema, tmp_path
):
    ticket = _issue(api_client, user, bodies.body(bodies.ETICKET))
    factura = _issue(api_client, user, bodies.body(bodies.EFACTURA))
    issued = [ticket, factura]
    for tipo, base in ((102, ticket), (103, ticket), (112, factura), (113, factura)):
        issued.append(_issue(api_client, user, bodies.note(tipo, base["tipoCFE"], base["serie"], base["nro"])))
    issued.append(_issue(api_client, user, bodies.body(bodies.EREMITO)))
    issued.append(_issue(api_client, user, bodies.body(bodies.ERESGUARDO)))
    assert sorted(r["tipoCFE"] for r in issued) == [101, 102, 103, 111, 112, 113, 181, 182]
    cert_pem = _certificate_pem(service_app)
    for receipt in issued:
        xml = api_client.get(
            GET, query_string={"idCfeEmitido": receipt["idCfeEmitido"]}, headers={**user, "Accept": "application/xml"}
        ).data
        document = etree.fromstring(xml)
        assert cfe_schema.validate(document), (receipt["tipoCFE"], cfe_schema.error_log)
        assert _xmlsec_verifies(xml, cert_pem, tmp_path), receipt["tipoCFE"]
        digest = document.findtext(".//{http://www.w3.org/2000/09/xmldsig#}DigestValue")
        assert receipt["codigoSeguridad"] == digest[:6]
        assert receipt["urlQR"].endswith(digest.replace("+", "%2B").replace("/", "%2F").replace("=", "%3D"))


def test_a_tampered_receipt_fails_independent_verification(api_client, user, service_app, tmp_path):
    receipt = _issue(api_client, user, bodies.body(bodies.ETICKET))
    xml = api_client.get(
        GET, query_string={"idCfeEmitido": receipt["idCfeEmitido"]}, headers={**user, "Accept": "application/xml"}
    ).data
    tampered = xml.replace(b"<MntPagar>376.00</MntPagar>", b"<MntPagar>1.00</MntPagar>")
    assert tampered != xml
    assert not _xmlsec_verifies(tampered, _certificate_pem(service_app), tmp_path)


def test_dgi_sample_eticket_totals_to_the_cent(api_client, user):
    totals = _issue(api_client, user, bodies.body(bodies.DGI_SAMPLE_ETICKET))["totales"]
    assert totals["mntNoGrv"] == "420.00"
    assert totals["mntNetoIvaTasaMin"] == "360.00"
    assert totals["mntNetoIVATasaBasica"] == "137704.92"
    assert totals["mntIVATasaMin"] == "36.00"
    assert totals["mntIVATasaBasica"] == "30295.08"
    assert totals["mntTotal"] == totals["mntPagar"] == "168816.00"


def test_numbers_are_sequential_per_type(api_client, user):
    numbers = [_issue(api_client, user, bodies.body(bodies.ETICKET))["nro"] for _ in range(3)]
    assert numbers == [1, 2, 3]
    assert _issue(api_client, user, bodies.body(bodies.EFACTURA))["nro"] == 1


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (
            {"items": [{"indFact": 3, "nomItem": "x", "cantidad": "100000", "precioUnitario": "99999999999"}]},
            "items[0]",
        ),
        ({"fchVenc": "2100-01-01"}, "fchVenc"),
    ],
)
def test_what_dgi_cannot_carry_is_refused_alike_by_preview_and_issue(api_client, user, change, field):
    # The XSD check after signing found these first, as a 500 from emitir while previsualizar said yes.
    body = {**bodies.body(bodies.EFACTURA), **change}
    for path in (EMITIR, "/api/v1/comprobante/previsualizar"):
        answer = api_client.post(path, json=body, headers=user)
        assert answer.status_code == 422, (path, answer.json)
        assert any(f["field"].startswith(field) for f in answer.json["error"]["fields"]), answer.json


def test_same_idempotency_key_and_body_returns_the_same_receipt(api_client, user):
    first = _issue(api_client, user, bodies.body(bodies.ETICKET), **{"Idempotency-Key": "pos-1-0001"})
    again = api_client.post(EMITIR, json=bodies.body(bodies.ETICKET), headers={**user, "Idempotency-Key": "pos-1-0001"})
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json["idCfeEmitido"] == first["idCfeEmitido"] and again.json["nro"] == first["nro"]
    assert _issue(api_client, user, bodies.body(bodies.ETICKET))["nro"] == first["nro"] + 1


def test_same_idempotency_key_with_another_body_is_422(api_client, user):
    _issue(api_client, user, bodies.body(bodies.ETICKET), **{"Idempotency-Key": "k-1"})
    other = bodies.body(bodies.ETICKET) | {"fmaPago": 2}
    answer = api_client.post(EMITIR, json=other, headers={**user, "Idempotency-Key": "k-1"})
    assert answer.status_code == 422 and answer.json["error"]["code"] == "idempotency_key_reused"


def _claimed_key(service_app, key: str, **columns) -> None:
    """An Idempotency-Key left "in progress" for an e-Ticket body, as a request still issuing (or a crashed one)
    leaves it."""
    from portal.service.platform.idempotency import request_fingerprint

    payload = bodies.body(bodies.ETICKET)  # fingerprinted as sent
    with service_app.app_context():
        session = db.session()
        session.add(
            IdempotencyRecord(
                company_id=1,
                scope="comprobante.emitir",
                key=key,
                request_hash=request_fingerprint(payload),
                state="in_progress",
                **columns,
            )
        )
        session.commit()


def test_idempotency_key_still_in_progress_is_409(api_client, user, service_app):
    _claimed_key(service_app, "busy")
    answer = api_client.post(EMITIR, json=bodies.body(bodies.ETICKET), headers={**user, "Idempotency-Key": "busy"})
    assert answer.status_code == 409 and answer.json["error"]["code"] == "idempotency_in_progress"


def test_a_claim_abandoned_by_a_crashed_worker_is_taken_over(api_client, user, service_app):
    from portal.service.platform.idempotency import STALE_AFTER

    _claimed_key(service_app, "crashed", created_at=datetime.now(UTC) - STALE_AFTER - timedelta(seconds=1))
    headers = {**user, "Idempotency-Key": "crashed"}
    first = api_client.post(EMITIR, json=bodies.body(bodies.ETICKET), headers=headers)
    assert first.status_code == 201, first.json
    again = api_client.post(EMITIR, json=bodies.body(bodies.ETICKET), headers=headers)
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert again.json["idCfeEmitido"] == first.json["idCfeEmitido"]


def test_a_failed_issue_releases_the_key_and_consumes_no_number(api_client, user):
    bad = bodies.body(bodies.EFACTURA)
    bad["receptor"] = {**bad["receptor"], "docRecep": "214844360019"}
    answer = api_client.post(EMITIR, json=bad, headers={**user, "Idempotency-Key": "retry-me"})
    assert answer.status_code == 422
    assert answer.json["error"]["fields"][0]["field"] == "receptor.docRecep"
    fixed = api_client.post(EMITIR, json=bodies.body(bodies.EFACTURA), headers={**user, "Idempotency-Key": "retry-me"})
    assert fixed.status_code == 201 and fixed.json["nro"] == 1


@pytest.mark.parametrize(
    ("change", "field", "code"),
    [
        (
            {"receptor": {"tipoDocRecep": 3, "codPaisRecep": "UY", "docRecep": "12345672"}},
            "receptor.tipoDocRecep",
            "rut_required",
        ),
        ({"items": []}, "items", "too_short"),
        ({"tpoMoneda": "USD"}, "tpoCambio", "required"),
        (
            {"items": [{"indFact": 3, "nomItem": "x", "cantidad": "1", "precioUnitario": "1.1234567"}]},
            "items[0].precioUnitario",
            "decimal_max_places",
        ),
    ],
)
def test_invalid_efactura_gets_422_per_field(api_client, user, change, field, code):
    answer = api_client.post(EMITIR, json=bodies.body(bodies.EFACTURA) | change, headers=user)
    assert answer.status_code == 422
    fields = {f["field"]: f["code"] for f in answer.json["error"]["fields"]}
    assert fields.get(field) == code, fields


def _with_text(path: str, text: str) -> dict:
    body = bodies.body(bodies.EFACTURA)
    body["items"][0]["codItem"] = [{"tpoCod": "INT1", "cod": "C1"}]
    body["mediosPago"] = [{"glosaMP": "Efectivo", "valorPago": "1"}]
    *parents, last = path.replace("[0]", ".0").split(".")
    target = body
    for part in parents:
        target = target[int(part)] if part.isdigit() else target[part]
    target[last] = text
    return body


@pytest.mark.parametrize(
    "field",
    [
        "items[0].nomItem",
        "items[0].uniMed",
        "items[0].codItem[0].cod",
        "receptor.rznSocRecep",
        "infoAdicionalDoc",
        "mediosPago[0].glosaMP",
    ],
)
@pytest.mark.parametrize("char", ["\ufffe", "\uffff", "\x0b"])
def test_a_text_with_a_character_xml_cannot_carry_is_a_422_on_the_field(api_client, user, field, char):
    body = _with_text(field, f"a{char}b")
    for url in (EMITIR, "/api/v1/comprobante/previsualizar"):
        answer = api_client.post(url, json=body, headers=user)
        assert answer.status_code == 422, answer.json
        assert answer.json["error"]["code"] == "validation_error"
        problems = {f["field"]: f["message"] for f in answer.json["error"]["fields"]}
        assert f"U+{ord(char):04X}" in problems[field], problems


def test_a_note_must_reference_an_existing_receipt_of_the_company(api_client, user):
    answer = api_client.post(EMITIR, json=bodies.note(112, 111, "A", 999), headers=user)
    assert answer.status_code == 422
    assert answer.json["error"]["fields"][0]["field"] == "referencias[0].nroCFERef"


def test_soporte_cannot_issue(api_client, auth_headers):
    answer = api_client.post(EMITIR, json=bodies.body(bodies.ETICKET), headers=auth_headers("soporte@demo.uy"))
    assert answer.status_code == 403 and answer.json["error"]["code"] == "rol_insuficiente"


def test_another_companys_receipt_is_404(api_client, user, auth_headers):
    receipt = _issue(api_client, user, bodies.body(bodies.ETICKET))
    other = api_client.get(
        GET, query_string={"idCfeEmitido": receipt["idCfeEmitido"]}, headers=auth_headers("admin@demo.uy", company_id=2)
    )
    assert other.status_code == 404
    mine = api_client.get(
        GET, query_string={"idCfeEmitido": receipt["idCfeEmitido"]}, headers=auth_headers("admin@demo.uy", company_id=1)
    )
    assert mine.status_code == 200 and mine.json["nro"] == receipt["nro"]


def test_get_by_id_serves_json_the_exact_signed_xml_and_pdf(api_client, user):
    receipt = _issue(api_client, user, bodies.body(bodies.ETICKET))
    query = {"idCfeEmitido": receipt["idCfeEmitido"]}
    xml1 = api_client.get(GET, query_string=query, headers={**user, "Accept": "application/xml"})
    xml2 = api_client.get(GET, query_string=query, headers={**user, "Accept": "application/xml"})
    assert xml1.mimetype == "application/xml" and xml1.data == xml2.data
    pdf = api_client.get(GET, query_string=query, headers={**user, "Accept": "application/pdf"})
    assert pdf.mimetype == "application/pdf" and pdf.data.startswith(b"%PDF")
    assert api_client.get(GET, query_string=query, headers={**user, "Accept": "text/html"}).status_code == 406
    assert api_client.get(GET, query_string=query, headers=user).json["idCfeEmitido"] == receipt["idCfeEmitido"]


def test_accept_with_parameters_still_names_its_type(api_client, user):
    # "application/json; charset=utf-8" is what many HTTP clients send: it asks for JSON, not for a 406.
    receipt = _issue(api_client, user, bodies.body(bodies.ETICKET))
    json_utf8 = {**user, "Accept": "application/json; charset=utf-8"}
    got = api_client.get(GET, query_string={"idCfeEmitido": receipt["idCfeEmitido"]}, headers=json_utf8)
    assert got.status_code == 200 and got.json["idCfeEmitido"] == receipt["idCfeEmitido"]
    found = api_client.get("/api/v1/comprobante/buscar", headers=json_utf8)
    assert found.status_code == 200 and found.mimetype == "application/json"
    link = api_client.post("/api/v1/comprobante/previsualizar", json=bodies.body(bodies.ETICKET), headers=json_utf8)
    assert link.status_code == 201 and link.json["token"]
    pdf_first = {**user, "Accept": "application/json;q=0.5, application/pdf;version=1.7"}
    assert api_client.get(GET, query_string={"idCfeEmitido": receipt["idCfeEmitido"]}, headers=pdf_first).mimetype == (
        "application/pdf"
    )


def test_exhausted_and_expired_ranges_are_clear_errors(api_client, user, service_app):
    with service_app.app_context():
        session = db.session()
        session.execute(
            update(CaeRangeRecord)
            .where(CaeRangeRecord.company_id == 1, CaeRangeRecord.tipo_cfe == 101)
            .values(next_nro=CaeRangeRecord.hnro + 1)
        )
        session.execute(
            update(CaeRangeRecord)
            .where(CaeRangeRecord.company_id == 1, CaeRangeRecord.tipo_cfe == 111)
            .values(vencimiento=today_montevideo() - timedelta(days=1))
        )
        session.commit()
    exhausted = api_client.post(EMITIR, json=bodies.body(bodies.ETICKET), headers=user)
    assert exhausted.status_code == 409 and exhausted.json["error"]["code"] == "cae_agotado"
    expired = api_client.post(EMITIR, json=bodies.body(bodies.EFACTURA), headers=user)
    assert expired.status_code == 409 and expired.json["error"]["code"] == "cae_vencido"
    english = {**user, "Accept-Language": "en"}
    exhausted = api_client.post(EMITIR, json=bodies.body(bodies.ETICKET), headers=english).json["error"]["message"]
    assert exhausted == "The CAE numbers for type e-Ticket have run out. Ask DGI for a new CAE."
    expired = api_client.post(EMITIR, json=bodies.body(bodies.EFACTURA), headers=english).json["error"]["message"]
    assert expired.startswith("The CAEs of type e-Factura are expired")


def test_a_company_without_a_fiscal_address_is_told_to_add_its_branch(api_client, user, service_app):
    """A new company (no branch, no address of its own) was answered 500 by the signing step: now a 409 that says
    what is missing and where to add it, before a number is taken."""
    with service_app.app_context():
        session = db.session()
        session.execute(delete(Branch).where(Branch.company_id == 1))
        session.execute(update(Company).where(Company.id == 1).values(domicilio_fiscal="", ciudad="", departamento=""))
        first = session.scalar(select(CaeRangeRecord.next_nro).where(*_ETICKET_RANGE))
        session.commit()
    refused = api_client.post(EMITIR, json=bodies.body(bodies.ETICKET), headers=user)
    assert refused.status_code == 409, refused.json
    assert refused.json["error"]["code"] == "emisor_sin_domicilio"
    assert "Empresa › Sucursales" in refused.json["error"]["message"]
    english = api_client.post(EMITIR, json=bodies.body(bodies.ETICKET), headers={**user, "Accept-Language": "en"})
    assert "Company › Branches" in english.json["error"]["message"]
    with service_app.app_context():
        assert db.session().scalar(select(CaeRangeRecord.next_nro).where(*_ETICKET_RANGE)) == first


_ETICKET_RANGE = (CaeRangeRecord.company_id == 1, CaeRangeRecord.tipo_cfe == 101)


def test_a_range_with_under_ten_percent_left_warns(api_client, user, service_app):
    with service_app.app_context():
        session = db.session()
        session.execute(
            update(CaeRangeRecord)
            .where(CaeRangeRecord.company_id == 1, CaeRangeRecord.tipo_cfe == 101)
            .values(next_nro=CaeRangeRecord.hnro - 100)
        )
        session.commit()
    receipt = _issue(api_client, user, bodies.body(bodies.ETICKET))
    assert [w["codigo"] for w in receipt["advertencias"]] == ["cae_por_agotarse"]
    assert receipt["advertencias"][0]["mensaje"].startswith("Quedan 100 números en el CAE")
    english = _issue(api_client, {**user, "Accept-Language": "en"}, bodies.body(bodies.ETICKET))
    assert english["advertencias"][0]["mensaje"].startswith("99 numbers are left in CAE")


def _pdf_text(pdf: bytes, tmp_path) -> str:
    (tmp_path / "doc.pdf").write_bytes(pdf)
    return subprocess.run(
        ["pdftotext", str(tmp_path / "doc.pdf"), "-"], capture_output=True, text=True, check=True
    ).stdout


def test_preview_pdf_is_watermarked_and_consumes_no_number(api_client, user, tmp_path):
    pdf = api_client.post(
        "/api/v1/comprobante/previsualizar",
        json=bodies.body(bodies.ETICKET),
        headers={**user, "Accept": "application/pdf"},
    )
    assert pdf.status_code == 200 and pdf.mimetype == "application/pdf"
    assert "SIN VALOR FISCAL" in _pdf_text(pdf.data, tmp_path)
    assert _issue(api_client, user, bodies.body(bodies.ETICKET))["nro"] == 1


def test_preview_token_serves_the_pdf_to_its_company_only_while_it_lives(api_client, user, auth_headers, service_app):
    link = api_client.post(
        "/api/v1/comprobante/previsualizar",
        json=bodies.body(bodies.ETICKET),
        headers={**user, "Accept": "application/json"},
    )
    assert link.status_code == 201 and len(link.json["token"]) >= 40
    path = "/api/v1/comprobante/previsualizar/" + link.json["token"]
    assert api_client.get(path, headers=user).data.startswith(b"%PDF")
    assert api_client.get(path, headers=auth_headers("admin@demo.uy", company_id=2)).status_code == 404
    assert api_client.get(path).status_code == 401
    with service_app.app_context():
        session = db.session()
        session.execute(update(PreviewToken).values(expires_at=datetime.now(UTC) - timedelta(seconds=1)))
        session.commit()
    assert api_client.get(path, headers=user).status_code == 404


def test_preview_with_invalid_input_is_422(api_client, user):
    answer = api_client.post(
        "/api/v1/comprobante/previsualizar",
        json={
            "tipoCFE": 111,
            "fmaPago": 1,
            "items": [{"indFact": 3, "nomItem": "x", "cantidad": "1", "precioUnitario": "1"}],
        },
        headers={**user, "Accept": "application/pdf"},
    )
    assert answer.status_code == 422 and any(f["field"].startswith("receptor") for f in answer.json["error"]["fields"])


def _unsigned(signed: bytes) -> bytes:
    root = etree.fromstring(signed)
    signature = root.find("{http://www.w3.org/2000/09/xmldsig#}Signature")
    root.remove(signature)
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8")


def test_firmar_xml_signs_an_unsigned_cfe(api_client, user, service_app, tmp_path):
    receipt = _issue(api_client, user, bodies.body(bodies.ETICKET))
    signed = api_client.get(
        GET, query_string={"idCfeEmitido": receipt["idCfeEmitido"]}, headers={**user, "Accept": "application/xml"}
    ).data
    answer = api_client.post(
        "/api/v1/comprobante/firmarXml", data=_unsigned(signed), headers={**user, "Content-Type": "application/xml"}
    )
    assert answer.status_code == 200 and answer.mimetype == "application/xml"
    assert _xmlsec_verifies(answer.data, _certificate_pem(service_app), tmp_path)


@pytest.mark.parametrize(
    ("payload", "content_type", "status", "needle"),
    [
        (
            b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e "boom">]><CFE xmlns="http://cfe.dgi.gub.uy">&e;</CFE>',
            "application/xml",
            422,
            "DOCTYPE",
        ),
        (b"<CFE xmlns='http://cfe.dgi.gub.uy'>\n<eTck>\n</CFE>", "application/xml", 422, "(línea 3, columna 7)"),
        (b"<other/>", "application/xml", 422, "CFE"),
        (b'<CFE xmlns="http://cfe.dgi.gub.uy"><a xmlns:p="x"/></CFE>', "application/xml", 422, "URI absoluta"),
        (b"{}", "application/json", 415, ""),
    ],
)
def test_firmar_xml_refuses_bad_input_plainly(api_client, user, payload, content_type, status, needle):
    answer = api_client.post(
        "/api/v1/comprobante/firmarXml", data=payload, headers={**user, "Content-Type": content_type}
    )
    assert answer.status_code == status, answer.json
    assert needle in answer.json["error"]["message"] + str(answer.json["error"]["fields"])


def test_firmar_xml_refuses_bodies_over_2_mb(api_client, user):
    huge = b"<CFE xmlns='http://cfe.dgi.gub.uy'>" + b" " * (2 * 1024 * 1024 + 10) + b"</CFE>"
    answer = api_client.post(
        "/api/v1/comprobante/firmarXml", data=huge, headers={**user, "Content-Type": "application/xml"}
    )
    assert answer.status_code == 413 and answer.json["error"]["code"] == "payload_too_large"


def test_reapplying_a_collection_reference_is_recorded_and_replay_is_harmless(api_client, user):
    receipt = _issue(api_client, user, bodies.body(bodies.ETICKET))
    path = "/api/v1/comprobante/reaplicarReferencia"
    first = api_client.post(
        path, json={"idCfeEmitido": receipt["idCfeEmitido"], "referenciaCobro": "COB-1"}, headers=user
    )
    assert first.status_code == 200 and first.json["cambio"] is True
    replay = api_client.post(
        path, json={"idCfeEmitido": receipt["idCfeEmitido"], "referenciaCobro": "COB-1"}, headers=user
    )
    assert replay.json["cambio"] is False and len(replay.json["historial"]) == 1
    second = api_client.post(
        path,
        json={"idCfeEmitido": receipt["idCfeEmitido"], "referenciaCobro": "COB-2", "observacion": "Cobro reimputado"},
        headers=user,
    )
    history = second.json["historial"]
    assert [h["referenciaCobro"] for h in history] == ["COB-2", "COB-1"]
    assert history[0]["referenciaAnterior"] == "COB-1" and history[0]["por"] == "usuario@demo.uy"
    fetched = api_client.get(GET, query_string={"idCfeEmitido": receipt["idCfeEmitido"]}, headers=user).json
    assert fetched["referenciaCobro"] == "COB-2"
    unknown = api_client.post(path, json={"idCfeEmitido": "nope", "referenciaCobro": "X"}, headers=user)
    assert unknown.status_code == 404


def test_openapi_describes_the_comprobante_operations_with_examples(api_client):
    doc = api_client.get("/api/v1/openapi.json").json
    paths_ = doc["paths"]
    for path in (
        "/api/v1/comprobante/emitir",
        "/api/v1/comprobante/previsualizar",
        "/api/v1/comprobante/reaplicarReferencia",
        "/api/v1/comprobante/firmarXml",
    ):
        body = paths_[path]["post"]["requestBody"]["content"]
        assert any("example" in media or "examples" in media for media in body.values()), path
    assert "get" in paths_["/api/v1/comprobante/getByIdCfeEmitido"]
    assert "get" in paths_["/api/v1/comprobante/previsualizar/{token}"]
    assert "tipoCFE" in doc["components"]["schemas"]["CfeInput"]["properties"]


def test_the_receipt_carries_its_collection_reference_history(api_client, user):
    receipt = _issue(api_client, user, bodies.body(bodies.ETICKET))
    for reference in ("COB-1", "COB-2"):
        api_client.post(
            "/api/v1/comprobante/reaplicarReferencia",
            headers=user,
            json={"idCfeEmitido": receipt["idCfeEmitido"], "referenciaCobro": reference},
        )
    fetched = api_client.get(GET, query_string={"idCfeEmitido": receipt["idCfeEmitido"]}, headers=user).json
    assert [h["referenciaCobro"] for h in fetched["historialReferencias"]] == ["COB-2", "COB-1"]


def test_idempotency_keys_older_than_a_day_are_swept_by_new_claims(api_client, user, service_app, monkeypatch):
    from portal.service.platform import idempotency

    monkeypatch.setattr(idempotency, "SWEEP_EVERY", timedelta(0))  # by default at most once a minute per process
    _issue(api_client, user, bodies.body(bodies.ETICKET), **{"Idempotency-Key": "yesterday"})
    _issue(api_client, user, bodies.body(bodies.ETICKET), **{"Idempotency-Key": "an-hour-ago"})
    with service_app.app_context():
        session = db.session()
        session.execute(
            update(IdempotencyRecord)
            .where(IdempotencyRecord.key == "yesterday")
            .values(created_at=datetime.now(UTC) - timedelta(hours=25))
        )
        session.execute(
            update(IdempotencyRecord)
            .where(IdempotencyRecord.key == "an-hour-ago")
            .values(created_at=datetime.now(UTC) - timedelta(hours=1))
        )
        session.commit()
    _issue(api_client, user, bodies.body(bodies.ETICKET), **{"Idempotency-Key": "now"})
    with service_app.app_context():
        keys = set(db.session().scalars(select(IdempotencyRecord.key)))
    assert keys == {"an-hour-ago", "now"}


def test_a_retry_replays_its_receipt_even_when_the_rules_changed_since(api_client, user, auth_headers):
    headers = {**user, "Idempotency-Key": "before-the-regime-changed"}
    first = _issue(api_client, user, bodies.body(bodies.ETICKET), **headers)
    admin = auth_headers("admin@demo.uy", 1)
    changed = api_client.put(
        "/api/v1/empresa/configuracion", json={"regimen": "iva_minimo", "resolucion": "1516/2021"}, headers=admin
    )
    assert changed.status_code == 200, changed.json
    # The same e-Ticket issued afresh now breaks a rule of the new regime...
    assert api_client.post(EMITIR, json=bodies.body(bodies.ETICKET), headers=user).status_code == 422
    # ...but the retry of the one already issued gets that receipt back, not the rule.
    again = api_client.post(EMITIR, json=bodies.body(bodies.ETICKET), headers=headers)
    assert again.status_code == 201, again.json
    assert again.headers["Idempotent-Replayed"] == "true" and again.json["idCfeEmitido"] == first["idCfeEmitido"]


def test_a_retry_after_midnight_without_fch_emis_replays_its_receipt(api_client, user, monkeypatch):
    from portal.domain import uruguay_time

    headers = {**user, "Idempotency-Key": "sent-at-23-59"}
    first = _issue(api_client, user, bodies.body(bodies.ETICKET), **headers)

    class Tomorrow(datetime):
        @classmethod
        def now(cls, tz=None):
            return datetime.now(tz) + timedelta(days=1)

    monkeypatch.setattr(uruguay_time, "datetime", Tomorrow)  # fchEmis, left out, now defaults to tomorrow
    again = api_client.post(EMITIR, json=bodies.body(bodies.ETICKET), headers=headers)
    assert again.status_code == 201, again.json
    assert again.headers["Idempotent-Replayed"] == "true" and again.json["idCfeEmitido"] == first["idCfeEmitido"]


def test_firmar_xml_tells_an_english_client_what_is_wrong_in_english(api_client, user):
    english = {**user, "Content-Type": "application/xml", "Accept-Language": "en"}
    broken = api_client.post("/api/v1/comprobante/firmarXml", data=b"<no>", headers=english).json["error"]
    assert broken["message"] == "The XML is malformed: it ends before all its tags are closed (line 1, column 5)."
    assert broken["fields"][0]["message"] == "The XML is malformed: it ends before all its tags are closed."
    signed = api_client.post("/api/v1/comprobante/firmarXml", data=b"<other/>", headers=english).json["error"]
    assert signed["message"].startswith("The root element must be CFE of the namespace http://cfe.dgi.gub.uy;")
