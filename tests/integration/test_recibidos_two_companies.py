"""Both demo companies end to end over the real exchange web service: Demo S.A. issues an e-Factura to Comercial
del Norte; the issuer's side delivers the envelope (SOBRE) to the service's aws_efactura_intercambio; Norte's
intake stores it and answers ACKSobre and ACKCFE by Demo's web service (RESPUESTASOBRE, RESPUESTACFES), recorded
on Demo's receipt; Norte rejects it commercially and Demo's receipt shows the rejection with its motive."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from portal.service.envios.consultas import ElectronicIssuer
from portal.service.intercambio.directory import upsert_issuer
from portal.service.platform import db
from portal.service.recibidos.models import ReceivedCfe
from tests.support.cfe_bodies import issue
from tests.support.envios import ENVIOS_CONFIG, drain
from tests.support.exchange import NORTE, to_norte

DEMO = "219999830019"
PATH = "/ws/aws_efactura_intercambio"


@pytest.fixture
def service_config(service_config):
    return {**service_config, **ENVIOS_CONFIG, "INTERCAMBIO_DELAY_SECONDS": 0}


def _exchange_state(api_client, headers, receipt) -> dict:
    answer = api_client.get(
        "/api/v1/comprobante/getByIdCfeEmitido",
        query_string={"idCfeEmitido": receipt["idCfeEmitido"]},
        headers={**headers, "Accept": "application/json"},
    )
    return answer.get_json()["intercambio"]


def _demo_sends_norte_an_efactura(api_client, auth_headers, service_app, live_service):
    """Both demo companies listed as electronic receivers at the live service's exchange web service, and an
    e-Factura from Demo delivered to Norte: Demo's and Norte's headers, and the receipt."""
    with service_app.app_context():
        for rut, name in ((DEMO, "Demo S.A."), (NORTE, "Comercial del Norte S.R.L.")):
            upsert_issuer(db.session(), ElectronicIssuer(rut, name, None, live_service.url + PATH, None, None))
        db.session().commit()
    demo, norte = auth_headers("usuario@demo.uy"), auth_headers("admin@demo.uy", company_id=2)
    receipt = issue(api_client, demo, to_norte())
    drain(service_app, rounds=40)
    return demo, norte, receipt


def test_an_efactura_goes_from_one_demo_company_to_the_other_and_the_rejection_comes_back(
    api_client, auth_headers, service_app, live_service
):
    demo, norte, receipt = _demo_sends_norte_an_efactura(api_client, auth_headers, service_app, live_service)

    [received] = api_client.get("/api/v1/recibidos", headers=norte).get_json()["items"]
    assert (received["rutEmisor"], received["estado"], received["nro"]) == (DEMO, "AE", receipt["nro"])
    with service_app.app_context():
        row = db.session().scalar(select(ReceivedCfe))
        assert row.company_id == 2 and row.adenda and "4512" in row.adenda
    state = _exchange_state(api_client, demo, receipt)
    assert state["estado"] == "aceptado", state

    answer = api_client.post(
        f"/api/v1/recibidos/{received['id']}/rechazar",
        json={"motivo": "E24", "detalle": "El precio acordado era $ 1.400"},
        headers=norte,
    )
    assert answer.status_code == 200, answer.get_json()
    drain(service_app, rounds=20)
    state = _exchange_state(api_client, demo, receipt)
    assert state["estado"] == "rechazado" and state["rechazoComercial"], state
    assert state["motivos"][0]["codigo"] == "E24"


def test_norte_accepting_the_efactura_shows_on_demos_receipt_as_confirmed(
    api_client, auth_headers, service_app, live_service
):
    """Norte's accountant accepts the e-Factura (its second ACKCFE, AE again): Demo's receipt records when."""
    demo, norte, receipt = _demo_sends_norte_an_efactura(api_client, auth_headers, service_app, live_service)
    state = _exchange_state(api_client, demo, receipt)
    assert state["estado"] == "aceptado" and "confirmado" not in state["fechas"], state
    [received] = api_client.get("/api/v1/recibidos", headers=norte).get_json()["items"]
    answer = api_client.post(f"/api/v1/recibidos/{received['id']}/aceptar", headers=norte)
    assert answer.status_code == 200, answer.get_json()
    drain(service_app, rounds=20)
    state = _exchange_state(api_client, demo, receipt)
    assert state["estado"] == "aceptado" and state["fechas"]["confirmado"] >= state["fechas"]["respondido"], state
