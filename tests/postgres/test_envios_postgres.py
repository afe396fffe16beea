"""Receipts reach DGI on PostgreSQL too: packing (row locks, SKIP LOCKED), answers, daily report, voiding."""

from __future__ import annotations

import pytest

from portal.domain.uruguay_time import today_montevideo
from tests.integration.test_envios_documents import (  # noqa: F401 (collected here too: PostgreSQL's query)
    test_the_reports_sums_are_add_receipts_for_every_kind_of_receipt,
)
from tests.support import cfe_bodies as bodies
from tests.support.cfe_bodies import issue
from tests.support.envios import ENVIOS_CONFIG, REJECT_MARKER, drain

GET = "/api/v1/comprobante/getByIdCfeEmitido"


@pytest.fixture
def service_config(service_config):
    return {**service_config, **ENVIOS_CONFIG}


@pytest.fixture
def admin(auth_headers):
    return auth_headers("admin@demo.uy", 1)


def test_the_road_to_dgi_on_postgresql(api_client, auth_headers, service_app):
    admin = auth_headers("admin@demo.uy", 1)
    accepted = issue(api_client, admin, bodies.body(bodies.EFACTURA))
    body = bodies.body(bodies.EFACTURA)
    body["receptor"]["rznSocRecep"] = f"Cliente {REJECT_MARKER}E09"
    rejected = issue(api_client, admin, body)
    ticket = issue(api_client, admin, bodies.body(bodies.ETICKET))
    assert (
        api_client.post(
            "/api/v1/envios/anulaciones",
            headers=admin,
            json={"tipoCFE": 181, "cantidad": 2, "motivo": "Talonario dañado"},
        ).status_code
        == 201
    )
    drain(service_app)

    def dgi(cfe):
        return api_client.get(GET, headers=admin, query_string={"idCfeEmitido": cfe["idCfeEmitido"]}).json["dgi"]

    assert dgi(accepted)["estado"] == "aceptado"
    assert dgi(rejected)["estado"] == "rechazado" and dgi(rejected)["anulacion"] is not None
    today = today_montevideo().isoformat()
    assert api_client.post("/api/v1/envios/reportes", headers=admin, json={"fecha": today}).status_code == 202
    drain(service_app)
    assert dgi(ticket)["estado"] == "en_reporte" and dgi(ticket)["reporte"]["acuse"] == "AR"
    shown = api_client.get(GET, headers=admin, query_string={"idCfeEmitido": ticket["idCfeEmitido"]}).json
    assert shown["estadoDGI"] == "en_reporte"  # the list's copy, moved after the report (reports.mirror_states)
    assert api_client.get("/api/v1/envios/anulaciones", headers=admin).json["total"] == 2
