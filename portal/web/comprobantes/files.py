"""Files the area hands to the browser: PDFs shown inline (framed by the portal's own pages), XML downloads."""

from __future__ import annotations

from flask import Response
from werkzeug.utils import secure_filename


def file_response(content: bytes, mimetype: str, filename: str, *, inline: bool) -> Response:
    response = Response(content, mimetype=mimetype)
    name = secure_filename(filename) or "comprobante"
    response.headers["Content-Disposition"] = f'{"inline" if inline else "attachment"}; filename="{name}"'
    return response


def signed_name(original: str | None) -> str:
    """factura.xml -> factura-firmado.xml (only safe characters, whatever the upload was called)."""
    stem = secure_filename(original or "").rsplit(".", 1)[0] or "comprobante"
    return f"{stem}-firmado.xml"
