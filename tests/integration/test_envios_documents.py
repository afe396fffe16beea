"""Envelopes and daily reports validate against DGI's XSDs and follow the structure of DGI's samples; the
daily report and voiding operations of the API."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal

import pytest
from lxml import etree
from sqlalchemy import select

from portal import paths
from portal.domain.uruguay_time import today_montevideo
from portal.service.cfe.schema import validate_xml
from portal.service.cfe.signing import verify_signature
from portal.service.comprobante.models import IssuedCfe, VoidedRange
from portal.service.envios import report_xml, reports
from portal.service.envios.models import DgiDailyReport, DgiEnvelope
from portal.service.platform import db
from tests.support import cfe_bodies as bodies
from tests.support.cfe_bodies import issue
from tests.support.envios import ENVIOS_CONFIG, REJECT_MARKER, drain

D = "{http://cfe.dgi.gub.uy}"
# Each test reads today's date when it runs: read once at collection, a run that crossed midnight in Montevideo
# compared the day before with the service's today (seen at 03:00 UTC).


@pytest.fixture
def service_config(service_config):
    return {**service_config, **ENVIOS_CONFIG}


@pytest.fixture
def admin(auth_headers):
    return auth_headers("admin@demo.uy", 1)


def _names(element) -> list[str]:
    return [etree.QName(child).localname for child in element if isinstance(child.tag, str)]


def _sample(prefix: str) -> etree._Element:
    path = next(paths.dgi_samples_dir().glob(f"{prefix}_*Ej_Mod*.xml"))
    return etree.parse(str(path)).getroot()


def test_an_envelope_is_valid_matches_dgis_sample_and_carries_the_cfes_bytes_unchanged(api_client, admin, service_app):
    today = today_montevideo()
    issued = [issue(api_client, admin, bodies.body(kind)) for kind in (bodies.EFACTURA, bodies.EREMITO)]
    drain(service_app)
    with service_app.app_context():
        session = db.session()
        [sobre] = session.scalars(select(DgiEnvelope)).all()
        assert validate_xml(sobre.xml, "EnvioCFE.xsd") == []
        root, sample = etree.fromstring(sobre.xml), _sample("Sob")
        assert root.tag == sample.tag and root.prefix == sample.prefix == "DGICFE"
        assert _names(root.find(f"{D}Caratula")) == _names(sample.find(f"{D}Caratula"))
        assert root.findtext(f"{D}Caratula/{D}RutReceptor") == "214844360018"
        assert root.findtext(f"{D}Caratula/{D}CantCFE") == "2"
        assert sobre.file_name == f"Sob_219999830019_{today:%Y%m%d}_{sobre.idemisor}.xml"
        for cfe in issued:
            signed = session.get(IssuedCfe, cfe["idCfeEmitido"]).xml
            body = signed.split(b"?>", 1)[1].strip()
            assert body in sobre.xml  # spliced byte for byte
            assert verify_signature(signed)


def test_the_daily_report_is_valid_matches_dgis_sample_and_counts_every_number(api_client, admin, service_app):
    today = today_montevideo()
    small = [issue(api_client, admin, bodies.body(bodies.ETICKET)) for _ in range(3)]
    big = bodies.body(bodies.DGI_SAMPLE_ETICKET)  # above 5,000 UI: sent one by one
    issue(api_client, admin, big)
    issue(api_client, admin, bodies.body(bodies.EFACTURA))
    rejected = bodies.body(bodies.EFACTURA)
    rejected["receptor"]["rznSocRecep"] = f"Cliente {REJECT_MARKER}E14"
    issue(api_client, admin, rejected)
    voided = api_client.post(
        "/api/v1/envios/anulaciones", headers=admin, json={"tipoCFE": 101, "cantidad": 2, "motivo": "Talonario dañado"}
    )
    assert voided.status_code == 201, voided.json
    drain(service_app)

    answer = api_client.post("/api/v1/envios/reportes", headers=admin, json={"fecha": today.isoformat()})
    assert answer.status_code == 202, answer.json
    assert answer.json["estado"] == "armado" and answer.json["secEnvio"] == 1
    drain(service_app)
    reports = api_client.get("/api/v1/envios/reportes", headers=admin).json["items"]
    assert reports[0]["estado"] == "aceptado" and reports[0]["acuse"] == "AR"

    with service_app.app_context():
        report = db.session().get(DgiDailyReport, reports[0]["idReporte"])
        assert validate_xml(report.xml, "ReporteDiarioCFE.xsd") == [] and verify_signature(report.xml)
        assert report.file_name == f"Rep_219999830019_{today:%Y%m%d}_01.xml"
        root, sample = etree.fromstring(report.xml), _sample("Rep")
        assert root.tag == sample.tag
        assert _names(root.find(f"{D}Caratula")) == _names(sample.find(f"{D}Caratula"))
        sections = _names(root)[1:-1]
        assert sections == ["Rsmn_Tck", "Rsmn_Fac"]
        order = _names(sample)
        assert [order.index(s) for s in sections] == sorted(order.index(s) for s in sections)
        tck = root.find(f"{D}Rsmn_Tck/{D}RsmnData")
        sample_tck = sample.find(f"{D}Rsmn_Tck/{D}RsmnData")
        assert _names(tck)[:6] == _names(sample_tck) and _names(tck)[6] == "RngDocsAnulados"
        assert _names(tck.find(f"{D}Montos/{D}Mnts_FyT_Item")) == _names(sample_tck.find(f"{D}Montos/{D}Mnts_FyT_Item"))
        # 4 e-Tickets issued (1 above the threshold) + 2 voided; 2 e-Facturas, one voided by DGI's rejection
        assert [
            tck.findtext(f"{D}{n}") for n in ("CantDocsUtil", "CantDocsMay_topeUI", "CantDocsAnulados", "CantDocsEmi")
        ] == ["6", "1", "2", "4"]
        fac = root.find(f"{D}Rsmn_Fac/{D}RsmnData")
        assert [fac.findtext(f"{D}{n}") for n in ("CantDocsUtil", "CantDocsAnulados", "CantDocsEmi")] == ["2", "1", "1"]
        assert root.findtext(f"{D}Caratula/{D}CantComprobantes") == "8"

    for ticket in small:
        dgi = api_client.get(
            "/api/v1/comprobante/getByIdCfeEmitido",
            headers=admin,
            query_string={"idCfeEmitido": ticket["idCfeEmitido"]},
        ).json["dgi"]
        assert dgi["estado"] == "en_reporte" and dgi["reporte"]["fecha"] == today.isoformat()
        assert dgi["reporte"]["acuse"] == "AR" and dgi["final"] is True


def test_voiding_takes_the_next_unused_numbers_once_per_idempotency_key(api_client, admin, auth_headers):
    body = {"tipoCFE": 181, "cantidad": 3, "motivo": "Remitos preimpresos perdidos"}
    headers = {**admin, "Idempotency-Key": "anular-1"}
    first = api_client.post("/api/v1/envios/anulaciones", headers=headers, json=body)
    again = api_client.post("/api/v1/envios/anulaciones", headers=headers, json=body)
    assert first.status_code == again.status_code == 201 and first.json == again.json
    remito = issue(api_client, admin, bodies.body(bodies.EREMITO))
    assert remito["nro"] == first.json["nroHasta"] + 1
    listed = api_client.get("/api/v1/envios/anulaciones", headers=admin).json
    assert listed["total"] == 1 and listed["items"][0]["origen"] == "operador"
    too_many = api_client.post("/api/v1/envios/anulaciones", headers=admin, json={**body, "cantidad": 999_999})
    assert too_many.status_code == 409 and too_many.json["error"]["code"] == "anulacion_excede_cae"
    assert (
        api_client.post("/api/v1/envios/anulaciones", headers=auth_headers("soporte@demo.uy"), json=body).status_code
        == 403
    )


def test_support_lists_envelopes_and_waiting_receipts_but_cannot_act(api_client, admin, auth_headers, service_app):
    today = today_montevideo()
    issue(api_client, admin, bodies.body(bodies.EFACTURA))
    support = auth_headers("soporte@demo.uy")
    waiting = api_client.get("/api/v1/envios/pendientes", headers=support).json
    assert waiting["total"] == 1 and waiting["items"][0]["estado"] == "pendiente"
    drain(service_app)
    assert api_client.get("/api/v1/envios/pendientes", headers=support).json["total"] == 0
    [sobre] = api_client.get("/api/v1/envios/sobres", headers=support).json["items"]
    assert sobre["estado"] == "respondido" and sobre["acuse"] == "AS" and sobre["aceptados"] == 1
    assert (
        api_client.post("/api/v1/envios/reportes", headers=support, json={"fecha": today.isoformat()}).status_code
        == 403
    )
    assert api_client.get("/api/v1/envios/sobres", headers=auth_headers("usuario@demo.uy")).status_code == 403
    other = api_client.get("/api/v1/envios/sobres", headers=auth_headers("admin@demo.uy", 2)).json
    assert other["items"] == []


def test_a_future_day_cannot_be_reported(api_client, admin):
    today = today_montevideo()
    answer = api_client.post(
        "/api/v1/envios/reportes", headers=admin, json={"fecha": (today + timedelta(days=1)).isoformat()}
    )
    assert answer.status_code == 422 and answer.json["error"]["fields"][0]["field"] == "fecha"


@pytest.mark.parametrize(
    ("fecha", "code"),
    [
        (0, "date_type"),  # a number: pydantic read it as a Unix time, and a report of 01/01/1970 was made
        (0.0, "date_type"),
        ("1700000000", "date_type"),
        ("2011-09-30", "out_of_range"),
    ],
)
def test_a_day_is_written_as_a_day_and_not_before_the_cfe_began(api_client, admin, fecha, code):
    answer = api_client.post("/api/v1/envios/reportes", headers=admin, json={"fecha": fecha})
    assert answer.status_code == 422
    assert [(f["field"], f["code"]) for f in answer.json["error"]["fields"]] == [("fecha", code)]
    assert api_client.get("/api/v1/envios/reportes", headers=admin).json["items"] == []


def test_openapi_documents_the_operations_and_their_examples_work_as_they_stand(api_client, admin):
    doc = api_client.get("/api/v1/openapi.json").json
    operations = {
        (method, path): op
        for path, item in doc["paths"].items()
        if path.startswith("/api/v1/envios")
        for method, op in item.items()
    }
    assert set(operations) == {
        ("get", "/api/v1/envios/sobres"),
        ("get", "/api/v1/envios/dgi"),
        ("get", "/api/v1/envios/dgi/aviso"),
        ("get", "/api/v1/envios/pendientes"),
        ("get", "/api/v1/envios/reportes"),
        ("post", "/api/v1/envios/reportes"),
        ("get", "/api/v1/envios/anulaciones"),
        ("post", "/api/v1/envios/anulaciones"),
        ("post", "/api/v1/envios/sobres/{id_sobre}/reintentar"),
        ("get", "/api/v1/envios/sobres/{id_sobre}/{documento}"),
        ("get", "/api/v1/envios/reportes/{id_reporte}/{documento}"),
    }
    for (method, path), op in operations.items():
        assert {"401", "403", "500"} <= set(op["responses"]), (method, path)
        assert "422" in op["responses"] or path.endswith(("reintentar", "{documento}")), (method, path)
        if method == "post" and "requestBody" in op:
            success = "202" if path.endswith("reportes") else "201"
            examples = op["requestBody"]["content"]["application/json"]["examples"]
            assert examples
            for example in examples.values():
                answer = api_client.post(path, headers=admin, json=example["value"])
                assert answer.status_code == int(success), (path, example, answer.json)
    dgi = doc["components"]["schemas"]["CfeEmitido"]["properties"]["dgi"]
    assert dgi


def test_the_reports_count_above_the_threshold_is_by_amount_not_by_the_road_to_dgi(api_client, admin, service_app):
    """CantDocsMay_topeUI counts "CFE y CFC con montos totales, excluido el IVA, mayores al tope" (the XSD): a
    small e-Ticket that went by envelope because of a perception is not one of them."""
    today = today_montevideo()
    perceived = bodies.body(bodies.ETICKET)
    perceived["receptor"] = {"tipoDocRecep": 3, "codPaisRecep": "UY", "docRecep": "13353214"}
    perceived["items"][0] |= {
        "indAgenteResp": "A",  # a perception agent
        "retencPercep": [{"codRet": "2183165", "tasa": "10", "mntSujetoaRet": "200", "valRetPerc": "20"}],
    }
    small_by_envelope = issue(api_client, admin, perceived)
    assert small_by_envelope["dgi"]["via"] == "sobre"
    issue(api_client, admin, bodies.body(bodies.DGI_SAMPLE_ETICKET))  # above 5,000 UI
    issue(api_client, admin, bodies.body(bodies.ETICKET))  # below, in the report only
    answer = api_client.post("/api/v1/envios/reportes", headers=admin, json={"fecha": today.isoformat()})
    assert answer.status_code == 202, answer.json
    with service_app.app_context():
        report = db.session().get(DgiDailyReport, answer.json["idReporte"])
        tck = etree.fromstring(report.xml).find(f"{D}Rsmn_Tck/{D}RsmnData")
        assert (tck.findtext(f"{D}CantDocsEmi"), tck.findtext(f"{D}CantDocsMay_topeUI")) == ("3", "1")


def test_the_reports_sums_are_add_receipts_for_every_kind_of_receipt(api_client, admin, service_app):
    today = today_montevideo()
    # reports._summaries adds the day's amounts itself (no zeros, no rate of 1): the document must be the one
    # TypeSummary.add_receipt gives for the same receipts, whole totals decoded, dollars and a rejected one too.
    for _ in range(2):
        issue(api_client, admin, bodies.body(bodies.ETICKET))
    issue(api_client, admin, bodies.body(bodies.DGI_SAMPLE_ETICKET))
    issue(api_client, admin, bodies.body(bodies.EFACTURA))
    issue(api_client, admin, {**bodies.body(bodies.EFACTURA), "tpoMoneda": "USD", "tpoCambio": "39.875"})
    issue(api_client, admin, {**bodies.body(bodies.ETICKET), "tpoMoneda": "USD", "tpoCambio": "40.125"})
    rejected = bodies.body(bodies.EFACTURA)
    rejected["receptor"]["rznSocRecep"] = f"Cliente {REJECT_MARKER}E14"
    issue(api_client, admin, rejected)
    drain(service_app)
    with service_app.app_context():
        session = db.new_session()
        records = session.scalars(select(IssuedCfe).where(IssuedCfe.fch_emis == today)).all()
        company_id = records[0].company_id
        fast, receipts = reports._summaries(session, company_id, today)
        reference: dict[int, report_xml.TypeSummary] = {}
        for record in records:
            if record.dgi_status == "rechazado":
                continue
            rate = Decimal(str(record.input_json.get("tpoCambio") or 1)) if record.tpo_moneda != "UYU" else Decimal(1)
            net = sum((Decimal(str(record.totals_json.get(n) or 0)) for n in reports._NET_EXCLUDING_IVA), Decimal(0))
            threshold = reports._threshold(session, record.fch_emis, {})
            reference.setdefault(record.tipo_cfe, report_xml.TypeSummary()).add_receipt(
                record.fch_emis, 1, record.serie, record.nro, record.totals_json, rate, net * rate > threshold
            )
        for voided in session.scalars(select(VoidedRange).where(VoidedRange.fecha == today)):  # the rejected one
            reference[voided.tipo_cfe].voided[voided.serie].append((voided.nro_desde, voided.nro_hasta))
        moment = datetime(2026, 1, 2, 3, 4, 5)

        def document(summaries) -> bytes:
            return etree.tostring(
                report_xml.report_document(rut="1", fecha=today, sec_envio=1, signed_at=moment, summaries=summaries)
            )

        assert {record.tpo_moneda for record in records} == {"UYU", "USD"} and len(reference) == 2
        assert document(fast) == document(reference) and len(receipts) == len(records) - 1
        assert reference[101].above_threshold == 1  # DGI's sample e-Ticket, above the threshold


def test_refusals_of_the_envios_api_speak_the_callers_language(api_client, admin):
    """An English caller (and the portal in English, which shows these messages) read English: voiding more
    numbers than the CAE has or of a type without CAE, a day not reportable, an envelope or report unknown."""
    english = {**admin, "Accept-Language": "en"}
    voids = "/api/v1/envios/anulaciones"
    too_many = api_client.post(
        voids, headers=english, json={"tipoCFE": 181, "cantidad": 999_999, "motivo": "Remitos perdidos"}
    )
    assert too_many.status_code == 409 and too_many.json["error"]["message"].startswith("The CAE has ")
    no_cae = api_client.post(
        voids, headers=english, json={"tipoCFE": 181, "serie": "Z", "cantidad": 1, "motivo": "Remitos perdidos"}
    )
    assert no_cae.status_code == 404 and no_cae.json["error"]["message"].startswith("The company has no unused")
    future = (today_montevideo() + timedelta(days=1)).isoformat()
    refused = api_client.post("/api/v1/envios/reportes", headers=english, json={"fecha": future})
    assert refused.json["error"]["message"] == "A future day cannot be reported."
    assert refused.json["error"]["fields"][0]["message"] == "That day has not happened yet."
    old = api_client.post("/api/v1/envios/reportes", headers=english, json={"fecha": "2011-09-30"})
    assert old.json["error"]["fields"][0]["message"].startswith("That day is before 01/10/2011")
    for path in ("/api/v1/envios/sobres/999999/reintentar",):
        assert (
            api_client.post(path, headers=english).json["error"]["message"]
            == "There is no such envelope in the company."
        )
    assert (
        api_client.get("/api/v1/envios/sobres/999999/sobre", headers=english).json["error"]["message"]
        == "There is no such envelope in the company."
    )
    assert (
        api_client.get("/api/v1/envios/reportes/999999/reporte", headers=english).json["error"]["message"]
        == "There is no such report in the company."
    )


def test_receipts_and_voids_of_a_day_after_its_report_go_in_the_days_next_report(api_client, admin, service_app):
    """A day already reported (an admin sent today's at 15:00) that then gets more receipts or voided numbers:
    the nightly job skipped the day for having a report, so those never reached DGI (an e-Ticket under the
    threshold goes to DGI only in the report). The day now goes again, as its next SecEnvio, with everything."""
    from portal.service.envios import tasks

    today = today_montevideo()
    first = issue(api_client, admin, bodies.body(bodies.ETICKET))
    sent = api_client.post("/api/v1/envios/reportes", headers=admin, json={"fecha": today.isoformat()})
    assert sent.status_code == 202
    drain(service_app)
    later = issue(api_client, admin, bodies.body(bodies.ETICKET))
    with service_app.app_context():
        assert tasks.daily_reports(until=today) != []
        built = db.session().scalars(select(DgiDailyReport).where(DgiDailyReport.fecha == today)).all()
        assert [r.sec_envio for r in sorted(built, key=lambda r: r.sec_envio)] == [1, 2]
        assert tasks.daily_reports(until=today) == []  # nothing new since: the day is not sent a third time
    drain(service_app)
    with service_app.app_context():
        last = max(built, key=lambda r: r.sec_envio)
        used = [
            (int(i.findtext(f"{D}NroDesde")), int(i.findtext(f"{D}NroHasta")))
            for i in etree.fromstring(last.xml).iter(f"{D}RDU_Item")
        ]
        assert used == [(first["nro"], later["nro"])]
    voided = api_client.post(
        "/api/v1/envios/anulaciones", headers=admin, json={"tipoCFE": 181, "cantidad": 2, "motivo": "Perdidos"}
    )
    assert voided.status_code == 201
    with service_app.app_context():
        assert len(tasks.daily_reports(until=today)) == 1


@pytest.mark.parametrize(
    ("motivo", "code"),
    [("Perdidos\x00", "control_chars"), ("Perdidos \u202e", "bidi_control"), ("Perdidos\nen el depósito", None)],
)
def test_a_voids_reason_with_hostile_characters_is_refused_whole(api_client, admin, motivo, code):
    """The reason of a void is kept with the voided range and shown to support: a NUL (which PostgreSQL cannot
    store, a 500 there), a writing-direction override or a line break were voided and stored as they came."""
    body = {"tipoCFE": 181, "cantidad": 1, "motivo": motivo}
    answer = api_client.post("/api/v1/envios/anulaciones", headers=admin, json=body)
    assert answer.status_code == 422, answer.json
    (field,) = answer.json["error"]["fields"]
    assert field["field"] == "motivo" and (code is None or field["code"] == code)
    assert api_client.get("/api/v1/envios/anulaciones", headers=admin).json["items"] == []


def test_voiding_takes_the_numbers_the_next_receipt_would_use_not_an_expired_cae(api_client, admin, service_app):
    """With an expired CAE still holding unused numbers beside the valid one, voiding "the next numbers" took the
    expired CAE's, while the next e-Remito took the valid CAE's: the numbers meant voided (lost pre-printed
    forms) stayed usable."""
    from sqlalchemy import update

    from portal.service.comprobante.models import CaeRangeRecord

    with service_app.app_context():
        session = db.session()
        valid = session.scalar(select(CaeRangeRecord).where(CaeRangeRecord.tipo_cfe == 181))
        expired = CaeRangeRecord(
            company_id=valid.company_id,
            tipo_cfe=181,
            serie="Z",
            dnro=1,
            hnro=50,
            next_nro=1,
            cae_id=valid.cae_id + 1_000_000,
            fecha_autorizacion=valid.fecha_autorizacion - timedelta(days=800),
            vencimiento=today_montevideo() - timedelta(days=1),
            source="demo",
        )
        session.add(expired)
        session.execute(update(CaeRangeRecord).where(CaeRangeRecord.id == valid.id).values(next_nro=valid.dnro))
        session.commit()
        valid_serie, first = valid.serie, valid.dnro
    body = {"tipoCFE": 181, "cantidad": 2, "motivo": "Remitos preimpresos perdidos"}
    voided = api_client.post("/api/v1/envios/anulaciones", headers=admin, json=body)
    assert voided.status_code == 201
    assert (voided.json["serie"], voided.json["nroDesde"], voided.json["nroHasta"]) == (valid_serie, first, first + 1)
    remito = issue(api_client, admin, bodies.body(bodies.EREMITO))
    assert (remito["serie"], remito["nro"]) == (valid_serie, first + 2)
