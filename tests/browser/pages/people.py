"""Empresa › Personas (admins): the company's people, adding one (a new user's one-time password shown once),
changing a member's role and removing them, each asked in a dialog."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.pages import EmpresaPage


class PeoplePage:
    def __init__(self, page: Page):
        self.page = page
        self.listing = page.get_by_test_id("people")

    def open_from_the_empresa_tabs(self) -> None:
        self.page.goto("/empresa/")
        EmpresaPage(self.page).tab("Personas")

    def add(self, email: str, name: str, role: str) -> None:
        form = self.page.get_by_test_id("add-member")
        form.get_by_label("Correo").fill(email)
        form.get_by_label("Nombre y apellido").fill(name)
        form.get_by_label("Rol").select_option(label=role)
        form.get_by_role("button", name="Agregar a la empresa").click()

    @property
    def password_field(self):
        return self.page.get_by_label("Contraseña de un solo uso")

    def row(self, email: str):
        return self.page.get_by_test_id("member-row").filter(has_text=email)

    def change_role(self, email: str, role: str) -> None:
        self.row(email).get_by_role("button", name="Cambiar rol").click()
        dialog = self.page.get_by_role("dialog", name=f"Rol de {email}")
        expect(dialog).to_be_visible()
        dialog.get_by_label("Rol").select_option(label=role)
        dialog.get_by_role("button", name="Guardar el rol").click()

    def remove(self, email: str) -> None:
        self.row(email).get_by_role("button", name="Quitar").click()
        dialog = self.page.get_by_role("dialog", name=f"¿Quitar a {email} de la empresa?")
        expect(dialog).to_be_visible()
        dialog.get_by_role("button", name="Quitar de la empresa").click()
