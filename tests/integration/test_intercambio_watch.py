"""The exchange in the compliance watch: the directory's last good refresh (warning after 2 days, problem after 7)
and each configured exchange mailbox's last good read (warning after an hour, problem after a day), read from
the database by the watch's own API, and made news (a notice) when they turn."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select

from portal.service.intercambio.models import DirectoryRefresh
from portal.service.intercambio.watch import directory_concern
from portal.service.platform import db, jobs
from portal.service.recibidos import mailbox
from portal.service.recibidos.models import ExchangeMailbox, ProcessedMail
from portal.service.recibidos.watch import mailbox_concern
from portal.service.salud import watch
from portal.service.salud.concerns import OK, PROBLEM, WARNING
from portal.service.salud.models import Notice

ADMIN = "admin@demo.uy"
NOW = datetime(2026, 11, 27, 15, 0, tzinfo=UTC)


@pytest.fixture
def app(service_config, tmp_path):
    from portal.service import create_app

    application = create_app({**service_config, "MAILBOX_DIR": str(tmp_path / "mailbox")})
    jobs.use_app(application)
    yield application
    application.extensions["db_engine"].dispose()


@pytest.mark.parametrize(
    "age, state",
    [
        (timedelta(days=1, hours=23), OK),
        (timedelta(days=2), WARNING),
        (timedelta(days=6, hours=23), WARNING),
        (timedelta(days=7), PROBLEM),
    ],
)
def test_directory_thresholds(age, state):
    concern = directory_concern(NOW, NOW - age, NOW - timedelta(days=30))
    assert concern.state == state and concern.kind == "intercambio_directorio"


def test_a_directory_never_refreshed_well_counts_from_its_first_attempt():
    assert directory_concern(NOW, None, None).state == OK  # never tried: the worker refreshes it when it starts
    assert directory_concern(NOW, None, NOW - timedelta(hours=3)).state == OK
    concern = directory_concern(NOW, None, NOW - timedelta(days=8))
    assert concern.state == PROBLEM and "nunca" in concern.message


@pytest.mark.parametrize(
    "age, state",
    [
        (timedelta(minutes=59), OK),
        (timedelta(hours=1), WARNING),
        (timedelta(hours=23, minutes=59), WARNING),
        (timedelta(days=1), PROBLEM),
    ],
)
def test_mailbox_thresholds(age, state):
    concern = mailbox_concern(3, NOW, NOW - age, NOW - timedelta(days=30), None)
    assert (concern.state, concern.key, concern.kind) == (state, "intercambio_buzon:3", "intercambio_buzon")


def test_a_mailbox_never_read_well_counts_from_when_it_was_configured():
    assert mailbox_concern(1, NOW, None, NOW - timedelta(minutes=5), None).state == OK
    concern = mailbox_concern(1, NOW, None, NOW - timedelta(hours=2), "No se pudo leer el buzón: refused")
    assert concern.state == WARNING and "refused" in concern.message


def _concerns(client, auth_headers, kind: str) -> list[dict]:
    answer = client.get("/api/v1/empresa/salud", headers=auth_headers(ADMIN, company_id=1))
    assert answer.status_code == 200
    return [item for item in answer.json["items"] if item["tipo"] == kind]


def test_the_watch_reads_the_directory_refreshes(app, auth_headers):
    client = app.test_client()
    now = datetime.now(UTC)
    with app.app_context(), db.write_transaction() as session:
        session.add(
            DirectoryRefresh(source="dgi", started_at=now - timedelta(days=9), finished_at=now - timedelta(days=9))
        )
        session.add(
            DirectoryRefresh(source="dgi", started_at=now - timedelta(days=1), finished_at=now, error="DGI no responde")
        )
    [concern] = _concerns(client, auth_headers, "intercambio_directorio")
    assert concern["estado"] == "problem"  # the failed refresh of yesterday is no good one
    with app.app_context(), db.write_transaction() as session:
        session.add(
            DirectoryRefresh(source="dgi", started_at=now - timedelta(days=3), finished_at=now - timedelta(days=3))
        )
    [concern] = _concerns(client, auth_headers, "intercambio_directorio")
    assert concern["estado"] == "warning" and "3 días" in concern["mensaje"]


def test_each_mailbox_is_watched_and_its_turn_is_news(app, auth_headers):
    client = app.test_client()
    assert _concerns(client, auth_headers, "intercambio_buzon") == []  # none configured: nothing to watch
    with app.app_context(), db.write_transaction() as session:
        box = mailbox.configure(session, 1, "imaps://intercambio:clave@imap.demo.uy/INBOX")
        box_id = box.id
    [concern] = _concerns(client, auth_headers, "intercambio_buzon")
    assert concern["estado"] == "ok"

    with app.app_context():
        mailbox._advance(box_id, None, None, "No se pudo leer el buzón: connection refused")
        with db.write_transaction() as session:
            row = session.get_one(ExchangeMailbox, box_id)
            row.configured_at = datetime.now(UTC) - timedelta(hours=2)
    [concern] = _concerns(client, auth_headers, "intercambio_buzon")
    assert concern["estado"] == "warning" and "connection refused" in concern["mensaje"]
    with app.app_context():
        watch.run(1)
        notices = db.session().scalars(select(Notice).where(Notice.kind == "intercambio_buzon")).all()
        assert [n.state for n in notices] == ["warning"]

        mailbox._advance(box_id, 7, None, None)  # a good read
        row = db.session().get_one(ExchangeMailbox, box_id)
        db.session().refresh(row)
        assert row.last_ok_at is not None and row.last_error is None
    [concern] = _concerns(client, auth_headers, "intercambio_buzon")
    assert concern["estado"] == "ok"


def test_the_exchange_concerns_are_said_in_the_readers_language(app, auth_headers):
    client = app.test_client()
    now = datetime.now(UTC)
    with app.app_context(), db.write_transaction() as session:
        session.add(
            DirectoryRefresh(source="dgi", started_at=now - timedelta(days=3), finished_at=now - timedelta(days=3))
        )
    english = {**auth_headers(ADMIN, company_id=1), "Accept-Language": "en"}
    items = client.get("/api/v1/empresa/salud", headers=english).json["items"]
    [concern] = [i for i in items if i["tipo"] == "intercambio_directorio"]
    assert concern["mensaje"].startswith("DGI's directory of electronic receivers has not been updated for 3 days")
    assert concern["accion"] == "Check the connection with DGI (lookup of electronic issuers)"


def test_why_a_mailbox_could_not_be_read_is_said_in_the_readers_language(app, auth_headers, monkeypatch):
    """The poll keeps its error as a catalogue message: the concern (its sentence and its datos) and the notice say it
    in English to an English reader; the server's own words inside are said as they came."""
    client = app.test_client()
    with app.app_context(), db.write_transaction() as session:
        box = mailbox.configure(session, 1, "imap://intercambio:clave@imap.demo.uy/INBOX")
        box.configured_at = datetime.now(UTC) - timedelta(hours=2)
        box_id = box.id

    def refused(settings):
        raise ConnectionRefusedError("connection refused")

    monkeypatch.setattr(mailbox, "_connect", refused)
    with app.app_context():
        assert mailbox.poll(box_id) == 0
    english = {**auth_headers(ADMIN, company_id=1), "Accept-Language": "en"}
    items = client.get("/api/v1/empresa/salud", headers=english).json["items"]
    [concern] = [i for i in items if i["tipo"] == "intercambio_buzon"]
    assert concern["mensaje"].endswith("Last error: Could not read the mailbox: connection refused")
    assert concern["datos"]["error"] == "Could not read the mailbox: connection refused"
    [spanish] = _concerns(client, auth_headers, "intercambio_buzon")
    assert spanish["mensaje"].endswith("Último error: No se pudo leer el buzón: connection refused")


