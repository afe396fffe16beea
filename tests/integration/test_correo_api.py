"""Sending a receipt by e-mail through the service: the send recorded first, delivered by the background
task to a real local SMTP server (aiosmtpd), retried after a temporary failure, failed after a permanent
one; Idempotency-Key, roles and companies; the development mailbox when no SMTP server is configured."""

from __future__ import annotations

from datetime import datetime

import pytest
from lxml import etree

from portal.service.platform import jobs
from tests.support import cfe_bodies as bodies
from tests.support.cfe_bodies import issue
from tests.support.smtp import LocalSmtp, RecordingHandler, password_check


@pytest.fixture(autouse=True)
def worker_runs_in_the_test_app(service_app):
    jobs.use_app(service_app)
    yield
    jobs.use_app(None)


@pytest.fixture
def service_config(service_config, smtp, tmp_path):
    return {
        **service_config,
        "SMTP_URL": smtp.url,
        "MAIL_FROM": "comprobantes@demo.uy",
        "MAILBOX_DIR": str(tmp_path / "mailbox"),
        "MAIL_RETRY_BASE_SECONDS": 60,
    }


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


@pytest.fixture
def factura(api_client, user):
    return issue(api_client, user, bodies.body(bodies.EFACTURA))


def _send(api_client, headers, cfe_id, recipients, **extra):
    return api_client.post(
        f"/api/v1/correo/comprobante/{cfe_id}/envios", json={"destinatarios": recipients}, headers={**headers, **extra}
    )


def _sends(api_client, headers, cfe_id):
    answer = api_client.get(f"/api/v1/correo/comprobante/{cfe_id}/envios", headers=headers)
    assert answer.status_code == 200, answer.json
    return answer.json


def _run_scheduled() -> int:
    """Run the mail retries huey scheduled, as the consumer does when they fall due (here: at once). The
    receipts' own DGI follow-ups (envios) are scheduled too; they are not what these tests count."""
    later = datetime(2100, 1, 1)
    due = [task for task in jobs.huey.read_schedule(later) if task.name.startswith("correo")]
    for task in due:
        jobs.huey.execute(task, timestamp=later)
    return len(due)


def test_a_receipt_arrives_with_its_pdf_and_signed_xml(api_client, service_app, user, factura, smtp):
    answer = _send(api_client, user, factura["idCfeEmitido"], ["Compras@Cliente.com.uy", "conta@cliente.com.uy"])
    assert answer.status_code == 202, answer.json
    assert answer.json["estado"] == "en_cola" and answer.json["intentos"] == 0
    assert smtp.recorder.received == []  # nothing leaves before the background task runs

    assert jobs.run_pending() >= 1  # the mail, and the receipt's DGI wake-up queued when it was issued
    [received] = smtp.recorder.received
    assert sorted(received.envelope_to) == ["Compras@cliente.com.uy", "conta@cliente.com.uy"]
    message = received.message
    number = f"{factura['serie']}-{factura['nro']:07d}"
    assert message["Subject"] == f"e-Factura {number} de Demo S.A."
    assert "comprobantes@demo.uy" in message["From"]
    assert f"Le enviamos el comprobante e-Factura {number}" in message.get_body(("plain",)).get_content()
    pdf, xml = list(message.iter_attachments())
    assert pdf.get_filename() == f"e-Factura_{number}.pdf" and pdf.get_content_type() == "application/pdf"
    assert pdf.get_payload(decode=True).startswith(b"%PDF")
    assert xml.get_filename() == f"e-Factura_{number}.xml"
    signed = api_client.get(
        "/api/v1/comprobante/getByIdCfeEmitido",
        headers={**user, "Accept": "application/xml"},
        query_string={"idCfeEmitido": factura["idCfeEmitido"]},
    ).data
    assert xml.get_payload(decode=True) == signed
    assert etree.fromstring(signed).find(".//{http://www.w3.org/2000/09/xmldsig#}Signature") is not None

    [send] = _sends(api_client, user, factura["idCfeEmitido"])["envios"]
    assert send["estado"] == "enviado" and send["intentos"] == 1 and send["enviadoEn"]
    assert send["creadoPor"] == "usuario@demo.uy" and send["creadoEn"].endswith(("Z", "+00:00"))


