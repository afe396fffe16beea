"""Transport: what every area's client methods build on (portal/client/<area>.py); one call as one user."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import requests

if TYPE_CHECKING:  # base builds UserApi from the area mixins, which build on Transport: annotations only
    from portal.client.base import CfeClient


class Transport:
    """What every area's methods build on: one call as one user (or API key)."""

    def __init__(self, client: CfeClient, headers: dict[str, str], request_id: str | None):
        self._client = client
        self._headers = headers
        self.request_id = request_id

    def _request(
        self,
        method: str,
        path: str,
        *,
        idempotency_key: str | None = None,
        accept: str = "application/json",
        headers_extra: dict[str, str] | None = None,
        retry_on_status: bool = True,
        **kwargs: Any,
    ) -> requests.Response:
        headers = dict(self._headers)
        headers.update(headers_extra or {})
        headers["X-Request-ID"] = self.request_id or uuid.uuid4().hex
        headers["Accept"] = accept
        if idempotency_key:
            headers["Idempotency-Key"] = idempotency_key
        return self._client._send_request(
            method, path, headers=headers, idempotent=bool(idempotency_key), retry_on_status=retry_on_status, **kwargs
        )

    def _json(self, method: str, path: str, **kwargs: Any) -> Any:
        return self._request(method, path, **kwargs).json()

    def _stream(self, path: str, *, accept: str, **kwargs: Any) -> Iterator[bytes]:
        """A GET whose answer is a file passed on as it arrives (a ZIP of a month's signed XMLs), in chunks of
        STREAM_CHUNK bytes; an error answer is raised before the first chunk, as any call's. The connection goes
        back to the pool once the last chunk has been read, or when the caller stops early."""
        response = self._request("GET", path, accept=accept, stream=True, **kwargs)
        return _chunks(response)


STREAM_CHUNK = 64 * 1024
ZIP = "application/zip"


def _chunks(response: requests.Response) -> Iterator[bytes]:
    try:
        yield from response.iter_content(STREAM_CHUNK)
    finally:
        response.close()
