"""The service's one way to answer a file: its name made safe (a stored attachment's name came from
elsewhere), shown inline or downloaded, varying with what the client accepts."""

from __future__ import annotations

from collections.abc import Iterable

from flask import Response
from werkzeug.utils import secure_filename


def safe_filename(name: str | None, fallback: str = "archivo") -> str:
    """Only letters, digits, dots, dashes and underscores: no path, quote, newline or header of its own."""
    return secure_filename(name or "") or fallback


def file_response(
    content: bytes | Iterable[str] | Iterable[bytes],
    mimetype: str,
    filename: str | None,
    *,
    inline: bool,
    vary: Iterable[str] = (),
) -> Response:
    response = Response(content, mimetype=mimetype)
    disposition = "inline" if inline else "attachment"
    response.headers["Content-Disposition"] = f'{disposition}; filename="{safe_filename(filename)}"'
    for header in vary:
        response.vary.add(header)
    return response
