"""The portal's settings: development defaults, everything overridable from the environment."""

from __future__ import annotations

import os
from datetime import timedelta

from portal import paths
from portal.devsecrets import read_secret


def _env(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    return value if value not in (None, "") else default


def load_config() -> dict:
    var = paths.var_dir()
    return {
        "SECRET_KEY": _env("PORTAL_SECRET_KEY") or read_secret("portal-secret-key"),
        "CFE_SERVICE_URL": _env("CFE_SERVICE_URL", "http://127.0.0.1:8000"),
        # Where the browser reaches the identity provider (usually the same as the service URL).
        "OIDC_ISSUER": _env("CFE_ISSUER_URL", _env("CFE_SERVICE_URL", "http://127.0.0.1:8000")),
        "OIDC_CLIENT_ID": _env("CFE_PORTAL_CLIENT_ID", "cfe-portal"),
        "OIDC_CLIENT_SECRET": _env("CFE_PORTAL_CLIENT_SECRET") or read_secret("portal-client-secret"),
        "SERVICE_CONNECT_TIMEOUT": float(_env("PORTAL_SERVICE_CONNECT_TIMEOUT", "3.05")),
        "SERVICE_READ_TIMEOUT": float(_env("PORTAL_SERVICE_READ_TIMEOUT", "20")),
        "PORTAL_DATABASE_URL": _env("PORTAL_DATABASE_URL", f"sqlite:///{var / 'portal.db'}"),
        # Server-side sessions: the cookie carries only a random id; tokens stay here.
        "SESSION_REDIS_URL": _env("PORTAL_SESSION_REDIS_URL"),
        "SESSION_DIR": _env("PORTAL_SESSION_DIR", str(var / "portal-sessions")),
        "IDLE_TIMEOUT": timedelta(minutes=int(_env("PORTAL_IDLE_MINUTES", "30"))),
        "ABSOLUTE_TIMEOUT": timedelta(hours=int(_env("PORTAL_ABSOLUTE_HOURS", "12"))),
        # Where browsers reach the portal. When it is https, cookies are Secure and HSTS is sent (create_app);
        # PORTAL_SECURE_COOKIES=0/1 forces the cookies either way.
        "PUBLIC_URL": _env("PORTAL_PUBLIC_URL", "http://127.0.0.1:5000"),
        "SECURE_COOKIES": None if _env("PORTAL_SECURE_COOKIES") is None else _env("PORTAL_SECURE_COOKIES") == "1",
        "HSTS_SECONDS": int(_env("PORTAL_HSTS_SECONDS", str(365 * 24 * 3600))),
    }
