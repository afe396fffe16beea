"""The DGI simulator checks what DGI checks and answers with DGI's documents: every motive it uses."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest
from lxml import etree
from sqlalchemy import select, update

from portal.domain.uruguay_time import MONTEVIDEO, today_montevideo
from portal.service.cfe.schema import validate_xml
from portal.service.cfe.signing import CfeSigner, verify_signature
from portal.service.comprobante.models import CaeRangeRecord, IssuedCfe, VoidedRange
from portal.service.envios import acks, envelope, report_xml
from portal.service.envios.adapter import Credentials
from portal.service.envios.simulator import SimulatedDgi
from portal.service.platform import db
from portal.service.platform.certificates import generate_self_signed
from portal.service.platform.models import Certificate
from tests.support import cfe_bodies as bodies
from tests.support.certificates import make_certificate
from tests.support.cfe_bodies import issue

RUT = "219999830019"
CREDS = Credentials(rut=RUT, key_pem=b"", cert_pem=b"")


@pytest.fixture
def service_config(service_config):
    return {**service_config, "DGI_SIMULATOR_ANSWER_SECONDS": 0}


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


@pytest.fixture
def ctx(service_app):
    with service_app.app_context():
        yield SimulatedDgi(service_app.config)


def signed_xml(cfe_id: str) -> bytes:
    return db.session().get(IssuedCfe, cfe_id).xml


def company_cert() -> bytes:
    return db.session().scalar(select(Certificate).where(Certificate.company_id == 1)).cert_pem.encode()


def sobre(cfes: list[bytes], idemisor: int = 1, cert_pem: bytes | None = None, rut_receptor="214844360018") -> bytes:
    return envelope.build_envelope(
        cfes,
        rut_receptor=rut_receptor,
        rut_emisor=RUT,
        idemisor=idemisor,
        moment=datetime.now(MONTEVIDEO).replace(microsecond=0),
        cert_pem=cert_pem or company_cert(),
    )


def send(sim: SimulatedDgi, data: bytes, idemisor: int = 1) -> acks.EnvelopeAck:
    ack = sim.send_envelope(data, file_name=f"Sob_{RUT}_20261123_{idemisor}.xml", credentials=CREDS)
    assert validate_xml(ack, "ACKSobre.xsd") == [] and verify_signature(ack)
    return acks.read_ack_sobre(ack)


def verdicts(sim: SimulatedDgi, data: bytes, idemisor: int = 1) -> list[acks.CfeVerdict]:
    received = send(sim, data, idemisor)
    assert received.estado == "AS", received.motives
    answer = sim.query_envelope(received.id_receptor, received.token, credentials=CREDS)
    assert validate_xml(answer, "ACKCFE_DGI.xsd") == [] and verify_signature(answer)
    return acks.read_ack_cfe(answer)


def codes(verdict: acks.CfeVerdict) -> set[str]:
    return {m["codigo"] for m in verdict.motives}


def test_a_valid_envelope_is_received_and_its_cfe_accepted(api_client, user, ctx):
    cfe_id = issue(api_client, user, bodies.body(bodies.EFACTURA))["idCfeEmitido"]
    [verdict] = verdicts(ctx, sobre([signed_xml(cfe_id)]))
    assert verdict.estado == "AE" and verdict.motives == []


def test_the_same_envelope_sent_again_gets_the_first_answer_and_counts_once(api_client, user, ctx):
    data = sobre([signed_xml(issue(api_client, user, bodies.body(bodies.EFACTURA))["idCfeEmitido"])])
    first = ctx.send_envelope(data, file_name="Sob.xml", credentials=CREDS)
    assert ctx.send_envelope(data, file_name="Sob.xml", credentials=CREDS) == first


def _expired_cert() -> bytes:
    """The company's RUT, a certificate that expired yesterday."""
    now = datetime.now(MONTEVIDEO)
    return make_certificate(
        RUT, "DGI-RUC PRUEBA", not_before=now - timedelta(days=30), not_after=now - timedelta(days=1)
    ).cert_pem


@pytest.mark.parametrize(
    "code, spoil",
    [
        ("S01", lambda data: b"<EnvioCFE"),
        ("S07", lambda data: data + b" " * (2 * 1024 * 1024)),
        ("S04", lambda data: data.replace(b"<DGICFE:CantCFE>1</DGICFE:CantCFE>", b"")),
        (
            "S05",
            lambda data: data.replace(b"<DGICFE:CantCFE>1</DGICFE:CantCFE>", b"<DGICFE:CantCFE>2</DGICFE:CantCFE>"),
        ),
        ("S02", lambda data: data.replace(b"<DGICFE:RutReceptor>214844360018", b"<DGICFE:RutReceptor>211003420017")),
    ],
)
def test_envelope_rejections(api_client, user, ctx, code, spoil):
    data = sobre([signed_xml(issue(api_client, user, bodies.body(bodies.EFACTURA))["idCfeEmitido"])])
    answer = send(ctx, spoil(data))
    assert answer.estado in ("BS", "BA") and [m["codigo"] for m in answer.motives] == [code]
    assert answer.token is None


