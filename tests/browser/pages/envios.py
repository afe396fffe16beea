"""Envíos a DGI: the envelopes and reports, the numbers voided, and the form that voids unused numbers."""

from __future__ import annotations

from playwright.sync_api import Locator, Page


class EnviosPage:
    def __init__(self, page: Page):
        self.page = page
        self.envelopes = page.get_by_test_id("envelopes")
        self.voided = page.get_by_test_id("voided")
        self.overdue = page.get_by_test_id("overdue-summary")

    def open(self) -> None:
        self.page.goto("/envios/")

    def void_numbers(
        self, cfe_type: str | None = None, count: str | None = None, reason: str = "", *, understood: bool = True
    ) -> None:
        """Fill the voiding form (a field not given is left as it is) and press "Anular números"."""
        if cfe_type is not None:
            self.page.get_by_label("Tipo de comprobante").select_option(label=cfe_type)
        if count is not None:
            self.void_count.fill(count)
        if reason:
            self.page.get_by_label("Motivo").fill(reason)
        if understood:
            self.page.get_by_label("Entiendo que esos números no se podrán usar nunca.").check()
        self.page.get_by_role("button", name="Anular números").click()

    @property
    def void_count(self) -> Locator:
        return self.page.get_by_label("Cantidad de números")

    @property
    def void_reason_error(self) -> Locator:
        return self.page.locator("#motivo-error")