def test_a_send_already_made_is_not_made_again(api_client, user, factura, smtp):
    send_id = _send(api_client, user, factura["idCfeEmitido"], ["a@cliente.com.uy"]).json["id"]
    from portal.service.correo.tasks import send_receipt_mail

    jobs.run_pending()
    send_receipt_mail(send_id)  # a second wake-up, as the sweep or a duplicate enqueue would give
    jobs.run_pending()
    assert len(smtp.recorder.received) == 1


def test_a_temporary_failure_is_retried_then_sent(api_client, user, factura, smtp):
    smtp.recorder.data_replies.append("451 4.3.0 Try again later")
    cfe_id = factura["idCfeEmitido"]
    _send(api_client, user, cfe_id, ["a@cliente.com.uy"])

    jobs.run_pending()
    [send] = _sends(api_client, user, cfe_id)["envios"]
    assert send["estado"] == "en_cola" and send["intentos"] == 1
    assert "451" in send["error"] and send["proximoIntento"]
    assert smtp.recorder.received == []

    assert _run_scheduled() == 1
    [send] = _sends(api_client, user, cfe_id)["envios"]
    assert send["estado"] == "enviado" and send["intentos"] == 2 and "error" not in send
    assert len(smtp.recorder.received) == 1


def test_a_permanent_failure_is_recorded_and_not_retried(api_client, user, factura, smtp):
    cfe_id = factura["idCfeEmitido"]
    _send(api_client, user, cfe_id, ["rechazo@cliente.com.uy"])
    jobs.run_pending()
    [send] = _sends(api_client, user, cfe_id)["envios"]
    assert send["estado"] == "fallido" and send["intentos"] == 1
    assert "550" in send["error"] and "rechazo@cliente.com.uy" in send["error"]
    assert _run_scheduled() == 0 and smtp.recorder.received == []


def test_an_unreachable_server_keeps_the_send_queued(api_client, service_app, user, factura):
    service_app.config["SMTP_URL"] = "smtp://127.0.0.1:9?timeout=2"  # nothing listens on the discard port
    cfe_id = factura["idCfeEmitido"]
    _send(api_client, user, cfe_id, ["a@cliente.com.uy"])
    jobs.run_pending()
    [send] = _sends(api_client, user, cfe_id)["envios"]
    assert send["estado"] == "en_cola" and send["intentos"] == 1 and "No se pudo conectar" in send["error"]


def test_the_same_idempotency_key_sends_once(api_client, user, factura, smtp):
    cfe_id = factura["idCfeEmitido"]
    first = _send(api_client, user, cfe_id, ["a@cliente.com.uy"], **{"Idempotency-Key": "envio-1"})
    again = _send(api_client, user, cfe_id, ["a@cliente.com.uy"], **{"Idempotency-Key": "envio-1"})
    assert first.status_code == again.status_code == 202
    assert again.headers["Idempotent-Replayed"] == "true" and again.json["id"] == first.json["id"]
    # The replay is the first answer itself: it added `"error": null`, a key the first had left out.
    assert again.json == first.json
    jobs.run_pending()
    assert len(smtp.recorder.received) == 1
    assert len(_sends(api_client, user, cfe_id)["envios"]) == 1


def test_the_last_addresses_of_the_customer_are_suggested_and_used(api_client, user, factura, smtp):
    _send(api_client, user, factura["idCfeEmitido"], ["compras@cliente.com.uy"])
    other = issue(api_client, user, bodies.body(bodies.EFACTURA))  # same customer (RUT)
    assert _sends(api_client, user, other["idCfeEmitido"])["sugeridos"] == ["compras@cliente.com.uy"]
    answer = _send(api_client, user, other["idCfeEmitido"], [])
    assert answer.status_code == 202 and answer.json["destinatarios"] == ["compras@cliente.com.uy"]