def test_an_expired_envelope_certificate_is_s03(api_client, user, ctx):
    cfe = signed_xml(issue(api_client, user, bodies.body(bodies.EFACTURA))["idCfeEmitido"])
    answer = send(ctx, sobre([cfe], cert_pem=_expired_cert()))
    assert [m["codigo"] for m in answer.motives] == ["S03"]


def test_cfes_signed_with_another_certificate_than_the_envelopes_are_s06(api_client, user, ctx):
    cfe = signed_xml(issue(api_client, user, bodies.body(bodies.EFACTURA))["idCfeEmitido"])
    _key, other = generate_self_signed(RUT, "otro certificado")
    answer = send(ctx, sobre([cfe], cert_pem=other))
    assert [m["codigo"] for m in answer.motives] == ["S06"]


def test_another_envelope_with_a_number_already_used_is_s08(api_client, user, ctx):
    first = signed_xml(issue(api_client, user, bodies.body(bodies.EFACTURA))["idCfeEmitido"])
    second = signed_xml(issue(api_client, user, bodies.body(bodies.EFACTURA))["idCfeEmitido"])
    assert send(ctx, sobre([first], idemisor=7)).estado == "AS"
    answer = send(ctx, sobre([second], idemisor=7), idemisor=7)
    assert answer.estado == "BS" and [m["codigo"] for m in answer.motives] == ["S08"]


def test_a_cfe_already_received_is_e02(api_client, user, ctx):
    cfe = signed_xml(issue(api_client, user, bodies.body(bodies.EFACTURA))["idCfeEmitido"])
    assert verdicts(ctx, sobre([cfe], idemisor=1))[0].estado == "AE"
    [again] = verdicts(ctx, sobre([cfe], idemisor=2), idemisor=2)
    assert again.estado == "BE" and codes(again) == {"E02"}


def test_a_tampered_cfe_fails_its_signature_e04(api_client, user, ctx):
    cfe = signed_xml(issue(api_client, user, bodies.body(bodies.EFACTURA))["idCfeEmitido"])
    [verdict] = verdicts(ctx, sobre([cfe.replace(b"Fernandez Crespo 1534", b"Fernandez Crespo 1535")]))
    assert codes(verdict) == {"E04"}


def test_totals_off_by_more_than_a_cent_per_rate_are_e05(api_client, user, ctx):
    record = issue(api_client, user, bodies.body(bodies.EFACTURA))
    cfe = signed_xml(record["idCfeEmitido"])
    total = record["totales"]["mntTotal"]
    spoiled = cfe.replace(
        f"<MntTotal>{total}</MntTotal>".encode(), f"<MntTotal>{float(total) + 0.05:.2f}</MntTotal>".encode()
    )
    assert spoiled != cfe
    [verdict] = verdicts(ctx, sobre([spoiled]))
    assert "E05" in codes(verdict)


def test_one_cent_per_rate_is_tolerated(api_client, user, ctx):
    record = issue(api_client, user, bodies.body(bodies.EFACTURA))
    cfe = signed_xml(record["idCfeEmitido"])
    total = record["totales"]["mntTotal"]
    shifted = cfe.replace(
        f"<MntTotal>{total}</MntTotal>".encode(), f"<MntTotal>{float(total) + 0.01:.2f}</MntTotal>".encode()
    )
    [verdict] = verdicts(ctx, sobre([shifted]))
    assert "E05" not in codes(verdict) and codes(verdict) == {"E04"}  # the signature still catches the change


def test_a_number_outside_its_cae_is_e03_and_a_foreign_cae_is_e09(api_client, user, ctx):
    record = issue(api_client, user, bodies.body(bodies.EFACTURA))
    cfe = signed_xml(record["idCfeEmitido"])
    outside = cfe.replace(f"<Nro>{record['nro']}</Nro>".encode(), b"<Nro>9999999</Nro>")
    [verdict] = verdicts(ctx, sobre([outside]))
    assert "E03" in codes(verdict)
    foreign = cfe.replace(f"<CAE_ID>{record['cae']['caeId']}</CAE_ID>".encode(), b"<CAE_ID>90129999999</CAE_ID>")
    [verdict] = verdicts(ctx, sobre([foreign], idemisor=2), idemisor=2)
    assert "E09" in codes(verdict)


