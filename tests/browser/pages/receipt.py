"""A receipt's page: its title, its road to DGI and to an electronic receiver, and what a person does there
(issue its correction, start the credit note a receiver's rejection asks for, send it by e-mail)."""

from __future__ import annotations

from playwright.sync_api import Locator, Page, expect


class MailSection:
    """The "Enviar por correo" section: the addresses typed, "Enviar", the history of sends."""

    def __init__(self, page: Page):
        self.page = page
        self.root = page.locator("#mail-send")

    @property
    def heading(self) -> Locator:
        return self.root.get_by_role("heading", name="Enviar por correo")

    def send_to(self, addresses: str) -> None:
        self.root.get_by_label("Direcciones de correo").fill(addresses)
        self.root.get_by_role("button", name="Enviar").click()

    @property
    def queued(self) -> Locator:
        return self.root.get_by_test_id("mail-queued")

    def history(self) -> Locator:
        return self.root.get_by_test_id("mail-history")


class ReceiptPage:
    """One issued receipt (`/comprobantes/<id>`)."""

    def __init__(self, page: Page):
        self.page = page
        self.mail = MailSection(page)
        self.channels = page.get_by_test_id("channels")
        self.dgi_panel = page.get_by_test_id("dgi-panel")
        self.dgi_state = page.get_by_test_id("dgi-state")
        self.exchange_state = page.get_by_test_id("exchange-state")
        self.exchange_reasons = page.get_by_test_id("exchange-reasons")
        self.credit_note_offer = page.get_by_test_id("exchange-credit-note")

    def open(self, receipt_id: str) -> None:
        self.page.goto(f"/comprobantes/{receipt_id}")

    @property
    def title(self) -> Locator:
        return self.page.get_by_role("heading", level=1)

    def issue_corrected(self) -> None:
        """ "Emitir corregido" (a button, or a link without JavaScript): the issuing form, filled from the receipt."""
        self.page.get_by_role("button", name="Emitir corregido").or_(
            self.page.get_by_role("link", name="Emitir corregido")
        ).click()
        expect(self.page.get_by_test_id("correcting")).to_be_visible()

    def start_credit_note_for_rejection(self) -> None:
        """The receiver rejected it commercially: the credit note's form, its reason the receiver's motive."""
        self.credit_note_offer.click()
        expect(self.reference_reason).to_be_visible()

    @property
    def reference_reason(self) -> Locator:
        """The issuing form's reason for its reference (the note's razón)."""
        return self.page.locator("[name=ref_razon]")
