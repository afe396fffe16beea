"""A person changes their password at the identity provider, reached through the portal's header: refused with
the reasons next to the fields and the summary focused, then changed, and back to the portal. Both widths, axe on
every page. Screenshots with CFE_SHOTS_DIR."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.pages import Shell, both_widths
from tests.browser.pages.password import PasswordPage


def test_a_person_changes_their_password_from_the_portal(page: Page, shots, live_service):
    shell = Shell(page)
    shell.open_home_and_sign_in("usuario@demo.uy")
    password = PasswordPage(page)
    password.open_from_the_header()
    assert page.url.startswith(live_service.url + "/cuenta/contrasena")
    both_widths(page, shots, "password-form")

    password.change("demo-password", "corta", "otra")
    summary = password.error_summary()
    expect(summary).to_be_focused()
    expect(summary).to_contain_text("al menos 12 caracteres")
    expect(password.field("Contraseña nueva")).to_have_accessible_description(
        "La contraseña nueva tiene que tener al menos 12 caracteres. Al menos 12 caracteres, difícil de adivinar: "
        "mejor una frase de varias palabras. No puede ser tu correo electrónico ni la contraseña actual."
    )
    expect(password.field("Repetí la contraseña nueva")).to_have_accessible_description(
        "Las dos contraseñas nuevas no coinciden."
    )
    both_widths(page, shots, "password-errors")

    password.change("demo-password", "Montevideo2026")  # long enough, and among the first an attacker tries
    expect(password.error_summary()).to_contain_text("fácil de adivinar")

    password.change("demo-password", "una-contraseña-nueva-larga")
    expect(page.get_by_role("heading", name="Cambiaste tu contraseña.")).to_be_visible()
    both_widths(page, shots, "password-changed")
    password.go_back_to_the_portal()
    # The portal's tokens were revoked with the change: it signs in again through the provider, whose session this
    # browser kept, and lands at home without asking.
    expect(page.get_by_test_id("who-email")).to_have_text("usuario@demo.uy")
    both_widths(page, shots, "password-back-home")
    shell.assert_no_csp_violations()
