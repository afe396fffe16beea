"""Webhooks: register an endpoint for some events (its secret shown once), open it, send a test event, read the
attempts."""

from __future__ import annotations

from playwright.sync_api import Locator, Page

from tests.browser.pages import nav_link


class WebhooksPage:
    def __init__(self, page: Page):
        self.page = page
        self.secret = page.get_by_role("textbox", name="Secreto de firma")
        self.attempts = page.get_by_test_id("attempt-row")
        self.state = page.get_by_test_id("webhook-state")  # the badge
        self.last_delivery = page.get_by_test_id("last-delivery")  # how the last delivery failed, beside it

    def open_from_navigation(self) -> None:
        nav_link(self.page, "Webhooks").click()

    def register(self, url: str, description: str, events: tuple[str, ...]) -> None:
        self.page.get_by_label("URL", exact=True).fill(url)
        self.page.get_by_label("Descripción").fill(description)
        for event in events:
            self.page.get_by_label(event).check()
        self.page.get_by_role("button", name="Registrar").click()

    def open_webhook(self, url: str) -> None:
        self.page.get_by_role("link", name=url).click()

    def send_test_event(self) -> None:
        self.page.get_by_role("button", name="Enviar evento de prueba").click()

    @property
    def status(self) -> Locator:
        return self.page.get_by_role("status")
