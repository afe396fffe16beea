"""Page objects for the browser tests: what a person sees and does, by role and label."""

from __future__ import annotations

from playwright.sync_api import Page, expect

DEMO_PASSWORD = "demo-password"


class SignInPage:
    def __init__(self, page: Page):
        self.page = page

    def sign_in(self, email: str, password: str = DEMO_PASSWORD) -> None:
        self.page.get_by_label("Correo electrónico").or_(self.page.get_by_label("E-mail")).fill(email)
        self.page.get_by_label("Contraseña").or_(self.page.get_by_label("Password")).fill(password)
        self.page.get_by_role("button", name="Ingresar").or_(
            self.page.get_by_role("button", name="Sign in")).click()


class Shell:
    """The layout every portal page shares."""

    def __init__(self, page: Page):
        self.page = page

    def open_home_and_sign_in(self, email: str) -> None:
        self.page.goto("/")
        self.page.get_by_role("button", name="Ingresar").first.click()
        SignInPage(self.page).sign_in(email)
        expect(self.page.get_by_test_id("who-email")).to_have_text(email)

    def nav_labels(self) -> list[str]:
        return self.page.locator("ul.areas a").all_inner_texts()

    def sign_out(self) -> None:
        self.page.get_by_role("button", name="Salir").or_(self.page.get_by_role("button", name="Sign out")).click()

    def assert_no_csp_violations(self) -> None:
        assert self.page.evaluate("window.__cspViolations || []") == []
