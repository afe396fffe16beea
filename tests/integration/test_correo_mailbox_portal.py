"""In development (no SMTP server) the portal's mailbox page lists what the company's sends produced and
opens a message with its attachments; only admins and soporte, only their company."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from portal.client import CfeClient
from portal.service.platform import jobs
from tests.support import cfe_bodies as bodies


@pytest.fixture
def service_config(service_config, tmp_path):
    return {**service_config, "SMTP_URL": None, "MAILBOX_DIR": str(tmp_path / "mailbox")}


@pytest.fixture
def sent(live_service):
    from tests.conftest import mint_token

    jobs.use_app(live_service.app)
    api = CfeClient(live_service.url).as_user(mint_token(live_service.app, "usuario@demo.uy"), company_id=1)
    receipt = api.issue_receipt(bodies.request(bodies.EFACTURA), idempotency_key="buzon-1")
    send = api.send_receipt_by_mail(receipt.id, ["compras@cliente.com.uy"])
    jobs.run_pending()
    yield send
    jobs.use_app(None)


def test_the_mailbox_lists_and_opens_a_message(signed_in, sent):
    client = signed_in("soporte@demo.uy")
    page = BeautifulSoup(client.get("/correo/buzon").get_data(as_text=True), "html.parser")
    link = page.select_one(f"a[href='/correo/buzon/{sent.id}']")
    assert link is not None and link.get_text().startswith("e-Factura ")

    opened = BeautifulSoup(client.get(f"/correo/buzon/{sent.id}").get_data(as_text=True), "html.parser")
    message = opened.select_one("[data-testid=mailbox-message]")
    assert "Le enviamos el comprobante e-Factura" in message.select_one("pre").get_text()
    names = [a.get_text() for a in message.select("li a")]
    assert names[0].endswith(".pdf") and names[1].endswith(".xml")
    pdf = client.get(f"/correo/buzon/{sent.id}/adjuntos/0")
    assert pdf.status_code == 200 and pdf.data.startswith(b"%PDF")
    assert f'filename="{names[0]}"' in pdf.headers["Content-Disposition"]


def test_the_mailbox_is_for_admins_and_soporte_of_the_company(signed_in, sent):
    assert signed_in("usuario@demo.uy").get("/correo/buzon").status_code == 403
    panel = signed_in("usuario@demo.uy").get(f"/correo/comprobantes/{sent.receipt_id}").get_data(as_text=True)
    assert "buzón de desarrollo" in panel and "/correo/buzon" not in panel
