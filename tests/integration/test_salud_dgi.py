"""The envios area's concerns in the compliance watch: DGI not answering (a warning, a problem after a day, with
what waits) and contingency receipts DGI observed, waiting to be corrected."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import update

from portal.service.envios import outage
from portal.service.envios.models import DgiStatus, DgiSubmission
from portal.service.platform import db
from portal.service.salud.dgi import dgi_down, observed_contingency
from tests.support import cfe_bodies as bodies


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
    assert "DGI no responde hace 3.0 horas" in down["mensaje"]
    assert watch["cfc_observados"]["estado"] == "warning" and watch["cfc_observados"]["datos"]["cantidad"] == 1


def test_the_thresholds():
    assert dgi_down(None, 0).state == "ok"
    assert (dgi_down(23.9, 5).state, dgi_down(24, 5).state) == ("warning", "problem")
    assert dgi_down(24, 5).level > dgi_down(1, 5).level  # crossing a day is news again
    assert (observed_contingency(0).state, observed_contingency(2).state) == ("ok", "warning")
