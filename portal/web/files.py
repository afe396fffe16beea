"""The portal's one way to hand a file to the browser: its name made safe (whoever chose it, the service or
an upload), shown inline or downloaded."""

from __future__ import annotations

from flask import Response
from werkzeug.utils import secure_filename


def safe_filename(name: str | None, fallback: str = "archivo") -> str:
    """Only letters, digits, dots, dashes and underscores: no path, quote, newline or header of its own."""
    return secure_filename(name or "") or fallback


def file_response(content: bytes, mimetype: str, filename: str | None, *, inline: bool) -> Response:
    response = Response(content, mimetype=mimetype)
    disposition = "inline" if inline else "attachment"
    response.headers["Content-Disposition"] = f'{disposition}; filename="{safe_filename(filename)}"'
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response
