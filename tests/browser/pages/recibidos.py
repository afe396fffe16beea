"""Comprobantes recibidos: the upload (dropped on the zone or chosen), the list, and a received CFE's page where
a person accepts or rejects it commercially."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Locator, Page, expect


class ReceivedPage:
    def __init__(self, page: Page):
        self.page = page
        self.rows = page.locator("#received-results tbody tr")
        self.totals = page.get_by_test_id("received-totals")
        self.decision = page.get_by_test_id("decision")

    def open(self) -> None:
        self.page.goto("/recibidos/")
        expect(self.page.get_by_role("heading", name="Comprobantes recibidos", level=1)).to_be_visible()

    def drop(self, path: Path) -> None:
        """Drop a file on the zone as a person dragging it from the desktop would (a DataTransfer with the file)."""
        content = list(path.read_bytes())
        data_transfer = self.page.evaluate_handle(
            """([name, bytes]) => { const dt = new DataTransfer();
                dt.items.add(new File([new Uint8Array(bytes)], name, {type: "text/xml"})); return dt; }""",
            [path.name, content],
        )
        self.page.dispatch_event("[data-dropzone-area]", "drop", {"dataTransfer": data_transfer})

    def row(self, number: str) -> Locator:
        """The list's row of the CFE named `number` ("e-Factura A-1")."""
        return self.rows.filter(has=self.page.get_by_role("link", name=number, exact=True))

    def open_cfe(self, number: str) -> None:
        self.page.get_by_role("link", name=number).click()
        expect(self.page.get_by_role("heading", name="Líneas")).to_be_visible()

    def fill_rejection(self, motive: str, detail: str) -> None:
        """The commercial rejection of the CFE open: DGI's motive code (E20-E60) and a detail for the supplier."""
        self.page.get_by_label("Motivo").select_option(motive)
        self.page.get_by_label("Detalle para el proveedor").fill(detail)

    def send_rejection(self) -> None:
        self.page.get_by_role("button", name="Rechazar", exact=True).click()

    def reject(self, motive: str, detail: str) -> None:
        self.fill_rejection(motive, detail)
        self.send_rejection()

    def accept(self) -> None:
        self.page.get_by_role("button", name="Aceptar", exact=True).click()

    def booking_box(self, number: str) -> Locator:
        """The list's box that chooses the CFE named `number` ("e-Factura A-2") for booking, by its accessible name."""
        return self.page.get_by_role("checkbox", name=re.compile(rf"^Elegir {re.escape(number)} de "))

    def book_chosen(self) -> None:
        self.page.get_by_role("button", name="Marcar los elegidos como contabilizados").click()

    def ask_to_reject_chosen(self) -> Locator:
        """Ask to reject the rows chosen: the dialog that asks for one motive for all of them."""
        self.page.get_by_role("button", name="Rechazar los elegidos…").click()
        dialog = self.page.get_by_role("dialog", name=re.compile(r"^¿Rechazar "))
        expect(dialog).to_be_visible()
        return dialog

    def reject_chosen(self, dialog: Locator, motive: str, detail: str, count: int) -> None:
        dialog.get_by_label("Motivo").select_option(motive)
        dialog.get_by_label("Detalle para el proveedor").fill(detail)
        dialog.get_by_role("button", name=f"Rechazar {count} comprobantes").click()