def test_bad_addresses_are_named_and_nothing_is_recorded(api_client, user, factura):
    cfe_id = factura["idCfeEmitido"]
    answer = _send(api_client, user, cfe_id, ["bien@cliente.com.uy", "mal@", "x" * 300])
    assert answer.status_code == 422
    fields = {f["field"] for f in answer.json["error"]["fields"]}
    assert fields == {"destinatarios[2]"}  # the length limit is checked first, before any address
    answer = _send(api_client, user, cfe_id, ["bien@cliente.com.uy", "mal@"])
    assert [f["field"] for f in answer.json["error"]["fields"]] == ["destinatarios[1]"]
    assert "revisala" in answer.json["error"]["fields"][0]["message"]
    answer = _send(api_client, user, cfe_id, ["josé@cliente.com.uy"])  # would need SMTPUTF8 on every relay
    assert answer.status_code == 422 and answer.json["error"]["fields"][0]["field"] == "destinatarios[0]"
    too_many = _send(api_client, user, cfe_id, [f"c{n}@cliente.com.uy" for n in range(11)])
    assert too_many.status_code == 422
    nobody = _send(api_client, user, cfe_id, [])
    assert nobody.status_code == 422 and nobody.json["error"]["fields"][0]["code"] == "sin_destinatarios"
    assert _sends(api_client, user, cfe_id)["envios"] == []


def test_roles_and_companies(api_client, auth_headers, factura):
    cfe_id = factura["idCfeEmitido"]
    soporte = auth_headers("soporte@demo.uy")
    assert _send(api_client, soporte, cfe_id, ["a@cliente.com.uy"]).status_code == 403
    assert _sends(api_client, soporte, cfe_id)["envios"] == []
    other_company = auth_headers("admin@demo.uy", company_id=2)
    assert _send(api_client, other_company, cfe_id, ["a@cliente.com.uy"]).status_code == 404
    answer = api_client.get(f"/api/v1/correo/comprobante/{cfe_id}/envios", headers=other_company)
    assert answer.status_code == 404 and answer.json["error"]["code"] == "cfe_no_encontrado"


def test_the_receipt_carries_a_summary_of_its_sends(api_client, auth_headers, user, factura, smtp):
    def receipt(headers):
        return api_client.get(
            "/api/v1/comprobante/getByIdCfeEmitido", headers=headers, query_string={"idCfeEmitido": cfe_id}
        )

    cfe_id = factura["idCfeEmitido"]
    assert "correo" not in receipt(user).json  # never sent
    _send(api_client, user, cfe_id, ["a@cliente.com.uy"])
    jobs.run_pending()
    latest = _send(api_client, user, cfe_id, ["b@cliente.com.uy"]).json
    summary = receipt(user).json["correo"]
    assert summary["envios"] == 2
    assert summary["ultimo"] == {**latest, "proximoIntento": summary["ultimo"]["proximoIntento"]}
    assert summary["ultimo"]["destinatarios"] == ["b@cliente.com.uy"] and summary["ultimo"]["estado"] == "en_cola"
    # Another company's receipt stays unknown, sends and all.
    other = receipt(auth_headers("admin@demo.uy", company_id=2))
    assert other.status_code == 404 and "correo" not in other.json


def test_with_an_smtp_server_there_is_no_development_mailbox(api_client, auth_headers, user, factura):
    assert _sends(api_client, user, factura["idCfeEmitido"])["buzonDesarrollo"] is False
    answer = api_client.get("/api/v1/correo/buzon", headers=auth_headers("admin@demo.uy", company_id=1))
    assert answer.status_code == 404 and answer.json["error"]["code"] == "sin_buzon"


def test_the_sweep_sends_what_a_lost_wake_up_left_queued(api_client, user, factura, smtp):
    from portal.service.correo.tasks import sweep_mail_sends

    send_id = _send(api_client, user, factura["idCfeEmitido"], ["a@cliente.com.uy"]).json["id"]
    jobs.huey.flush()  # the wake-up is lost (queue emptied, worker restarted, Redis flushed…)
    assert jobs.run_pending() == 0 and smtp.recorder.received == []

    sweep_mail_sends.call_local()
    assert jobs.run_pending() == 1
    assert len(smtp.recorder.received) == 1
    [send] = _sends(api_client, user, factura["idCfeEmitido"])["envios"]
    assert send["id"] == send_id and send["estado"] == "enviado"
    sweep_mail_sends.call_local()  # nothing left to wake
    assert jobs.run_pending() == 0 and len(smtp.recorder.received) == 1


