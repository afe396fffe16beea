"""The identity provider's password change, reached from the portal's header."""

from __future__ import annotations

from playwright.sync_api import Page, expect


class PasswordPage:
    def __init__(self, page: Page):
        self.page = page

    def open_from_the_header(self) -> None:
        """The header's "Cambiar contraseña" (behind "Menú" on a phone): the provider's own page."""
        menu = self.page.get_by_role("button", name="Menú")
        if menu.is_visible():
            menu.click()
        self.page.get_by_role("link", name="Cambiar contraseña").click()
        expect(self.page.get_by_role("heading", name="Cambiá tu contraseña")).to_be_visible()

    def change(self, current: str, new: str, again: str | None = None) -> None:
        self.page.get_by_label("Contraseña actual").fill(current)
        self.page.get_by_label("Contraseña nueva", exact=True).fill(new)
        self.page.get_by_label("Repetí la contraseña nueva").fill(new if again is None else again)
        self.page.get_by_role("button", name="Cambiar contraseña").click()

    def error_summary(self):
        return self.page.get_by_role("alert")

    def field(self, label: str):
        return self.page.get_by_label(label, exact=True)

    def go_back_to_the_portal(self) -> None:
        self.page.get_by_role("button", name="Volver a Portal CFE").click()
