"""A person sends a receipt by e-mail from its page: the addresses typed, "Enviar", the history refreshing
itself until the send shows as sent, and the message at a real local SMTP server with the PDF and the XML."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from portal.client import CfeClient
from tests.browser.pages import Shell
from tests.support import cfe_bodies as bodies
from tests.support.smtp import mail_config
from tests.support.worker import running_worker


class MailSection:
    """The "Enviar por correo" section of the receipt page."""

    def __init__(self, page: Page):
        self.page = page
        self.root = page.locator("#mail-send")

    def send_to(self, addresses: str) -> None:
        field = self.root.get_by_label("Direcciones de correo")
        field.fill(addresses)
        self.root.get_by_role("button", name="Enviar").click()

    def history(self):
        return self.root.get_by_test_id("mail-history")


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
    shell.open_home_and_sign_in("usuario@demo.uy")
    with running_worker(live_service.app):
        page.goto(f"/comprobantes/{receipt.id}")
        mail = MailSection(page)
        expect(mail.root.get_by_role("heading", name="Enviar por correo")).to_be_visible()
        mail.send_to("compras@cliente.com.uy, conta@cliente.com.uy")
        expect(mail.root.get_by_test_id("mail-queued")).to_be_visible()
        expect(mail.history().get_by_text("Enviado", exact=True)).to_be_visible(timeout=30_000)
    assert smtp.recorder.arrived.wait(5)
    [received] = smtp.recorder.received
    assert sorted(received.envelope_to) == ["compras@cliente.com.uy", "conta@cliente.com.uy"]
    pdf, xml = received.message.iter_attachments()
    assert pdf.get_payload(decode=True).startswith(b"%PDF")
    assert xml.get_filename().endswith(f"{receipt.number}.xml")
    expect(mail.history()).to_contain_text("compras@cliente.com.uy, conta@cliente.com.uy")
    shell.assert_no_csp_violations()
