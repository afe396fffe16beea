"""A person signs in as each role, sees that role's navigation, switches language and signs out."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.pages import Shell, SignInPage, both_widths, nav_link
from tests.support.new_company import as_a_new_company


@pytest.mark.parametrize(
    ("email", "nav"),
    [
        (
            "admin@demo.uy",
            [
                "Comprobantes",
                "Recibidos",
                "Emisión inteligente",
                "Informes",
                "Clientes",
                "Productos",
                # under "Más"
                "Claves de API",
                "DGI",
                "Cotizaciones",
                "Envíos a DGI",
                "Empresa",
                "Webhooks",
            ],
        ),
        (
            "soporte@demo.uy",
            [
                "Comprobantes",
                "Recibidos",
                "Emisión inteligente",
                "Informes",
                "Clientes",
                "Productos",
                # under "Más"
                "Claves de API",
                "DGI",
                "Cotizaciones",
                "Envíos a DGI",
                "Auditoría",
            ],
        ),
        (
            "usuario@demo.uy",
            [
                "Comprobantes",
                "Recibidos",
                "Emisión inteligente",
                "Informes",
                "Clientes",
                "Productos",
                "DGI",
                "Cotizaciones",
            ],
        ),
    ],
)
def test_each_role_signs_in_sees_its_navigation_switches_language_and_signs_out(page: Page, email, nav):
    shell = Shell(page)
    shell.sign_in_through_the_pages(email)
    assert shell.nav_labels() == nav
    shell.assert_no_csp_violations()

    page.get_by_role("button", name="English").click()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.get_by_role("heading", name="Your day")).to_be_visible()
    for label in shell.nav_labels():
        link = nav_link(page, label, exact=True)  # opens "Más" for the settings and support pages
        with page.expect_navigation():  # loaded, its stylesheets applied, before the next link is looked for
            link.click()
        shell.assert_no_csp_violations()
    page.get_by_role("button", name="Español").click()
    expect(page.locator("html")).to_have_attribute("lang", "es-UY")

    shell.sign_out()
    expect(page.get_by_role("button", name="Ingresar").first).to_be_visible()
    page.goto("/comprobantes/")
    expect(page.get_by_label("Correo electrónico")).to_be_visible()  # back at the provider's sign-in
    shell.assert_no_csp_violations()


def test_stale_session_on_an_htmx_request_lands_on_the_sign_in_page(page: Page, context):
    shell = Shell(page)
    shell.open_home_and_sign_in("usuario@demo.uy")
    context.clear_cookies()  # both the portal's session and the provider's are gone
    page.get_by_role("button", name="Actualizar").click()
    expect(page.get_by_label("Correo electrónico")).to_be_visible()
    shell.assert_no_csp_violations()


def test_htmx_refresh_swaps_only_the_day_summary(page: Page):
    shell = Shell(page)
    shell.open_home_and_sign_in("soporte@demo.uy")
    expect(page.get_by_role("heading", name="Comprobantes de hoy")).to_be_visible()
    page.evaluate("document.title = 'marker'")
    page.evaluate("document.getElementById('day-summary').dataset.before = 'yes'")
    page.get_by_role("button", name="Actualizar").click()
    expect(page.locator("#day-summary[data-before]")).to_have_count(0)  # a new summary was swapped in
    expect(page.get_by_role("heading", name="Estado ante DGI")).to_be_visible()
    assert page.title() == "marker"  # the page was not reloaded: only the summary was swapped
    shell.assert_no_csp_violations()


def test_a_new_company_is_told_what_is_left_to_set_up_at_both_widths(page: Page, live_service, shots):
    """The home's "Antes de emitir" for an admin of a company with nothing set up: each step a link to the page
    that does it, readable at 1366 and 390 px (axe, no sideways scroll)."""
    as_a_new_company(live_service.app)
    Shell(page).open_home_and_sign_in("admin@demo.uy")
    checklist = page.get_by_test_id("setup-checklist")
    expect(checklist.get_by_role("heading", name="Antes de emitir")).to_be_visible()
    expect(checklist.get_by_role("link")).to_have_count(4)
    both_widths(page, shots, "home-setup")


def test_company_switcher_changes_the_working_company(page: Page):
    shell = Shell(page)
    shell.open_home_and_sign_in("admin@demo.uy")
    # A long name ends in "…" clear of the arrow, which Pico draws in the select's right padding: the header's
    # compact padding (.inline-form) left the arrow no room and the name ran under it.
    style = page.get_by_label("Empresa").evaluate(
        "s => { const c = getComputedStyle(s); return [c.textOverflow, parseFloat(c.paddingRight)]; }"
    )
    assert style[0] == "ellipsis" and style[1] >= 32, style
    page.get_by_label("Empresa").select_option(label="Comercial del Norte S.R.L.")
    expect(page.get_by_test_id("who-company")).to_contain_text("Comercial del Norte")
    shell.assert_no_csp_violations()


def test_a_visitor_chooses_english_before_signing_in_and_keeps_it_after(page: Page, context):
    page.goto("/")
    page.get_by_role("button", name="English").click()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    assert not any(c["name"] == "cfe_portal_session" for c in context.cookies())  # still no session
    page.get_by_role("button", name="Sign in").first.click()
    SignInPage(page).sign_in("usuario@demo.uy")
    expect(page.get_by_role("heading", name="Your day")).to_be_visible()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    Shell(page).assert_no_csp_violations()
