"""Client methods of the dgi endpoints."""

from __future__ import annotations

from portal.client.base import Transport


class DgiApi(Transport):
    """The dgi endpoints (one method per endpoint)."""
