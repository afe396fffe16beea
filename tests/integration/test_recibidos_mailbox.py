"""The exchange mailbox against a real IMAP server (dovecot, started for the test): envelopes and answers to our
own envelopes arrive there; each message is handled once (by UID, Message-ID and the document's hash), a bad
attachment is answered BS and kept aside, and a mailbox that cannot be reached is recorded, not fatal."""

from __future__ import annotations

import io
import shutil
import tempfile
import zipfile
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import pytest
from sqlalchemy import select

from portal.service.intercambio import answers
from portal.service.platform import db, jobs
from portal.service.recibidos import mailbox, tasks
from portal.service.recibidos.models import ExchangeAnswer, ExchangeMailbox, ProcessedMail, ReceivedEnvelope
from tests.support import recibidos as sup
from tests.support.imap import Dovecot

SENDER = "intercambio@norte.com.uy"
LISTED = "intercambio@delnorte.uy"  # Comercial del Norte in the exchange directory (intercambio/simulated.py)


@pytest.fixture
def dovecot():
    # A short folder of its own: dovecot's Unix sockets live under it, and a socket's path may not pass 107
    # characters (pytest's tmp_path under a parallel run's worker folder does).
    root = Path(tempfile.mkdtemp(prefix="dv", dir="/tmp"))
    server = Dovecot(root).start()
    yield server
    server.stop()
    shutil.rmtree(root, ignore_errors=True)


def _message(*attachments: tuple[str, bytes], message_id: str | None = None) -> bytes:
    message = EmailMessage()
    message["From"] = f"Comercial del Norte <{SENDER}>"
    message["To"] = "recepcion@demo.uy"
    message["Subject"] = "Sobre de CFE"
    message["Message-ID"] = message_id or make_msgid(domain="norte.com.uy")
    message.set_content("Adjuntamos el sobre.")
    for name, data in attachments:
        message.add_attachment(data, maintype="application", subtype="xml", filename=name)
    return message.as_bytes()


def _poll(app) -> int:
    with app.app_context():
        mailbox_id = db.session().scalar(select(ExchangeMailbox.id))
        return tasks.poll_mailbox.call_local(mailbox_id)


def test_each_message_is_handled_once_and_answered_by_mail(service_app, dovecot, smtp, monkeypatch):
    service_app.config["SMTP_URL"] = smtp.url
    recorded: list[bytes] = []
    monkeypatch.setattr(answers, "record_answer", lambda session, company_id, doc, channel: recorded.append(doc))
    with service_app.app_context():
        mailbox.configure(db.session(), 1, dovecot.url)
        db.session().commit()
    envelope = _message(("Sob_211003420017_1.xml", sup.envelope([sup.cfe(1), sup.cfe(2)])), message_id="<uno@norte>")
    dovecot.append(envelope)
    dovecot.append(_message(("roto.xml", b"<EnvioCFE_entreEmpresas><sin cerrar")))
    dovecot.append(_message(("ACKSobre_219999830019_1.xml", b'<ACKSobre xmlns="http://cfe.dgi.gub.uy"/>')))
    dovecot.append(_message())  # no documents at all
    dovecot.append(envelope)  # the same message again (a resend, a copy): handled once

    assert _poll(service_app) == 5
    with service_app.app_context():
        session = db.session()
        envelopes = session.scalars(select(ReceivedEnvelope).order_by(ReceivedEnvelope.id)).all()
        processed = session.scalars(select(ProcessedMail).order_by(ProcessedMail.id)).all()
        box = session.scalar(select(ExchangeMailbox))
    assert [(e.estado, e.channel, e.reply_to, e.cant_cfe) for e in envelopes] == [
        ("AS", "correo", SENDER, 2),
        ("BS", "correo", SENDER, 0),
    ]
    assert envelopes[1].motives[0]["codigo"] == "S01" and envelopes[1].xml.startswith(b"<EnvioCFE")  # kept aside
    assert [(p.outcome, p.reason) for p in processed] == [
        ("sobre", None),
        ("aparte", "sobre_rechazado"),  # the compliance watch tells the company (recibidos/watch.py)
        ("respuesta", None),
        ("aparte", "sin_documentos"),  # not news: any public address gets mail without XML
    ]
    assert len(recorded) == 1 and recorded[0].startswith(b"<ACKSobre")
    assert box.last_uid == 5 and box.last_error is None

    jobs.use_app(service_app)
    jobs.run_pending()
    with service_app.app_context():
        states = [a.state for a in db.session().scalars(select(ExchangeAnswer))]
    # AS + ACKCFE for the envelope, to the supplier's exchange address as DGI lists it, not to the address the
    # message claims (From and Reply-To are anyone's to write); the broken one names no sender DGI lists.
    assert states == ["enviado", "enviado", "sin_destino"]
    assert {tuple(m.envelope_to) for m in smtp.recorder.received} == {(LISTED,)}

    assert _poll(service_app) == 0  # nothing new
    dovecot.append(_message(("Sob_211003420017_2.xml", sup.envelope([sup.cfe(3)], idemisor=2))))
    assert _poll(service_app) == 1
    with service_app.app_context():
        assert db.session().scalar(select(ExchangeMailbox.last_uid)) == 6


