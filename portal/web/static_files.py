"""The portal's own stylesheets and scripts under addresses that change with their content (`?v=` and a digest
of the file), which browsers keep for a year without asking again. Without it every page asked the portal once
more for each of them (a 304 four times per page, each a request the portal and the browser pay for). A
release that changes a file changes its address, so nobody runs yesterday's script against today's page; an
address whose digest is not the file's (an old page, a typed address) gets the file with `no-cache`, as before.

Flask has no content addresses of its own, and the libraries that add them (Flask-Static-Digest, whitenoise)
copy the files under new names at build time: a step `make run` and the tests would both need. A digest of the
file, computed once per file and change, is the same guarantee with none."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from flask import Flask, request
from werkzeug.security import safe_join

# A year: the longest lifetime caches are asked to keep a response for in practice (RFC 9111 sets no limit;
# "immutable", RFC 8246, tells them not to revalidate it meanwhile).
ONE_YEAR = 365 * 24 * 3600
_DIGEST_CHARS = 16


class PortalFlask(Flask):
    """Flask, with its static files cached for a year when asked for by their content's address."""

    def get_send_file_max_age(self, filename: str | None) -> int | None:
        asked = request.args.get("v")
        if request.endpoint == "static" and filename and asked and asked == self.static_digest(filename):
            return ONE_YEAR
        return super().get_send_file_max_age(filename)

    def static_digest(self, filename: str) -> str | None:
        """The first characters of the file's SHA-256, or None for a file that is not there. Read again only
        when the file's size or modification time changes (`make run` serves files being edited)."""
        folder = self.static_folder
        path = safe_join(folder, filename) if folder else None
        if path is None:
            return None
        try:
            stat = os.stat(path)
        except OSError:
            return None
        key = (filename, stat.st_mtime_ns, stat.st_size)
        digests: dict[tuple[str, int, int], str] = self.extensions.setdefault("static_digests", {})
        if key not in digests:
            digests[key] = hashlib.sha256(Path(path).read_bytes()).hexdigest()[:_DIGEST_CHARS]
        return digests[key]


def init_app(app: PortalFlask) -> None:
    @app.url_defaults
    def _content_address(endpoint: str, values: dict[str, Any]) -> None:
        if endpoint == "static" and "filename" in values and "v" not in values:
            digest = app.static_digest(values["filename"])
            if digest:
                values["v"] = digest

    @app.after_request
    def _immutable(response):
        # A year-long answer for a content address never changes: browsers need not revalidate it on reload.
        if request.endpoint == "static" and response.cache_control.max_age == ONE_YEAR:
            response.cache_control.immutable = True
        return response
