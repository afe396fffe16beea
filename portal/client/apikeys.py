"""Client methods of the apikeys endpoints."""

from __future__ import annotations

from portal.client.base import Transport


class ApiKeysApi(Transport):
    """The apikeys endpoints (one method per endpoint)."""
