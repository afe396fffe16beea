"""Absolute URLs the service hands out, built from its configured public URL (`CFE_ISSUER_URL`) only.

Flask's `url_for(..., _external=True)` takes the scheme and host from the request, so a request sent with
`Host: evil.example` would get links to evil.example back (and a cache in front could keep them for others).
The service knows where it is published; the request's Host header is never part of a URL it returns."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from flask import current_app


def public_url(endpoint: str, **values: Any) -> str:
    """The absolute URL of `endpoint` under the configured public URL (its scheme, host and path prefix)."""
    public = urlsplit(current_app.config["ISSUER"])
    adapter = current_app.url_map.bind(public.netloc, script_name=public.path or "/", url_scheme=public.scheme)
    return adapter.build(endpoint, values, force_external=True)