def _set_aside(app, reason: str | None, sender: str | None, age: timedelta = timedelta(hours=1), company_id: int = 1):
    with app.app_context(), db.write_transaction() as session:
        count = session.scalar(select(func.count()).select_from(ProcessedMail)) or 0
        session.add(
            ProcessedMail(
                company_id=company_id,
                message_id=f"<m{count}@proveedor.uy>",
                sha256="",
                uid=count + 1,
                sender=sender,
                outcome="aparte",
                reason=reason,
                detail="para soporte",
                received_at=datetime.now(UTC) - age,
            )
        )


def test_a_suppliers_mail_the_mailbox_could_not_receive_is_news_for_the_company(app, auth_headers):
    """A message set aside (too big, an envelope refused...) was kept for support alone: the company never learnt
    that a supplier's mail was not received. Mail with no XML at all (any public address gets it) is not news,
    nor is one from before the last week, nor another company's."""
    client = app.test_client()
    assert _concerns(client, auth_headers, "intercambio_correos") == []  # no mailbox, nothing set aside
    with app.app_context(), db.write_transaction() as session:
        mailbox.configure(session, 1, "imaps://intercambio:clave@imap.demo.uy/INBOX")
    _set_aside(app, "sin_documentos", "spam@example.com")
    _set_aside(app, "muy_grande", "facturas@viejo.uy", age=timedelta(days=8))
    _set_aside(app, "ilegible", "facturas@otra.uy", company_id=2)
    _set_aside(app, None, "antes@proveedor.uy")  # set aside before reasons were kept
    [concern] = _concerns(client, auth_headers, "intercambio_correos")
    assert concern["estado"] == "ok"

    _set_aside(app, "muy_grande", "facturas@proveedor.uy")
    [concern] = _concerns(client, auth_headers, "intercambio_correos")
    assert concern["estado"] == "warning"
    assert concern["mensaje"] == (
        "Un correo del buzón de intercambio no se recibió en los últimos 7 días: el de facturas@proveedor.uy, que "
        "pesaba demasiado para leerlo."
    )
    with app.app_context():
        watch.run(1)
        [notice] = db.session().scalars(select(Notice).where(Notice.kind == "intercambio_correos")).all()
        assert notice.state == "warning"

    _set_aside(app, "sobre_rechazado", "cfe@norte.uy")
    english = client.get(
        "/api/v1/empresa/salud", headers={**auth_headers(ADMIN, company_id=1), "Accept-Language": "en"}
    )
    [concern] = [item for item in english.json["items"] if item["tipo"] == "intercambio_correos"]
    assert concern["mensaje"] == (
        "2 messages of the exchange mailbox were not received in the last 7 days; the last one, from cfe@norte.uy, "
        "carried an envelope that was refused (BS), and the supplier was told."
    )
    assert concern["accion"] == "Ask the supplier to send it again, or upload its envelopes in Received receipts"