@pytest.fixture
def auth_smtp():
    server = LocalSmtp(RecordingHandler(), authenticator=password_check("envios", "s3creta"), auth_require_tls=False)
    server.start()
    yield server
    server.stop()


def test_credentials_from_the_smtp_url(api_client, service_app, user, factura, auth_smtp):
    service_app.config["SMTP_URL"] = f"smtp://envios:s3creta@127.0.0.1:{auth_smtp.port}?timeout=5"
    _send(api_client, user, factura["idCfeEmitido"], ["a@cliente.com.uy"])
    jobs.run_pending()
    [send] = _sends(api_client, user, factura["idCfeEmitido"])["envios"]
    assert send["estado"] == "enviado" and len(auth_smtp.recorder.received) == 1


def test_one_receipt_is_sent_at_most_ten_times_an_hour(api_client, user, factura):
    cfe_id = factura["idCfeEmitido"]
    for n in range(10):
        assert _send(api_client, user, cfe_id, [f"c{n}@cliente.com.uy"]).status_code == 202
    refused = _send(api_client, user, cfe_id, ["otro@cliente.com.uy"])
    assert refused.status_code == 429 and refused.json["error"]["code"] == "demasiados_envios"
    assert 0 < int(refused.headers["Retry-After"]) <= 3601
    assert len(_sends(api_client, user, cfe_id)["envios"]) == 10
    other = issue(api_client, user, bodies.body(bodies.EFACTURA))
    assert _send(api_client, user, other["idCfeEmitido"], ["otro@cliente.com.uy"]).status_code == 202


def test_the_mail_is_in_usted_and_the_company_writes_its_own_with_placeholders(
    api_client, auth_headers, user, factura, smtp
):
    admin = auth_headers("admin@demo.uy", 1)
    default = api_client.get("/api/v1/correo/plantilla", headers=user).json
    assert default["propia"] is False and "Le enviamos" in default["cuerpo"] and "comprobante" in default["variables"]
    assert "Podés" not in default["cuerpo"] and "tenés" not in default["cuerpo"]  # no vos to a business customer

    header_break = {"asunto": "Su {comprobante}\nBcc: x@y.uy", "cuerpo": "{saludo}"}
    assert api_client.put("/api/v1/correo/plantilla", json=header_break, headers=admin).status_code == 422
    own = {"asunto": "Su {comprobante} (de {empresa})", "cuerpo": "{saludo}\nTotal: {total}. {desconocido}"}
    refused = api_client.put("/api/v1/correo/plantilla", json=own, headers=admin)
    assert refused.status_code == 422 and "{desconocido}" in refused.json["error"]["message"]
    assert api_client.put("/api/v1/correo/plantilla", json=own, headers=user).status_code == 403
    own["cuerpo"] = "{saludo}\nTotal: {total}. Gracias :-}"
    saved = api_client.put("/api/v1/correo/plantilla", json=own, headers=admin)
    assert saved.status_code == 200 and saved.json["propia"] is True

    assert _send(api_client, user, factura["idCfeEmitido"], ["compras@cliente.com.uy"]).status_code == 202
    jobs.run_pending()
    [received] = smtp.recorder.received
    number = f"{factura['serie']}-{factura['nro']:07d}"
    assert received.message["Subject"] == f"Su e-Factura {number} (de Demo S.A.)"
    text = received.message.get_body(("plain",)).get_content()
    assert text.startswith("Estimado/a ") and "Total: $ " in text and "Gracias :-}" in text
    audit = api_client.get("/api/v1/empresa/auditoria", headers=admin).json
    assert any(e["accion"] == "plantilla_correo" for e in audit["items"]), audit


