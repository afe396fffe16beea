"""The issuing form as a person fills it from the catalogues: a customer's document typed fills the receiver,
the e-mail, the currency, the rate and the terms; a product picked from the suggestions under a line's
description fills that line. The rest of the form (type, receiver, lines, preview, issue) is ReceiptsPage's."""

from __future__ import annotations

from playwright.sync_api import Locator, Page

from tests.browser.pages import ReceiptsPage


class IssuingForm(ReceiptsPage):
    def __init__(self, page: Page):
        super().__init__(page)
        self.document = page.get_by_label("Número de documento")
        self.receiver_name = page.get_by_label("Nombre o razón social")
        self.address = page.get_by_label("Dirección", exact=True)
        self.mail_to = page.get_by_label("Enviar por correo a")
        self.currency = page.get_by_label("Moneda")
        self.rate = page.get_by_label("Tipo de cambio")
        self.rate_note = page.get_by_test_id("rate-note")
        self.customer_filled = page.get_by_test_id("customer-filled")
        self.product_suggestions = page.get_by_test_id("product-suggestions")

    def line_field(self, n: int, name: str) -> Locator:
        """A line's field by its column ("Descripción", "Cantidad", "Precio unitario", "Unidad")."""
        return self.page.get_by_label(f"{name}, línea {n}")

    def set_terms(
        self,
        *,
        payment: str | None = None,
        currency: str | None = None,
        rate: str | None = None,
        prices_include_tax: bool | None = None,
    ) -> None:
        """The receipt's terms: payment ("Contado", "Crédito"), currency code, exchange rate as typed, and whether
        the prices typed include IVA; what is not given is left as it is."""
        if payment is not None:
            self.page.get_by_label("Forma de pago").select_option(label=payment)
        if currency is not None:
            self.currency.select_option(currency)
        if rate is not None:
            self.rate.fill(rate)
        if prices_include_tax is not None:
            self.page.get_by_label("Los precios incluyen IVA").set_checked(prices_include_tax)

    def type_customer_document(self, doc_type: str, number: str) -> None:
        """Choose the document type (its value: "2" RUT, "3" CI...) and type the number key by key, as a person
        does: the customer with that document fills the receiver."""
        self.page.get_by_label("Tipo de documento").select_option(value=doc_type)
        self.document.focus()
        self.page.keyboard.type(number, delay=20)

    def type_description(self, n: int, text: str) -> None:
        """Type into line `n`'s description key by key: the catalogue's products are suggested under it."""
        self.line_field(n, "Descripción").focus()
        self.page.keyboard.type(text, delay=30)

    def suggestions(self) -> Locator:
        return self.product_suggestions.get_by_role("button")

    def pick_suggestion_with_keyboard(self, n: int, text: str) -> None:
        """From line `n`'s description, arrow down to the suggestion that mentions `text` and press Enter."""
        self.line_field(n, "Descripción").focus()
        for _ in range(self.suggestions().count()):
            self.page.keyboard.press("ArrowDown")
            if text in (self.page.evaluate("document.activeElement.textContent") or ""):
                break
        self.page.keyboard.press("Enter")
