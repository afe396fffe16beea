"""Files the area hands to the browser: PDFs shown inline (framed by the portal's own pages), XML downloads."""

from __future__ import annotations

import re
from urllib.parse import quote

from flask import Response
from werkzeug.utils import secure_filename

# What a file name may not carry into a header or a file system: controls, quotes, slashes, and the characters
# Windows refuses.
_UNSAFE = re.compile(r'[\x00-\x1f\x7f"\\/:*?<>|]+')


def file_response(content: bytes, mimetype: str, filename: str, *, inline: bool) -> Response:
    """`filename` as the browser saves it: an ASCII fallback (filename=) and, when the name has other characters
    (a space, an accent), the name itself percent-encoded (filename*=, RFC 6266), neither able to break the
    header."""
    response = Response(content, mimetype=mimetype)
    fallback = secure_filename(filename) or "comprobante"
    header = f'{"inline" if inline else "attachment"}; filename="{fallback}"'
    readable = _UNSAFE.sub("_", filename).strip(" .")
    if readable and readable != fallback:
        header += f"; filename*=UTF-8''{quote(readable, safe='')}"
    response.headers["Content-Disposition"] = header
    return response


def receipt_file_name(type_and_number: str, extension: str) -> str:
    """ "e-Ticket A-0000001.pdf": the receipt's type and number, as people name it (not its internal id)."""
    return f"{type_and_number}.{extension}"


def signed_name(original: str | None) -> str:
    """factura.xml -> factura-firmado.xml (only safe characters, whatever the upload was called)."""
    stem = secure_filename(original or "").rsplit(".", 1)[0] or "comprobante"
    return f"{stem}-firmado.xml"