def test_the_company_sees_every_mail_not_received_and_whom_to_ask_again(app, auth_headers):
    """The notice names the newest; the list names them all (the last 30 days, one line per message, newest
    first), in the reader's language; another company's and mail without XML are not in it."""
    client = app.test_client()
    admin = auth_headers(ADMIN, company_id=1)
    assert client.get("/api/v1/recibidos/correos-no-recibidos", headers=admin).json == {"items": []}
    _set_aside(app, "sin_documentos", "spam@example.com")
    _set_aside(app, "ilegible", "facturas@otra.uy", company_id=2)
    _set_aside(app, "muy_grande", "viejo@proveedor.uy", age=timedelta(days=31))
    _set_aside(app, "muy_grande", "facturas@proveedor.uy", age=timedelta(days=2))
    _set_aside(app, "sobre_rechazado", "cfe@norte.uy")
    listed = client.get("/api/v1/recibidos/correos-no-recibidos", headers=admin).json["items"]
    assert [(m["remitente"], m["motivo"]) for m in listed] == [
        ("cfe@norte.uy", "sobre_rechazado"),
        ("facturas@proveedor.uy", "muy_grande"),
    ]
    assert listed[1]["texto"] == "Pesaba demasiado para leerlo"
    english = client.get("/api/v1/recibidos/correos-no-recibidos", headers={**admin, "Accept-Language": "en"})
    assert english.json["items"][1]["texto"] == "Was too large to read"
    [concern] = _concerns(client, auth_headers, "intercambio_correos")
    assert concern["enlace"] == "/recibidos/correos-no-recibidos"
