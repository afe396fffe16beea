"""The compliance watch on the demo company: on demand for every role, the scheduled check's notices (read per
person), the admins' digest at most once a day per concern, and the webhook events of the watch."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select, update

from portal.service.comprobante.models import CaeRangeRecord
from portal.service.correo import mailbox
from portal.service.eventos.models import Event
from portal.service.platform import db, jobs
from portal.service.platform.models import Certificate
from portal.service.salud import checks, watch
from portal.service.salud.concerns import OK, Concern
from tests.support.certificates import expiring_in

ADMIN = "admin@demo.uy"


@pytest.fixture
def app(service_config, tmp_path):
    from portal.service import create_app

    application = create_app({**service_config, "MAILBOX_DIR": str(tmp_path / "mailbox")})
    jobs.use_app(application)
    yield application
    application.extensions["db_engine"].dispose()


@pytest.fixture
def client(app):
    return app.test_client()


def _certificate_expires_in(app, days: int) -> None:
    with app.app_context(), db.write_transaction() as session:
        session.execute(update(Certificate).where(Certificate.company_id == 1).values(not_after=expiring_in(days)))


def _first_range_nearly_used(app) -> int:
    with app.app_context(), db.write_transaction() as session:
        record = session.scalars(
            select(CaeRangeRecord).where(CaeRangeRecord.company_id == 1).order_by(CaeRangeRecord.id)
        ).first()
        record.next_nro = record.hnro - 2  # three numbers left
        return record.id


def _mails(app) -> list:
    with app.app_context():
        return [m for m in mailbox.messages(1) if "cumplimiento" in m.subject]


def test_every_role_sees_the_watch_with_each_concern(client, auth_headers):
    for email in (ADMIN, "usuario@demo.uy", "soporte@demo.uy"):
        answer = client.get("/api/v1/empresa/salud", headers=auth_headers(email, company_id=1))
        assert answer.status_code == 200, email
    kinds = {item["tipo"] for item in answer.json["items"]}
    assert {"certificado", "cae", "reporte_diario", "dgi_demorados", "sobres_rechazados"} <= kinds
    for item in answer.json["items"]:
        assert item["estado"] in ("ok", "warning", "problem") and item["mensaje"] and item["enlace"].startswith("/")


def test_the_watch_reads_the_database(app, client, auth_headers):
    _certificate_expires_in(app, 10)
    range_id = _first_range_nearly_used(app)
    items = client.get("/api/v1/empresa/salud", headers=auth_headers(ADMIN, company_id=1)).json
    by_key = {i["clave"]: i for i in items["items"]}
    assert by_key["certificado"]["estado"] == "warning" and by_key["certificado"]["datos"]["diasRestantes"] == 10
    assert by_key[f"cae:{range_id}"]["estado"] != "ok" and by_key[f"cae:{range_id}"]["datos"]["restantes"] == 3
    assert items["estado"] in ("warning", "problem")


def test_the_scheduled_check_notifies_once_per_change_and_mails_at_most_daily(app, client, auth_headers):
    _certificate_expires_in(app, 20)
    range_id = _first_range_nearly_used(app)
    now = datetime.now(UTC)
    with app.app_context():
        turned = {c.key for c in watch.run(1, now)}
    assert {"certificado", f"cae:{range_id}"} <= turned
    assert len(_mails(app)) == 1
    digest = _mails(app)[0]
    assert "certificado" in digest.text.lower() and "/empresa/certificados" in digest.text

    with app.app_context():
        assert watch.run(1, now + timedelta(hours=1)) == []  # nothing changed: no notice, no mail
    assert len(_mails(app)) == 1

    _certificate_expires_in(app, 12)  # crosses the 15-day threshold: news again, but mailed within the day
    with app.app_context():
        assert [c.key for c in watch.run(1, now + timedelta(hours=2))] == ["certificado"]
    assert len(_mails(app)) == 1

    _certificate_expires_in(app, 5)  # a day later, the 7-day threshold: mailed again
    with app.app_context():
        watch.run(1, now + timedelta(hours=26))
    assert len(_mails(app)) == 2

    with app.app_context(), db.new_session() as session:
        types = [e.type for e in session.scalars(select(Event).order_by(Event.created_at))]
    assert types.count("certificado.por_vencer") == 3 and types.count("cae.por_agotarse") == 1


def test_a_warning_that_becomes_a_problem_is_mailed_at_once(app):
    """The daily limit holds for a warning's steps; a certificate that goes from 20 days left to 5 within the day
    (one uploaded by mistake, a clock put right) is a problem the admins hear of now, not tomorrow."""
    _certificate_expires_in(app, 20)
    now = datetime.now(UTC)
    with app.app_context():
        watch.run(1, now)
    mailed = len(_mails(app))
    _certificate_expires_in(app, 5)
    with app.app_context():
        assert "certificado" in {c.key for c in watch.run(1, now + timedelta(hours=1))}
    assert len(_mails(app)) == mailed + 1 and "certificado" in _mails(app)[-1].text.lower()


def test_notices_are_read_per_person(app, client, auth_headers):
    _certificate_expires_in(app, 3)
    with app.app_context():
        watch.run(1)
    admin, user = auth_headers(ADMIN, company_id=1), auth_headers("usuario@demo.uy", company_id=1)
    page = client.get("/api/v1/empresa/avisos", headers=admin).json
    assert page["noLeidos"] >= 1
    notice = next(n for n in page["items"] if n["clave"] == "certificado")
    assert notice["estado"] == "problem" and notice["enlace"] == "/empresa/certificados" and not notice["leido"]

    assert client.post(f"/api/v1/empresa/avisos/{notice['id']}/leido", headers=admin).status_code == 204
    after = client.get("/api/v1/empresa/avisos", headers=admin).json
    assert after["noLeidos"] == page["noLeidos"] - 1
    assert next(n for n in after["items"] if n["id"] == notice["id"])["leido"] is True
    assert client.get("/api/v1/empresa/avisos", headers=user).json["noLeidos"] == page["noLeidos"]

    assert client.post("/api/v1/empresa/avisos/leidos", headers=user).status_code == 204
    assert client.get("/api/v1/empresa/avisos", headers=user).json["noLeidos"] == 0
    other = auth_headers(ADMIN, company_id=2)
    assert client.post(f"/api/v1/empresa/avisos/{notice['id']}/leido", headers=other).status_code == 404


def test_another_area_adds_its_concern_through_the_extension_point(app, client, auth_headers):
    def mailbox_run(ctx: checks.Context) -> list[Concern]:
        return [Concern("intercambio_buzon", "intercambio_buzon", OK, "El buzón se leyó hace 2 minutos.", "-", "/")]

    checks.register(mailbox_run)
    try:
        items = client.get("/api/v1/empresa/salud", headers=auth_headers(ADMIN, company_id=1)).json["items"]
    finally:
        checks.CHECKS.remove(mailbox_run)
    assert items[-1]["clave"] == "intercambio_buzon"


def test_receipts_waiting_on_dgi_longer_than_the_configured_time(app, client, auth_headers):
    from portal.service.envios.models import DgiSubmission
    from tests.support.cfe_bodies import EFACTURA, body, issue

    headers = auth_headers(ADMIN, company_id=1)
    receipt = issue(client, headers, body(EFACTURA))  # nothing drains the queue: it waits for DGI

    def waiting() -> dict:
        items = client.get("/api/v1/empresa/salud", headers=headers).json["items"]
        return next(i for i in items if i["clave"] == "dgi_demorados")

    assert waiting()["estado"] == "ok"
    limit = app.config["ENVIOS_OVERDUE_MINUTES"]
    with app.app_context(), db.write_transaction() as session:
        session.get(DgiSubmission, receipt["idCfeEmitido"]).created_at = datetime.now(UTC) - timedelta(
            minutes=limit + 1
        )
    late = waiting()
    assert late["estado"] == "warning" and late["datos"]["cantidad"] == 1 and late["enlace"] == "/envios/pendientes"


def test_yesterdays_report_rejected_is_a_problem(app, client, auth_headers):
    from portal.domain.uruguay_time import today_montevideo
    from portal.service.envios.models import DgiDailyReport

    yesterday = today_montevideo() - timedelta(days=1)
    with app.app_context(), db.write_transaction() as session:
        certificate_id = session.scalars(select(Certificate.id).where(Certificate.company_id == 1)).first()
        session.add(
            DgiDailyReport(
                company_id=1,
                fecha=yesterday,
                sec_envio=1,
                file_name="Rep.xml",
                xml=b"<x/>",
                cfe_count=0,
                certificate_id=certificate_id,
                state="rechazado",
                ack_state="BR",
                ack_motives=[{"codigo": "R05", "glosa": "secuencia"}],
                attempts=1,
                created_by="sistema",
            )
        )
    items = client.get("/api/v1/empresa/salud", headers=auth_headers(ADMIN, company_id=1)).json["items"]
    report = next(i for i in items if i["clave"] == "reporte_diario")
    assert report["estado"] == "problem" and report["datos"]["fecha"] == yesterday.isoformat()


def test_a_range_expired_with_numbers_left_is_a_problem_even_if_some_were_voided_before(app, client, auth_headers):
    from portal.domain.uruguay_time import today_montevideo
    from portal.service.comprobante.models import VoidedRange

    with app.app_context(), db.write_transaction() as session:
        record = session.scalars(
            select(CaeRangeRecord).where(CaeRangeRecord.company_id == 1).order_by(CaeRangeRecord.id)
        ).first()
        session.add(  # two broken numbers voided while the range was in use: the rest is still unused
            VoidedRange(
                company_id=1,
                cae_range_id=record.id,
                tipo_cfe=record.tipo_cfe,
                serie=record.serie,
                nro_desde=record.next_nro,
                nro_hasta=record.next_nro + 1,
                fecha=today_montevideo() - timedelta(days=5),
                source="operador",
                reason="Papel roto",
                created_by=ADMIN,
            )
        )
        record.next_nro += 2
        record.vencimiento = today_montevideo() - timedelta(days=1)
        range_id, left = record.id, record.remaining
    items = client.get("/api/v1/empresa/salud", headers=auth_headers(ADMIN, company_id=1)).json["items"]
    expired = next((i for i in items if i["clave"] == f"cae:{range_id}"), None)
    assert expired is not None, "the numbers left at expiry must be voided: the watch says so"
    assert expired["estado"] == "problem" and expired["datos"]["restantes"] == left > 0


def test_a_range_expired_with_numbers_left_stays_a_problem_after_a_newer_range_arrives(app, client, auth_headers):
    from portal.domain.uruguay_time import today_montevideo

    today = today_montevideo()
    with app.app_context(), db.write_transaction() as session:
        record = session.scalars(
            select(CaeRangeRecord).where(CaeRangeRecord.company_id == 1).order_by(CaeRangeRecord.id)
        ).first()
        record.vencimiento = today - timedelta(days=1)
        session.add(
            CaeRangeRecord(
                company_id=1,
                tipo_cfe=record.tipo_cfe,
                serie=record.serie,
                dnro=record.hnro + 1,
                hnro=record.hnro + 1000,
                next_nro=record.hnro + 1,
                cae_id=record.cae_id + 1,
                fecha_autorizacion=today,
                vencimiento=today + timedelta(days=700),
            )
        )
        range_id = record.id
    items = client.get("/api/v1/empresa/salud", headers=auth_headers(ADMIN, company_id=1)).json["items"]
    expired = next((i for i in items if i["clave"] == f"cae:{range_id}"), None)
    assert expired is not None and expired["estado"] == "problem" and "anul" in expired["mensaje"]


def test_the_watch_and_its_notices_are_said_in_the_readers_language(app, client, auth_headers):
    _certificate_expires_in(app, 10)
    with app.app_context():
        watch.run(1)
    english = {**auth_headers(ADMIN, company_id=1), "Accept-Language": "en"}
    items = {i["clave"]: i for i in client.get("/api/v1/empresa/salud", headers=english).json["items"]}
    assert items["certificado"]["mensaje"] == (
        "The signing certificate expires in 10 days: ask your certification authority for a new one and upload it "
        "before then."
    )
    assert items["certificado"]["accion"] == "Upload the new certificate"
    assert items["reporte_diario"]["accion"] == "Nothing to do"
    notice = next(
        n for n in client.get("/api/v1/empresa/avisos", headers=english).json["items"] if n["clave"] == "certificado"
    )
    assert notice["mensaje"] == items["certificado"]["mensaje"] and notice["accion"] == "Upload the new certificate"
    spanish = client.get("/api/v1/empresa/avisos", headers=auth_headers(ADMIN, company_id=1)).json["items"]
    assert next(n for n in spanish if n["clave"] == "certificado")["mensaje"].startswith(
        "El certificado de firma vence en 10 días"
    )


def test_a_retired_certificate_is_not_the_one_the_watch_counts_on(app, client, auth_headers):
    # Issuing signs with a valid certificate that was not retired (keystore.signing_certificate): one retired
    # (compromised, replaced) signs nothing, however far its expiry.
    with app.app_context(), db.write_transaction() as session:
        session.execute(update(Certificate).where(Certificate.company_id == 1).values(retired_at=datetime.now(UTC)))
    items = client.get("/api/v1/empresa/salud", headers=auth_headers(ADMIN, company_id=1)).json["items"]
    certificate = next(i for i in items if i["clave"] == "certificado")
    assert certificate["estado"] == "problem" and "no tiene certificado" in certificate["mensaje"]


def test_a_cae_notice_names_its_type_and_groups_its_numbers_as_each_reader_writes_them(app, client, auth_headers):
    """A notice is stored once and read later: its count is grouped in the reader's language (99.994 in Spanish,
    99,994 in English), and its CAE named by the receipt type's name in that language, never by the type's code."""
    with app.app_context(), db.write_transaction() as session:
        record = session.scalars(
            select(CaeRangeRecord).where(CaeRangeRecord.company_id == 1).order_by(CaeRangeRecord.id)
        ).first()
        record.tipo_cfe, record.dnro, record.hnro, record.next_nro = 121, 1, 500_000, 400_007  # 99,994 left
        record.vencimiento = (datetime.now(UTC) + timedelta(days=400)).date()
        key = f"cae:{record.id}"
    with app.app_context():
        watch.run(1)
    english = {**auth_headers(ADMIN, company_id=1), "Accept-Language": "en"}
    notices = client.get("/api/v1/empresa/avisos", headers=english).json["items"]
    said = next(n for n in notices if n["clave"] == key)["mensaje"]
    assert said.startswith("The Export e-Factura CAE series ") and "(99,994)" in said, said
    assert "121" not in said and "99.994" not in said
    spanish = client.get("/api/v1/empresa/avisos", headers=auth_headers(ADMIN, company_id=1)).json["items"]
    dicho = next(n for n in spanish if n["clave"] == key)["mensaje"]
    assert dicho.startswith("El CAE de e-Factura de exportación serie ") and "(99.994)" in dicho, dicho
