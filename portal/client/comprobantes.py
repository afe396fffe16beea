"""Client methods of the comprobantes endpoints."""

from __future__ import annotations

from portal.client.base import Transport


class ComprobantesApi(Transport):
    """The comprobantes endpoints (one method per endpoint)."""