def test_a_signature_outside_the_caes_dates_is_e07(api_client, user, ctx):
    record = issue(api_client, user, bodies.body(bodies.EFACTURA))
    db.session().execute(
        update(CaeRangeRecord)
        .where(CaeRangeRecord.company_id == 1, CaeRangeRecord.tipo_cfe == 111)
        .values(fecha_autorizacion=today_montevideo() + timedelta(days=1))
    )
    db.session().commit()
    [verdict] = verdicts(ctx, sobre([signed_xml(record["idCfeEmitido"])]))
    assert codes(verdict) == {"E07"}


def test_a_number_voided_before_is_e01(api_client, user, ctx):
    record = issue(api_client, user, bodies.body(bodies.EFACTURA))
    stored = db.session().get(IssuedCfe, record["idCfeEmitido"])
    db.session().add(
        VoidedRange(
            company_id=1,
            cae_range_id=stored.cae_range_id,
            tipo_cfe=111,
            serie=stored.serie,
            nro_desde=stored.nro,
            nro_hasta=stored.nro,
            fecha=today_montevideo(),
            source="operador",
            reason="prueba",
            created_by="test",
        )
    )
    db.session().commit()
    [verdict] = verdicts(ctx, sobre([stored.xml]))
    assert codes(verdict) == {"E01"}


def test_a_note_referring_to_a_receipt_dgi_has_not_seen_is_e12(api_client, user, ctx):
    invoice = issue(api_client, user, bodies.body(bodies.EFACTURA))
    note = issue(api_client, user, bodies.note(112, 111, invoice["serie"], invoice["nro"]))
    [verdict] = verdicts(ctx, sobre([signed_xml(note["idCfeEmitido"])]))
    assert codes(verdict) == {"E12"}
    assert verdicts(ctx, sobre([signed_xml(invoice["idCfeEmitido"])], idemisor=2), idemisor=2)[0].estado == "AE"
    note2 = issue(api_client, user, bodies.note(112, 111, invoice["serie"], invoice["nro"]))
    assert verdicts(ctx, sobre([signed_xml(note2["idCfeEmitido"])], idemisor=3), idemisor=3)[0].estado == "AE"


# --- daily reports -------------------------------------------------------------------------------------


def _report(fecha: date, sec: int = 1, signer: CfeSigner | None = None, rut: str = RUT, later_by: int = 0) -> bytes:
    """A signed daily report; `later_by` seconds make otherwise equal reports differ in their bytes."""
    from portal.service.platform.keystore import signer_for

    signed_at = datetime.now(MONTEVIDEO).replace(microsecond=0) + timedelta(seconds=later_by)
    document = report_xml.report_document(rut=rut, fecha=fecha, sec_envio=sec, signed_at=signed_at, summaries={})
    if signer is None:
        signer = signer_for(db.session().scalar(select(Certificate).where(Certificate.company_id == 1)))
    return signer.sign(document).xml


def send_report(sim, data: bytes) -> tuple[str, list[str]]:
    ack = sim.send_report(data, file_name="Rep.xml", credentials=CREDS)
    assert validate_xml(ack, "ACKRepDiario.xsd") == [] and verify_signature(ack)
    estado, motives = acks.read_ack_report(ack)
    return estado, [m["codigo"] for m in motives]


def test_report_answers(ctx):
    yesterday = today_montevideo() - timedelta(days=1)
    first = _report(yesterday)
    assert send_report(ctx, first) == ("AR", [])
    assert send_report(ctx, first) == ("AR", [])  # the same report again: its first answer
    assert send_report(ctx, _report(yesterday, sec=1, later_by=1)) == ("BR", ["R05"])  # same sequence, other bytes
    assert send_report(ctx, _report(yesterday, sec=2)) == ("AR", [])
    assert send_report(ctx, b"<Reporte") == ("BA", ["R01"])
    assert send_report(ctx, _report(yesterday + timedelta(days=3))) == ("BR", ["R06"])
    tampered = _report(yesterday - timedelta(days=1)).replace(b"<ns1:CantComprobantes>0<", b"<ns1:CantComprobantes>5<")
    assert send_report(ctx, tampered) == ("BR", ["R03"])
    key, cert = generate_self_signed("211003420017", "otra empresa")
    assert send_report(ctx, _report(yesterday - timedelta(days=2), signer=CfeSigner(key, cert))) == ("BR", ["R02"])
    invalid = etree.tostring(
        etree.fromstring(_report(yesterday - timedelta(days=4))).find("{http://cfe.dgi.gub.uy}Caratula")
    )
    assert send_report(ctx, invalid)[1] == ["R04"]
