"""An admin in the browser: registers a webhook and sees its secret once, sends a test event and reads the
attempt; the bell counts the compliance watch's notices, the notices page links to the fix, and the home shows
the watch. Screenshots at 1366 and 390 px with CFE_SHOTS_DIR."""

from __future__ import annotations

from datetime import UTC
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import select, update

from portal.service.platform import db
from portal.service.platform.models import Certificate
from portal.service.salud import watch
from portal.service.webhooks.models import WebhookAttempt
from tests.browser.pages import DESKTOP, PHONE, Shell, both_widths, row_cells, screenshot, settled
from tests.browser.pages.webhooks import WebhooksPage
from tests.support.certificates import expiring_in
from tests.support.envios import drain
from tests.support.webhook_receiver import WebhookReceiver


@pytest.fixture
def receiver():
    server = WebhookReceiver().start()
    yield server
    server.stop()


def _shots(page: Page, shots, name: str) -> None:
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        settled(page)
        screenshot(page, shots / f"{name}-{width}.png")
    page.set_viewport_size({"width": 1366, "height": 900})


def test_admin_registers_tests_and_watches(page: Page, live_service, receiver, shots):
    with live_service.app.app_context(), db.write_transaction() as session:
        session.execute(update(Certificate).where(Certificate.company_id == 1).values(not_after=expiring_in(12)))
    with live_service.app.app_context():
        watch.run(1)

    shell = Shell(page)
    shell.open_home_and_sign_in("admin@demo.uy")
    settled(page)
    expect(page.get_by_test_id("notice-count")).to_have_text("1")
    expect(page.get_by_test_id("watch-summary")).to_contain_text("vence en 12 días")
    _shots(page, shots, "home-watch")

    webhooks = WebhooksPage(page)
    webhooks.open_from_navigation()
    webhooks.register(f"{receiver.url}/hook", "ERP central", events=("Comprobante emitido",))
    expect(webhooks.secret).to_be_visible()
    assert webhooks.secret.input_value().startswith("whsec_")
    _shots(page, shots, "webhooks-created")

    webhooks.open_webhook(f"{receiver.url}/hook")
    webhooks.send_test_event()
    expect(webhooks.status).to_contain_text("evento de prueba")
    drain(live_service.app)
    page.reload()
    expect(webhooks.attempts).to_contain_text("Entregada")
    _shots(page, shots, "webhook-detail")
    page.set_viewport_size(PHONE)  # one card per attempt, not a 580 px table scrolled sideways
    labels = ["Momento", "Evento", "Respuesta", "Duración", "Entrega"]
    assert row_cells(webhooks.attempts.first) == [[label, True] for label in labels]
    page.set_viewport_size(DESKTOP)

    page.get_by_test_id("notice-bell").click()
    notice = page.get_by_test_id("notice").first
    expect(notice).to_contain_text("certificado")
    _shots(page, shots, "avisos")
    notice.get_by_role("button", name="Marcar como leído").click()
    expect(page.get_by_test_id("notice-count")).to_have_count(0)
    expect(page.get_by_role("link", name="Cargar el certificado nuevo")).to_be_visible()


def test_deleting_a_webhook_asks_in_a_modal_and_without_javascript_on_a_page(
    page: Page, browser, live_portal, receiver
):
    """With script "Borrar" opens a real modal dialog; without it, it did nothing and now opens the question on
    a page of its own."""
    Shell(page).sign_in("admin@demo.uy")
    webhooks = WebhooksPage(page)
    page.goto("/webhooks/")
    webhooks.register(f"{receiver.url}/one", "Uno", events=("Comprobante emitido",))
    settled(page)
    page.goto("/webhooks/")
    webhooks.open_webhook(f"{receiver.url}/one")
    settled(page)
    page.get_by_role("button", name="Borrar", exact=True).click()
    dialog = page.get_by_role("dialog", name="¿Borrar este webhook?")
    expect(dialog).to_be_visible()
    assert page.evaluate("document.querySelector('#delete-webhook').matches(':modal')")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(page.get_by_role("button", name="Borrar", exact=True)).to_be_focused()
    page.get_by_role("button", name="Borrar", exact=True).click()
    dialog.get_by_role("button", name="Borrar el webhook").click()
    settled(page)
    expect(page.get_by_text("Borraste el webhook.")).to_be_visible()

    context = browser.new_context(java_script_enabled=False, base_url=live_portal.url)
    try:
        plain = context.new_page()
        Shell(plain).sign_in("admin@demo.uy")
        plain.goto("/webhooks/")
        WebhooksPage(plain).register(f"{receiver.url}/two", "Dos", events=("Comprobante emitido",))
        plain.goto("/webhooks/")
        WebhooksPage(plain).open_webhook(f"{receiver.url}/two")
        plain.get_by_role("button", name="Borrar", exact=True).click()
        expect(plain.get_by_role("heading", level=1)).to_have_text("¿Borrar este webhook?")
        plain.get_by_role("button", name="Borrar el webhook").click()
        expect(plain.get_by_text("Borraste el webhook.")).to_be_visible()
        expect(plain.get_by_role("link", name=f"{receiver.url}/two")).to_have_count(0)
    finally:
        context.close()


def test_a_failed_test_event_is_said_beside_the_badge_without_reloading(page: Page, live_service, receiver, shots):
    """After "Enviar evento de prueba" to a system that answers HTTP 500 the page said "Activo" and "no attempts
    yet" until the admin reloaded it, and then only "Fallando desde": now it waits for the test's attempt and says
    beside the badge that the last delivery failed, when (in Montevideo time) and how, in Spanish and in English."""
    receiver.script.statuses = [500]
    url = f"{receiver.url}/erp"
    Shell(page).sign_in("admin@demo.uy")
    webhooks = WebhooksPage(page)
    page.goto("/webhooks/")
    webhooks.register(url, "ERP central", events=("Comprobante emitido",))
    settled(page)
    page.goto("/webhooks/")
    webhooks.open_webhook(url)
    webhooks.send_test_event()
    expect(webhooks.status).to_contain_text("evento de prueba")
    drain(live_service.app)  # the worker sends it; the page is left as it is
    with live_service.app.app_context():
        at = db.session().scalars(select(WebhookAttempt.attempted_at)).one()
    when = (at if at.tzinfo else at.replace(tzinfo=UTC)).astimezone(ZoneInfo("America/Montevideo"))
    shown = when.strftime("%d/%m/%Y %H:%M")
    expect(webhooks.last_delivery).to_have_text(
        f"La última entrega, el evento de prueba, falló el {shown}: tu sistema respondió HTTP 500."
    )
    expect(webhooks.state).to_contain_text("Fallando desde")
    expect(webhooks.state).not_to_contain_text("Activo")
    expect(webhooks.attempts).to_have_count(1)
    both_widths(page, shots, "webhook-test-failed")

    page.get_by_role("button", name="English").click()
    expect(webhooks.last_delivery).to_have_text(
        f"The last delivery, the test event, failed on {shown}: your system answered HTTP 500."
    )
    page.goto("/webhooks/")
    expect(page.get_by_test_id("webhook-row")).to_contain_text("Failing since")
    both_widths(page, shots, "webhooks-failing-en")
