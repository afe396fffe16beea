"""The numbers a company sends its electronic receivers on PostgreSQL, where two workers (or a worker and a retry)
pack envelopes or build DGI-rejection notices for the same company at the same moment: each takes the company's
next number in turn from its counter row, never the same one, and neither fails on the unique index; and the
counters start after the numbers already sent."""

from __future__ import annotations

import threading

from alembic import command
from lxml import etree
from sqlalchemy import create_engine, select
from sqlalchemy.pool import NullPool

from portal.service.cfe.schema import validate_xml
from portal.service.comprobante.models import IssuedCfe
from portal.service.envios import sending as to_dgi
from portal.service.intercambio import envelope, notices, sending
from portal.service.intercambio.models import DgiRejectionNotice, ExchangeCfe, ExchangeEnvelope
from portal.service.migrations import alembic_config
from portal.service.platform import db, jobs
from tests.support import exchange_numbers as numbers
from tests.support.cfe_bodies import issue
from tests.support.exchange import to_norte

NS = {"d": "http://cfe.dgi.gub.uy"}


def _issued_to_norte(api_client, headers, app) -> str:
    """A receipt to an electronic receiver, its envelope to DGI built (so it may be packed for the receiver)."""
    cfe_id = issue(api_client, headers, to_norte())["idCfeEmitido"]
    with app.app_context():
        jobs.huey.flush()  # no worker here: the test packs itself
        to_dgi.pack(1)
    return cfe_id


def _held(monkeypatch, module, name: str) -> tuple[threading.Event, threading.Event]:
    """Make the first call of `module.name` wait (its transaction open, its number taken) until released."""
    inside, release = threading.Event(), threading.Event()
    original = getattr(module, name)

    def held(*args, **kwargs):
        if not inside.is_set():
            inside.set()
            release.wait(10)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, held)
    return inside, release


def _at_once(app, work, inside: threading.Event, release: threading.Event, meanwhile) -> list[BaseException]:
    """`work` in a thread until it is held; `meanwhile()`; `work` again in a second thread, given the time to take
    its number while the first holds its own; then the first goes on. The errors either raised."""
    errors: list[BaseException] = []

    def run() -> None:
        try:
            with app.app_context():
                work()
        except BaseException as exc:  # reported by the caller
            errors.append(exc)

    first = threading.Thread(target=run)
    first.start()
    assert inside.wait(10)
    meanwhile()
    second = threading.Thread(target=run)
    second.start()
    second.join(1.5)  # with max()+1 or count()+1 it has read its number by now
    release.set()
    first.join(30)
    second.join(30)
    assert not first.is_alive() and not second.is_alive()
    return errors


def _rows(app, statement) -> list:
    with app.app_context(), db.new_session() as session:
        return list(session.execute(statement).all())


def test_two_packers_for_one_company_at_once_give_its_envelopes_the_next_idemisor_in_turn(
    api_client, auth_headers, service_app, monkeypatch
):
    user = auth_headers("usuario@demo.uy")
    _issued_to_norte(api_client, user, service_app)
    inside, release = _held(monkeypatch, envelope, "build")
    # A receipt issued while the first packer holds its envelope: the second packer takes it (SKIP LOCKED).
    errors = _at_once(
        service_app, lambda: sending.pack(1), inside, release, lambda: _issued_to_norte(api_client, user, service_app)
    )
    assert errors == []
    envelopes = _rows(service_app, select(ExchangeEnvelope.idemisor, ExchangeEnvelope.xml, ExchangeEnvelope.file_name))
    assert sorted(idemisor for idemisor, _xml, _name in envelopes) == [1, 2]
    for idemisor, xml, file_name in envelopes:
        assert validate_xml(xml, "EnvioCFE_entreEmpresas.xsd") == []
        assert etree.fromstring(xml).findtext("d:Caratula/d:Idemisor", namespaces=NS) == str(idemisor)
        assert file_name.endswith(f"_{idemisor}.xml")
    packed = _rows(service_app, select(ExchangeCfe.state, ExchangeCfe.envelope_id))
    assert len(packed) == 2 and {state for state, _envelope in packed} == {"en_sobre"}


def test_two_notice_runs_for_one_company_at_once_number_their_notices_in_turn_and_notify_each_receipt_once(
    api_client, auth_headers, service_app, monkeypatch
):
    user = auth_headers("usuario@demo.uy")
    first, second = (_issued_to_norte(api_client, user, service_app) for _ in range(2))

    def rejected_by_dgi(cfe_id: str) -> None:
        with service_app.app_context(), db.write_transaction() as session:
            session.get_one(IssuedCfe, cfe_id).dgi_status = "rechazado"

    with service_app.app_context(), db.write_transaction() as session:
        for cfe_id in (first, second):  # both delivered to the receiver
            session.get_one(ExchangeCfe, cfe_id).state = "enviado"
    rejected_by_dgi(first)
    inside, release = _held(monkeypatch, notices, "validate_xml")
    # DGI rejects the second receipt while the first run holds its notice: the second run notifies it.
    errors = _at_once(
        service_app,
        lambda: notices.notify_dgi_rejections(1),
        inside,
        release,
        lambda: rejected_by_dgi(second),
    )
    assert errors == []
    sent = _rows(service_app, select(DgiRejectionNotice.file_name, DgiRejectionNotice.xml))
    numbers_sent = [etree.fromstring(xml).findtext("d:Caratula/d:IDComunicacion", namespaces=NS) for _name, xml in sent]
    assert sorted(numbers_sent) == ["1", "2"]
    for (file_name, xml), number in zip(sent, numbers_sent, strict=True):
        assert file_name == f"Rech_219999830019_{number}.xml"
        assert validate_xml(xml, notices.SCHEMA) == []
        assert etree.fromstring(xml).findtext("d:Caratula/d:CantCFEAnulados", namespaces=NS) == "1"
    notified = _rows(service_app, select(ExchangeCfe.notice_id))
    assert len({notice_id for (notice_id,) in notified}) == 2  # each receipt in one notice, each notice one receipt


def test_envelopes_and_notices_sent_before_leave_the_counters_after_their_numbers_on_postgresql(
    postgres_server, empty_pg_database
):
    url = postgres_server.url(empty_pg_database)
    config = alembic_config(url)
    command.upgrade(config, numbers.BEFORE_SENDER_NUMBERING)
    engine = create_engine(url, poolclass=NullPool)
    with engine.begin() as connection:
        numbers.store_before_sender_numbering(connection)
    command.upgrade(config, "heads")
    with engine.connect() as connection:
        numbers.assert_sender_numbered(connection)
    engine.dispose()
