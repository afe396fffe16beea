"""An admin manages the company's people in the browser: adds a person and copies their one-time password,
shown once; changes a member's role and removes one, each asked in a dialog; the page fits 1366 and 390 px."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.pages import Shell, both_widths
from tests.browser.pages.people import PeoplePage

USER_ROLE = "Usuario"
SUPPORT_ROLE = "Soporte"


def test_admin_adds_a_person_sees_the_password_once_changes_a_role_and_removes_one(page: Page, context, shots):
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    shell = Shell(page)
    shell.sign_in("admin@demo.uy")
    people = PeoplePage(page)
    people.open_from_the_empresa_tabs()
    expect(people.row("usuario@demo.uy")).to_contain_text("Usuario")
    both_widths(page, shots, "people-list")

    people.add("ana.perez@empresa.uy", "Ana Pérez", SUPPORT_ROLE)
    expect(people.password_field).to_be_visible()
    expect(people.password_field).to_be_focused()
    password = people.password_field.input_value()
    assert len(password) >= 20
    expect(people.row("ana.perez@empresa.uy")).to_contain_text("Soporte")
    both_widths(page, shots, "people-password")
    page.get_by_role("button", name="Copiar").click()
    expect(page.get_by_role("button", name="Copiada")).to_be_visible()
    assert page.evaluate("navigator.clipboard.readText()") == password
    assert password not in page.url

    people.change_role("ana.perez@empresa.uy", USER_ROLE)
    expect(people.row("ana.perez@empresa.uy")).to_contain_text("Usuario")
    expect(people.password_field).to_have_count(0)  # shown once: not after the next page
    assert password not in page.content()

    people.row("usuario@demo.uy").get_by_role("button", name="Quitar").click()
    dialog = page.get_by_role("dialog", name="¿Quitar a usuario@demo.uy de la empresa?")
    both_widths(page, shots, "people-remove-dialog")
    dialog.get_by_role("button", name="Quitar de la empresa").click()
    expect(people.row("usuario@demo.uy")).to_have_count(0)
    expect(page.get_by_role("status")).to_contain_text("Quitaste a usuario@demo.uy")

    # The last admin stays, and the page says why.
    people.remove("admin@demo.uy")
    expect(page.get_by_text("único administrador")).to_be_visible()
    expect(people.row("admin@demo.uy")).to_be_visible()
    shell.assert_no_csp_violations()


def test_a_refused_addition_keeps_the_input_with_the_error_next_to_it(page: Page, shots):
    Shell(page).sign_in("admin@demo.uy")
    people = PeoplePage(page)
    page.goto("/empresa/personas")
    people.add("usuario@demo.uy", "Otra Vez", USER_ROLE)
    form = page.get_by_test_id("add-member")
    expect(form.get_by_label("Correo")).to_have_value("usuario@demo.uy")
    expect(form.get_by_label("Nombre y apellido")).to_have_value("Otra Vez")
    expect(form.get_by_text("ya es miembro")).to_be_visible()
    both_widths(page, shots, "people-refused")
