"""Receipts to electronic receivers: recorded with the receipt, packed into an EnvioCFE_entreEmpresas valid
against DGI's XSD (each CFE byte for byte and verifiable by xmlsec1, the adenda outside the signature), delivered
in the background through the transport seam with retries and backoff, kill-safe and idempotent; and the signed
CFEs_Anulados_x_RechazoDGI when DGI rejects a receipt already delivered."""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime, timedelta

import pytest
from lxml import etree
from sqlalchemy import select

from portal.service.cfe.schema import validate_xml
from portal.service.comprobante.models import IssuedCfe
from portal.service.envios.envelope import cfe_body
from portal.service.intercambio import envelope, notices, sending, tasks, transport
from portal.service.intercambio.models import DgiRejectionNotice, ExchangeCfe, ExchangeEnvelope
from portal.service.platform import db
from portal.service.platform.models import Certificate
from tests.support import cfe_bodies as bodies
from tests.support.cfe_bodies import issue
from tests.support.envios import ENVIOS_CONFIG, REJECT_MARKER, drain
from tests.support.exchange import BUSY, NORTE, REFUSED, RecordingTransport, to_norte

NS = {"d": "http://cfe.dgi.gub.uy", "ds": "http://www.w3.org/2000/09/xmldsig#"}


@pytest.fixture
def service_config(service_config):
    return {**service_config, **ENVIOS_CONFIG, "INTERCAMBIO_DELAY_SECONDS": 0}


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


@pytest.fixture
def wire(monkeypatch):
    fake = RecordingTransport()
    monkeypatch.setattr(transport, "deliver", fake)
    return fake


def _rows(app, model):
    with app.app_context():
        return list(db.new_session().scalars(select(model)))


