"""Static files (stylesheets, scripts) served under addresses that change with their content: `url_for` adds `?v=`
and a digest of the file, and an address whose digest is the file's is kept by browsers a year without asking
again. Both apps use it: the portal for its pages, the service for the identity provider's sign-in and the API
reference (Swagger UI's 1.7 MB bundle).

Before, the portal's pages asked for each of their four files again on every page (a 304 each) and the service's
were kept an hour. A release that changes a file changes its address, so nobody runs yesterday's script against
today's page; an address whose digest is not the file's (an old page, a typed address) gets the file with
`no-cache`. Flask has no content addresses of its own, and the libraries that add them (Flask-Static-Digest, or
whitenoise's manifest storage in Django) copy the files under new names at build time: a step `make run` and the
tests would both need. A digest of the file, computed once per file and change, is the same guarantee with none.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from flask import Flask, Response, request, send_from_directory
from werkzeug.security import safe_join

# A year: the longest lifetime caches are asked to keep a response for in practice (RFC 9111 sets no limit;
# "immutable", RFC 8246, tells them not to revalidate it meanwhile).
ONE_YEAR = 365 * 24 * 3600
_DIGEST_CHARS = 16


class _Digests:
    """The first characters of each file's SHA-256, read again only when its size or modification time changes
    (`make run` serves files being edited). Kept by the file's normalised path, so bounded by the folder's files
    whatever addresses name them (`css/../css/app.css`, `./css/app.css`)."""

    def __init__(self, folder: str):
        self.folder = folder
        self._known: dict[str, tuple[int, int, str]] = {}

    def of(self, filename: str) -> str | None:
        path = safe_join(self.folder, filename)
        if path is None:
            return None
        try:
            stat = os.stat(path)
        except OSError:
            return None
        known = self._known.get(path)
        if known is None or known[:2] != (stat.st_mtime_ns, stat.st_size):
            digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()[:_DIGEST_CHARS]
            known = self._known[path] = (stat.st_mtime_ns, stat.st_size, digest)
        return known[2]


def init_app(app: Flask, folder: str, endpoint: str) -> None:
    """Serve `folder` at /static/ as `endpoint`, each file's address carrying its digest."""
    digests = app.extensions[f"static_files.{endpoint}"] = _Digests(folder)

    def serve(filename: str) -> Response:
        asked = request.args.get("v")
        kept = bool(asked) and asked == digests.of(filename)
        # Without the file's own digest: Flask's default, `no-cache` (asked again, answered 304 while unchanged).
        response = send_from_directory(folder, filename, max_age=ONE_YEAR if kept else None)
        if kept:
            response.cache_control.immutable = True
        return response

    app.add_url_rule("/static/<path:filename>", endpoint=endpoint, view_func=serve)

    @app.url_defaults
    def _content_address(url_endpoint: str, values: dict[str, Any]) -> None:
        if url_endpoint == endpoint and "filename" in values and "v" not in values:
            digest = digests.of(values["filename"])
            if digest:
                values["v"] = digest