def test_a_mailbox_that_cannot_be_reached_is_recorded_and_polled_again(service_app, dovecot):
    with service_app.app_context():
        mailbox.configure(db.session(), 1, dovecot.url.replace("clave-de-prueba", "otra-clave"))
        db.session().commit()
    assert _poll(service_app) == 0
    with service_app.app_context():
        box = db.session().scalar(select(ExchangeMailbox))
    assert box.last_error and box.last_uid == 0


def test_the_development_mailbox_comes_from_the_settings(service_app, dovecot):
    service_app.config["RECIBIDOS_IMAP_URL"] = dovecot.url
    dovecot.append(_message(("s.xml", sup.envelope([sup.cfe(1)]))))
    with service_app.app_context():
        [mailbox_id] = mailbox.mailboxes()
        assert tasks.poll_mailbox.call_local(mailbox_id) == 1
        assert db.session().scalar(select(ReceivedEnvelope.estado)) == "AS"


def test_an_envelope_that_cannot_be_answered_now_stays_for_the_next_poll(service_app, dovecot):
    from sqlalchemy import delete, insert

    from portal.service.platform.models import Certificate

    with service_app.app_context():
        mailbox.configure(db.session(), 1, dovecot.url)
        saved = [
            {c.name: getattr(row, c.name) for c in Certificate.__table__.columns}
            for row in db.session().scalars(select(Certificate).where(Certificate.company_id == 1))
        ]
        db.session().execute(delete(Certificate).where(Certificate.company_id == 1))
        db.session().commit()
    dovecot.append(_message(("s.xml", sup.envelope([sup.cfe(1)]))))
    assert _poll(service_app) == 0
    with service_app.app_context():
        box = db.session().scalar(select(ExchangeMailbox))
        assert box.last_uid == 0 and "certificado" in box.last_error
        assert db.session().scalar(select(ReceivedEnvelope.id)) is None
        db.session().execute(insert(Certificate), saved)
        db.session().commit()
    assert _poll(service_app) == 1
    with service_app.app_context():
        assert db.session().scalar(select(ReceivedEnvelope.estado)) == "AS"


@pytest.mark.parametrize("header", [b'From: "', b"Reply-To: <", b"From: a@[", b"Message-ID: <"])
def test_a_message_whose_headers_cannot_be_parsed_does_not_block_the_mailbox(service_app, dovecot, header):
    # email's header parser (policy.default) raises IndexError or AttributeError on these instead of noting a
    # defect: the message was never recorded, its UID never passed, and every later poll stopped at it.
    with service_app.app_context():
        mailbox.configure(db.session(), 1, dovecot.url)
        db.session().commit()
    name = header.split(b":")[0]
    raw = _message(("Sob_211003420017_1.xml", sup.envelope([sup.cfe(1)])), message_id="<cabecera@norte>")
    lines = [line for line in raw.split(b"\n") if not line.lower().startswith(name.lower() + b":")]
    dovecot.append(header + b"\n" + b"\n".join(lines))
    dovecot.append(_message(("Sob_211003420017_2.xml", sup.envelope([sup.cfe(2)], idemisor=2))))

    assert _poll(service_app) == 2
    with service_app.app_context():
        session = db.session()
        box = session.scalar(select(ExchangeMailbox))
        envelopes = session.scalars(select(ReceivedEnvelope).order_by(ReceivedEnvelope.id)).all()
        processed = session.scalars(select(ProcessedMail).order_by(ProcessedMail.id)).all()
    assert box.last_uid == 2 and box.last_error is None
    # The envelopes are judged by their signatures, not by who the message says it is from: both are received.
    assert [e.estado for e in envelopes] == ["AS", "AS"]
    assert [p.outcome for p in processed] == ["sobre", "sobre"]


