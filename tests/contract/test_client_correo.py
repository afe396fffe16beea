"""The real client's Correo methods against a live service and a real local SMTP server."""

from __future__ import annotations

import pytest

from portal.client import CfeClient, Forbidden, NotFound, ValidationError
from portal.client.correo import MailSend, MailSends
from portal.service.platform import jobs
from tests.support import cfe_bodies as bodies
from tests.support.smtp import mail_config


@pytest.fixture
def service_config(service_config, smtp, tmp_path):
    return mail_config(service_config, smtp, tmp_path)


@pytest.fixture
def as_user(live_service):
    from tests.conftest import mint_token

    client = CfeClient(live_service.url)
    jobs.use_app(live_service.app)
    yield lambda email, company_id=1: client.as_user(mint_token(live_service.app, email), company_id=company_id)
    jobs.use_app(None)


@pytest.fixture
def receipt_id(as_user) -> str:
    return as_user("usuario@demo.uy").issue_receipt(bodies.request(bodies.EFACTURA), idempotency_key="factura-1").id


def test_send_and_follow_a_receipt_by_mail(as_user, receipt_id, smtp):
    api = as_user("usuario@demo.uy")
    send = api.send_receipt_by_mail(receipt_id, ["compras@cliente.com.uy"], idempotency_key="k-1")
    assert isinstance(send, MailSend) and send.state == "en_cola" and not send.final
    assert not send.replayed
    again = api.send_receipt_by_mail(receipt_id, ["compras@cliente.com.uy"], idempotency_key="k-1")
    assert again.id == send.id and again.replayed
    panel = api.receipt_mail_sends(receipt_id)
    assert isinstance(panel, MailSends) and panel.pending and not panel.dev_mailbox
    assert jobs.run_pending() >= 1  # the mail, and the DGI wake-up of the receipt
    panel = api.receipt_mail_sends(receipt_id)
    [done] = panel.sends
    assert done.state == "enviado" and done.final and done.sent_at is not None and not panel.pending
    assert done.recipients == ("compras@cliente.com.uy",) and panel.suggested == ("compras@cliente.com.uy",)
    assert len(smtp.recorder.received) == 1


def test_errors_are_typed(as_user, receipt_id):
    with pytest.raises(ValidationError) as bad:
        as_user("usuario@demo.uy").send_receipt_by_mail(receipt_id, ["no es correo"])
    assert [f.field for f in bad.value.fields] == ["destinatarios[0]"]
    with pytest.raises(Forbidden):
        as_user("soporte@demo.uy").send_receipt_by_mail(receipt_id, ["a@cliente.com.uy"])
    with pytest.raises(NotFound):
        as_user("admin@demo.uy", 2).receipt_mail_sends(receipt_id)
    with pytest.raises(NotFound):  # an SMTP server is configured: no development mailbox
        as_user("admin@demo.uy").dev_mailbox()
