"""The service's settings: defaults for development, every one overridable from the environment.

Secrets are never defaults: they are read from the environment or from the files `make run` generates in
the gitignored `var/secrets/` folder (see portal/devsecrets.py).
"""

from __future__ import annotations

import os
from decimal import Decimal
from pathlib import Path

from portal import paths
from portal.devsecrets import read_secret


def _env(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    return value if value not in (None, "") else default


def _flag(name: str) -> bool | None:
    value = _env(name)
    return None if value is None else value == "1"


def load_config() -> dict:
    """Settings for `create_app`, from the environment with development defaults."""
    var = paths.var_dir()
    issuer = _env("CFE_ISSUER_URL", "http://127.0.0.1:8000")
    return {
        "DATABASE_URL": _env("CFE_DATABASE_URL", f"sqlite:///{var / 'service.db'}"),
        "ISSUER": issuer.rstrip("/"),
        # Audience of the access tokens the service accepts: the service's own API.
        "API_AUDIENCE": _env("CFE_API_AUDIENCE", "cfe-api"),
        "ACCESS_TOKEN_SECONDS": int(_env("CFE_ACCESS_TOKEN_SECONDS", "600")),
        "REFRESH_TOKEN_SECONDS": int(_env("CFE_REFRESH_TOKEN_SECONDS", str(12 * 3600))),
        "JWT_PRIVATE_KEY_PEM": _env("CFE_JWT_PRIVATE_KEY") or read_secret("jwt-signing-key.pem"),
        "SECRET_KEY": _env("CFE_SERVICE_SECRET_KEY") or read_secret("service-secret-key"),
        "API_KEY_PEPPER": _env("CFE_API_KEY_PEPPER") or read_secret("api-key-pepper"),
        "FIELD_ENCRYPTION_KEY": _env("CFE_FIELD_ENCRYPTION_KEY") or read_secret("field-encryption-key"),
        # The portal is a registered OIDC client; seed creates it from these.
        "PORTAL_CLIENT_ID": _env("CFE_PORTAL_CLIENT_ID", "cfe-portal"),
        "PORTAL_CLIENT_SECRET": _env("CFE_PORTAL_CLIENT_SECRET") or read_secret("portal-client-secret"),
        "PORTAL_REDIRECT_URIS": (_env("CFE_PORTAL_REDIRECT_URIS", "http://127.0.0.1:5000/auth/callback") or "").split(),
        "PORTAL_POST_LOGOUT_URIS": (_env("CFE_PORTAL_POST_LOGOUT_URIS", "http://127.0.0.1:5000/") or "").split(),
        # limits storage: memory:// for one process, redis://host:port/db when several serve the API.
        "RATELIMIT_STORAGE_URL": _env("CFE_RATELIMIT_STORAGE_URL", "memory://"),
        # Background work (portal/service/jobs.py): huey on SQLite for one machine, redis://... for several.
        "JOBS_URL": _env("CFE_JOBS_URL", f"sqlite:///{var / 'jobs.db'}"),
        "CFE_XSD_DIR": str(paths.xsd_dir()),
        # Unidad Indexada in UYU for an issue year missing from the ui_value table (indices area), which
        # holds the value of 31 December of each previous year (Tabla E threshold = 5,000 UI).
        "UI_VALUE_UYU": Decimal(_env("CFE_UI_VALUE_UYU", "6.1642")),
        # How long a write waits for the database's write lock before answering 503 with Retry-After.
        "WRITE_LOCK_TIMEOUT_SECONDS": float(_env("CFE_WRITE_LOCK_TIMEOUT_SECONDS", "2")),
        "MAX_BODY_BYTES": int(_env("CFE_MAX_BODY_BYTES", str(2 * 1024 * 1024))),
        # Unset: on exactly when the issuer's public URL is https (see create_app); "0"/"1" forces either way.
        "SECURE_COOKIES": _flag("CFE_SECURE_COOKIES"),
        "HSTS_SECONDS": int(_env("CFE_HSTS_SECONDS", str(365 * 24 * 3600))),
        # The provider's sign-in session (server-side; the cookie holds only its random id).
        "IDP_SESSION_HOURS": int(_env("CFE_IDP_SESSION_HOURS", "12")),
        "STATIC_DIR": str(paths.static_dir()),
        # Sending receipts to DGI (portal/service/envios): which reception, DGI's RUT, and timings.
        "DGI_RECEPTION": _env("CFE_DGI_RECEPTION", "simulator"),  # simulator | soap
        "DGI_RUT": _env("CFE_DGI_RUT", "214844360018"),
        # ws_efactura (CFE_DGI_RECEPTION=soap): endpoint (default: the WSDL's, DGI's test host) and timeout.
        "DGI_RECEPTION_URL": _env("CFE_DGI_RECEPTION_URL", ""),
        "DGI_RECEPTION_TIMEOUT_SECONDS": float(_env("CFE_DGI_RECEPTION_TIMEOUT_SECONDS", "30")),
        "ENVIOS_DEBOUNCE_SECONDS": float(_env("CFE_ENVIOS_DEBOUNCE_SECONDS", "1")),
        "ENVIOS_OVERDUE_MINUTES": int(_env("CFE_ENVIOS_OVERDUE_MINUTES", "10")),
        # A sender's claim on an envelope or report; longer than the slowest DGI call (SOAP timeout).
        "ENVIOS_SEND_LEASE_SECONDS": float(_env("CFE_ENVIOS_SEND_LEASE_SECONDS", "60")),
        "DGI_SIMULATOR_ANSWER_SECONDS": float(_env("CFE_DGI_SIMULATOR_ANSWER_SECONDS", "2")),
        # Development only, off by default: receivers named "<marker>E07" get that DGI rejection (README).
        "DGI_SIMULATOR_REJECT_MARKER": _env("CFE_DGI_SIMULATOR_REJECT_MARKER", ""),
    }


def project_var_dir() -> Path:
    return paths.var_dir()
