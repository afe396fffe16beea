"""Without CFE_SMTP_URL (development), sends land in the development mailbox as .eml files that admins and
soporte of the company can list and open; other companies and other roles cannot."""

from __future__ import annotations

import pytest

from portal.service.platform import jobs
from tests.support import cfe_bodies as bodies
from tests.support.cfe_bodies import issue


@pytest.fixture(autouse=True)
def worker_runs_in_the_test_app(service_app):
    jobs.use_app(service_app)
    yield
    jobs.use_app(None)


@pytest.fixture
def service_config(service_config, tmp_path):
    return {**service_config, "SMTP_URL": None, "MAILBOX_DIR": str(tmp_path / "mailbox")}


def test_a_send_lands_in_the_development_mailbox(api_client, auth_headers, tmp_path):
    user, admin = auth_headers("usuario@demo.uy"), auth_headers("admin@demo.uy", company_id=1)
    factura = issue(api_client, user, bodies.body(bodies.EFACTURA))
    cfe_id = factura["idCfeEmitido"]
    sent = api_client.post(
        f"/api/v1/correo/comprobante/{cfe_id}/envios", json={"destinatarios": ["compras@cliente.com.uy"]}, headers=user
    )
    assert sent.status_code == 202
    jobs.run_pending()
    panel = api_client.get(f"/api/v1/correo/comprobante/{cfe_id}/envios", headers=user).json
    assert panel["buzonDesarrollo"] is True and panel["envios"][0]["estado"] == "enviado"
    assert (tmp_path / "mailbox" / "1" / f"{sent.json['id']}.eml").is_file()

    for reader in (admin, auth_headers("soporte@demo.uy")):
        [listed] = api_client.get("/api/v1/correo/buzon", headers=reader).json["items"]
        assert listed["id"] == sent.json["id"] and listed["para"] == "compras@cliente.com.uy"
    assert api_client.get("/api/v1/correo/buzon", headers=user).status_code == 403
    assert (
        api_client.get("/api/v1/correo/buzon", headers=auth_headers("admin@demo.uy", company_id=2)).json["items"] == []
    )

    message = api_client.get(f"/api/v1/correo/buzon/{sent.json['id']}", headers=admin).json
    assert message["asunto"].startswith("e-Factura ") and "Le enviamos" in message["texto"]
    assert [a["tipo"] for a in message["adjuntos"]] == ["application/pdf", "application/xml"]
    pdf = api_client.get(f"/api/v1/correo/buzon/{sent.json['id']}/adjuntos/0", headers=admin)
    assert pdf.status_code == 200 and pdf.data.startswith(b"%PDF") and pdf.mimetype == "application/pdf"
    assert api_client.get(f"/api/v1/correo/buzon/{sent.json['id']}/adjuntos/2", headers=admin).status_code == 404
    assert (
        api_client.get(
            f"/api/v1/correo/buzon/{sent.json['id']}", headers=auth_headers("admin@demo.uy", company_id=2)
        ).status_code
        == 404
    )
    assert api_client.get("/api/v1/correo/buzon/..%2f..%2fetc", headers=admin).status_code == 404