def test_an_english_client_reads_the_refusals_in_english(api_client, auth_headers, user, factura):
    english = {**user, "Accept-Language": "en"}
    missing = api_client.post(
        "/api/v1/correo/comprobante/no-existe/envios", json={"destinatarios": []}, headers=english
    )
    assert missing.json["error"]["message"] == "There is no receipt with that id in your company."
    admin = {**auth_headers("admin@demo.uy", 1), "Accept-Language": "en"}
    own = {"asunto": "Su {comprobante}", "cuerpo": "{saludo} {desconocido}"}
    refused = api_client.put("/api/v1/correo/plantilla", json=own, headers=admin).json["error"]
    assert refused["message"].startswith("There is no placeholder {desconocido}; the placeholders are {")
    assert refused["fields"][0]["message"] == refused["message"]


def test_an_english_client_reads_bad_addresses_and_the_send_limit_in_english(api_client, user, factura):
    english = {**user, "Accept-Language": "en"}
    cfe_id = factura["idCfeEmitido"]
    bad = _send(api_client, english, cfe_id, ["mal@"]).json["error"]
    assert bad["message"] == "Check the e-mail addresses."
    assert bad["fields"][0]["message"] == "“mal@” is not an e-mail address: check it (like name@company.com.uy)."
    for n in range(10):
        assert _send(api_client, user, cfe_id, [f"c{n}@cliente.com.uy"]).status_code == 202
    refused = _send(api_client, english, cfe_id, ["otro@cliente.com.uy"]).json["error"]
    assert refused["message"] == "Too many e-mails were sent in the last hour; try again later."


def test_an_unknown_placeholder_in_the_subject_is_named_next_to_the_subject(api_client, auth_headers):
    admin = auth_headers("admin@demo.uy", 1)
    own = {"asunto": "Su {factura}", "cuerpo": "{saludo}"}
    refused = api_client.put("/api/v1/correo/plantilla", json=own, headers=admin).json["error"]
    assert [(f["field"], f["code"]) for f in refused["fields"]] == [("asunto", "marcador_desconocido")]


def test_a_receipt_dgi_rejected_is_not_sent_to_the_customer(api_client, service_app, user, factura):
    """It has no fiscal validity (CFE-URUGUAY.md §12: the receiver is told of the rejection, not sent the CFE),
    while the e-mail says its XML "es el que vale ante DGI"."""
    from sqlalchemy import update

    from portal.service.comprobante.models import IssuedCfe
    from portal.service.platform import db

    with service_app.app_context(), db.write_transaction() as session:
        session.execute(update(IssuedCfe).where(IssuedCfe.id == factura["idCfeEmitido"]).values(dgi_status="rechazado"))
    refused = _send(api_client, {**user, "Accept-Language": "en"}, factura["idCfeEmitido"], ["c@cliente.com.uy"])
    assert refused.status_code == 409 and refused.json["error"]["code"] == "rechazado_por_dgi"
    assert refused.json["error"]["message"].startswith("DGI rejected this receipt")
    assert _sends(api_client, user, factura["idCfeEmitido"])["envios"] == []


def test_without_a_company_e_mail_the_message_does_not_invite_a_reply(api_client, service_app, user, factura, smtp):
    """With no company e-mail there is no Reply-To: a reply would reach the shared sending address, so the
    default text does not ask for one. With it, the text asks and the reply goes to the company."""
    from portal.service.platform import db as service_db
    from portal.service.platform.models import Company

    _send(api_client, user, factura["idCfeEmitido"], ["a@cliente.com.uy"])
    jobs.run_pending()
    with service_app.app_context():
        session = service_db.session()
        company = session.query(Company).filter_by(razon_social="Demo S.A.").one()
        company_mail = company.correo
        company.correo = None
        session.commit()
    _send(api_client, user, factura["idCfeEmitido"], ["b@cliente.com.uy"])
    jobs.run_pending()

    with_mail, without = (received.message for received in smtp.recorder.received)
    assert with_mail["Reply-To"] == company_mail
    assert "responda a este correo" in with_mail.get_body(("plain",)).get_content()
    assert without["Reply-To"] is None
    text = without.get_body(("plain",)).get_content()
    assert "responda" not in text and "Le enviamos el comprobante" in text


