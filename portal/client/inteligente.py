"""Client methods of the inteligente endpoints."""

from __future__ import annotations

from portal.client.base import Transport


class InteligenteApi(Transport):
    """The inteligente endpoints (one method per endpoint)."""
