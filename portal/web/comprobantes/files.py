"""The names of the files the area hands out (portal.web.files answers them)."""

from __future__ import annotations

from portal.web.files import safe_filename


def signed_name(original: str | None) -> str:
    """factura.xml -> factura-firmado.xml (only safe characters, whatever the upload was called)."""
    stem = safe_filename(original, "comprobante").rsplit(".", 1)[0] or "comprobante"
    return f"{stem}-firmado.xml"