def test_why_a_send_failed_is_said_in_the_readers_language(api_client, user, factura, smtp):
    """The reason was kept as its Spanish sentence alone, so the sends and the receipt's summary said "El servidor
    de correo rechazó: ..." to an English reader."""
    cfe_id = factura["idCfeEmitido"]
    _send(api_client, user, cfe_id, ["rechazo@cliente.com.uy"])
    jobs.run_pending()
    english = {**user, "Accept-Language": "en"}
    [send] = _sends(api_client, english, cfe_id)["envios"]
    assert send["error"].startswith("The mail server refused: rechazo@cliente.com.uy (550 "), send["error"]
    receipt = api_client.get(
        "/api/v1/comprobante/getByIdCfeEmitido", headers=english, query_string={"idCfeEmitido": cfe_id}
    ).json
    assert receipt["correo"]["ultimo"]["error"] == send["error"]
    [send] = _sends(api_client, user, cfe_id)["envios"]
    assert send["error"].startswith("El servidor de correo rechazó: rechazo@cliente.com.uy (550 ")


def test_a_servers_long_answer_is_kept_bounded_and_said_in_the_readers_language(api_client, user, factura, smtp):
    """The reason was cut at 500 characters, which turned the message back into a plain Spanish string; the
    server's own words are bounded instead."""
    smtp.recorder.data_replies.append("451 4.3.0 " + "x" * 900)
    cfe_id = factura["idCfeEmitido"]
    _send(api_client, user, cfe_id, ["a@cliente.com.uy"])
    jobs.run_pending()
    [send] = _sends(api_client, {**user, "Accept-Language": "en"}, cfe_id)["envios"]
    assert send["estado"] == "en_cola" and send["error"].startswith("The mail server answered 451 4.3.0 xxx")
    assert len(send["error"]) <= 500


@pytest.mark.parametrize(
    ("asunto", "cuerpo", "unknown"),
    [
        ("Su {comprobante}", "{saludo} por { total }.", ["{ total }"]),
        ("Su {comprobante}", "Emitido el {fecha de emisión} por {total:.2f}.", ["{fecha de emisión}", "{total:.2f}"]),
        ("Su {comprobante.__class__}", "{saludo} {Total} {}", ["{comprobante.__class__}", "{Total}", "{}"]),
        ("Factura {numero}", "{saludo}", ["{numero}"]),
    ],
    ids=["spaces", "words-and-format", "attribute-case-empty", "word"],
)
def test_a_template_with_an_unknown_placeholder_is_refused_naming_it(api_client, auth_headers, asunto, cuerpo, unknown):
    """Anything between braces that is not one of the placeholders would reach the customer as typed: it is
    refused, each field told its own, the message naming them all and the ones there are; nothing is saved."""
    admin = auth_headers("admin@demo.uy", 1)
    refused = api_client.put("/api/v1/correo/plantilla", json={"asunto": asunto, "cuerpo": cuerpo}, headers=admin)
    assert refused.status_code == 422
    error = refused.json["error"]
    assert error["code"] == "marcador_desconocido" and error["requestId"]
    known = ", ".join(
        "{" + name + "}" for name in api_client.get("/api/v1/correo/plantilla", headers=admin).json["variables"]
    )
    assert all(name in error["message"] for name in unknown) and error["message"].endswith(f"{known}.")
    for field in error["fields"]:
        assert field["code"] == "marcador_desconocido" and field["message"].endswith(f"{known}.")
        assert all(
            name in field["message"] for name in unknown if name in {"asunto": asunto, "cuerpo": cuerpo}[field["field"]]
        )
    assert {f["field"] for f in error["fields"]} == {
        field for field, text in (("asunto", asunto), ("cuerpo", cuerpo)) if any(name in text for name in unknown)
    }
    assert api_client.get("/api/v1/correo/plantilla", headers=admin).json["propia"] is False


def test_openapi_documents_the_unknown_placeholder_code(api_client):
    put = api_client.get("/api/v1/openapi.json").json["paths"]["/api/v1/correo/plantilla"]["put"]
    assert "`marcador_desconocido`" in put["responses"]["422"]["description"]
