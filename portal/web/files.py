"""The portal's one way to hand a file to the browser: its name made safe (whoever chose it, the service or
an upload), shown inline or downloaded."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date
from urllib.parse import quote

from flask import Response
from werkzeug.utils import secure_filename

# What a file name may not carry into a header or a file system: controls, quotes, slashes, and the characters
# Windows refuses.
_UNSAFE = re.compile(r'[\x00-\x1f\x7f"\\/:*?<>|]+')


def safe_filename(name: str | None, fallback: str = "archivo") -> str:
    """Only letters, digits, dots, dashes and underscores: no path, quote, newline or header of its own."""
    return secure_filename(name or "") or fallback


def file_response(content: bytes | Iterable[bytes], mimetype: str, filename: str | None, *, inline: bool) -> Response:
    """`filename` as the browser saves it: an ASCII fallback (filename=) and, when the name has other characters
    (a space, an accent: "e-Ticket A-0000001.pdf"), the name itself percent-encoded (filename*=, RFC 6266),
    neither able to break the header."""
    response = Response(content, mimetype=mimetype)
    fallback = safe_filename(filename)
    header = f'{"inline" if inline else "attachment"}; filename="{fallback}"'
    readable = _UNSAFE.sub("_", filename or "").strip(" .")
    if readable and readable != fallback:
        header += f"; filename*=UTF-8''{quote(readable, safe='')}"
    response.headers["Content-Disposition"] = header
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


def dated_name(stem: str, extension: str, since: date | None = None, until: date | None = None) -> str:
    """A list's download named by the days its filters cover, as the IVA books are ("recibidos-20261101-20261130.csv"):
    a month's file and the next month's are told apart in the downloads folder. A single bound says which it is."""
    if since and until:
        return f"{stem}-{since:%Y%m%d}-{until:%Y%m%d}.{extension}"
    if since or until:
        word, day = ("desde", since) if since else ("hasta", until)
        return f"{stem}-{word}-{day:%Y%m%d}.{extension}"
    return f"{stem}.{extension}"
