"""A person sends a receipt by e-mail from its page: the addresses typed, "Enviar", the history refreshing
itself until the send shows as sent, and the message at a real local SMTP server with the PDF and the XML."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from portal.client import CfeClient
from tests.browser.pages import Shell
from tests.browser.pages.receipt import ReceiptPage
from tests.support import cfe_bodies as bodies
from tests.support.smtp import mail_config
from tests.support.worker import running_worker


@pytest.fixture
def service_config(service_config, smtp, tmp_path):
    return mail_config(service_config, smtp, tmp_path)


@pytest.fixture
def receipt(live_service):
    from tests.conftest import mint_token

    api = CfeClient(live_service.url).as_user(mint_token(live_service.app, "usuario@demo.uy"), company_id=1)
    return api.issue_receipt(bodies.request(bodies.EFACTURA), idempotency_key="browser-correo")


def test_send_a_receipt_by_mail_and_see_it_arrive(page: Page, live_service, receipt, smtp):
    shell = Shell(page)
    shell.sign_in("usuario@demo.uy")
    with running_worker(live_service.app):
        receipt_page = ReceiptPage(page)
        receipt_page.open(receipt.id)
        mail = receipt_page.mail
        expect(mail.heading).to_be_visible()
        mail.send_to("compras@cliente.com.uy, conta@cliente.com.uy")
        expect(mail.queued).to_be_visible()
        expect(mail.history().get_by_text("Enviado", exact=True)).to_be_visible(timeout=30_000)
    assert smtp.recorder.arrived.wait(5)
    [received] = smtp.recorder.received
    assert sorted(received.envelope_to) == ["compras@cliente.com.uy", "conta@cliente.com.uy"]
    pdf, xml = received.message.iter_attachments()
    assert pdf.get_payload(decode=True).startswith(b"%PDF")
    assert xml.get_filename().endswith(f"{receipt.number}.xml")
    expect(mail.history()).to_contain_text("compras@cliente.com.uy, conta@cliente.com.uy")
    shell.assert_no_csp_violations()
