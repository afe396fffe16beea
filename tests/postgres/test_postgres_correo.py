"""Sending a receipt by e-mail on PostgreSQL: the send row, its lease (UPDATE … WHERE state) and its result,
delivered to a real local SMTP server; a second wake-up sends nothing more."""

from __future__ import annotations

import pytest

from portal.service.platform import jobs
from tests.support import cfe_bodies as bodies
from tests.support.cfe_bodies import issue
from tests.support.smtp import mail_config


@pytest.fixture
def service_config(service_config, smtp, tmp_path):
    return {**mail_config(service_config, smtp, tmp_path), "JOBS_URL": "memory://"}


def test_a_send_is_recorded_delivered_once_and_read_back(api_client, auth_headers, service_app, smtp):
    from portal.service.correo.tasks import send_receipt_mail

    jobs.use_app(service_app)
    try:
        user = auth_headers("usuario@demo.uy")
        cfe_id = issue(api_client, user, bodies.body(bodies.EFACTURA))["idCfeEmitido"]
        path = f"/api/v1/correo/comprobante/{cfe_id}/envios"
        send = api_client.post(path, json={"destinatarios": ["compras@cliente.com.uy"]}, headers=user).json
        assert jobs.run_pending() >= 1  # the mail, and the DGI wake-up of the receipt
        send_receipt_mail.call_local(send["id"])  # a duplicate wake-up: the row is final, nothing is sent
        [stored] = api_client.get(path, headers=user).json["envios"]
        assert stored["estado"] == "enviado" and stored["intentos"] == 1
        assert len(smtp.recorder.received) == 1
    finally:
        jobs.use_app(None)
