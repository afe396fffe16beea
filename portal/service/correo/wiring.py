"""What correo registers with comprobante (comprobante.hooks): the `correo` section of a receipt's answer, its
e-mail sends summed up, so the receipt's page needs no second call. Run by the app factory (each area's
`wiring.init_app`)."""

from __future__ import annotations

from flask import Flask

from portal.service.comprobante import hooks
from portal.service.correo.tracking import mail_summary


def init_app(app: Flask) -> None:
    hooks.add_receipt_sections("correo", hooks.ReceiptSections(mail=mail_summary))
