"""How views reach the service: `api()` gives the backend client bound to the signed-in user.

The access token is refreshed here, on the server, shortly before it expires; the browser never sees it.
A refresh that fails (revoked, expired) ends the session and raises SessionExpired, which the error
handlers turn into "sign in again" (401 + HX-Redirect for htmx).
"""

from __future__ import annotations

import logging
import time

from flask import current_app, g, session
from flask_babel import get_locale

from portal.client import CfeClient, CfeError, UserApi
from portal.web.auth.session import store_token, update_companies
from portal.web.extensions import oidc

log = logging.getLogger("portal.web.backend")
_REFRESH_MARGIN_SECONDS = 30


class SessionExpired(Exception):
    """The user's tokens can no longer be used: they must sign in again."""


def service_client() -> CfeClient:
    """The process-wide client (one connection pool per process)."""
    client = current_app.extensions.get("cfe_client")
    if client is None:
        client = CfeClient(
            current_app.config["CFE_SERVICE_URL"],
            connect_timeout=current_app.config["SERVICE_CONNECT_TIMEOUT"],
            read_timeout=current_app.config["SERVICE_READ_TIMEOUT"],
        )
        current_app.extensions["cfe_client"] = client
    return client


def _fresh_access_token() -> str:
    tokens = session.get("tokens")
    if not tokens:
        raise SessionExpired()
    if tokens["expires_at"] - _REFRESH_MARGIN_SECONDS > time.time():
        return tokens["access_token"]
    if not tokens.get("refresh_token"):
        raise SessionExpired()
    try:
        new = oidc().refresh(tokens["refresh_token"])
    except CfeError as exc:  # refused (revoked, expired) or unreachable: sign in again
        log.info("token refresh failed: %s", exc.message)
        raise SessionExpired() from exc
    store_token(new)
    try:  # a role changed or a membership removed since the sign-in shows from here on
        update_companies(service_client().as_user(new.access_token, locale=str(get_locale() or "es")).userinfo())
    except CfeError as exc:  # the token is good: this request goes on with the companies known so far
        log.info("companies not read again after the token refresh: %s", exc.message)
    return new.access_token


def api() -> UserApi:
    """The service, as the signed-in user acting for their current company."""
    return service_client().as_user(
        _fresh_access_token(),
        company_id=session.get("company_id"),
        locale=str(get_locale() or "es"),
        request_id=g.get("request_id"),
    )