def _zip(entries: int, size: int, prefix: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for n in range(entries):
            name = f"{prefix}{n}.xml"  # in the document too: each has its own hash, so none is skipped as seen
            archive.writestr(name, f"<EnvioCFE_entreEmpresas>{name}{' ' * size}</EnvioCFE_entreEmpresas>")
    return buffer.getvalue()


def _zipped(*archives: bytes) -> bytes:
    message = EmailMessage()
    message["From"] = f"Comercial del Norte <{SENDER}>"
    message["Message-ID"] = make_msgid(domain="norte.com.uy")
    message.set_content("Adjuntamos los sobres.")
    for n, data in enumerate(archives):
        message.add_attachment(data, maintype="application", subtype="zip", filename=f"sobres{n}.zip")
    return message.as_bytes()


@pytest.mark.parametrize(
    ("archives", "detail"),
    [
        # Each ZIP within an upload's caps, the message past them: 60 documents, or 75 MB expanded from 150 KB.
        ((_zip(30, 10, "a"), _zip(30, 10, "b")), "más de 50 documentos"),
        ((_zip(25, 1_500_000, "a"), _zip(25, 1_500_000, "b")), "pasan de 60 MB"),
    ],
    ids=["documents", "bytes"],
)
def test_a_message_whose_zips_expand_past_the_caps_is_kept_aside_whole(service_app, dovecot, archives, detail):
    """Each ZIP was expanded on its own, up to 50 files and 60 MB, and the message's documents were kept together:
    20 small ZIPs in a 1.7 MB message took 1.2 GB of memory, and each of their 580 documents went to the intake."""
    with service_app.app_context():
        mailbox.configure(db.session(), 1, dovecot.url)
        db.session().commit()
    dovecot.append(_zipped(*archives))
    dovecot.append(_message(("Sob_211003420017_1.xml", sup.envelope([sup.cfe(1)]))))

    assert _poll(service_app) == 2
    with service_app.app_context():
        session = db.session()
        processed = session.scalars(select(ProcessedMail).order_by(ProcessedMail.id)).all()
        envelopes = session.scalars(select(ReceivedEnvelope)).all()
        box = session.scalar(select(ExchangeMailbox))
    assert [(p.outcome, p.reason) for p in processed] == [("aparte", "demasiados"), ("sobre", None)]
    assert detail in processed[0].detail and "no se recibió ninguno" in processed[0].detail
    assert [e.estado for e in envelopes] == ["AS"]  # nothing of the first message was received
    assert box.last_uid == 2 and box.last_error is None


def test_a_message_past_the_size_cap_is_kept_aside_without_being_downloaded(service_app, dovecot, monkeypatch):
    """Every message was fetched whole, twenty at a time, whatever its size: twenty 50 MB messages were a gigabyte
    in memory before any was looked at. Its size is asked first now (the cap made small here)."""
    monkeypatch.setattr(mailbox, "MAX_MESSAGE_BYTES", 100_000, raising=False)
    fetched: list[tuple[tuple[int, ...], tuple[str, ...]]] = []
    real_fetch = mailbox.IMAPClient.fetch

    def fetch(client, messages, data, *args, **kwargs):
        fetched.append((tuple(messages), tuple(data)))
        return real_fetch(client, messages, data, *args, **kwargs)

    monkeypatch.setattr(mailbox.IMAPClient, "fetch", fetch)
    with service_app.app_context():
        mailbox.configure(db.session(), 1, dovecot.url)
        db.session().commit()
    dovecot.append(_message(("grande.xml", b"<a>" + b" " * 200_000 + b"</a>"), message_id="<grande@norte>"))
    dovecot.append(_message(("Sob_211003420017_1.xml", sup.envelope([sup.cfe(1)]))))

    assert _poll(service_app) == 2
    with service_app.app_context():
        processed = db.session().scalars(select(ProcessedMail).order_by(ProcessedMail.id)).all()
        assert db.session().scalar(select(ExchangeMailbox.last_uid)) == 2
    assert [(p.uid, p.outcome, p.reason) for p in processed] == [(1, "aparte", "muy_grande"), (2, "sobre", None)]
    assert processed[0].message_id == "<grande@norte>" and processed[0].sender == SENDER
    assert "el máximo es" in processed[0].detail and "no se leyó" in processed[0].detail
    assert not [messages for messages, data in fetched if 1 in messages and "RFC822" in data]


def _nested(depth: int) -> bytes:
    """A message of `depth` multiparts one inside the other (about 60 bytes each), an XML document at the bottom."""
    head = [b"From: intercambio@norte.com.uy\r\nMessage-ID: <hondo@norte>\r\nMIME-Version: 1.0\r\n"]
    opening = [b'Content-Type: multipart/mixed; boundary="b%d"\r\n\r\n--b%d\r\n' % (n, n) for n in range(depth)]
    bottom = [b"Content-Type: application/xml\r\nContent-Disposition: attachment; filename=s.xml\r\n\r\n<a/>\r\n"]
    closing = [b"--b%d--\r\n" % n for n in reversed(range(depth))]
    return b"".join(head + opening + bottom + closing)


def test_a_message_nested_too_deep_to_parse_is_kept_aside_and_does_not_block_the_mailbox(service_app, dovecot):
    # email's parser recurses once per level: a 60 KB message of 1,000 nested multiparts raised RecursionError
    # before the message was recorded, and every later poll stopped at it.
    with service_app.app_context():
        mailbox.configure(db.session(), 1, dovecot.url)
        db.session().commit()
    dovecot.append(_nested(1000))
    dovecot.append(_message(("Sob_211003420017_1.xml", sup.envelope([sup.cfe(1)]))))

    assert _poll(service_app) == 2
    with service_app.app_context():
        processed = db.session().scalars(select(ProcessedMail).order_by(ProcessedMail.id)).all()
        assert db.session().scalar(select(ExchangeMailbox.last_uid)) == 2
    assert [(p.uid, p.outcome, p.reason) for p in processed] == [(1, "aparte", "ilegible"), (2, "sobre", None)]
    assert "no se puede leer" in processed[0].detail
