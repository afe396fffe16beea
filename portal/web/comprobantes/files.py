"""The names of the files the area hands out (portal.web.files answers them)."""

from __future__ import annotations

from portal.web.files import safe_filename


def receipt_file_name(type_and_number: str, extension: str) -> str:
    """ "e-Ticket A-0000001.pdf": the receipt's type and number, as people name it (not its internal id)."""
    return f"{type_and_number}.{extension}"


def signed_name(original: str | None) -> str:
    """factura.xml -> factura-firmado.xml (only safe characters, whatever the upload was called)."""
    stem = safe_filename(original, "comprobante").rsplit(".", 1)[0] or "comprobante"
    return f"{stem}-firmado.xml"