def _xmlsec1(xml: bytes, cert_pem: bytes, tmp_path, name: str) -> subprocess.CompletedProcess:
    (tmp_path / f"{name}.xml").write_bytes(xml)
    (tmp_path / "cert.pem").write_bytes(cert_pem)
    return subprocess.run(
        ["xmlsec1", "--verify", "--pubkey-cert-pem", str(tmp_path / "cert.pem"), str(tmp_path / f"{name}.xml")],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def _cert_pem(app, company_id: int = 1) -> bytes:
    with app.app_context():
        return db.session().scalar(select(Certificate).where(Certificate.company_id == company_id)).cert_pem.encode()


def test_an_efactura_to_an_electronic_receiver_is_delivered_in_a_valid_envelope(
    api_client, user, service_app, wire, tmp_path
):
    first = issue(api_client, user, to_norte())
    second = issue(api_client, user, to_norte(adenda=None))
    drain(service_app)
    [sobre] = wire.of("SOBRE")
    assert sobre.receiver_rut == NORTE and sobre.filename.startswith("Sob_219999830019_")
    assert validate_xml(sobre.document, "EnvioCFE_entreEmpresas.xsd") == []
    root = etree.fromstring(sobre.document)
    assert root.findtext("d:Caratula/d:RutReceptor", namespaces=NS) == NORTE
    assert root.findtext("d:Caratula/d:CantCFE", namespaces=NS) == "2"
    assert root.findtext("d:Caratula/d:Idemisor", namespaces=NS) == "1"  # its own sequence, not DGI's
    adendas = [item.findtext("d:Adenda", namespaces=NS) for item in root.findall("d:CFE_Adenda", namespaces=NS)]
    assert adendas == ["Orden de compra 4512 & cía.", None]
    cert = _cert_pem(service_app)
    with service_app.app_context():
        session = db.new_session()
        records = {ex.cfe_id: ex for ex in session.scalars(select(ExchangeCfe))}
        assert set(records) == {first["idCfeEmitido"], second["idCfeEmitido"]}
        assert {ex.state for ex in records.values()} == {"enviado"}
        assert all(ex.sent_at for ex in records.values())
        from portal.service.comprobante.models import IssuedCfe

        for index, cfe_id in enumerate((first["idCfeEmitido"], second["idCfeEmitido"])):
            signed = session.get(IssuedCfe, cfe_id).xml
            assert cfe_body(signed) in sobre.document  # byte for byte
            verified = _xmlsec1(signed, cert, tmp_path, f"cfe{index}")
            assert verified.returncode == 0, verified.stderr
        [stored] = session.scalars(select(ExchangeEnvelope))
        assert stored.xml == sobre.document and stored.state == "entregado" and stored.channel == "ws"
        session.close()
    # What a receiver does: each CFE cut out of the envelope verifies on its own with xmlsec1; tampered, it fails.
    pieces = [_cfe_in(item) for item in sobre.document.split(b"<DGICFE:CFE_Adenda>")[1:]]
    for index, piece in enumerate(pieces):
        verified = _xmlsec1(piece, cert, tmp_path, f"piece{index}")
        assert verified.returncode == 0, verified.stderr
    assert _xmlsec1(pieces[0].replace(b"Libros", b"Libras", 1), cert, tmp_path, "tampered").returncode != 0


def _cfe_in(item: bytes) -> bytes:
    """The CFE's bytes inside one CFE_Adenda of the envelope (the adenda, outside the signature, left out)."""
    return item.split(b"</DGICFE:CFE_Adenda>")[0].split(b"<DGICFE:Adenda>")[0]


def test_only_electronic_receivers_and_never_twice(api_client, user, service_app, wire):
    issue(api_client, user, bodies.body(bodies.EFACTURA))  # to DGI's RUT: not in the directory
    issue(api_client, user, bodies.body(bodies.ETICKET))  # no receiver
    drain(service_app)
    assert wire.calls == [] and _rows(service_app, ExchangeCfe) == []
    issue(api_client, user, to_norte())
    drain(service_app)
    drain(service_app)
    with service_app.app_context():
        tasks.sweep(timedelta(0))
    drain(service_app)
    assert len(wire.of("SOBRE")) == 1  # the sweep finds nothing left to do


def _time_passes(app) -> None:
    """The backoff's wait is over (moved back, rather than waited for; drain ran the retry early, and the lease
    sent it away), and the worker's sweep comes by."""
    with app.app_context():
        with db.write_transaction() as session:
            for sobre in session.scalars(select(ExchangeEnvelope).where(ExchangeEnvelope.state == "armado")):
                sobre.next_attempt_at = datetime.now(UTC) - timedelta(seconds=5)
        tasks.sweep(timedelta(0))


def test_temporary_failures_are_retried_with_backoff_then_delivered(api_client, user, service_app, wire):
    wire.outcomes = [BUSY, RuntimeError("connection reset"), BUSY]
    issue(api_client, user, to_norte())
    drain(service_app)  # the first attempt, and its retry run before its time: the backoff holds it
    [sobre] = _rows(service_app, ExchangeEnvelope)
    assert sobre.state == "armado" and sobre.attempts == 1 and sobre.last_error == "HTTP 503"
    assert datetime.now(UTC) + timedelta(seconds=1) < sobre.next_attempt_at  # backed off, not retried at once
    delays = [sobre.next_attempt_at]
    for _ in range(3):
        _time_passes(service_app)
        drain(service_app)
        [sobre] = _rows(service_app, ExchangeEnvelope)
        delays.append(sobre.next_attempt_at)
    assert sobre.state == "entregado" and sobre.attempts == 3 and sobre.last_error is None
    assert len(wire.of("SOBRE")) == 4
    assert len({call.document for call in wire.of("SOBRE")}) == 1  # the same bytes every time


def _exchange_envelope(api_client, user, cfe_id: str) -> dict:
    answer = api_client.get(
        "/api/v1/comprobante/getByIdCfeEmitido", query_string={"idCfeEmitido": cfe_id}, headers=user
    )
    return answer.json["intercambio"]["sobre"]


def test_a_failed_delivery_says_when_it_was_tried_and_when_it_is_tried_again(api_client, user, service_app, wire):
    """A delivery that failed said why, not when: the envelope kept no moment of its attempts. Each outcome the
    delivery job records now keeps the attempt's moment with it; a retry's moment is said while it will come."""
    wire.outcomes = [BUSY, REFUSED]
    cfe_id = issue(api_client, user, to_norte())["idCfeEmitido"]
    before = datetime.now(UTC)
    drain(service_app)
    [sobre] = _rows(service_app, ExchangeEnvelope)
    assert sobre.state == "armado" and sobre.attempts == 1
    assert before <= sobre.last_attempt_at <= datetime.now(UTC) < sobre.next_attempt_at
    answer = _exchange_envelope(api_client, user, cfe_id)
    assert answer["intentos"] == 1 and answer["ultimoError"] == "HTTP 503"
    assert datetime.fromisoformat(answer["ultimoIntento"]) == sobre.last_attempt_at
    assert datetime.fromisoformat(answer["proximoIntento"]) == sobre.next_attempt_at

    _time_passes(service_app)
    drain(service_app)  # refused for good: no retry comes
    [sobre], first = _rows(service_app, ExchangeEnvelope), datetime.fromisoformat(answer["ultimoIntento"])
    assert sobre.state == "error" and sobre.attempts == 2 and sobre.last_attempt_at > first
    answer = _exchange_envelope(api_client, user, cfe_id)
    assert datetime.fromisoformat(answer["ultimoIntento"]) == sobre.last_attempt_at
    assert answer["intentos"] == 2 and "proximoIntento" not in answer
    with service_app.app_context(), db.write_transaction() as session:  # as migration 0470 leaves older envelopes
        session.get_one(ExchangeEnvelope, sobre.id).last_attempt_at = None
    answer = _exchange_envelope(api_client, user, cfe_id)
    assert answer["intentos"] == 2 and "ultimoIntento" not in answer  # unknown: not made up

    # A retry asked for starts again from zero, and its delivery is an attempt of its own.
    with service_app.app_context():
        assert sending.retry(1, sobre.id) is True
        tasks.sweep(timedelta(0))
    drain(service_app)
    [sobre] = _rows(service_app, ExchangeEnvelope)
    assert sobre.state == "entregado" and sobre.last_attempt_at == sobre.sent_at
    answer = _exchange_envelope(api_client, user, cfe_id)
    assert datetime.fromisoformat(answer["ultimoIntento"]) == sobre.sent_at and "proximoIntento" not in answer


def test_a_permanent_failure_waits_for_support_and_a_retry_resends_the_same_bytes(api_client, user, service_app, wire):
    wire.outcomes = [REFUSED]
    issue(api_client, user, to_norte())
    drain(service_app)
    [sobre] = _rows(service_app, ExchangeEnvelope)
    assert sobre.state == "error" and "550" in sobre.last_error
    assert {ex.state for ex in _rows(service_app, ExchangeCfe)} == {"error"}
    with service_app.app_context():
        assert sending.retry(1, sobre.id) is True
        assert sending.retry(2, sobre.id) is False  # another company's envelope
        tasks.sweep(timedelta(0))
    drain(service_app)
    assert [s.state for s in _rows(service_app, ExchangeEnvelope)] == ["entregado"]
    assert wire.calls[0].document == wire.calls[1].document


def test_a_killed_sender_leaves_a_lease_and_the_sweep_delivers_the_same_envelope_once(
    api_client, user, service_app, wire
):
    issue(api_client, user, to_norte())
    with service_app.app_context():
        # The issue's wake-up is lost (the queue dropped): the sweep packs it.
        from portal.service.envios import sending as to_dgi
        from portal.service.platform import jobs

        jobs.huey.flush()
        assert sending.pack(1) == ([], True)  # DGI first: its envelope is not built yet
        to_dgi.pack(1)
        built, _waiting = sending.pack(1)
        [envelope_id] = built
        # A sender took the lease and was killed before delivering.
        with db.write_transaction() as session:
            session.get(ExchangeEnvelope, envelope_id).next_attempt_at = datetime.now(UTC) + timedelta(seconds=60)
        assert sending.deliver(envelope_id) is None and wire.calls == []  # the lease holds
        with db.write_transaction() as session:
            session.get(ExchangeEnvelope, envelope_id).next_attempt_at = datetime.now(UTC) - timedelta(seconds=5)
            session.get(ExchangeEnvelope, envelope_id).created_at = datetime.now(UTC) - timedelta(minutes=5)
        tasks.sweep()
    drain(service_app)
    with service_app.app_context():
        assert sending.deliver(envelope_id) is None  # delivered already: nothing sent again
    assert len(wire.of("SOBRE")) == 1


def test_envelope_limits():
    cert = None
    with pytest.raises(ValueError):
        envelope.build(
            [], rut_receptor=NORTE, rut_emisor="219999830019", idemisor=1, moment=datetime.now(UTC), cert_pem=cert
        )
    with pytest.raises(ValueError):
        envelope.build(
            [(b"<CFE/>", None)] * 251,
            rut_receptor=NORTE,
            rut_emisor="219999830019",
            idemisor=1,
            moment=datetime.now(UTC),
            cert_pem=cert,
        )


def test_dgi_rejecting_a_delivered_receipt_notifies_the_receiver(api_client, user, service_app, wire, tmp_path):
    cfe = issue(api_client, user, to_norte(name=f"Comercial del Norte {REJECT_MARKER}E14"))
    drain(service_app)
    with service_app.app_context():
        tasks.sweep(timedelta(0))
    drain(service_app)
    assert len(wire.of("SOBRE")) == 1  # delivered before DGI answered (DGI first, without waiting)
    [notice] = wire.of("NOTIFICACIONANULACIONCFE")
    assert notice.receiver_rut == NORTE and notice.filename == "Rech_219999830019_1.xml"
    assert validate_xml(notice.document, "CFEs_Anulados_x_RechazoDGI.xsd") == []
    root = etree.fromstring(notice.document)
    assert root.findtext("d:CFEAnulado/d:NroCFE", namespaces=NS) == str(cfe["nro"])
    assert root.findtext("d:CFEAnulado/d:Motivo_Cod", namespaces=NS) == "RD"
    verified = _xmlsec1(notice.document, _cert_pem(service_app), tmp_path, "notice")
    assert verified.returncode == 0, verified.stderr
    [recorded] = _rows(service_app, DgiRejectionNotice)
    assert recorded.state == "entregado" and recorded.cfe_count == 1
    assert _rows(service_app, ExchangeCfe)[0].notice_id == recorded.id
    with service_app.app_context():
        tasks.sweep(timedelta(0))
    drain(service_app)
    assert len(wire.of("NOTIFICACIONANULACIONCFE")) == 1  # recorded once, sent once


def test_more_than_250_receipts_make_a_second_envelope_with_the_next_number(api_client, user, service_app, wire):
    ids = {issue(api_client, user, to_norte(adenda=None))["idCfeEmitido"] for _ in range(envelope.MAX_CFES + 1)}
    drain(service_app)
    sent = wire.of("SOBRE")
    counts = [etree.fromstring(call.document).findtext("d:Caratula/d:CantCFE", namespaces=NS) for call in sent]
    numbers = [etree.fromstring(call.document).findtext("d:Caratula/d:Idemisor", namespaces=NS) for call in sent]
    assert sorted(counts, key=int) == ["1", "250"] and sorted(numbers) == ["1", "2"]
    assert all(validate_xml(call.document, "EnvioCFE_entreEmpresas.xsd") == [] for call in sent)
    assert all(len(call.document) <= envelope.MAX_BYTES for call in sent)
    assert {ex.cfe_id for ex in _rows(service_app, ExchangeCfe) if ex.state == "enviado"} == ids


def test_a_receiver_whose_electronic_start_has_not_come_gets_nothing_by_exchange(api_client, user, service_app, wire):
    from portal.service.intercambio.models import ElectronicIssuerRow

    with service_app.app_context(), db.write_transaction() as session:
        session.get(ElectronicIssuerRow, NORTE).transition_from = datetime.now(UTC).date() + timedelta(days=30)
    issue(api_client, user, to_norte())
    drain(service_app)
    assert _rows(service_app, ExchangeCfe) == [] and wire.calls == []


def test_support_retries_a_failed_envelope_from_the_command_line(
    api_client, user, service_app, service_config, wire, monkeypatch
):
    from click.testing import CliRunner

    from portal.service.__main__ import cli

    wire.outcomes = [REFUSED]
    issue(api_client, user, to_norte())
    drain(service_app)
    [sobre] = _rows(service_app, ExchangeEnvelope)
    monkeypatch.setenv("CFE_DATABASE_URL", service_config["DATABASE_URL"])
    monkeypatch.setenv("CFE_JOBS_URL", "immediate://")
    runner = CliRunner()
    assert runner.invoke(cli, ["intercambio", "reintentar", "--empresa", NORTE, str(sobre.id)]).exit_code == 1
    result = runner.invoke(cli, ["intercambio", "reintentar", "--empresa", "219999830019", str(sobre.id)])
    assert result.exit_code == 0, result.output
    assert [s.state for s in _rows(service_app, ExchangeEnvelope)] == ["entregado"]
    assert len(wire.of("SOBRE")) == 2


def test_why_an_envelope_was_not_delivered_is_said_in_the_readers_language(api_client, user, service_app, wire):
    """A receiver that does not take the envelope and says nothing: the error was kept as its Spanish sentence
    alone, so the receipt's answer in English said "El receptor no tomó el sobre."."""
    wire.outcomes = [transport.DeliveryResult(channel="ws", delivered=False, temporary=False, detail="")]
    cfe_id = issue(api_client, user, to_norte())["idCfeEmitido"]
    drain(service_app)

    def said(**language) -> str:
        answer = api_client.get(
            "/api/v1/comprobante/getByIdCfeEmitido", query_string={"idCfeEmitido": cfe_id}, headers={**user, **language}
        )
        return answer.json["intercambio"]["sobre"]["ultimoError"]

    assert said(**{"Accept-Language": "en"}) == "The receiver did not take the envelope."
    assert said() == "El receptor no tomó el sobre."


def test_a_notice_that_could_not_be_built_gives_its_number_back(api_client, user, service_app, wire, monkeypatch):
    cfe_id = issue(api_client, user, to_norte())["idCfeEmitido"]
    with service_app.app_context(), db.write_transaction() as session:
        session.get_one(ExchangeCfe, cfe_id).state = "enviado"
        session.get_one(IssuedCfe, cfe_id).dgi_status = "rechazado"
    valid = notices.validate_xml
    with service_app.app_context():
        monkeypatch.setattr(notices, "validate_xml", lambda xml, schema: ["a defect of ours"])
        assert notices.notify_dgi_rejections(1) == []  # logged; the receipt stays owed
        monkeypatch.setattr(notices, "validate_xml", valid)
        [notice_id] = notices.notify_dgi_rejections(1)
    [notice] = _rows(service_app, DgiRejectionNotice)
    assert (notice.id, notice.id_comunicacion, notice.file_name) == (notice_id, 1, "Rech_219999830019_1.xml")
