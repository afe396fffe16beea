"""The envios area's concerns in the compliance watch: DGI not answering (a warning, a problem after a day, with
what waits) and contingency receipts DGI observed, waiting to be corrected."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from flask import Flask
from sqlalchemy import update

from portal.service.envios import outage
from portal.service.envios.models import DgiStatus, DgiSubmission
from portal.service.platform import db
from portal.service.platform.i18n import said, say, stored
from portal.service.salud.dgi import dgi_down, observed_contingency
from tests.support import cfe_bodies as bodies
from tests.support.i18n import asked_in


def _watch(api_client, auth_headers) -> dict:
    items = api_client.get("/api/v1/empresa/salud", headers=auth_headers("admin@demo.uy", company_id=1)).json
    return {item["clave"]: item for item in items["items"]}


def test_dgi_down_and_observed_contingency_receipts_are_in_the_watch(api_client, auth_headers, service_app):
    watch = _watch(api_client, auth_headers)
    assert watch["dgi_caido"]["estado"] == "ok" and watch["cfc_observados"]["estado"] == "ok"
    issued = bodies.issue(api_client, auth_headers("usuario@demo.uy"), bodies.body(bodies.EFACTURA))
    with service_app.app_context():
        outage.failed("No se pudo conectar con el servicio de DGI.", 30)
        with db.write_transaction() as session:
            session.execute(update(DgiStatus).values(down_since=datetime.now(UTC) - timedelta(hours=3)))
            session.execute(
                update(DgiSubmission).where(DgiSubmission.cfe_id == issued["idCfeEmitido"]).values(state="observado")
            )
    watch = _watch(api_client, auth_headers)
    down = watch["dgi_caido"]
    assert down["estado"] == "warning" and down["enlace"] == "/envios/contingencia"
    assert "DGI no responde hace 3 horas" in down["mensaje"]
    assert watch["cfc_observados"]["estado"] == "warning" and watch["cfc_observados"]["datos"]["cantidad"] == 1


def test_the_thresholds():
    assert dgi_down(None, 0).state == "ok"
    assert (dgi_down(23.9, 5).state, dgi_down(24, 5).state) == ("warning", "problem")
    assert dgi_down(24, 5).level > dgi_down(1, 5).level  # crossing a day is news again
    assert (observed_contingency(0).state, observed_contingency(2).state) == ("ok", "warning")


def test_what_waits_and_since_when_read_as_sentences_in_both_languages():
    """The watch runs as soon as DGI fails: it said "hace 0 minutos; 1 comprobantes esperan" (and "for 0
    minutes; 1 receipts wait")."""
    just_now = dgi_down(0.001, 1).message
    assert just_now.startswith("DGI no responde hace menos de un minuto; 1 comprobante espera para salir.")
    assert say(just_now, "en").startswith("DGI has not answered for less than a minute; 1 receipt is waiting to go")
    assert dgi_down(1.5 / 60, 0).message.startswith("DGI no responde hace un minuto. Se sigue emitiendo")
    assert say(dgi_down(1.5 / 60, 0).message, "en").startswith("DGI has not answered for a minute. Issuing goes on")
    assert dgi_down(0.5, 7).message.startswith("DGI no responde hace 30 minutos; 7 comprobantes esperan para salir.")
    assert say(dgi_down(0.5, 7).message, "en").startswith("DGI has not answered for 30 minutes; 7 receipts wait")


def test_the_hours_dgi_has_been_silent_are_written_as_the_reader_writes_a_decimal():
    """It read "1.5 horas" in Spanish: the hours are written when the message is said, also when it was stored
    (a notice) and is read later by someone in the other language."""
    message = dgi_down(1.5, 0).message
    assert message.startswith("DGI no responde hace 1,5 horas. Se sigue emitiendo")
    assert say(message, "en").startswith("DGI has not answered for 1.5 hours. Issuing goes on")
    kept = stored(message)
    assert kept["valores"]["since"]["valores"] == {"n": "1.5"}  # the number itself, not its Spanish writing
    with asked_in(Flask(__name__), "en"):
        assert said(kept).startswith("DGI has not answered for 1.5 hours.")
    assert say(dgi_down(1234.56, 0).message, "en").startswith("DGI has not answered for 1,234.6 hours.")
    assert dgi_down(1234.56, 0).message.startswith("DGI no responde hace 1.234,6 horas.")


def test_whole_hours_read_without_a_decimal_and_what_waits_is_grouped_in_both_languages():
    """It read "hace 3,0 horas" and "1,0 horas", and "1234 comprobantes esperan" where every other count of a
    notice is grouped."""
    three = dgi_down(3.02, 1234).message
    assert three.startswith("DGI no responde hace 3 horas; 1.234 comprobantes esperan para salir.")
    assert say(three, "en").startswith("DGI has not answered for 3 hours; 1,234 receipts wait to go out.")
    one = dgi_down(1.04, 0).message
    assert one.startswith("DGI no responde hace una hora. Se sigue emitiendo")
    assert say(one, "en").startswith("DGI has not answered for an hour. Issuing goes on")
    assert dgi_down(23.97, 0).message.startswith("DGI no responde hace 24 horas.")
    assert say(dgi_down(1500.0, 0).message, "en").startswith("DGI has not answered for 1,500 hours.")
    assert dgi_down(2.46, 0).message.startswith("DGI no responde hace 2,5 horas.")  # a fraction keeps its decimal
