"""CfeClient: one `requests.Session` per process, timeouts on every call, retries only where safe."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import requests
from requests.adapters import HTTPAdapter
from urllib3.exceptions import ReadTimeoutError
from urllib3.util.retry import Retry

from portal.client import errors
from portal.client.api import UserApi
from portal.client.kept import KeptAnswers

if TYPE_CHECKING:
    from portal.client.comprobantes import IssuedReceipt

log = logging.getLogger("portal.client")

# Retries cover a restarting service (connection refused, 502/503/504), never a 500 from our own request,
# and only methods that cannot do something twice: GET, or a POST that carries an Idempotency-Key
# (UserApi._request marks those).
_RETRY_STATUSES = (502, 503, 504)
MAX_RETRY_AFTER_SECONDS = 3


class _CappedRetry(Retry):
    """A Retry-After longer than a person will wait in a web request is cut to a few seconds.

    A 429 is never retried here: it goes back to the caller (RateLimited, with retry_after) to decide.
    """

    RETRY_AFTER_STATUS_CODES = frozenset({503})

    def parse_retry_after(self, retry_after: str) -> float:
        return min(super().parse_retry_after(retry_after), MAX_RETRY_AFTER_SECONDS)


class CfeClient:
    """The process-wide client: holds the connection pool and the settings."""

    def __init__(
        self,
        base_url: str,
        *,
        connect_timeout: float = 3.05,
        read_timeout: float = 20.0,
        retries: int = 2,
        user_agent: str = "cfe-portal",
    ):
        self.base_url = base_url.rstrip("/")
        self.timeout = (connect_timeout, read_timeout)
        self.session = requests.Session()
        self.session.headers["User-Agent"] = user_agent
        # Proxies and CA bundle from the environment, read once: every call goes to the same host, and reading
        # them per call (requests scans os.environ each time) cost about 1 ms a request.
        settings = self.session.merge_environment_settings(self.base_url, {}, None, None, None)
        self._verify: bool | str = True if settings["verify"] is None else settings["verify"]
        self._cert: str | tuple[str, str] | None = settings["cert"]
        self._proxies: Mapping[str, str] = settings["proxies"]
        # The receipts last read, by ETag: read again with If-None-Match, a 304 reuses them (get_receipt).
        self.kept_receipts: KeptAnswers[IssuedReceipt] = KeptAnswers()
        self._safe = self._adapter(retries, retry_on_status=True)
        self._unsafe = self._adapter(retries, retry_on_status=False)

    @staticmethod
    def _adapter(retries: int, *, retry_on_status: bool) -> HTTPAdapter:
        # A refused connection never reached the service, so it is retried for every method; a 502/503/504
        # may have, so only safe calls (GET, or POST with an Idempotency-Key) retry on status.
        retry = _CappedRetry(
            total=retries,
            connect=retries,
            read=0,
            status=retries if retry_on_status else 0,
            backoff_factor=0.2,
            status_forcelist=_RETRY_STATUSES,
            allowed_methods=frozenset({"GET", "HEAD", "POST"}),
            respect_retry_after_header=True,
            raise_on_status=False,
        )
        return HTTPAdapter(max_retries=retry, pool_connections=4, pool_maxsize=16)

    def check_available(self) -> None:
        """Raise ServiceUnavailable unless the service answers its /healthz (before sending a browser to it, as
        sign-in does: the browser would otherwise show its own "connection refused" page)."""
        self._send_request("GET", "/healthz", headers={}, idempotent=True)

    def as_user(
        self,
        access_token: str | None = None,
        *,
        company_id: int | None = None,
        api_key: str | None = None,
        locale: str | None = None,
        request_id: str | None = None,
    ) -> UserApi:
        """An API view that sends this caller's credentials with every call."""
        headers = {}
        if access_token:
            headers["Authorization"] = f"Bearer {access_token}"
        if api_key:
            headers["X-API-Key"] = api_key
        if company_id is not None:
            headers["X-Empresa-Id"] = str(company_id)
        if locale:
            headers["Accept-Language"] = locale
        return UserApi(self, headers, request_id)

    def _send_request(
        self,
        method: str,
        path: str,
        *,
        headers: dict[str, str],
        idempotent: bool,
        retry_on_status: bool = True,
        **kwargs: Any,
    ) -> requests.Response:
        """Send one request; raise a CfeError for anything but 2xx. Only `Transport` calls it: what the
        portal sees of the client is `as_user` and the typed methods of `UserApi`."""
        url = self.base_url + path
        safe = (method == "GET" or idempotent) and retry_on_status
        session_adapter = self._safe if safe else self._unsafe
        try:
            response = self._send(session_adapter, method, url, headers, kwargs)
        except (requests.Timeout, requests.ConnectionError) as exc:
            if _is_read_timeout(exc):
                raise errors.ServiceUnavailable(
                    "El servicio CFE no respondió a tiempo.", code="timeout", request_id=headers.get("X-Request-ID")
                ) from exc
            raise errors.ServiceUnavailable(
                "No se pudo conectar con el servicio CFE.", code="unreachable", request_id=headers.get("X-Request-ID")
            ) from exc
        log.info(
            "%s %s -> %s request_id=%s",
            method,
            path,
            response.status_code,
            response.headers.get("X-Request-ID", headers.get("X-Request-ID")),
        )
        if response.status_code >= 400:
            raise _error_from(response, headers.get("X-Request-ID"))
        return response

    def _send(
        self, adapter: HTTPAdapter, method: str, url: str, headers: dict[str, str], kwargs: dict[str, Any]
    ) -> requests.Response:
        # The session's mounted adapter retries; a non-idempotent call goes through the no-retry adapter.
        stream = bool(kwargs.pop("stream", False))  # a download read as it arrives (Transport._stream)
        prepared = self.session.prepare_request(requests.Request(method, url, headers=headers, **kwargs))
        return adapter.send(
            prepared, stream=stream, timeout=self.timeout, verify=self._verify, cert=self._cert, proxies=self._proxies
        )


def _is_read_timeout(exc: Exception) -> bool:
    # With retries on, urllib3 wraps a read timeout in MaxRetryError and requests reports ConnectionError.
    if isinstance(exc, requests.ReadTimeout):
        return True
    reason = getattr(exc.args[0], "reason", None) if exc.args else None
    return isinstance(reason, ReadTimeoutError)


def _error_from(response: requests.Response, sent_request_id: str | None) -> errors.CfeError:
    request_id = response.headers.get("X-Request-ID", sent_request_id)
    code, message = "http_error", f"El servicio respondió {response.status_code}."
    fields: tuple[errors.FieldError, ...] = ()
    try:
        body = response.json()["error"]
        code, message = body.get("code", code), body.get("message", message)
        fields = tuple(errors.FieldError(f["field"], f["code"], f["message"]) for f in body.get("fields") or [])
    except (ValueError, KeyError, TypeError):
        pass
    retry_after = response.headers.get("Retry-After")
    cls = errors.error_for_status(response.status_code)
    return cls(
        message,
        status=response.status_code,
        code=code,
        fields=fields,
        request_id=request_id,
        retry_after=float(retry_after) if retry_after and retry_after.isdigit() else None,
    )
